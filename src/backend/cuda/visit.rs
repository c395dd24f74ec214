//! The CUDA backend's fused operations ([`BackendExt`]): breadth-first push
//! levels fused into few launches (`ext::bfs_push`), and pulled levels in
//! one launch each (`ext::bfs_pull`), kernels in `cuda/visit.cu`; the
//! affine product is `mxv/affine.rs`'s, delta-stepping `sssp.rs`'s.
//!
//! One call costs a statistics kernel (the frontier's size and out-edges, the
//! unvisited vertices' out-edges, and the frontier as a vertex queue), then
//! pairs of launches until a stop rule holds: the one-block kernel runs the
//! levels of small frontiers (a level costs its out-edges and a
//! `__syncthreads`), the cooperative whole-device kernel those of large ones
//! (a level reads the `n / 32` frontier words and ends with a grid barrier);
//! each hands over to the other where the frontier crosses
//! [`BLOCK_EDGES`] out-edges (back to the block below half of it) or
//! [`BLOCK_QUEUE`] vertices. A few counters come back once per pair: a
//! high-diameter search pushes hundreds of levels per host round trip.
//!
//! A pulled level is one kernel over the unvisited vertices (each stops at
//! its first in-neighbour in the frontier) that also writes the levels and
//! counts the new frontier: one host round trip per level.

use std::sync::atomic::Ordering;

use super::device::DBuf;
use super::launch::visit::{self, Pull, Search};
use super::launch::Tiles;
use super::mem::{bit_words, DMat, DVec};
use super::transfer::from_bytes;
use super::{CudaBackend, CudaBits, CudaDense, CudaMatrix, CudaVector};
use crate::algebra::{BitSemiring, Semiring};
use crate::container::BitOutput;
use crate::error::Result;
use crate::ext::{BackendExt, DeltaEdges, DenseScales, PushLimits, Pushed, Relaunch};
use crate::scalar::Scalar;

/// Counter words (`cuda/visit.cu`: `ST_*`).
const ST_WORDS: usize = 16;
const ST_LEVELS: usize = 8;
const ST_COUNT: usize = 9;
const ST_DONE: usize = 13;
const ST_CUR: usize = 14;
/// Threads per block of the cooperative launch.
const BLOCK: u32 = 512;
/// Threads of the one-block kernel (`BLOCK_THREADS` in `cuda/visit.cu`).
const BLOCK_THREADS: u32 = 1024;
/// The most out-edges of a frontier whose level the one-block kernel pushes
/// (default of [`CudaBackend::set_bfs_block_limits`]).
pub(super) const BLOCK_EDGES: u64 = 1 << 15;
/// The most vertices of a frontier the one-block kernel takes (its queue length).
pub(super) const BLOCK_QUEUE: u64 = 1 << 16;

impl BackendExt for CudaBackend {
    fn record<R>(
        &self,
        run: impl FnOnce(&Self) -> Option<R>,
    ) -> Result<Option<(R, Box<dyn Relaunch>)>> {
        let recorded = self.dev.record(|| run(self))?;
        Ok(recorded.map(|(out, graph)| (out, Box::new(graph) as Box<dyn Relaunch>)))
    }

    fn mxv_affine<S: Semiring>(
        &self,
        w: &mut CudaVector<S::T>,
        semiring: S,
        c: S::T,
        a: &CudaMatrix<S::T>,
        d: &CudaVector<S::T>,
        u: &CudaVector<S::T>,
    ) -> Result<()> {
        self.mxv_affine_fused(w, semiring, c, a, d, u)
    }

    fn mxm_dense_scaled<S: Semiring>(
        &self,
        c: &mut CudaDense<S::T>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        scales: DenseScales<'_, Self, S::T>,
    ) -> Result<()> {
        self.mxm_dense_scaled_op(c, semiring, a, b, scales)
    }

    fn mxm_counts_scaled(
        &self,
        c: &mut CudaDense<f32>,
        a: &CudaMatrix<f32>,
        v: &CudaDense<i32>,
        scales: DenseScales<'_, Self, f32>,
    ) -> Result<()> {
        self.mxm_counts_scaled_op(c, a, v, scales)
    }

    fn pattern_with<T: Scalar, U: Scalar>(
        &self,
        a: &CudaMatrix<T>,
        value: U,
    ) -> Result<CudaMatrix<U>> {
        self.pattern_with_op(a, value)
    }

    #[allow(clippy::too_many_arguments)]
    fn bspmm_bmm(
        &self,
        h_out: BitOutput<'_, Self>,
        aggregate: BitSemiring,
        a: &CudaMatrix<bool>,
        x: &CudaBits,
        y_out: BitOutput<'_, Self>,
        product: BitSemiring,
        w: &CudaBits,
    ) -> Result<()> {
        self.bspmm_bmm_op(h_out, aggregate, a, x, y_out, product, w)
    }

