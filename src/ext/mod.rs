//! Extensions: fused and algorithm-specific operations beside the GraphBLAS
//! primitives, in the spirit of SuiteSparse's `GxB` extensions.
//!
//! Each is a method of [`BackendExt`] with a generic default written on the
//! [`Backend`] primitives, so every backend runs it; a backend overrides the
//! ones it can do faster (the CPU backend a vertex queue for pushed BFS
//! levels and one pass for the affine product, the CUDA backend fused
//! kernels). Call them through the checked entry points of this module, as
//! the primitives are called through [`crate::ops`].
//!
//! ```
//! use bitgraphblas::{ext, algebra::PlusTimes, Cpu, Matrix, Vector};
//! // w = 1 + A (d ⊙ u): PageRank's step, one call.
//! let a = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f64), (1, 0, 1.0)]).unwrap();
//! let (d, u) = (Vector::from_dense(vec![0.5, 0.5]), Vector::from_dense(vec![2.0, 4.0]));
//! let mut w = Vector::empty(2);
//! ext::mxv_affine(&Cpu::new(), &mut w, PlusTimes::<f64>::new(), 1.0, &a, &d, &u).unwrap();
//! assert_eq!(w.to_vec(0.0), vec![3.0, 2.0]);
//! ```

pub mod affine;
pub mod bc;
pub mod bfs;
pub mod bits;
pub mod pattern;
mod replay;
pub mod scaled;
pub mod sssp;

pub use bfs::{PushLimits, Pushed};
pub use replay::{Relaunch, Replay};
pub use scaled::DenseScales;
pub use sssp::DeltaEdges;

use crate::algebra::{BitSemiring, Semiring};
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{BitInput, BitOutput, VectorFormat};
use crate::error::Result;
use crate::ops::{check_bmm, check_bspmm, need};
use crate::scalar::Scalar;

/// The fused operations a backend may override. Every method has a generic
/// default built from the [`Backend`] primitives; entry points take
/// already-checked arguments, so call them through this module's functions
/// ([`bfs_push`], [`bfs_pull`], [`bfs_record`], [`mxv_affine`],
/// [`mxm_dense_scaled`], [`mxm_counts_scaled`], [`bspmm_bmm`], [`brandes`], [`delta_stepping`],
/// [`pattern_with`]), and the capability [`Backend::pushes`] directly.
///
/// A new backend gets them all by `impl BackendExt for MyBackend {}`.
pub trait BackendExt: Backend {
    /// The vector format a search's level vector starts in (the source
    /// alone at level 0). The default is dense: the fused levels read and
    /// write it in place. A backend whose push keeps a search that reaches
    /// few vertices sparse (the CPU's vertex queue) answers
    /// [`VectorFormat::Sparse`], so such a search costs the vertices it
    /// reaches, not a pass over all of them.
    ///
    /// ```
    /// use bitgraphblas::{BackendExt, Cpu, VectorFormat};
    /// assert_eq!(Cpu::new().bfs_level_format(), VectorFormat::Sparse);
    /// ```
    fn bfs_level_format(&self) -> VectorFormat {
        VectorFormat::Dense
    }

    /// Runs `run`, recording what it queues so that it can be queued again
    /// as one unit: `Some((run's output, the recording))`, or `None` where
    /// the backend did not record it (then nothing of it ran, and the
    /// caller runs it plainly). `run` answers `None` where it failed: that
    /// too is recorded as nothing. Call it through [`Replay::record`], which
    /// runs the sequence once before recording it. The default records
    /// nothing; the CUDA backend records a CUDA graph.
    ///
    /// ```
    /// use bitgraphblas::{BackendExt, Cpu};
    /// let recorded = Cpu::new().record(|_| Some(1)).unwrap();
    /// assert!(recorded.is_none());
    /// ```
    #[allow(clippy::type_complexity)]
    fn record<R>(
        &self,
        run: impl FnOnce(&Self) -> Option<R>,
    ) -> Result<Option<(R, Box<dyn Relaunch>)>> {
        let _ = run;
        Ok(None)
    }

    /// Push levels of a breadth-first search (see [`bfs_push`]).
    /// The default runs each level as `vxm` (`ANY.PAIR`, mask `¬level`,
    /// replace) and a masked `assign`, counting on the host.
    #[allow(clippy::too_many_arguments)]
    fn bfs_push(
        &self,
        level: &mut Self::Vector<i64>,
        frontier: &mut Self::Vector<bool>,
        a: &Self::Matrix<bool>,
        degree: &Self::Vector<f64>,
        depth: i64,
        limits: PushLimits,
    ) -> Result<Pushed> {
        bfs::bfs_push_generic(self, level, frontier, a, degree, depth, limits)
    }

