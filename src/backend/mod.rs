//! Backends: where operations run.
//!
//! [`Backend`] is the one interface every backend implements: its own matrix,
//! vector and dense types (host memory for [`Cpu`], device memory for the CUDA
//! backend), explicit transfers, and one entry point per operation family.
//! The [`crate::ops`] layer checks shapes, then calls these entry points, so a
//! backend may assume its arguments fit together. Algorithms are written once,
//! generic over `B: Backend`.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;

pub use cpu::Cpu;

use crate::algebra::{AnyPair, BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::container::{
    Accum, Accumulate, Flags, Format, Mask, Matrix, MatrixMask, NoAccum, Vector, VectorFormat,
};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::DenseMatrix;

/// Shape of a backend matrix.
pub trait MatrixShape {
    /// Number of rows.
    fn nrows(&self) -> usize;
    /// Number of columns.
    fn ncols(&self) -> usize;
}

/// Shape of a backend vector.
pub trait VectorShape {
    /// Length.
    fn len(&self) -> usize;
    /// True when the length is 0.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which element-wise operation: union of patterns, intersection, or union with
/// fill values for the missing side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EwiseKind<T> {
    /// `op(u, v)` where both are present, the present one elsewhere.
    Add,
    /// `op(u, v)` where both are present only.
    Mult,
    /// `op(u or alpha, v or beta)` on the union of patterns.
    Union { alpha: T, beta: T },
}

/// When [`crate::ops::bfs_push`] stops pushing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushLimits {
    /// The most levels to run (0: only measure the frontier).
    pub max_levels: usize,
    /// Stop after a level whose new frontier has `edges · alpha` above the
    /// out-edges of the still unvisited vertices (Beamer's α: time to pull).
    pub alpha: u64,
    /// Stop after a level whose new frontier has more out-edges than this.
    pub max_edges: u64,
}

/// Where [`crate::ops::bfs_push`] stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pushed {
    /// Levels run.
    pub levels: usize,
    /// Vertices in the frontier now.
    pub nvals: usize,
    /// Their out-edges (sum of their degrees).
    pub edges: u64,
    /// Out-edges of the vertices without a level.
    pub unvisited_edges: u64,
}

/// The interface a backend implements. Entry points take already-checked
/// arguments; call them through [`crate::ops`].
///
/// Semantics of every entry point with an output: compute `t`, combine with the
/// old output through `accum`, write through `mask` with `flags.replace`
/// (see [`crate::Desc`]).
pub trait Backend: Sized + Send + Sync {
    /// A sparse matrix in this backend's memory.
    type Matrix<T: Scalar>: MatrixShape;
    /// A vector in this backend's memory.
    type Vector<T: Scalar>: VectorShape;
    /// A dense row-major matrix in this backend's memory.
    type Dense<T: Scalar>: MatrixShape;
    /// What a vector mask borrows (a vector of any element type).
    type MaskSource: ?Sized;
    /// What a matrix mask borrows (a matrix of any element type).
    type MatrixMaskSource: ?Sized;

    /// Whether matrices and vectors live in host memory, so reading a result
    /// back is a plain copy (`true` for [`Cpu`](crate::Cpu)); clients use it to
    /// choose where to keep per-iteration state.
    const HOST_MEMORY: bool;

    /// Short name (`"cpu"`, `"cuda"`).
    fn name(&self) -> &'static str;

    /// A valued mask over `v`.
    fn mask<T: Scalar>(v: &Self::Vector<T>) -> Mask<'_, Self>;
    /// A valued mask over `m`.
    fn matrix_mask<T: Scalar>(m: &Self::Matrix<T>) -> MatrixMask<'_, Self>;