    /// `ext::delta_stepping` on the device (`super::sssp`) where the light
    /// and heavy edges are CSR (as [`DeltaEdges::new`] uploads them), else
    /// the generic default.
    fn delta_stepping(
        &self,
        edges: &DeltaEdges<Self>,
        sources: &[usize],
    ) -> Result<CudaVector<f64>> {
        match self.delta_stepping_op(edges, sources)? {
            Some(d) => Ok(d),
            None => crate::ext::sssp::delta_stepping_generic(self, edges, sources),
        }
    }

    /// `ext::bfs_push` on the device. The kernels read the level vector as
    /// dense values with presence bits and the frontier as packed bits (its
    /// pattern); other forms are converted first (both are outputs).
    fn bfs_push(
        &self,
        level: &mut CudaVector<i64>,
        frontier: &mut CudaVector<bool>,
        a: &CudaMatrix<bool>,
        degree: &CudaVector<f64>,
        depth: i64,
        limits: PushLimits,
    ) -> Result<Pushed> {
        let n = a.nrows;
        let (lv, lp, f0) = self.search_forms(level, frontier)?;
        // (a sparse degree vector is scattered for the call)
        let dview = self.view(degree)?;
        let (dv, dp) = (dview.vals, dview.pres);
        let st = self.dev.zeros::<u64>(ST_WORDS)?;
        let read = |st| -> Result<Vec<u64>> {
            Ok(from_bytes::<u64>(
                &self.dev.download_bytes(st, ST_WORDS)?,
                ST_WORDS,
            ))
        };
        let pushed = |s: &[u64]| Pushed {
            levels: s[ST_LEVELS] as usize,
            nvals: s[ST_COUNT] as usize,
            edges: s[ST_COUNT + 1],
            unvisited_edges: s[ST_COUNT + 2],
        };
        let block_edges = self.dev.bfs_block[0].load(Ordering::Relaxed);
        let qcap = if limits.max_levels == 0 {
            0
        } else {
            (self.dev.bfs_block[1].load(Ordering::Relaxed) as usize)
                .min(n)
                .max(1)
        };
        let queues = self.dev.alloc::<u32>(2 * qcap)?;
        visit::bfs_stats(
            f0.ptr(),
            lp.ptr(),
            n as u64,
            dv,
            dp,
            st.ptr(),
            queues.ptr(),
            qcap as u32,
        )
        .run(&self.dev, bit_words(n))?;
        if limits.max_levels == 0 {
            return Ok(pushed(&read(&st)?));
        }
        let f1 = self.dev.zeros::<u32>(bit_words(n))?;
        let search = Search {
            n: n as u64,
            f0: f0.ptr(),
            f1: f1.ptr(),
            vis: lp.ptr(),
            level: lv.ptr(),
            deg: dv,
            deg_pres: dp,
            depth,
            max_levels: limits.max_levels.min(u32::MAX as usize) as u32,
            alpha: limits.alpha,
            max_edges: limits.max_edges,
            st: st.ptr(),
            q0: queues.ptr(),
            q1: queues.ptr().add(qcap),
            qcap: qcap as u32,
            block_edges,
        };
        let (small, large) = match &a.repr {
            DMat::Csr { pat, .. } => {
                let (r, c) = (pat.rowptr.ptr(), pat.colidx.ptr());
                (
                    visit::bfs_block_csr(r, c, search),
                    visit::bfs_push_csr(r, c, search),
                )
            }
            DMat::B2sr { pat, .. } => {
                let (k, t, tr) = (pat.k, Tiles::of(&self.dev, pat)?, pat.tile_rows as u32);
                (
                    visit::bfs_block_b2sr(k, t, tr, search),
                    visit::bfs_push_b2sr(k, t, tr, search),
                )
            }
        };
        // The one-block kernel claims in a shared copy of the visited bits
        // where they fit (a level then waits on no global atomic).
        let small_f = small.func(&self.dev)?;
        large.func(&self.dev)?;
        let vis_bytes = 4 * bit_words(n) as u64;
        let shared = if self.dev.bfs_shared.load(Ordering::Relaxed)
            && vis_bytes <= self.dev.shared_room(&small_f)? as u64
        {
            vis_bytes as u32
        } else {
            0
        };
        // Each pair runs at least one level; the grid kernel stops short of
        // the rule only to hand a small frontier back to the block.
        let s = loop {
            small.shared(&self.dev, 1, BLOCK_THREADS, shared)?;
            large.resident(&self.dev, BLOCK)?;
            let s = read(&st)?;
            if s[ST_DONE] != 0 {
                break s;
            }
        };
        // The frontier's bits are in f1 where the grid kernel left them there
        // (the other buffer is zero).
        if s[ST_CUR] == 1 {
            frontier.repr = DVec::Bits(f1);
        }
        Ok(pushed(&s))
    }