    /// `w = c ⊕ A ⊕.⊗ (d ⊗ u)`, `w` full (see [`mxv_affine`]).
    /// The default is [`affine::mxv_affine_generic`]: `ewise_mult`, a fill of `w`
    /// with `c` and an `mxv` accumulated with `⊕`.
    #[allow(clippy::too_many_arguments)]
    fn mxv_affine<S: Semiring>(
        &self,
        w: &mut Self::Vector<S::T>,
        semiring: S,
        c: S::T,
        a: &Self::Matrix<S::T>,
        d: &Self::Vector<S::T>,
        u: &Self::Vector<S::T>,
    ) -> Result<()> {
        affine::mxv_affine_generic(self, w, semiring, c, a, d, u)
    }

    /// One pulled level of a breadth-first search (see [`bfs_pull`]).
    /// The default is a masked `mxv` (`ANY.PAIR`, mask `¬level`, replace) and
    /// a masked `assign`, counting on the host.
    fn bfs_pull(
        &self,
        level: &mut Self::Vector<i64>,
        frontier: &mut Self::Vector<bool>,
        at: &Self::Matrix<bool>,
        degree: &Self::Vector<f64>,
        depth: i64,
    ) -> Result<Pushed> {
        bfs::bfs_pull_generic(self, level, frontier, at, degree, depth)
    }

    /// Records one level of a breadth-first search with parents (see
    /// [`bfs_record`]). The default is [`bfs::bfs_record_generic`]: a masked
    /// `assign`, an `ewise_add` and an `ewise_mult`.
    #[allow(clippy::too_many_arguments)]
    fn bfs_record(
        &self,
        level: &mut Self::Vector<i64>,
        parent: &mut Self::Vector<u64>,
        frontier: &mut Self::Vector<u64>,
        next: &Self::Vector<u64>,
        ids: &Self::Vector<u64>,
        depth: i64,
    ) -> Result<()> {
        bfs::bfs_record_generic(self, level, parent, frontier, next, ids, depth)
    }

    /// `C = diag(l) (A ⊕.⊗ (diag(r) B)) ⊕ bias` with `B`, `C` dense (see
    /// [`mxm_dense_scaled`]). The default is
    /// [`scaled::mxm_dense_scaled_generic`]: two scalings, the product and
    /// the bias as four calls.
    fn mxm_dense_scaled<S: Semiring>(
        &self,
        c: &mut Self::Dense<S::T>,
        semiring: S,
        a: &Self::Matrix<S::T>,
        b: &Self::Dense<S::T>,
        scales: DenseScales<'_, Self, S::T>,
    ) -> Result<()> {
        scaled::mxm_dense_scaled_generic(self, c, semiring, a, b, scales)
    }

    /// The same product of integer counts read as `f32` (see
    /// [`mxm_counts_scaled`]). The default is
    /// [`scaled::mxm_counts_scaled_generic`]: the counts converted through
    /// the host, then [`scaled::mxm_dense_scaled_generic`].
    fn mxm_counts_scaled(
        &self,
        c: &mut Self::Dense<f32>,
        a: &Self::Matrix<f32>,
        v: &Self::Dense<i32>,
        scales: DenseScales<'_, Self, f32>,
    ) -> Result<()> {
        scaled::mxm_counts_scaled_generic(self, c, a, v, scales)
    }

    /// `a`'s pattern with every stored entry `value`, of another type (see
    /// [`pattern_with`]). The default is [`pattern::pattern_with_generic`]:
    /// through the host, a new copy of the pattern.
    fn pattern_with<T: Scalar, U: Scalar>(
        &self,
        a: &Self::Matrix<T>,
        value: U,
    ) -> Result<Self::Matrix<U>> {
        pattern::pattern_with_generic(self, a, value)
    }

    /// A binary aggregation into bits, then those bits times `w` (see
    /// [`bspmm_bmm`]). The default is [`bits::bspmm_bmm_generic`]: `bspmm`,
    /// then `bmm`.
    #[allow(clippy::too_many_arguments)]
    fn bspmm_bmm(
        &self,
        h_out: BitOutput<'_, Self>,
        aggregate: BitSemiring,
        a: &Self::Matrix<bool>,
        x: &Self::Bits,
        y_out: BitOutput<'_, Self>,
        product: BitSemiring,
        w: &Self::Bits,
    ) -> Result<()> {
        bits::bspmm_bmm_generic(self, h_out, aggregate, a, x, y_out, product, w)
    }

    /// Brandes' dependencies of a batch of sources (see [`brandes`]).
    /// The default is [`bc::brandes_generic`]: every step a backend
    /// operation on flattened `n × k` vectors, two dense products a level.
    fn brandes(
        &self,
        a: &Self::Matrix<f64>,
        at: &Self::Matrix<f64>,
        sources: &[usize],
    ) -> Result<Self::Vector<f64>> {
        bc::brandes_generic(self, a, at, sources)
    }