    /// Copy a host matrix into this backend (keeps its format).
    fn upload_matrix<T: Scalar>(&self, m: &Matrix<T>) -> Result<Self::Matrix<T>>;
    /// A host matrix brought into this backend, consumed:
    /// [`Backend::upload_matrix`] on a device backend, the matrix itself (no
    /// copy) on one whose matrices live in host memory (a matrix built on the
    /// host for one product, such as connected components' parent matrix).
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu, Matrix};
    /// let cpu = Cpu::new();
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 1u64)]).unwrap();
    /// assert_eq!(cpu.upload_matrix_owned(a).unwrap().get(0, 1), Some(1));
    /// ```
    fn upload_matrix_owned<T: Scalar>(&self, m: Matrix<T>) -> Result<Self::Matrix<T>> {
        self.upload_matrix(&m)
    }
    /// Copy a matrix back to the host.
    fn download_matrix<T: Scalar>(&self, m: &Self::Matrix<T>) -> Result<Matrix<T>>;
    /// Copy a host vector into this backend (keeps its format).
    fn upload_vector<T: Scalar>(&self, v: &Vector<T>) -> Result<Self::Vector<T>>;
    /// Copy a vector back to the host.
    fn download_vector<T: Scalar>(&self, v: &Self::Vector<T>) -> Result<Vector<T>>;
    /// A vector brought back to the host, consumed: [`Backend::download_vector`]
    /// on a device backend, the vector itself (no copy) on one whose vectors
    /// live in host memory.
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu, Vector};
    /// let cpu = Cpu::new();
    /// let v = cpu.upload_vector(&Vector::from_dense(vec![1.0f64, 2.0])).unwrap();
    /// assert_eq!(cpu.download_vector_owned(v).unwrap().to_vec(0.0), vec![1.0, 2.0]);
    /// ```
    fn download_vector_owned<T: Scalar>(&self, v: Self::Vector<T>) -> Result<Vector<T>> {
        self.download_vector(&v)
    }
    /// Copy a host dense matrix into this backend.
    fn upload_dense<T: Scalar>(&self, m: &DenseMatrix<T>) -> Result<Self::Dense<T>>;
    /// Copy a dense matrix back to the host.
    fn download_dense<T: Scalar>(&self, m: &Self::Dense<T>) -> Result<DenseMatrix<T>>;
    /// The host storage of a dense matrix, mutably, where this backend keeps
    /// it in host memory ([`Cpu`](crate::Cpu): the matrix itself); `None`
    /// elsewhere (the default). Lets a client update per-iteration state in
    /// place instead of copying it down and up.
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu};
    /// let cpu = Cpu::new();
    /// let mut d = cpu.dense_new(2, 2, 0.0f64).unwrap();
    /// Cpu::dense_host_mut(&mut d).unwrap().as_mut_slice()[3] = 1.0;
    /// assert_eq!(cpu.download_dense(&d).unwrap().get(1, 1), 1.0);
    /// ```
    fn dense_host_mut<T: Scalar>(d: &mut Self::Dense<T>) -> Option<&mut DenseMatrix<T>> {
        let _ = d;
        None
    }

    /// A new vector: every entry `fill`, or all absent when `fill` is `None`.
    fn vector_new<T: Scalar>(
        &self,
        len: usize,
        fill: Option<T>,
        format: VectorFormat,
    ) -> Result<Self::Vector<T>>;
    /// A new dense matrix filled with `value`.
    fn dense_new<T: Scalar>(&self, nrows: usize, ncols: usize, value: T) -> Result<Self::Dense<T>>;
    /// The matrix in another format (packing into B2SR happens on this backend).
    fn convert<T: Scalar>(&self, m: &Self::Matrix<T>, format: Format) -> Result<Self::Matrix<T>>;
    /// The same entries in another vector format.
    fn convert_vector<T: Scalar>(
        &self,
        v: &Self::Vector<T>,
        format: VectorFormat,
    ) -> Result<Self::Vector<T>>;
    /// Number of present entries.
    fn vector_nvals<T: Scalar>(&self, v: &Self::Vector<T>) -> Result<usize>;
    /// Number of stored entries.
    fn matrix_nvals<T: Scalar>(&self, m: &Self::Matrix<T>) -> Result<usize>;

    /// `w<mask> = accum(w, A ⊕.⊗ u)` (`A'` with `flags.transpose_a`).
    #[allow(clippy::too_many_arguments)]
    fn mxv<S: Semiring, A: Accumulate<S::T>>(
        &self,
        w: &mut Self::Vector<S::T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        semiring: S,
        a: &Self::Matrix<S::T>,
        u: &Self::Vector<S::T>,
        flags: Flags,
    ) -> Result<()>;

    /// `C<mask> = accum(C, A ⊕.⊗ B)` (transposes per flags).
    #[allow(clippy::too_many_arguments)]
    fn mxm<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut Self::Matrix<S::T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        semiring: S,
        a: &Self::Matrix<S::T>,
        b: &Self::Matrix<S::T>,
        flags: Flags,
    ) -> Result<()>;

    /// `⊕` over the entries of `(A ⊕.⊗ B)<mask>`, fused: the masked product is
    /// never stored (triangle counting: `PLUS.PAIR`, mask `L`, `L * L'`).
    fn mxm_reduce<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        semiring: S,
        a: &Self::Matrix<S::T>,
        b: &Self::Matrix<S::T>,
        flags: Flags,
    ) -> Result<S::T>;

    /// `C = accum(C, A ⊕.⊗ B)` with `B` and `C` dense (GNN aggregation).
    fn mxm_dense<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut Self::Dense<S::T>,
        accum: A,
        semiring: S,
        a: &Self::Matrix<S::T>,
        b: &Self::Dense<S::T>,
        flags: Flags,
    ) -> Result<()>;

    /// Element-wise `w<mask> = accum(w, u op v)` on vectors.
    #[allow(clippy::too_many_arguments)]
    fn ewise_vector<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        kind: EwiseKind<T>,
        op: Op,
        u: &Self::Vector<T>,
        v: &Self::Vector<T>,
        flags: Flags,
    ) -> Result<()>;

    /// Element-wise `C<mask> = accum(C, A op B)` on matrices.
    #[allow(clippy::too_many_arguments)]
    fn ewise_matrix<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        kind: EwiseKind<T>,
        op: Op,
        a: &Self::Matrix<T>,
        b: &Self::Matrix<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `w<mask> = accum(w, f(u))`.
    fn apply_vector<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        f: F,
        u: &Self::Vector<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `C<mask> = accum(C, f(A))`.
    fn apply_matrix<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        f: F,
        a: &Self::Matrix<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `w<mask> = accum(w, u(keep))`: the entries of `u` the predicate keeps.
    fn select_vector<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        pred: P,
        u: &Self::Vector<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `C<mask> = accum(C, A(keep))`.
    fn select_matrix<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        pred: P,
        a: &Self::Matrix<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `w<mask> = accum(w, ⊕_j A(:, j))`: reduce each row (each column with
    /// `flags.transpose_a`) with a monoid. Empty rows give absent entries.
    fn reduce_rows<T: Scalar, M: Monoid<T>, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        monoid: M,
        a: &Self::Matrix<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `⊕` over the present entries of `u` (the identity when there are none).
    fn reduce_vector<T: Scalar, M: Monoid<T>>(&self, monoid: M, u: &Self::Vector<T>) -> Result<T>;

    /// `⊕` over the stored entries of `A` (the identity when there are none).
    fn reduce_matrix<T: Scalar, M: Monoid<T>>(&self, monoid: M, a: &Self::Matrix<T>) -> Result<T>;

    /// `w<mask> = accum(w, u(indices))`: `w` has `indices.len()` entries.
    fn extract_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        u: &Self::Vector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()>;

    /// `C<mask> = accum(C, A(rows, cols))`.
    #[allow(clippy::too_many_arguments)]
    fn extract_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &Self::Matrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()>;

    /// `w(indices)<mask> = accum(w(indices), u)`: `u` has `indices.len()` entries;
    /// the mask has `w`'s length (GraphBLAS `GrB_assign`).
    fn assign_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        u: &Self::Vector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()>;

    /// `w(indices)<mask> = accum(w(indices), value)`; every index when `indices` is `None`.
    fn assign_vector_scalar<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut Self::Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        value: T,
        indices: Option<&[usize]>,
        flags: Flags,
    ) -> Result<()>;

    /// `C(rows, cols)<mask> = accum(C(rows, cols), A)`.
    #[allow(clippy::too_many_arguments)]
    fn assign_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &Self::Matrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()>;

    /// `C<mask> = accum(C, A')`.
    fn transpose<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &Self::Matrix<T>,
        flags: Flags,
    ) -> Result<()>;

    /// `C = diag(d) A` (`rows = true`) or `C = A diag(d)`, with `op` in place of
    /// the product: `c_ij = op(d_i, a_ij)` or `op(a_ij, d_j)`. Entries whose `d`
    /// is absent are dropped. The result is CSR (scaling breaks iso values).
    fn scale<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut Self::Matrix<T>,
        op: Op,
        d: &Self::Vector<T>,
        a: &Self::Matrix<T>,
        rows: bool,
    ) -> Result<()>;

    /// `C = diag(d) B` on a dense matrix with `op` in place of the product
    /// (`c_ij = op(d_i, b_ij)`; rows whose `d_i` is absent are left unchanged).
    fn scale_dense_rows<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut Self::Dense<T>,
        op: Op,
        d: &Self::Vector<T>,
        b: &Self::Dense<T>,
    ) -> Result<()>;

    /// Push levels of a breadth-first search (see [`crate::ops::bfs_push`]).
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
        bfs_push_generic(self, level, frontier, a, degree, depth, limits)
    }

    /// `w = c ⊕ A ⊕.⊗ (d ⊗ u)`, `w` full (see [`crate::ops::mxv_affine`]).
    /// The default is [`mxv_affine_generic`]: `ewise_mult`, a fill of `w`
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
        mxv_affine_generic(self, w, semiring, c, a, d, u)
    }

    /// One pulled level of a breadth-first search (see [`crate::ops::bfs_pull`]).
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
        bfs_pull_generic(self, level, frontier, at, degree, depth)
    }
}

