//! Matrices: CSR with values, or a B2SR pattern with one iso value.

use std::borrow::Cow;

use crate::algebra::BinaryOp;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::b2sr::Profile;
use crate::storage::{B2sr, Csr, TileSize};

/// The storage format of a [`Matrix`].
///
/// ```
/// use bitgraphblas::{Format, Matrix, TileSize};
/// let a = Matrix::from_triplets(4, 4, vec![(0, 1, 1u32), (2, 3, 1)])?;
/// assert_eq!(a.format(), Format::Csr);
/// assert_eq!(a.to_format(Format::B2sr(TileSize::T8))?.format(), Format::B2sr(TileSize::T8));
/// // B2SR stores one value for all entries: differing values cannot convert.
/// let v = Matrix::from_triplets(4, 4, vec![(0, 1, 1u32), (2, 3, 2)])?;
/// assert!(v.to_format(Format::B2sr(TileSize::T8)).is_err());
/// assert_eq!(v.to_format(Format::Auto)?.format(), Format::Csr);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Compressed sparse rows with a value per entry.
    Csr,
    /// Bit tiles of the given size (`Auto`: the profile's best size, see [`Profile::best_tile`]).
    B2sr(TileSize),
    /// B2SR at the profile's best tile size where it stores fewer bytes than CSR
    /// and every stored value is equal, otherwise CSR.
    Auto,
}

/// The storage of a [`Matrix`].
///
/// ```
/// use bitgraphblas::{container::MatrixRepr, Format, Matrix, TileSize};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 3.0f32), (1, 0, 3.0)])?;
/// let b = a.to_format(Format::B2sr(TileSize::T4))?;
/// match b.repr() {
///     MatrixRepr::B2sr { pattern, value } => assert_eq!((pattern.nnz(), *value), (2, 3.0)),
///     MatrixRepr::Csr(_) => unreachable!(),
/// }
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum MatrixRepr<T> {
    /// A value per stored entry.
    Csr(Csr<T>),
    /// Every stored entry equals `value`.
    B2sr {
        /// Where the entries are.
        pattern: B2sr,
        /// The value of every entry.
        value: T,
    },
}

/// A sparse matrix, behind one interface whatever its storage.
///
/// ```
/// use bitgraphblas::{Format, Matrix, TileSize};
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0f32), (2, 0, 1.0)]).unwrap();
/// let b = a.to_format(Format::B2sr(TileSize::T4)).unwrap();
/// assert_eq!(b.nvals(), 2);
/// assert_eq!(b.get(2, 0), Some(1.0));
/// assert_eq!(b.to_sprs(), a.to_sprs());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix<T> {
    repr: MatrixRepr<T>,
}

