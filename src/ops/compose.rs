//! Building blocks for the calls written on other backend entry points
//! (row and column extract and assign, sub-assign, scalar assign into a
//! matrix, positional apply): new empty operands, a column of a matrix as a
//! vector, a vector as a one-row or one-column matrix, a full matrix of one
//! value. Each runs on any backend, so these calls need no kernels of their
//! own; temporaries live in the backend's memory.

use crate::algebra::{Any, First, Second};
use crate::backend::{Backend, VectorShape};
use crate::container::{Flags, Matrix, NoAccum, Vector, VectorFormat};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::Csr;

/// `0, 1, ..., n - 1`: every index of a dimension (GraphBLAS `GrB_ALL`).
pub(crate) fn all(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// The given indices, or every index of a dimension of length `n`.
pub(crate) fn or_all(idx: Option<&[usize]>, n: usize) -> Vec<usize> {
    idx.map_or_else(|| all(n), <[usize]>::to_vec)
}

/// An `nrows x ncols` matrix with no entries, on `b`.
pub(crate) fn new_matrix<B: Backend, T: Scalar>(
    b: &B,
    nrows: usize,
    ncols: usize,
) -> Result<B::Matrix<T>> {
    b.upload_matrix_owned(Matrix::empty(nrows, ncols))
}

/// A vector of `len` absent entries, on `b`.
pub(crate) fn new_vector<B: Backend, T: Scalar>(b: &B, len: usize) -> Result<B::Vector<T>> {
    b.vector_new(len, None, VectorFormat::Sparse)
}

/// The full vector `f(0), ..., f(len - 1)`, on `b`.
pub(crate) fn vector_from_fn<B: Backend, T: Scalar>(
    b: &B,
    len: usize,
    f: impl Fn(usize) -> T,
) -> Result<B::Vector<T>> {
    b.upload_vector(&Vector::from_dense((0..len).map(f).collect()))
}

/// The `nrows x ncols` matrix with every entry `value` (CSR, on `b`).
pub(crate) fn full_matrix<B: Backend, T: Scalar>(
    b: &B,
    nrows: usize,
    ncols: usize,
    value: T,
) -> Result<B::Matrix<T>> {
    let nnz = nrows.checked_mul(ncols).ok_or_else(|| Error::TooLarge {
        what: "matrix",
        detail: format!("{nrows} x {ncols} entries"),
    })?;
    crate::storage::csr_check_u32("matrix", ncols)?;
    let row_ptr = (0..=nrows).map(|i| i * ncols).collect();
    let col_idx = (0..nrows).flat_map(|_| 0..ncols as u32).collect();
    let csr = Csr::from_parts_unchecked(nrows, ncols, row_ptr, col_idx, vec![value; nnz]);
    b.upload_matrix_owned(Matrix::from_csr(csr))
}

/// `A(rows, j)` (`A'(rows, j)`, that is `A(j, rows)`, with `transpose`) as a
/// vector of length `rows.len()`: the one-column extract, then its rows
/// reduced (each holds at most one entry, which `ANY` keeps as it is).
pub(crate) fn column<B: Backend, T: Scalar>(
    b: &B,
    a: &B::Matrix<T>,
    rows: &[usize],
    j: usize,
    transpose: bool,
) -> Result<B::Vector<T>> {
    let mut t = new_matrix(b, rows.len(), 1)?;
    let flags = Flags {
        transpose_a: transpose,
        ..Flags::default()
    };
    b.extract_matrix(&mut t, None, NoAccum, a, rows, &[j], flags)?;
    let mut v = new_vector(b, rows.len())?;
    b.reduce_rows(&mut v, None, NoAccum, Any, &t, Flags::default())?;
    Ok(v)
}

/// `u` as a `1 x n` matrix (`row`) or an `n x 1` one: a line of ones scaled
/// by `u` (an absent `u_i` drops its entry).
pub(crate) fn line_matrix<B: Backend, T: Scalar>(
    b: &B,
    u: &B::Vector<T>,
    row: bool,
) -> Result<B::Matrix<T>> {
    let n = u.len();
    let (nrows, ncols) = if row { (1, n) } else { (n, 1) };
    let ones = full_matrix(b, nrows, ncols, T::one())?;
    let mut c = new_matrix(b, nrows, ncols)?;
    if row {
        b.scale(&mut c, Second, u, &ones, false)?;
    } else {
        b.scale(&mut c, First, u, &ones, true)?;
    }
    Ok(c)
}
