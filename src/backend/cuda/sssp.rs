//! `ext::delta_stepping` on the device (kernels in `cuda/sssp.cu`, module
//! `visit`): the distances stay on the device as the bit patterns of
//! non-negative doubles, improved by atomic minima; the host only launches
//! and reads back the length of each new queue.
//!
//! Per bucket: `sssp_bucket` queues the bucket's vertices; then, until a
//! launch queues nothing, `sssp_light` relaxes the queue's light edges (and
//! `sssp_light_wide` those of the vertices with more than 4,096 of them,
//! where there are any), in batches of as many passes as it launched for
//! the last bucket, a host round trip a batch; then `sssp_heavy` relaxes
//! the bucket's heavy edges and finds where the next bucket starts. The
//! first launch of a bucket that starts at infinity ends the search.

use super::codes;
use super::csr::CsrRef;
use super::device::{DBuf, DevPtr};
use super::launch::visit;
use super::mem::{DMat, DVec};
use super::transfer::from_bytes;
use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::error::Result;
use crate::ext::DeltaEdges;

/// The counter words and the wide-row bound, as the kernels have them
/// (`codes_table.rs`).
const SS_WORDS: usize = codes::SS_WORDS as usize;
const SS_LO: usize = codes::SS_LO as usize;
const SS_QN: usize = codes::SS_QN as usize;
const SS_WIDE: usize = codes::SS_WIDE as usize;
const SS_WIDE_ROW: usize = codes::SS_WIDE_ROW as usize;
/// The fewest threads a light pass of unread length runs on.
const MIN_THREADS: usize = 64 * 256;
/// The most light passes launched between two reads of the counters.
const MAX_BATCH: u32 = 8;

/// A CSR matrix's row offsets, columns and values.
type CsrPtrs = (DevPtr<u32>, DevPtr<u32>, DevPtr<f64>);

impl CudaBackend {
    /// `m`'s arrays where it is CSR (an iso matrix's one weight filled in
    /// for the call, kept alive by the returned reference); `None` for B2SR.
    fn csr_weights(&self, m: &CudaMatrix<f64>) -> Result<Option<CsrRef<f64>>> {
        match &m.repr {
            DMat::Csr { .. } => self.csr_input(m, false).map(Some),
            DMat::B2sr { .. } => Ok(None),
        }
    }

    /// `sssp_light_wide` for light pass `j`: the vertices that pass set
    /// aside, the whole grid on each (nothing where it set none aside).
    #[allow(clippy::too_many_arguments)]
    fn sssp_wide(
        &self,
        (r, c, w): CsrPtrs,
        d: DevPtr<u64>,
        delta: u64,
        b: u32,
        j: u32,
        wide: &DBuf<u32>,
        qout: &DBuf<u32>,
        stamp: &DBuf<u32>,
        st: &DBuf<u64>,
        grid: usize,
    ) -> Result<()> {
        visit::sssp_light_wide(
            r,
            c,
            w,
            d,
            delta,
            b,
            j,
            wide.ptr(),
            qout.ptr(),
            stamp.ptr(),
            st.ptr(),
        )
        .run(&self.dev, grid)
    }