/// [`Backend::mxv_affine`] from the other entry points: `t = d ⊗ u`
/// (intersection), `w = c` everywhere (a full vector), `w ⊕= A ⊕.⊗ t`.
///
/// ```
/// use bitgraphblas::backend::mxv_affine_generic;
/// use bitgraphblas::{algebra::PlusTimes, Cpu, Matrix, Vector};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 3.0f64)]).unwrap();
/// let (d, u) = (Vector::from_dense(vec![1.0, 2.0]), Vector::from_dense(vec![5.0, 1.0]));
/// let mut w = Vector::empty(2);
/// mxv_affine_generic(&Cpu::new(), &mut w, PlusTimes::<f64>::new(), 0.5, &a, &d, &u).unwrap();
/// assert_eq!(w.to_vec(0.0), vec![6.5, 0.5]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn mxv_affine_generic<B: Backend, S: Semiring>(
    b: &B,
    w: &mut B::Vector<S::T>,
    semiring: S,
    c: S::T,
    a: &B::Matrix<S::T>,
    d: &B::Vector<S::T>,
    u: &B::Vector<S::T>,
) -> Result<()> {
    let flags = Flags::default();
    let mut t = b.vector_new(u.len(), None, VectorFormat::Dense)?;
    let mult = EwiseKind::Mult;
    b.ewise_vector(&mut t, None, NoAccum, mult, semiring.mul_op(), d, u, flags)?;
    b.assign_vector_scalar(w, None, NoAccum, c, None, flags)?;
    let accum = Accum(semiring.add_op());
    b.mxv(w, None, accum, semiring, a, &t, flags)
}

