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

use crate::algebra::{BinaryOp, BitDomain, BitSemiring, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::container::{
    Accumulate, BitInput, BitOutput, BitPlanes, Flags, Format, Mask, Matrix, MatrixMask, Threshold,
    Vector, VectorFormat,
};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::b2sr::Profile;
use crate::storage::{BitLayout, BitMatrix, Csr, DenseMatrix, TileSize};

/// Shape of a backend matrix.
pub trait MatrixShape {
    /// Number of rows.
    fn nrows(&self) -> usize;
    /// Number of columns.
    fn ncols(&self) -> usize;
}

/// Shape and layout of a backend bit matrix ([`Backend::Bits`]).
///
/// ```
/// use bitgraphblas::backend::{BitShape, MatrixShape};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let w = BitMatrix::zeros(602, 128, BitLayout::ColMajor)?;
/// assert_eq!((w.nrows(), w.ncols(), BitShape::layout(&w)), (602, 128, BitLayout::ColMajor));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub trait BitShape: MatrixShape {
    /// Which dimension a line of bits runs along.
    fn layout(&self) -> BitLayout;
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

/// The CPU cost model's answer for `requested` (see [`Backend::auto_format`]):
/// `Format::Auto` gives the recommended tile size or CSR,
/// `Format::B2sr(TileSize::Auto)` the best tile size, anything else itself.
pub fn profile_choice(requested: Format, profile: &Profile) -> Format {
    match requested {
        Format::Auto => profile.recommend().map_or(Format::Csr, Format::B2sr),
        Format::B2sr(TileSize::Auto) => Format::B2sr(profile.best_tile()),
        f => f,
    }
}

/// The formats `backend` wants for the products on `pattern`: `(pattern
/// products, valued products)`, by vectors or, with [`Product::ByDense`], by
/// dense matrices (`mxm_dense` and `bspmm`: GNN aggregation). Where `requested`
/// leaves the choice to Auto (`Format::Auto`, `Format::B2sr(TileSize::Auto)`),
/// each is [`Backend::auto_format`] on the sampling profile of `pattern`, for
/// [`Content::Pattern`] and [`Content::Values`] (or their `TimesDense`
/// forms); an explicit format is obeyed for both. What a client that keeps
/// one copy of a graph per kind of product (the algorithms' `Graph`, the GNN
/// client) asks before uploading.
///
/// ```
/// use bitgraphblas::backend::{auto_formats, Product};
/// use bitgraphblas::{Cpu, Format, Matrix};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f32), (1, 0, 1.0)])?;
/// let (_, values) = auto_formats(&Cpu::new(), Format::Auto, &a.as_csr(), Product::ByVector);
/// assert_eq!(values, Format::Csr); // the CPU runs valued products on CSR
/// let explicit = auto_formats(&Cpu::new(), Format::Csr, &a.as_csr(), Product::ByDense);
/// assert_eq!(explicit, (Format::Csr, Format::Csr));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn auto_formats<B: Backend, T: Scalar>(
    backend: &B,
    requested: Format,
    pattern: &Csr<T>,
    product: Product,
) -> (Format, Format) {
    let (p, v) = match product {
        Product::ByVector => (Content::Pattern, Content::Values),
        Product::ByDense => (Content::PatternTimesDense, Content::ValuesTimesDense),
    };
    match requested {
        Format::Auto | Format::B2sr(TileSize::Auto) => {
            let profile = Profile::sample(pattern);
            (
                backend.auto_format(requested, &profile, p),
                backend.auto_format(requested, &profile, v),
            )
        }
        f => (f, f),
    }
}

/// What the products on a matrix multiply it by, for [`auto_formats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    /// Vectors (`mxv`, `vxm`: the algorithms' products).
    ByVector,
    /// Dense matrices (`mxm_dense`, `bspmm`: GNN aggregation).
    ByDense,
}