    /// Shortest-path distances by delta-stepping (see [`delta_stepping`]).
    /// The default is [`sssp::delta_stepping_generic`]: `MIN.PLUS` products,
    /// `select` and masked `apply`, a host round trip per step.
    fn delta_stepping(
        &self,
        edges: &DeltaEdges<Self>,
        sources: &[usize],
    ) -> Result<Self::Vector<f64>>
    where
        Self::MaskSource: VectorShape,
    {
        sssp::delta_stepping_generic(self, edges, sources)
    }
}

/// Push levels of a breadth-first search, fused: from `frontier` (the vertices
/// at level `depth`), each level is
///
/// ```text
/// next<¬struct(level), replace> = frontier ANY.PAIR A     (vxm: out-neighbours, pattern only)
/// level<struct(next)> = depth + k                         (k-th level of this call)
/// frontier = next
/// ```
///
/// and the levels go on until the new frontier is empty, `limits.max_levels`
/// levels ran, or its out-edges (the sum of `degree` over it; absent = 0) `e`
/// reach `e · limits.alpha > u` (`u`: out-edges of the vertices still without
/// a level) or `e > limits.max_edges`. `level`'s structure is the visited set.
/// With `max_levels = 0` no level runs and the result measures `frontier`.
/// `frontier`'s values are ignored (its pattern is the frontier; a backend
/// may keep it as that pattern, entries `true`).
/// On the CUDA backend the levels of one call are a few launches (one thread
/// block while the frontier is small, the whole device while it is large);
/// the counts come back once per call and per hand-over back to the block.
///
/// ```
/// use bitgraphblas::ext::{self, PushLimits};
/// use bitgraphblas::{Cpu, Matrix, Vector};
/// // 0 -> 1 -> 2 -> 3
/// let a = Matrix::from_triplets(4, 4, vec![(0, 1, true), (1, 2, true), (2, 3, true)]).unwrap();
/// let cpu = Cpu::new();
/// let degree = Vector::from_dense(vec![1.0, 1.0, 1.0, 0.0]);
/// let mut level = Vector::from_entries(4, vec![(0, 0i64)]).unwrap();
/// let mut frontier = Vector::from_entries(4, vec![(0, true)]).unwrap();
/// let limits = PushLimits { max_levels: 2, alpha: 1, max_edges: 100, unvisited_edges: None };
/// let r = ext::bfs_push(&cpu, &mut level, &mut frontier, &a, &degree, 0, limits).unwrap();
/// assert_eq!((r.levels, r.nvals, r.edges, r.unvisited_edges), (2, 1, 1, 0));
/// assert_eq!(level.to_vec(-1), vec![0, 1, 2, -1]);
/// assert_eq!(frontier.get(2), Some(true));
/// ```
pub fn bfs_push<B: BackendExt>(
    b: &B,
    level: &mut B::Vector<i64>,
    frontier: &mut B::Vector<bool>,
    a: &B::Matrix<bool>,
    degree: &B::Vector<f64>,
    depth: i64,
    limits: PushLimits,
) -> Result<Pushed> {
    let n = square_order("bfs_push", "A", a)?;
    check_lengths(
        "bfs_push",
        || format!("A is {n}x{n}"),
        [
            ("level", level.len(), n),
            ("frontier", frontier.len(), n),
            ("degree", degree.len(), n),
        ],
    )?;
    b.bfs_push(level, frontier, a, degree, depth, limits)
}