/// Sum of `degree` over the vertices where `set` is (`true`) or is not present.
fn degree_sum(set: &Vector<impl Scalar>, degree: &Vector<f64>, present: bool) -> u64 {
    let p = set.pattern();
    (0..set.len())
        .filter(|&i| p.get(i) == present)
        .map(|i| degree.get(i).unwrap_or(0.0) as u64)
        .sum()
}

/// The host's view of a search state before a level: the degrees, and the
/// counts of [`Pushed`] for `frontier` and `level` (no level run yet).
fn measure<B: Backend>(
    b: &B,
    level: &B::Vector<i64>,
    frontier: &B::Vector<bool>,
    degree: &B::Vector<f64>,
) -> Result<(Vector<f64>, Pushed)> {
    let deg = b.download_vector(degree)?;
    let f = b.download_vector(frontier)?;
    let out = Pushed {
        levels: 0,
        nvals: f.nvals(),
        edges: degree_sum(&f, &deg, true),
        unvisited_edges: degree_sum(&b.download_vector(level)?, &deg, false),
    };
    Ok((deg, out))
}

/// One level from the entry points: `next<¬struct(level), replace>` is
/// `frontier ANY.PAIR A` (`pull` false: `vxm`, pushed) or `A ANY.PAIR frontier`
/// (`pull`: `mxv` on `A = A'` of the graph), then `level<struct(next)> =
/// depth + out.levels`, `frontier = next`, and `out` counts the new frontier.
fn generic_level<B: Backend>(
    b: &B,
    (level, frontier): (&mut B::Vector<i64>, &mut B::Vector<bool>),
    a: &B::Matrix<bool>,
    pull: bool,
    (deg, depth): (&Vector<f64>, i64),
    out: &mut Pushed,
) -> Result<()> {
    let mut next = b.vector_new(frontier.len(), None, VectorFormat::Bits)?;
    let flags = Flags {
        replace: true,
        transpose_a: !pull,
        ..Flags::default()
    };
    let mask = B::mask(level).structure().complement();
    let s = AnyPair::<bool>::new();
    b.mxv(&mut next, Some(mask), NoAccum, s, a, frontier, flags)?;
    out.levels += 1;
    let reached = B::mask(&next).structure();
    let d = depth + out.levels as i64;
    b.assign_vector_scalar(level, Some(reached), NoAccum, d, None, Flags::default())?;
    let got = b.download_vector(&next)?;
    *frontier = next;
    out.nvals = got.nvals();
    out.edges = degree_sum(&got, deg, true);
    out.unvisited_edges = out.unvisited_edges.saturating_sub(out.edges);
    Ok(())
}