/// What a matrix holds and what it multiplies, for [`Backend::auto_format`]:
/// only a pattern (the boolean products of BFS and triangle counting) or
/// values that products combine (PageRank's `f64`, connected components'
/// vertex ids), by vectors or by dense matrices (GNN aggregation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// The entries' presence is all a product by a vector reads.
    Pattern,
    /// Products by a vector read the entries' values.
    Values,
    /// The pattern multiplies dense bit matrices (`bspmm`).
    PatternTimesDense,
    /// The values multiply dense matrices (`mxm_dense`).
    ValuesTimesDense,
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
    /// A dense bit matrix in this backend's memory ([`BitMatrix`] on the host).
    type Bits: BitShape;
    /// What a vector mask borrows (a vector of any element type).
    type MaskSource: ?Sized;
    /// What a matrix mask borrows (a matrix of any element type).
    type MatrixMaskSource: ?Sized;

    /// Short name (`"cpu"`, `"cuda"`).
    fn name(&self) -> &'static str;

    /// The format this backend runs products on a matrix of `content` in
    /// best, when the caller left the choice to `requested` ([`Format::Auto`]:
    /// CSR or any tile size; `Format::B2sr(TileSize::Auto)`: a tile size) and
    /// `profile` is the sampling profile of its pattern. The default follows
    /// the profile's CPU cost model ([`Profile::recommend`],
    /// [`Profile::best_tile`]); the CUDA backend weighs the profile's tile
    /// counts with a model of its own kernels. Any other `requested` format is
    /// returned as it is. Clients ask this instead of knowing each backend's kernels.
    ///
    /// ```
    /// use bitgraphblas::backend::Content;
    /// use bitgraphblas::storage::b2sr::Profile;
    /// use bitgraphblas::{Backend, Cpu, Format, TileSize};
    /// let grid = bitgraphblas::generate::grid_2d::<f32>(64);
    /// let p = Profile::sample(&grid.as_csr());
    /// let cpu = Cpu::new();
    /// // boolean products run on the tiles the profile picks
    /// let picked = cpu.auto_format(Format::Auto, &p, Content::Pattern);
    /// assert_eq!(picked, Format::B2sr(p.best_tile()));
    /// // valued products run on CSR on the CPU
    /// assert_eq!(cpu.auto_format(Format::Auto, &p, Content::Values), Format::Csr);
    /// // an explicit format is kept
    /// let t8 = Format::B2sr(TileSize::T8);
    /// assert_eq!(cpu.auto_format(t8, &p, Content::Values), t8);
    /// ```
    fn auto_format(&self, requested: Format, profile: &Profile, content: Content) -> Format {
        let _ = content;
        profile_choice(requested, profile)
    }

    /// Whether this backend runs the push form of a product on `a`,
    /// `w = A' ⊕.⊗ u` (`mxv` with `A` transposed, as `vxm` calls it:
    /// scattered from `u`'s entries along the rows of `A`), for `semiring`
    /// in that `mxv` form. An algorithm
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
    /// A new dense matrix for an operation to write whole (an output with
    /// no accumulator): its values are unspecified until then. The default
    /// fills it with zeros; a device backend may skip the fill.
    ///
    /// ```
    /// use bitgraphblas::{algebra::PlusTimes, ops, Backend, Cpu, DenseMatrix};
    /// let cpu = Cpu::new();
    /// let a = DenseMatrix::from_vec(1, 2, vec![1.0f32, 2.0])?;
    /// let w = DenseMatrix::from_vec(2, 1, vec![3.0f32, 4.0])?;
    /// let mut y = cpu.dense_for_output::<f32>(1, 1)?;
    /// ops::dense_mxm(&cpu, &mut y, PlusTimes::<f32>::new(), &a, &w)?;
    /// assert_eq!(y.as_slice(), &[11.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn dense_for_output<T: Scalar>(&self, nrows: usize, ncols: usize) -> Result<Self::Dense<T>> {
        self.dense_new(nrows, ncols, T::zero())
    }
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

    /// `C = A ⊕.⊗ B` on dense row-major matrices (`A` `m x k`, `B` `k x n`,
    /// `C` `m x n`, overwritten; the semiring's zero where `k = 0`).
    fn dense_mxm<S: Semiring>(
        &self,
        c: &mut Self::Dense<S::T>,
        semiring: S,
        a: &Self::Dense<S::T>,
        b: &Self::Dense<S::T>,
    ) -> Result<()>;

    /// `c_ij = op(a_ij, d_j)` on a dense matrix (columns whose `d_j` is
    /// absent are copied from `A`).
    fn scale_dense_cols<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut Self::Dense<T>,
        op: Op,
        a: &Self::Dense<T>,
        d: &Self::Vector<T>,
    ) -> Result<()>;

    /// `c_ij = f(a_ij)` on dense matrices of one shape.
    fn apply_dense<T: Scalar, F: UnaryOp<T>>(
        &self,
        c: &mut Self::Dense<T>,
        f: F,
        a: &Self::Dense<T>,
    ) -> Result<()>;

    /// `c_ij = op(a_ij, b_ij)` on dense matrices of one shape.
    fn ewise_dense<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut Self::Dense<T>,
        op: Op,
        a: &Self::Dense<T>,
        b: &Self::Dense<T>,
    ) -> Result<()>;

    /// `out_i` (an `m x 1` dense matrix) = the column of row `i`'s largest
    /// value (ties: the lowest column; NaN is larger than every number, the
    /// first NaN wins). `A` has columns when it has rows.
    fn argmax_rows(&self, out: &mut Self::Dense<u32>, a: &Self::Dense<f32>) -> Result<()>;

    /// `c_ij = (a_ij - max_j a_ij) - ln Σ_j exp(a_ij - max_j a_ij)` in `f32`.
    fn log_softmax_rows(&self, c: &mut Self::Dense<f32>, a: &Self::Dense<f32>) -> Result<()>;

    /// Copy a host bit matrix into this backend (keeps its layout).
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let m = BitMatrix::from_fn(3, 70, BitLayout::RowMajor, |i, j| (i * j) % 3 == 1)?;
    /// assert_eq!(cpu.download_bits(&cpu.upload_bits(&m)?)?, m);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn upload_bits(&self, m: &BitMatrix) -> Result<Self::Bits>;
    /// Copy a bit matrix back to the host.
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let z = cpu.bits_new(2, 3, BitLayout::ColMajor)?;
    /// assert_eq!(cpu.download_bits(&z)?.count_ones(), 0);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn download_bits(&self, m: &Self::Bits) -> Result<BitMatrix>;
    /// A new all-zero `nrows x ncols` bit matrix in `layout`
    /// ([`crate::Error::TooLarge`] when its size overflows).
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let z = cpu.bits_new(4, 65, BitLayout::RowMajor)?;
    /// assert_eq!(cpu.download_bits(&z)?.words().len(), 8);
    /// assert!(cpu.bits_new(usize::MAX, 128, BitLayout::RowMajor).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bits_new(&self, nrows: usize, ncols: usize, layout: BitLayout) -> Result<Self::Bits>;
    /// A new `nrows x ncols` bit matrix in `layout` for an operation to
    /// write whole (a product's bit output, `binarize`, `quantize`'s
    /// planes): its words, padding included, are unspecified until then.
    /// The default is [`Backend::bits_new`]; a device backend may skip the
    /// fill (on the GPU a fill is one more step of a recorded pass).
    ///
    /// ```
    /// use bitgraphblas::{ops, Backend, Cpu, DenseMatrix, Threshold};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let x = DenseMatrix::from_vec(1, 3, vec![-1.0f32, 2.0, 0.5])?;
    /// let mut b = cpu.bits_for_output(1, 3, BitLayout::RowMajor)?;
    /// ops::binarize(&cpu, &mut b, &x, Threshold::Sign)?;
    /// assert_eq!(b.words(), &[0b110]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bits_for_output(&self, nrows: usize, ncols: usize, layout: BitLayout) -> Result<Self::Bits> {
        self.bits_new(nrows, ncols, layout)
    }

    /// `out = bits of x`: `out_ij = (x_ij >= t_j)` (`t_j` from `threshold`);
    /// NaN gives 0. `out` has `x`'s shape, in either layout (weights are
    /// binarised straight into the column-major form `bmm` reads).
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu, DenseMatrix, Threshold};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let x = DenseMatrix::from_vec(1, 4, vec![-1.0f32, 0.0, 2.0, f32::NAN])?;
    /// let mut b = cpu.bits_new(1, 4, BitLayout::RowMajor)?;
    /// cpu.binarize(&mut b, &x, Threshold::Sign)?;
    /// assert_eq!(b.words(), &[0b0110]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn binarize(
        &self,
        out: &mut Self::Bits,
        x: &Self::Dense<f32>,
        threshold: Threshold<'_, Self>,
    ) -> Result<()>;
    /// `out` = the mean of `|x|` along each row (`rows = true`: `out` is
    /// `m x 1`) or each column (`1 x n`): the Bi-GCN / XNOR-Net scaling
    /// factors. An empty row or column gives 0.
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu, DenseMatrix};
    /// let cpu = Cpu::new();
    /// let x = DenseMatrix::from_vec(2, 2, vec![1.0f32, -3.0, 0.0, 2.0])?;
    /// let mut r = DenseMatrix::filled(2, 1, 0.0f32);
    /// cpu.mean_abs(&mut r, &x, true)?;
    /// assert_eq!(r.as_slice(), &[2.0, 1.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn mean_abs(&self, out: &mut Self::Dense<f32>, x: &Self::Dense<f32>, rows: bool) -> Result<()>;
    /// `out` = the bits of `b` as `f32` in `domain` (`Binary`: 0/1,
    /// `Signed`: -1/+1), in either layout.
    ///
    /// ```
    /// use bitgraphblas::{algebra::BitDomain, Backend, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let b = BitMatrix::from_fn(1, 3, BitLayout::ColMajor, |_, j| j == 1)?;
    /// let mut x = DenseMatrix::filled(1, 3, 0.0f32);
    /// cpu.unpack_bits(&mut x, &b, BitDomain::Signed)?;
    /// assert_eq!(x.as_slice(), &[-1.0, 1.0, -1.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn unpack_bits(
        &self,
        out: &mut Self::Dense<f32>,
        b: &Self::Bits,
        domain: BitDomain,
    ) -> Result<()>;
    /// `out` = the same logical matrix as `b` in the other layout.
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let b = BitMatrix::from_fn(3, 2, BitLayout::RowMajor, |i, j| i == j)?;
    /// let mut t = cpu.bits_new(3, 2, BitLayout::ColMajor)?;
    /// cpu.bit_transpose(&mut t, &b)?;
    /// assert_eq!(t, BitMatrix::from_fn(3, 2, BitLayout::ColMajor, |i, j| i == j)?);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bit_transpose(&self, out: &mut Self::Bits, b: &Self::Bits) -> Result<()>;
    /// `out`'s planes = `round(x / scale + zero)` clamped to `[0, 2^b - 1]`
    /// (round half away from zero; NaN gives the zero point rounded), with
    /// `out`'s own width, scale and zero point: the caller builds `out` with
    /// [`BitPlanes::new`] and this fills its planes (either layout).
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let planes = (0..4).map(|_| cpu.bits_new(1, 2, BitLayout::RowMajor)).collect::<Result<Vec<_>, _>>()?;
    /// // scale 0.5, zero point 8: codes round(2 x + 8)
    /// let mut q = BitPlanes::<Cpu>::new(planes, DenseMatrix::filled(1, 1, 0.5f32), DenseMatrix::filled(1, 1, 8.0f32))?;
    /// cpu.quantize(&mut q, &DenseMatrix::from_vec(1, 2, vec![-1.0f32, 1.25])?)?;
    /// let mut back = DenseMatrix::filled(1, 2, 0.0f32);
    /// cpu.dequantize(&mut back, &q)?;
    /// assert_eq!(back.as_slice(), &[-1.0, 1.5]); // codes 6 and 11 (10.5 rounds up)
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn quantize(&self, out: &mut BitPlanes<Self>, x: &Self::Dense<f32>) -> Result<()>;
    /// `out = scale * (code - zero)`.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// // codes 1 and 2 in two 1-bit planes; per-column scales 1 and 10
    /// let p = vec![
    ///     BitMatrix::from_fn(1, 2, BitLayout::RowMajor, |_, j| j == 0)?,
    ///     BitMatrix::from_fn(1, 2, BitLayout::RowMajor, |_, j| j == 1)?,
    /// ];
    /// let q = BitPlanes::<Cpu>::new(p, DenseMatrix::from_vec(1, 2, vec![1.0f32, 10.0])?, DenseMatrix::filled(1, 2, 0.0f32))?;
    /// let mut x = DenseMatrix::filled(1, 2, 0.0f32);
    /// cpu.dequantize(&mut x, &q)?;
    /// assert_eq!(x.as_slice(), &[1.0, 20.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn dequantize(&self, out: &mut Self::Dense<f32>, p: &BitPlanes<Self>) -> Result<()>;

    /// BMM: `a ⊕.⊗ w` with `a` `m x k` (bits, row-major, or `f32`) and `w`
    /// `k x n` (bits, column-major), into `out` (`m x n`; see [`BitOutput`]).
    /// The value of each semiring is in [`crate::algebra::bits`]; with `f32`
    /// on the left it is `Σ_k x_ik * dr(w_kj)` (`LorLand` is not defined there).
    ///
    /// ```
    /// use bitgraphblas::{algebra::BitSemiring, Backend, BitInput, BitOutput, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let a = BitMatrix::from_fn(1, 3, BitLayout::RowMajor, |_, _| true)?;
    /// let w = BitMatrix::from_fn(3, 1, BitLayout::ColMajor, |i, _| i == 0)?;
    /// let mut c = DenseMatrix::filled(1, 1, 0i32);
    /// cpu.bmm(BitOutput::Counts(&mut c), BitSemiring::PLUS_XNOR, BitInput::Bits(&a), &w)?;
    /// assert_eq!(c.as_slice(), &[-1]); // (+1)(+1) + (+1)(-1) + (+1)(-1)
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bmm(
        &self,
        out: BitOutput<'_, Self>,
        semiring: BitSemiring,
        a: BitInput<'_, Self>,
        w: &Self::Bits,
    ) -> Result<()>;
    /// BSpMM: `A ⊕.⊗ x` with `A` an `m x k` pattern (its stored entries are
    /// 1, absent ones 0; values are not read; any format: B2SR at every tile
    /// size, or CSR) and `x` `k x n` bits (row-major), into `out` (`m x n`).
    /// The semiring's left domain must be `Binary`; `popc(a)` in the
    /// [value table](crate::algebra::bits) is row `i`'s degree.
    ///
    /// ```
    /// use bitgraphblas::{algebra::BitSemiring, Backend, BitOutput, Cpu, DenseMatrix, Matrix};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 0, true), (0, 1, true), (1, 1, true)])?;
    /// let x = BitMatrix::from_fn(2, 1, BitLayout::RowMajor, |i, _| i == 0)?;
    /// let mut c = DenseMatrix::filled(2, 1, 0i32);
    /// cpu.bspmm(BitOutput::Counts(&mut c), BitSemiring::PLUS_LAND_SIGNED, &a, &x)?;
    /// assert_eq!(c.as_slice(), &[0, -1]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bspmm(
        &self,
        out: BitOutput<'_, Self>,
        semiring: BitSemiring,
        a: &Self::Matrix<bool>,
        x: &Self::Bits,
    ) -> Result<()>;
    /// Bit-plane BMM (QGTC): over the codes of `a` (`m x k`, row-major
    /// planes) and `w` (`k x n`, column-major planes), the integer value
    /// `v_ij = Σ_k a_ik w_kj = Σ_{p,q} 2^{p+q} popc(a_p & w_q)`. `Counts`
    /// writes `v` (the checked entry point refuses a `k` where `v` could
    /// overflow `i32`); `Scaled` and `Bits` use the dequantised product
    /// `Σ_k xa_ik xw_kj = sa sw_j [v - zw_j rowsum_a_i - za colsum_w_j + k za zw_j]`
    /// (`a`'s quantisation is per tensor), then the scales and threshold.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitOutput, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let one = || DenseMatrix::filled(1, 1, 1.0f32);
    /// let zero = || DenseMatrix::filled(1, 1, 0.0f32);
    /// // a = [3, 1] (2 bits), w = [2, 1]' (2 bits)
    /// let a = BitPlanes::<Cpu>::new(vec![
    ///     BitMatrix::from_fn(1, 2, BitLayout::RowMajor, |_, _| true)?,
    ///     BitMatrix::from_fn(1, 2, BitLayout::RowMajor, |_, j| j == 0)?,
    /// ], one(), zero())?;
    /// let w = BitPlanes::<Cpu>::new(vec![
    ///     BitMatrix::from_fn(2, 1, BitLayout::ColMajor, |i, _| i == 1)?,
    ///     BitMatrix::from_fn(2, 1, BitLayout::ColMajor, |i, _| i == 0)?,
    /// ], one(), zero())?;
    /// let mut c = DenseMatrix::filled(1, 1, 0i32);
    /// cpu.bmm_planes(BitOutput::Counts(&mut c), &a, &w)?;
    /// assert_eq!(c.as_slice(), &[7]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bmm_planes(
        &self,
        out: BitOutput<'_, Self>,
        a: &BitPlanes<Self>,
        w: &BitPlanes<Self>,
    ) -> Result<()>;
    /// Bit-plane BSpMM: over the codes of `x` (`k x n`, row-major planes),
    /// `v_ij = Σ_k A_ik x_kj = Σ_p 2^p (A x_p)_ij`. `Scaled` and `Bits` use
    /// the dequantised `x`: `Σ_k A_ik sx_j (x_kj - zx_j) = sx_j (v - zx_j deg_i)`.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitOutput, BitPlanes, Cpu, DenseMatrix, Matrix};
    /// use bitgraphblas::storage::{BitLayout, BitMatrix};
    /// let cpu = Cpu::new();
    /// let a = Matrix::from_triplets(1, 2, vec![(0, 0, true), (0, 1, true)])?;
    /// // x = [1, 2]' as 2-bit codes
    /// let x = BitPlanes::<Cpu>::new(vec![
    ///     BitMatrix::from_fn(2, 1, BitLayout::RowMajor, |i, _| i == 0)?,
    ///     BitMatrix::from_fn(2, 1, BitLayout::RowMajor, |i, _| i == 1)?,
    /// ], DenseMatrix::filled(1, 1, 1.0f32), DenseMatrix::filled(1, 1, 0.0f32))?;
    /// let mut c = DenseMatrix::filled(1, 1, 0i32);
    /// cpu.bspmm_planes(BitOutput::Counts(&mut c), &a, &x)?;
    /// assert_eq!(c.as_slice(), &[3]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    fn bspmm_planes(
        &self,
        out: BitOutput<'_, Self>,
        a: &Self::Matrix<bool>,
        x: &BitPlanes<Self>,
    ) -> Result<()>;
}