    /// Delta-stepping from `sources` (checked) on the device: the distances,
    /// dense; `None` where the light or heavy edges are not CSR (then the
    /// caller runs the generic default).
    pub(super) fn delta_stepping_op(
        &self,
        edges: &DeltaEdges<Self>,
        sources: &[usize],
    ) -> Result<Option<CudaVector<f64>>> {
        let (Some(light_csr), Some(heavy_csr)) = (
            self.csr_weights(edges.light())?,
            self.csr_weights(edges.heavy())?,
        ) else {
            return Ok(None);
        };
        let ptrs = |r: &CsrRef<f64>| -> CsrPtrs { (r.rowptr, r.colidx, r.vals) };
        let (light, heavy) = (ptrs(&light_csr), ptrs(&heavy_csr));
        let n = edges.order();
        let dist = self.fill(n, f64::INFINITY)?;
        let d = dist.ptr().cast::<u64>();
        let src: Vec<u32> = sources.iter().map(|&s| s as u32).collect();
        let src_dev = self.dev.upload(&src)?;
        visit::sssp_sources(d, src_dev.ptr(), src.len() as u32).run(&self.dev, src.len())?;
        let st = self.dev.zeros::<u64>(SS_WORDS)?;
        let queues = [self.dev.alloc::<u32>(n)?, self.dev.alloc::<u32>(n)?];
        let wide = self.dev.alloc::<u32>(n)?;
        let stamp = self.dev.zeros::<u32>(n)?;
        let delta = edges.delta().to_bits();
        let has_heavy = u32::from(edges.heavy_edges() > 0);
        // whether any vertex has more light edges than `sssp_light` takes
        let has_wide = edges.longest_light_row() > SS_WIDE_ROW;
        let read = || -> Result<Vec<u64>> {
            Ok(from_bytes::<u64>(
                &self.dev.download_bytes(&st, SS_WORDS)?,
                SS_WORDS,
            ))
        };
        // `b` numbers the buckets, `j` the launches that write a queue (a
        // bucket's, then each light pass's): launch j writes queues[j % 2].
        let (mut b, mut j) = (0u32, 0u32);
        let grid = self.dev.sm_count as usize * 16 * 256;
        // Light passes launched between two reads of the counters: as many as
        // were launched for the last bucket, so the batch never shrinks (the
        // host cannot tell which pass of a batch emptied the queue). A pass
        // after the queue ran empty finds nothing to do; one read less saves
        // more than such a pass costs.
        let mut batch = 1u32;
        // the queue lengths read lately (each read halves the older ones);
        // the whole grid until one is read
        let mut hint = grid / 32;
        let (r, c, w) = light;
        loop {
            let q = &queues[j as usize % 2];
            visit::sssp_bucket(d, n as u64, delta, b, j, q.ptr(), st.ptr()).run(&self.dev, n)?;
            // the length of the queue the last launch wrote, once read back
            let mut known: Option<usize> = None;
            let mut passes = 0u32;
            loop {
                for k in 0..batch {
                    j += 1;
                    passes += 1;
                    let (qin, qout) = (&queues[(j as usize + 1) % 2], &queues[j as usize % 2]);
                    // a warp a queued vertex: the first pass after a read
                    // knows its queue; the others are sized by the queues
                    // read lately, with room to grow (the kernels stride)
                    let threads = match known {
                        Some(len) if k == 0 => len * 32,
                        _ => (hint * 64).max(MIN_THREADS),
                    }
                    .min(grid);
                    visit::sssp_light(
                        r,
                        c,
                        w,
                        d,
                        delta,
                        b,
                        j,
                        qin.ptr(),
                        qout.ptr(),
                        wide.ptr(),
                        stamp.ptr(),
                        st.ptr(),
                    )
                    .run(&self.dev, threads)?;
                    if k + 1 < batch && has_wide {
                        // unread, so run whether or not it set any vertex aside
                        self.sssp_wide(light, d, delta, b, j, &wide, qout, &stamp, &st, grid)?;
                    }
                }
                let mut s = read()?;
                if f64::from_bits(s[SS_LO + b as usize % 2]) == f64::INFINITY {
                    // this bucket starts at infinity: every reachable vertex is settled
                    let repr = DVec::Dense {
                        vals: dist,
                        pres: None,
                    };
                    return Ok(Some(CudaVector { len: n, repr }));
                }
                if s[SS_WIDE + j as usize % 3] > 0 {
                    let qout = &queues[j as usize % 2];
                    self.sssp_wide(light, d, delta, b, j, &wide, qout, &stamp, &st, grid)?;
                    s = read()?;
                }
                match s[SS_QN + j as usize % 3] as usize {
                    0 => break,
                    len => {
                        known = Some(len);
                        hint = len.max(hint / 2);
                    }
                }
            }
            batch = passes.min(MAX_BATCH);
            let (hr, hc, hw) = heavy;
            visit::sssp_heavy(hr, hc, hw, d, n as u64, delta, b, has_heavy, st.ptr())
                .run(&self.dev, n)?;
            b += 1;
            j += 1;
        }
    }
}
