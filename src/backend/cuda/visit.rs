//! Breadth-first push levels fused into one launch (`ops::bfs_push`; kernels
//! in `cuda/visit.cu`).
//!
//! One call costs a statistics kernel (the frontier's size and out-edges and
//! the unvisited vertices' out-edges), one cooperative launch that runs every
//! level until a stop rule holds, and one read of a few counters: a
//! high-diameter search pushes hundreds of levels per host round trip.

use super::device::{from_bytes, Arg};
use super::kernels::ModuleId;
use super::mem::{bit_words, DMat, DVec};
use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::backend::{PushLimits, Pushed};
use crate::error::Result;

/// Counter words (`cuda/visit.cu`: `ST_*`).
const ST_WORDS: usize = 16;
const ST_LEVELS: usize = 8;
const ST_STATS: usize = 12;
/// Threads per block of the cooperative launch.
const BLOCK: u32 = 512;

impl CudaBackend {
    /// `ops::bfs_push` on the device. The kernels read the level vector as
    /// dense values with presence bits and the frontier as packed bits (its
    /// pattern); other forms are converted first (both are outputs).
    pub(super) fn bfs_push_fused(
        &self,
        level: &mut CudaVector<i64>,
        frontier: &mut CudaVector<bool>,
        a: &CudaMatrix<bool>,
        degree: &CudaVector<f64>,
        depth: i64,
        limits: PushLimits,
    ) -> Result<Pushed> {
        let n = a.nrows;
        match &mut frontier.repr {
            DVec::Bits(_) => {}
            DVec::Dense {
                pres: pres @ Some(_),
                ..
            } => {
                frontier.repr = DVec::Bits(pres.take().expect("matched Some"));
            }
            _ => frontier.repr = DVec::Bits(self.owned_dense(frontier)?.1),
        }
        if !matches!(level.repr, DVec::Dense { pres: Some(_), .. }) {
            let (vals, pres) = self.owned_dense(level)?;
            level.repr = DVec::Dense {
                vals,
                pres: Some(pres),
            };
        }
        let (
            DVec::Dense {
                vals: lv,
                pres: Some(lp),
            },
            DVec::Bits(f0),
        ) = (&level.repr, &frontier.repr)
        else {
            unreachable!("converted above")
        };
        // (a sparse degree vector is scattered for the call)
        let dview = self.view(degree)?;
        let (dv, dp) = (Arg::U64(dview.vals), Arg::U64(dview.pres));
        let st = self.dev.zeros::<u64>(ST_WORDS)?;
        let id = ModuleId::Visit;
        self.dev.run(
            id,
            "bfs_stats",
            None,
            bit_words(n),
            &[
                f0.arg(),
                lp.arg(),
                Arg::U64(n as u64),
                dv,
                dp,
                Arg::U64(st.ptr() + 8 * ST_STATS as u64),
            ],
        )?;
        let read = |st| -> Result<Vec<u64>> {
            Ok(from_bytes::<u64>(
                &self.dev.download_bytes(st, ST_WORDS)?,
                ST_WORDS,
            ))
        };
        if limits.max_levels == 0 {
            let s = read(&st)?;
            return Ok(Pushed {
                levels: 0,
                nvals: s[ST_STATS] as usize,
                edges: s[ST_STATS + 1],
                unvisited_edges: s[ST_STATS + 2],
            });
        }
        let f1 = self.dev.zeros::<u32>(bit_words(n))?;
        let common = [
            Arg::U64(n as u64),
            f0.arg(),
            f1.arg(),
            lp.arg(),
            lv.arg(),
            dv,
            dp,
            Arg::I64(depth),
            Arg::U32(limits.max_levels.min(u32::MAX as usize) as u32),
            Arg::U64(limits.alpha),
            Arg::U64(limits.max_edges),
            st.arg(),
        ];
        let (f, mut args) = match &a.repr {
            DMat::Csr { rowptr, colidx, .. } => (
                self.dev.func(id, "bfs_push_csr", None)?,
                vec![rowptr.arg(), colidx.arg()],
            ),
            DMat::B2sr { pat, .. } => (
                self.dev.func(id, "bfs_push_b2sr", Some(pat.k))?,
                vec![
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    pat.tiles.arg(),
                    Arg::U64(n as u64),
                    Arg::U32(pat.tile_rows as u32),
                ],
            ),
        };
        // CSR: (rowptr, colidx, n, ..); B2SR: (rowptr, colidx, tiles, n, tile_rows, ..).
        let skip = usize::from(matches!(a.repr, DMat::B2sr { .. }));
        args.extend_from_slice(&common[skip..]);
        self.dev.launch_resident(&f, BLOCK, &args)?;
        let s = read(&st)?;
        let out = Pushed {
            levels: s[ST_LEVELS] as usize,
            nvals: s[ST_LEVELS + 1] as usize,
            edges: s[ST_LEVELS + 2],
            unvisited_edges: s[ST_LEVELS + 3],
        };
        // The last level's frontier is in f1 after an odd number of levels
        // (the other buffer was cleared as it was read).
        if out.levels % 2 == 1 {
            frontier.repr = DVec::Bits(f1);
        }
        Ok(out)
    }
}