/// One pulled level of a breadth-first search, fused: from `frontier` (the
/// vertices at level `depth`) and `at` = `A'` (row `j` holds the vertices
/// with an edge to `j`),
///
/// ```text
/// next<¬struct(level), replace> = A' ANY.PAIR frontier    (mxv: pattern only)
/// level<struct(next)> = depth + 1
/// frontier = next
/// ```
///
/// (the same level as one [`bfs_push`] level on `A`), and the result counts
/// the new frontier as [`bfs_push`]'s does: `levels` 1, its vertices, their
/// out-edges (the sum of `degree` over them; absent = 0) and the out-edges of
/// the vertices still without a level. Each vertex without a level looks
/// through its row of `A'` for a frontier vertex and stops at the first, so
/// the level costs the unvisited vertices' in-edges up to their first hit
/// (the bottom-up step of a direction-optimising search: cheap when the
/// frontier is large). On the CUDA backend it is one kernel (a lane per
/// vertex, a warp per long row) and one read of three counters; the frontier
/// is read and written as packed bits.
///
/// ```
/// use bitgraphblas::{ext, Cpu, Matrix, Vector};
/// // 0 -> 1, 0 -> 2, 1 -> 3: A' has row j = the vertices with an edge to j.
/// let at = Matrix::from_triplets(4, 4, vec![(1, 0, true), (2, 0, true), (3, 1, true)]).unwrap();
/// let cpu = Cpu::new();
/// let degree = Vector::from_entries(4, vec![(0, 2.0), (1, 1.0)]).unwrap();
/// let mut level = Vector::from_entries(4, vec![(0, 0i64)]).unwrap();
/// let mut frontier = Vector::from_entries(4, vec![(0, true)]).unwrap();
/// let r = ext::bfs_pull(&cpu, &mut level, &mut frontier, &at, &degree, 0).unwrap();
/// assert_eq!((r.levels, r.nvals, r.edges, r.unvisited_edges), (1, 2, 1, 0));
/// assert_eq!(level.to_vec(-1), vec![0, 1, 1, -1]);
/// ```
pub fn bfs_pull<B: BackendExt>(
    b: &B,
    level: &mut B::Vector<i64>,
    frontier: &mut B::Vector<bool>,
    at: &B::Matrix<bool>,
    degree: &B::Vector<f64>,
    depth: i64,
) -> Result<Pushed> {
    let n = square_order("bfs_pull", "A'", at)?;
    check_lengths(
        "bfs_pull",
        || format!("A' is {n}x{n}"),
        [
            ("level", level.len(), n),
            ("frontier", frontier.len(), n),
            ("degree", degree.len(), n),
        ],
    )?;
    b.bfs_pull(level, frontier, at, degree, depth)
}

/// Records one level of a breadth-first search with parents, fused: with
/// `next` the level's new vertices, each holding its parent (the result of
/// `next<¬struct(level), replace> = frontier MIN.SECOND A` on `u64` vertex
/// ids, so disjoint from the visited set), and `ids` the full vector of
/// vertex ids (`ids_i = i`),
///
/// ```text
/// level<struct(next)> = depth
/// parent = parent ∪ next            (parent<struct(next)> = next)
/// frontier = next ⊙ ids             (the new vertices, each carrying its own id)
/// ```
///
/// By default a masked `assign`, an `ewise_add` and an `ewise_mult`; on the
/// CPU one pass over `next`'s entries that writes `level` and `parent` in
/// place and makes `frontier` a sparse vector (`O(|next|)` besides reading
/// `next`; `ids` is not read).
///
/// ```
/// use bitgraphblas::{ext, Cpu, Vector};
/// let cpu = Cpu::new();
/// // Vertex 0 at level 0; level 1 reached 1 and 3 from 0.
/// let mut level = Vector::from_entries(4, vec![(0, 0i64)]).unwrap();
/// let mut parent = Vector::from_entries(4, vec![(0, 0u64)]).unwrap();
/// let mut frontier = Vector::from_entries(4, vec![(0, 0u64)]).unwrap();
/// let next = Vector::from_entries(4, vec![(1, 0u64), (3, 0)]).unwrap();
/// let ids = Vector::from_dense(vec![0u64, 1, 2, 3]);
/// ext::bfs_record(&cpu, &mut level, &mut parent, &mut frontier, &next, &ids, 1).unwrap();
/// assert_eq!(level.to_vec(-1), vec![0, 1, -1, 1]);
/// assert_eq!(parent.entries(), vec![(0, 0), (1, 0), (3, 0)]);
/// assert_eq!(frontier.entries(), vec![(1, 1), (3, 3)]);
/// ```
pub fn bfs_record<B: BackendExt>(
    b: &B,
    level: &mut B::Vector<i64>,
    parent: &mut B::Vector<u64>,
    frontier: &mut B::Vector<u64>,
    next: &B::Vector<u64>,
    ids: &B::Vector<u64>,
    depth: i64,
) -> Result<()> {
    let n = next.len();
    check_lengths(
        "bfs_record",
        || format!("next has length {n}"),
        [
            ("level", level.len(), n),
            ("parent", parent.len(), n),
            ("frontier", frontier.len(), n),
            ("ids", ids.len(), n),
        ],
    )?;
    b.bfs_record(level, parent, frontier, next, ids, depth)
}