    /// `ext::bfs_pull` on the device: one `bfs_pull_*` launch (a lane per
    /// vertex, a warp per row of more than 32 items, stopping at the first
    /// frontier in-neighbour) writing the next frontier's bits, the reached
    /// vertices' levels and visited bits, and three counters, read back once.
    fn bfs_pull(
        &self,
        level: &mut CudaVector<i64>,
        frontier: &mut CudaVector<bool>,
        at: &CudaMatrix<bool>,
        degree: &CudaVector<f64>,
        depth: i64,
    ) -> Result<Pushed> {
        let n = at.nrows;
        let (lv, lp, f) = self.search_forms(level, frontier)?;
        let dview = self.view(degree)?;
        let st = self.dev.zeros::<u64>(3)?;
        // every word is written by the kernel
        let next = self.dev.alloc::<u32>(bit_words(n))?;
        let pull = Pull {
            n: n as u64,
            f: f.ptr(),
            nx: next.ptr(),
            vis: lp.ptr(),
            level: lv.ptr(),
            deg: dview.vals,
            deg_pres: dview.pres,
            d: depth + 1,
            st: st.ptr(),
        };
        let level = match &at.repr {
            DMat::Csr { pat, .. } => visit::bfs_pull_csr(pat.rowptr.ptr(), pat.colidx.ptr(), pull),
            DMat::B2sr { pat, .. } => visit::bfs_pull_b2sr(
                pat.k,
                Tiles::of(&self.dev, pat)?,
                pat.tile_rows as u32,
                pull,
            ),
        };
        level.run(&self.dev, bit_words(n) * 32)?;
        drop(dview);
        let c = from_bytes::<u64>(&self.dev.download_bytes(&st, 3)?, 3);
        frontier.repr = DVec::Bits(next);
        Ok(Pushed {
            levels: 1,
            nvals: c[0] as usize,
            edges: c[1],
            unvisited_edges: c[2],
        })
    }
}

impl CudaBackend {
    /// The forms the BFS kernels read: the level vector as dense values with
    /// presence bits, the frontier as packed bits (its pattern); other forms
    /// are converted (both are outputs). Returns the level values, their
    /// presence bits and the frontier bits.
    fn search_forms<'v>(
        &self,
        level: &'v mut CudaVector<i64>,
        frontier: &'v mut CudaVector<bool>,
    ) -> Result<(&'v DBuf<i64>, &'v DBuf<u32>, &'v DBuf<u32>)> {
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
        match (&level.repr, &frontier.repr) {
            (
                DVec::Dense {
                    vals,
                    pres: Some(pres),
                },
                DVec::Bits(bits),
            ) => Ok((vals, pres, bits)),
            _ => unreachable!("converted above"),
        }
    }

    /// Limits of the fused BFS's one-block levels (`ext::bfs_push`): the
    /// block pushes the levels of frontiers with at most `edges` out-edges
    /// and `vertices` vertices, the whole device the others. The results do
    /// not depend on them (tests set small ones to cross over often).
    pub fn set_bfs_block_limits(&self, edges: u64, vertices: usize) {
        self.dev.bfs_block[0].store(edges, Ordering::Relaxed);
        self.dev.bfs_block[1].store(vertices.max(1) as u64, Ordering::Relaxed);
    }

    /// Whether the fused BFS's one-block kernel may keep the visited bits in
    /// shared memory where they fit (default: yes; without, it claims
    /// vertices in global memory). The results do not depend on it (tests
    /// cover both forms).
    pub fn set_bfs_block_shared(&self, on: bool) {
        self.dev.bfs_shared.store(on, Ordering::Relaxed);
    }

    /// The choice [`CudaBackend::set_bfs_block_shared`] made.
    pub fn bfs_block_shared(&self) -> bool {
        self.dev.bfs_shared.load(Ordering::Relaxed)
    }

    /// The limits [`CudaBackend::set_bfs_block_limits`] set: `(edges, vertices)`.
    pub fn bfs_block_limits(&self) -> (u64, usize) {
        (
            self.dev.bfs_block[0].load(Ordering::Relaxed),
            self.dev.bfs_block[1].load(Ordering::Relaxed) as usize,
        )
    }
}