impl<T: Scalar> Matrix<T> {
    /// An `nrows x ncols` matrix with no entries (CSR).
    pub fn empty(nrows: usize, ncols: usize) -> Self {
        Matrix {
            repr: MatrixRepr::Csr(Csr::empty(nrows, ncols)),
        }
    }
    /// From triplets; a repeated `(i, j)` is an error.
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        triplets: Vec<(usize, usize, T)>,
    ) -> Result<Self> {
        let n = triplets.len();
        let csr = Csr::from_triplets(nrows, ncols, triplets, |a, _| a)?;
        if csr.nnz() != n {
            return Err(Error::invalid(
                "Matrix::from_triplets",
                "an index pair is given twice",
            ));
        }
        Ok(Matrix::from_csr(csr))
    }
    /// From triplets, combining the values of a repeated `(i, j)` with `dup`
    /// in input order (a left fold: `dup(dup(x1, x2), x3)`, as SuiteSparse's
    /// `GrB_Matrix_build`). An index out of range is an
    /// [`Error::IndexOutOfBounds`]. Upload the result to use it on a device
    /// backend.
    ///
    /// ```
    /// use bitgraphblas::{algebra::{Minus, Plus}, Matrix};
    /// let t = vec![(0, 1, 5i32), (1, 0, 2), (0, 1, 3), (0, 1, 1)];
    /// let a = Matrix::from_triplets_dup(2, 2, t.clone(), Plus)?;
    /// assert_eq!((a.get(0, 1), a.get(1, 0), a.nvals()), (Some(9), Some(2), 2));
    /// // input order: (5 - 3) - 1
    /// assert_eq!(Matrix::from_triplets_dup(2, 2, t, Minus)?.get(0, 1), Some(1));
    /// assert!(Matrix::from_triplets_dup(2, 2, vec![(2, 0, 1i32)], Plus).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_triplets_dup(
        nrows: usize,
        ncols: usize,
        triplets: Vec<(usize, usize, T)>,
        dup: impl BinaryOp<T>,
    ) -> Result<Self> {
        let csr = Csr::from_triplets(nrows, ncols, triplets, |a, b| dup.apply(a, b))?;
        Ok(Matrix::from_csr(csr))
    }
    /// Wraps a CSR matrix.
    pub fn from_csr(csr: Csr<T>) -> Self {
        Matrix {
            repr: MatrixRepr::Csr(csr),
        }
    }
    /// Wraps a B2SR pattern whose entries all equal `value`.
    pub fn from_b2sr(pattern: B2sr, value: T) -> Self {
        Matrix {
            repr: MatrixRepr::B2sr { pattern, value },
        }
    }
    /// From a `sprs` matrix (explicit zeros stay stored entries).
    pub fn from_sprs(m: &sprs::CsMat<T>) -> Result<Self> {
        Ok(Matrix::from_csr(Csr::from_sprs(m)?))
    }
    /// To a `sprs` CSR matrix.
    pub fn to_sprs(&self) -> sprs::CsMat<T> {
        self.as_csr().to_sprs()
    }
    /// The storage.
    pub fn repr(&self) -> &MatrixRepr<T> {
        &self.repr
    }
    /// The storage, consumed.
    pub fn into_repr(self) -> MatrixRepr<T> {
        self.repr
    }
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        match &self.repr {
            MatrixRepr::Csr(c) => c.nrows(),
            MatrixRepr::B2sr { pattern, .. } => pattern.nrows(),
        }
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        match &self.repr {
            MatrixRepr::Csr(c) => c.ncols(),
            MatrixRepr::B2sr { pattern, .. } => pattern.ncols(),
        }
    }
    /// Number of stored entries.
    pub fn nvals(&self) -> usize {
        match &self.repr {
            MatrixRepr::Csr(c) => c.nnz(),
            MatrixRepr::B2sr { pattern, .. } => pattern.nnz(),
        }
    }
    /// The format.
    pub fn format(&self) -> Format {
        match &self.repr {
            MatrixRepr::Csr(_) => Format::Csr,
            MatrixRepr::B2sr { pattern, .. } => Format::B2sr(pattern.tile_size()),
        }
    }
    /// Entry `(i, j)`, or `None` where absent or out of range.
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        match &self.repr {
            MatrixRepr::Csr(c) => c.get(i, j),
            MatrixRepr::B2sr { .. } => self.as_csr().get(i, j),
        }
    }
    /// The matrix as CSR (borrowed when it already is CSR).
    pub fn as_csr(&self) -> Cow<'_, Csr<T>> {
        match &self.repr {
            MatrixRepr::Csr(c) => Cow::Borrowed(c),
            MatrixRepr::B2sr { pattern, value } => {
                Cow::Owned(pattern.to_csr(*value).expect("a valid B2SR always unpacks"))
            }
        }
    }
    /// The iso value when every stored entry is equal (`Some(one)` for an empty matrix).
    pub fn iso_value(&self) -> Option<T> {
        match &self.repr {
            MatrixRepr::B2sr { value, .. } => Some(*value),
            MatrixRepr::Csr(c) => {
                let v = c.values().first().copied().unwrap_or_else(T::one);
                c.values().iter().all(|&x| x.same_value(v)).then_some(v)
            }
        }
    }
    /// The same matrix in another format. Converting to B2SR needs every stored
    /// value to be equal (B2SR is iso-valued): use [`Matrix::to_pattern`] to drop values.
    pub fn to_format(&self, format: Format) -> Result<Self> {
        let target = match format {
            Format::Csr => return Ok(Matrix::from_csr(self.as_csr().into_owned())),
            Format::B2sr(t) => t,
            // B2SR holds one value: a matrix whose values differ stays CSR.
            Format::Auto => match (
                self.iso_value(),
                Profile::sample(&self.as_csr()).recommend(),
            ) {
                (Some(_), Some(t)) => t,
                _ => return Ok(Matrix::from_csr(self.as_csr().into_owned())),
            },
        };
        let value = self.iso_value().ok_or_else(|| {
            Error::invalid(
                "Matrix::to_format",
                "B2SR stores one value for all entries but they differ; use to_pattern",
            )
        })?;
        if let MatrixRepr::B2sr { pattern, .. } = &self.repr {
            if Some(pattern.tile_size()) == Some(target).filter(|t| *t != TileSize::Auto) {
                return Ok(self.clone());
            }
        }
        Ok(Matrix::from_b2sr(
            B2sr::from_csr(&self.as_csr(), target)?,
            value,
        ))
    }
    /// The pattern of this matrix in `format`, every entry set to `value`.
    pub fn to_pattern(&self, format: Format, value: T) -> Result<Self> {
        let csr = self.as_csr().map(|_| value);
        Matrix::from_csr(csr).to_format(format)
    }
    /// Checks the storage invariants.
    pub fn validate(&self) -> Result<()> {
        match &self.repr {
            MatrixRepr::Csr(c) => c.validate(),
            MatrixRepr::B2sr { pattern, .. } => pattern.validate(),
        }
    }
}