/// The affine product `w = c ⊕ A ⊕.⊗ (d ⊗ u)`, fused: for every row `i` of
/// `A`,
///
/// ```text
/// w_i = c ⊕ ⊕_j a_ij ⊗ (d_j ⊗ u_j)      (over the j where a_ij, d_j and u_j are present)
/// ```
///
/// with the semiring's `⊗` for the diagonal scaling `diag(d) u` as well as
/// for the product, and its `⊕` for the shift by the scalar `c`. `w` comes
/// out full (every entry present: `c` where the sum is empty); its old
/// entries are not read. No mask, no accumulator, `A` not transposed. It is
/// one step of an affine iteration such as PageRank's `x' = c + A' (x ⊙ s)`
/// ([`BackendExt::mxv_affine`]: by default `ewise_mult`, `assign` of `c` and an
/// accumulated `mxv`; on the CUDA backend one pass over `A`, `d` and `u` that
/// writes `w` once, for B2SR with tiles of at most 8x8 and CSR, when `d` and
/// `u` are full).
///
/// ```
/// use bitgraphblas::{ext, algebra::PlusTimes, Cpu, Matrix, Vector};
/// // A = [[1, 2], [0, 0]]: row 1 is empty
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f64), (0, 1, 2.0)]).unwrap();
/// let d = Vector::from_dense(vec![0.5, 0.25]);
/// let u = Vector::from_dense(vec![4.0, 8.0]);
/// let mut w = Vector::empty(2);
/// ext::mxv_affine(&Cpu::new(), &mut w, PlusTimes::<f64>::new(), 1.0, &a, &d, &u).unwrap();
/// // w_0 = 1 + 1·(0.5·4) + 2·(0.25·8) = 7, w_1 = 1
/// assert_eq!(w.to_vec(0.0), vec![7.0, 1.0]);
/// ```
pub fn mxv_affine<B: BackendExt, S: Semiring>(
    b: &B,
    w: &mut B::Vector<S::T>,
    semiring: S,
    c: S::T,
    a: &B::Matrix<S::T>,
    d: &B::Vector<S::T>,
    u: &B::Vector<S::T>,
) -> Result<()> {
    let (m, n) = (a.nrows(), a.ncols());
    check_lengths(
        "mxv_affine",
        || format!("A is {m}x{n}"),
        [("d", d.len(), n), ("u", u.len(), n), ("w", w.len(), m)],
    )?;
    b.mxv_affine(w, semiring, c, a, d, u)
}

/// `C = diag(l) (A ⊕.⊗ (diag(r) B)) diag(s) ⊕ bias`, fused: `A` sparse
/// (`m × k`), `B` dense (`k × n`), `C` dense (`m × n`, overwritten), the
/// scalings and the bias each optional ([`DenseScales`]). The values are
/// those of the calls `scale_dense_rows(r, B)` (`⊗`), `mxm_dense`,
/// `scale_dense_rows(l, ·)` (`⊗`), `scale_dense_cols(·, s)` (`⊗`) and
/// `scale_dense_cols(·, bias)` (`⊕`), in that order of operations: a GCN
/// layer's `D^-1/2 (A + I) D^-1/2 Y + bias` with `l = r = D^-1/2`. On the
/// CUDA backend one kernel where `A` is CSR, the vectors are full and `s` is
/// absent (each output element folds its row in column order, as
/// `mxm_dense` does), the separate calls otherwise.
///
/// ```
/// use bitgraphblas::ext::{self, DenseScales};
/// use bitgraphblas::{algebra::PlusTimes, Backend, Cpu, DenseMatrix, Matrix, Vector};
/// let cpu = Cpu::new();
/// // A + I of the path 0 - 1, D^-1/2 = 1/sqrt(2) on both
/// let e = vec![(0, 0, 1.0f32), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 1.0)];
/// let a = Matrix::from_triplets(2, 2, e).unwrap();
/// let d = Vector::from_dense(vec![0.5f32.sqrt(); 2]);
/// let y = DenseMatrix::from_vec(2, 1, vec![2.0f32, 4.0]).unwrap();
/// let bias = Vector::from_dense(vec![-1.0f32]);
/// let scales = DenseScales { left: Some(&d), right: Some(&d), bias: Some(&bias), col: None };
/// let mut c = cpu.dense_new(2, 1, 0.0f32).unwrap();
/// ext::mxm_dense_scaled(&cpu, &mut c, PlusTimes::<f32>::new(), &a, &y, scales).unwrap();
/// // both rows: (2 + 4) / 2 - 1 = 2 (up to rounding)
/// assert!(c.as_slice().iter().all(|v| (v - 2.0).abs() < 1e-6));
/// ```
pub fn mxm_dense_scaled<B: BackendExt, S: Semiring>(
    b: &B,
    c: &mut B::Dense<S::T>,
    semiring: S,
    a: &B::Matrix<S::T>,
    bd: &B::Dense<S::T>,
    scales: DenseScales<'_, B, S::T>,
) -> Result<()> {
    check_scaled("mxm_dense_scaled", "B", a, bd, c, &scales)?;
    b.mxm_dense_scaled(c, semiring, a, bd, scales)
}