/// [`Backend::bfs_push`] from the other entry points (statistics on the host).
pub(crate) fn bfs_push_generic<B: Backend>(
    b: &B,
    level: &mut B::Vector<i64>,
    frontier: &mut B::Vector<bool>,
    a: &B::Matrix<bool>,
    degree: &B::Vector<f64>,
    depth: i64,
    limits: PushLimits,
) -> Result<Pushed> {
    let (deg, mut out) = measure(b, level, frontier, degree)?;
    while out.levels < limits.max_levels {
        generic_level(b, (level, frontier), a, false, (&deg, depth), &mut out)?;
        if out.nvals == 0
            || out.edges.saturating_mul(limits.alpha) > out.unvisited_edges
            || out.edges > limits.max_edges
        {
            break;
        }
    }
    Ok(out)
}

/// [`Backend::bfs_pull`] from the other entry points (statistics on the host).
pub(crate) fn bfs_pull_generic<B: Backend>(
    b: &B,
    level: &mut B::Vector<i64>,
    frontier: &mut B::Vector<bool>,
    at: &B::Matrix<bool>,
    degree: &B::Vector<f64>,
    depth: i64,
) -> Result<Pushed> {
    let (deg, mut out) = measure(b, level, frontier, degree)?;
    generic_level(b, (level, frontier), at, true, (&deg, depth), &mut out)?;
    Ok(out)
}
