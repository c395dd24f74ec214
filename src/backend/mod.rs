//! Backends: where operations run.
//!
//! [`Backend`] is the one interface every backend implements: its own matrix,
//! vector and dense types (host memory for [`Cpu`], device memory for the CUDA
//! backend), explicit transfers, and one entry point per GraphBLAS operation
//! family. The [`crate::ops`] layer checks shapes, then calls these entry
//! points, so a backend may assume its arguments fit together. Fused and
//! algorithm-specific operations are not here: they are the extension trait
//! [`crate::ext::BackendExt`], whose defaults are written on these entry
//! points. Algorithms are written once, generic over the backend.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;

pub use cpu::Cpu;

use crate::algebra::{BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::container::{Accumulate, Flags, Format, Mask, Matrix, MatrixMask, Vector, VectorFormat};
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

/// What a matrix holds, for [`Backend::auto_format`]: only a pattern (the
/// boolean products of BFS and triangle counting) or values that products
/// combine (PageRank's `f64`, connected components' vertex ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// The entries' presence is all a product reads.
    Pattern,
    /// Products read the entries' values.
    Values,
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
    Union {
        /// Stands in for `u` where only `v` is present.
        alpha: T,
        /// Stands in for `v` where only `u` is present.
        beta: T,
    },
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

    /// Short name (`"cpu"`, `"cuda"`).
    fn name(&self) -> &'static str;

    /// The format this backend runs products on a matrix of `content` in
    /// best, when the caller left the choice to [`Format::Auto`] and the
    /// sampling profile ([`crate::storage::b2sr::Profile`]) chose `profiled`
    /// for its pattern. The default keeps `profiled`. Clients ask this instead
    /// of knowing each backend's kernels.
    ///
    /// ```
    /// use bitgraphblas::backend::Content;
    /// use bitgraphblas::{Backend, Cpu, Format, TileSize};
    /// let t8 = Format::B2sr(TileSize::T8);
    /// assert_eq!(Cpu::new().auto_format(t8, Content::Pattern), t8);
    /// // valued products run on CSR on the CPU
    /// assert_eq!(Cpu::new().auto_format(t8, Content::Values), Format::Csr);
    /// ```
    fn auto_format(&self, profiled: Format, content: Content) -> Format {
        let _ = content;
        profiled
    }

    /// Whether this backend runs the push form of a product on `a`,
    /// `w = u ⊕.⊗ A` (`vxm`, or `mxv` with `A` transposed: scattered from
    /// `u`'s entries along the rows of `A`), for `semiring`. An algorithm
    /// that can take either form asks this before choosing `vxm(u, A)` or
    /// the same product pulled through a stored `A'` (`mxv(A', u)`), instead
    /// of trying the push and catching [`crate::Error::NoKernel`]. The
    /// default is `true` (the CPU and CUDA backends push on CSR and B2SR for
    /// every semiring they multiply with); a backend without a push kernel
    /// for some matrix or semiring answers `false` there.
    ///
    /// ```
    /// use bitgraphblas::{algebra::MinPlus, Backend, Cpu, Matrix};
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f64)]).unwrap();
    /// assert!(Cpu::new().pushes(&MinPlus::<f64>::new(), &a));
    /// ```
    fn pushes<S: Semiring>(&self, semiring: &S, a: &Self::Matrix<S::T>) -> bool {
        let _ = (semiring, a);
        true
    }

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
}