/// [`mxm_dense_scaled`] over `PLUS.TIMES` of `f32` where `B` is integer
/// counts `V` (a bit product's [`BitOutput::Counts`]), each read as `v as f32`
/// (exact below `2^24`): `C = diag(l) (A (diag(r) V)) diag(s) ⊕ bias`, the
/// values of `mxm_dense_scaled` on `V` converted to `f32`. A binary layer's
/// `Y = V diag(s)` (Bi-GCN's `x sign(W)` times the column factor `s`) is
/// aggregated this way with `s` after the sum: the same terms, rounded in
/// another order. On the CUDA backend, where `A` is CSR and the vectors are
/// full, one kernel reads `V` directly; where each row of `V` is gathered
/// many times (eight or more entries of `A` a row of `V` on average), a pass
/// first packs every row of `V` into bytes (each value in a byte, or half of
/// it where all of a row's values are even; a row that fits neither is read
/// from `V`) beside `r_j`, and the product gathers those: 64 bytes a row for
/// a layer of 41 classes, where `f32` rows take 164.
///
/// ```
/// use bitgraphblas::ext::{self, DenseScales};
/// use bitgraphblas::{Backend, Cpu, DenseMatrix, Matrix, Vector};
/// let cpu = Cpu::new();
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f32), (0, 1, 1.0), (1, 1, 1.0)])?;
/// let v = DenseMatrix::from_vec(2, 1, vec![-64i32, 128])?;
/// let (r, s) = (Vector::from_dense(vec![1.0f32, 0.5]), Vector::from_dense(vec![0.25f32]));
/// let scales = DenseScales { right: Some(&r), col: Some(&s), ..DenseScales::default() };
/// let mut c = cpu.dense_new(2, 1, 0.0f32)?;
/// ext::mxm_counts_scaled(&cpu, &mut c, &a, &v, scales)?;
/// // row 0: (-64 + 0.5 · 128) · 0.25 = 0; row 1: 0.5 · 128 · 0.25 = 16
/// assert_eq!(c.as_slice(), &[0.0, 16.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn mxm_counts_scaled<B: BackendExt>(
    b: &B,
    c: &mut B::Dense<f32>,
    a: &B::Matrix<f32>,
    v: &B::Dense<i32>,
    scales: DenseScales<'_, B, f32>,
) -> Result<()> {
    check_scaled("mxm_counts_scaled", "V", a, v, c, &scales)?;
    b.mxm_counts_scaled(c, a, v, scales)
}

/// `a`'s pattern with every stored entry `value`, a matrix of another value
/// type in `a`'s format: a GNN's adjacency read as bits by the binary
/// aggregation and as `f32` ones by the GCN aggregation. On the CUDA backend
/// a CSR result shares `a`'s device arrays (row offsets, columns and what
/// products keep for them) and stores `value` once, so the second matrix
/// costs no device memory; a B2SR pattern is copied. Elsewhere, a new
/// matrix of the same entries.
///
/// ```
/// use bitgraphblas::{ext, Backend, Cpu, Matrix};
/// let cpu = Cpu::new();
/// let a = cpu.upload_matrix(&Matrix::from_triplets(2, 3, vec![(0, 2, true), (1, 0, true)])?)?;
/// let ones = ext::pattern_with(&cpu, &a, 1.0f32)?;
/// assert_eq!((ones.nrows(), ones.ncols(), ones.nvals()), (2, 3, 2));
/// assert_eq!((ones.get(0, 2), ones.get(1, 0), ones.get(0, 0)), (Some(1.0), Some(1.0), None));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn pattern_with<B: BackendExt, T: Scalar, U: Scalar>(
    b: &B,
    a: &B::Matrix<T>,
    value: U,
) -> Result<B::Matrix<U>> {
    b.pattern_with(a, value)
}

