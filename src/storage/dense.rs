//! Dense row-major matrices (the feature matrices of GNN layers, multi-vectors).

use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A dense `nrows x ncols` matrix stored row-major: entry `(i, j)` is `data[i * ncols + j]`.
///
/// ```
/// use bitgraphblas::storage::DenseMatrix;
/// let m = DenseMatrix::from_vec(2, 3, vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
/// assert_eq!(m.get(1, 0), 4.0);
/// assert_eq!(m.row(0), &[1.0, 2.0, 3.0]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DenseMatrix<T> {
    nrows: usize,
    ncols: usize,
    data: Vec<T>,
}

impl<T: Scalar> DenseMatrix<T> {
    /// A matrix filled with `value`.
    pub fn filled(nrows: usize, ncols: usize, value: T) -> Self {
        DenseMatrix {
            nrows,
            ncols,
            data: vec![value; nrows * ncols],
        }
    }
    /// From row-major data; `data.len()` must be `nrows * ncols`.
    pub fn from_vec(nrows: usize, ncols: usize, data: Vec<T>) -> Result<Self> {
        if data.len() != nrows.saturating_mul(ncols) {
            return Err(Error::dims(
                "DenseMatrix::from_vec",
                format!("{} values for a {nrows}x{ncols} matrix", data.len()),
            ));
        }
        Ok(DenseMatrix { nrows, ncols, data })
    }
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Entry `(i, j)` (panics when out of range, like slice indexing).
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(i < self.nrows && j < self.ncols);
        self.data[i * self.ncols + j]
    }
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.ncols..(i + 1) * self.ncols]
    }
    /// Row-major data.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    /// Row-major data, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    /// The data, consumed.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
}