/// BitGNN's binary aggregation and the next layer's bit product, fused:
/// `h = A ⊕.⊗ x` written as bits (`h_out`, a [`BitOutput::Bits`] with its
/// scales and threshold, as [`crate::ops::bspmm`] writes it), then
/// `y = h ⊕'.⊗' w` (`y_out`, any output, as [`crate::ops::bmm`] writes it).
/// Both products are checked before either runs (errors name
/// `bspmm_bmm`); `h` is kept, as the model may read it. On the CUDA backend
/// one kernel where `A` is stored as CSR, `h`'s lines are at most 1024
/// bits, `w` has at most 16 columns and `y` is counts or f32 (each row's
/// bits go straight into its products); the two products otherwise. The
/// values are those of the two calls.
///
/// ```
/// use bitgraphblas::{algebra::BitSemiring, ext, Backend, BitLayout, BitMatrix, BitOutput, Cpu};
/// use bitgraphblas::{DenseMatrix, Matrix, Scales, Threshold};
/// let cpu = Cpu::new();
/// // A + I of the path 0 - 1 - 2; x one +1/-1 feature: +1, -1, -1
/// let e = [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2)];
/// let a = Matrix::from_triplets(3, 3, e.iter().map(|&(i, j)| (i, j, true)).collect())?;
/// let a = cpu.upload_matrix(&a)?;
/// let mut x = BitMatrix::zeros(3, 1, BitLayout::RowMajor)?;
/// x.set(0, 0, true)?;
/// let x = cpu.upload_bits(&x)?;
/// // w: one input, two outputs, +1 and -1
/// let mut w = BitMatrix::zeros(1, 2, BitLayout::ColMajor)?;
/// w.set(0, 0, true)?;
/// let w = cpu.upload_bits(&w)?;
/// let mut h = cpu.bits_new(3, 1, BitLayout::RowMajor)?;
/// let mut y = DenseMatrix::filled(3, 2, 0i32);
/// // h = sign of the neighbourhood sum (0, -1, -2: bits 1, 0, 0), y = h w in +1/-1
/// let h_out = BitOutput::Bits { out: &mut h, scales: Scales::default(), threshold: Threshold::Sign };
/// ext::bspmm_bmm(&cpu, h_out, BitSemiring::PLUS_LAND_SIGNED, &a, &x,
///                BitOutput::Counts(&mut y), BitSemiring::PLUS_XNOR, &w)?;
/// assert_eq!(y.as_slice(), &[1, -1, -1, 1, -1, 1]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn bspmm_bmm<B: BackendExt>(
    b: &B,
    h_out: BitOutput<'_, B>,
    aggregate: BitSemiring,
    a: &B::Matrix<bool>,
    x: &B::Bits,
    y_out: BitOutput<'_, B>,
    product: BitSemiring,
    w: &B::Bits,
) -> Result<()> {
    const OP: &str = "bspmm_bmm";
    check_bspmm(OP, &h_out, aggregate, a, x)?;
    let BitOutput::Bits { out: h, .. } = &h_out else {
        return Err(bits::not_bits());
    };
    check_bmm(OP, &y_out, product, BitInput::Bits(&**h), w)?;
    b.bspmm_bmm(h_out, aggregate, a, x, y_out, product, w)
}

/// Brandes' dependencies of a batch of `k` sources, fused: with `a` = `A`
/// and `at` = `A'` (`PLUS.TIMES` on `f64`, the values of `A` read as edge
/// multiplicities: ones for a graph), the result is `δ` flattened row-major
/// `n × k`, entry `i · k + j` the dependency `δ_s(i) = Σ_{t ≠ s, i} σ_st(i) /
/// σ_st` of vertex `i` on the `j`-th source `s` (zero at the source itself
/// and where `s` does not reach `i`; every entry present). Each source's
/// shortest-path counts `σ` come from a breadth-first search,
///
/// ```text
/// N = A' (+.×) F        F<¬σ, replace> = N (where N > 0)        σ += F
/// ```
///
/// one level at a time (`F` the `n × k` frontier, the sources' columns side
/// by side), and the dependencies are accumulated back from the deepest level
///
/// ```text
/// T = (1 + δ) / σ on level d     U = A (+.×) T     δ += σ ⊙ U on level d - 1
/// ```
///
/// Cost: two dense products per level, `O(k · (m + n))` each at most,
/// `O(k · (m + n) · depth)` in all. The default ([`bc::brandes_generic`])
/// runs each step as a backend operation and keeps one frontier a level
/// (`O(k · n · depth)` memory); the CPU keeps `σ`, `δ` and the (vertex,
/// source) pairs of each level on the host and works in place in the
/// products' operand and result (`O(k · n)` memory, a level's element-wise
/// work in the size of the level).
///
/// ```
/// use bitgraphblas::{ext, Backend, Cpu, Matrix};
/// // The path 0 - 1 - 2, sources 0 and 2: vertex 1 lies between them.
/// let e = vec![(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
/// let a = Matrix::from_triplets(3, 3, e).unwrap();
/// let cpu = Cpu::new();
/// let d = ext::brandes(&cpu, &a, &a, &[0, 2]).unwrap();
/// // rows: vertices 0, 1, 2; columns: sources 0, 2
/// assert_eq!(cpu.download_vector(&d).unwrap().to_vec(-1.0), vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
/// ```
pub fn brandes<B: BackendExt>(
    b: &B,
    a: &B::Matrix<f64>,
    at: &B::Matrix<f64>,
    sources: &[usize],
) -> Result<B::Vector<f64>> {
    let n = square_order("brandes", "A", a)?;
    need("brandes", (at.nrows(), at.ncols()) == (n, n), || {
        format!("A is {n}x{n}, A' is {}x{}", at.nrows(), at.ncols())
    })?;
    check_sources("brandes", sources, n)?;
    b.brandes(a, at, sources)
}

/// Shortest-path distances from the nearest of `sources` (Meyer and
/// Sanders' delta-stepping with the bucket width and split edges of
/// `edges`): a full vector, `f64::INFINITY` where no source reaches. Every
/// backend returns the same distances (a distance is the sum of its path's
/// weights from the source, in path order). An `Err` for no source or a
/// source out of range.
///
/// On the CUDA backend the search is a few kernels per bucket over the CSR
/// edges (`cuda/sssp.cu`): the bucket's vertices as a queue, its light edges
/// relaxed with atomic minima until no distance in the bucket improves, then
/// the bucket's heavy edges once, with one host round trip per step.
///
/// ```
/// use bitgraphblas::{ext, ext::DeltaEdges, Backend, Cpu, Matrix};
/// // 0 -> 1 (5), 0 -> 2 (1), 2 -> 1 (2); 3 is not reached
/// let w = Matrix::from_triplets(4, 4, vec![(0, 1, 5.0), (0, 2, 1.0), (2, 1, 2.0)]).unwrap();
/// let cpu = Cpu::new();
/// let edges = DeltaEdges::new(&cpu, &w, 2.0).unwrap();
/// let d = ext::delta_stepping(&cpu, &edges, &[0]).unwrap();
/// assert_eq!(cpu.download_vector(&d).unwrap().to_vec(f64::NAN), vec![0.0, 3.0, 1.0, f64::INFINITY]);
/// assert!(ext::delta_stepping(&cpu, &edges, &[4]).is_err());
/// ```
pub fn delta_stepping<B: BackendExt>(
    b: &B,
    edges: &DeltaEdges<B>,
    sources: &[usize],
) -> Result<B::Vector<f64>>
where
    B::MaskSource: VectorShape,
{
    check_sources("delta_stepping", sources, edges.order())?;
    b.delta_stepping(edges, sources)
}

/// At least one source, each a vertex of `0..n`, else an `Err` for `op`.
/// The shapes of a scaled product `C = diag(l) (A (diag(r) B)) diag(s) ⊕
/// bias` (`B` named `name` in the errors): `B` has `A`'s columns as rows, `C`
/// is `A B`'s shape, and each given vector fits what it scales.
fn check_scaled<B: Backend, T: Scalar, U: Scalar, W: Scalar>(
    op: &'static str,
    name: &str,
    a: &B::Matrix<T>,
    bd: &B::Dense<U>,
    c: &B::Dense<W>,
    scales: &DenseScales<'_, B, T>,
) -> Result<()> {
    let (m, k, n) = (a.nrows(), a.ncols(), bd.ncols());
    need(op, bd.nrows() == k, || {
        format!("A is {m}x{k}, {name} is {}x{n}", bd.nrows())
    })?;
    need(op, (c.nrows(), c.ncols()) == (m, n), || {
        format!("C is {}x{}, A {name} is {m}x{n}", c.nrows(), c.ncols())
    })?;
    let len = |v: Option<&B::Vector<T>>, want: usize| v.map_or(want, |v| v.len());
    check_lengths(
        op,
        || format!("A is {m}x{k}, {name} has {n} columns"),
        [
            ("l", len(scales.left, m), m),
            ("r", len(scales.right, k), k),
            ("s", len(scales.col, n), n),
            ("bias", len(scales.bias, n), n),
        ],
    )
}

fn check_sources(op: &'static str, sources: &[usize], n: usize) -> Result<()> {
    need(op, !sources.is_empty(), || "no source".into())?;
    match sources.iter().find(|&&s| s >= n) {
        Some(&index) => Err(crate::Error::IndexOutOfBounds { op, index, len: n }),
        None => Ok(()),
    }
}

/// The order of the square matrix `a` (called `name` in the error), else
/// [`crate::Error::DimensionMismatch`] for `op`.
fn square_order<M: MatrixShape>(op: &'static str, name: &str, a: &M) -> Result<usize> {
    let n = a.nrows();
    need(op, a.ncols() == n, || {
        format!("{name} is {n}x{}, not square", a.ncols())
    })?;
    Ok(n)
}

/// Each `(what, len, want)` has `len == want`, else
/// [`crate::Error::DimensionMismatch`] for `op` ("`context()`, `what` has
/// length `len`"), the first that differs.
fn check_lengths<const N: usize>(
    op: &'static str,
    context: impl Fn() -> String,
    lengths: [(&str, usize, usize); N],
) -> Result<()> {
    for (what, len, want) in lengths {
        need(op, len == want, || {
            format!("{}, {what} has length {len}", context())
        })?;
    }
    Ok(())
}
