//! The checks every operation runs before it calls the backend: shapes,
//! mask shapes, index ranges and distinct indices. A failed check is an
//! [`Error`] and leaves the output unchanged.

use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{MaskArg, MatrixMaskArg};
use crate::error::{Error, Result};

/// `(nrows, ncols)` of `m`, or of `m'` when `transpose`.
pub(crate) fn dims_of<M: MatrixShape>(m: &M, transpose: bool) -> (usize, usize) {
    if transpose {
        (m.ncols(), m.nrows())
    } else {
        (m.nrows(), m.ncols())
    }
}

/// `Ok` when `ok`, else [`Error::DimensionMismatch`] for `op` with `detail()`.
pub(crate) fn need(op: &'static str, ok: bool, detail: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::dims(op, detail()))
    }
}

/// The vector mask, if any, has length `len`.
pub(crate) fn check_vmask<B: Backend, M: MaskArg<B>>(
    op: &'static str,
    m: &M,
    len: usize,
) -> Result<()>
where
    B::MaskSource: VectorShape,
{
    if let Some(mask) = m.vector_mask() {
        need(op, mask.source.len() == len, || {
            format!("mask has length {}, output {len}", mask.source.len())
        })?;
    }
    Ok(())
}

/// The matrix mask, if any, has shape `shape`.
pub(crate) fn check_mmask<B: Backend, M: MatrixMaskArg<B>>(
    op: &'static str,
    m: &M,
    shape: (usize, usize),
) -> Result<()>
where
    B::MatrixMaskSource: MatrixShape,
{
    if let Some(mask) = m.matrix_mask() {
        let ms = (mask.source.nrows(), mask.source.ncols());
        need(op, ms == shape, || {
            format!("mask is {}x{}, output {}x{}", ms.0, ms.1, shape.0, shape.1)
        })?;
    }
    Ok(())
}

/// Every index is `< len` (else [`Error::IndexOutOfBounds`]).
pub(crate) fn check_indices(op: &'static str, idx: &[usize], len: usize) -> Result<()> {
    match idx.iter().find(|&&i| i >= len) {
        Some(&i) => Err(Error::IndexOutOfBounds { op, index: i, len }),
        None => Ok(()),
    }
}

/// No index is repeated (else [`Error::InvalidArgument`]).
pub(crate) fn check_distinct(op: &'static str, idx: &[usize]) -> Result<()> {
    let mut s = idx.to_vec();
    s.sort_unstable();
    if s.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::invalid(op, "an index is repeated"));
    }
    Ok(())
}

/// The output vector has length `len` (else [`Error::DimensionMismatch`] for
/// `op` with `detail()`), and so has the vector mask, if any.
pub(crate) fn check_vector_output<B: Backend, M: MaskArg<B>>(
    op: &'static str,
    mask: &M,
    w_len: usize,
    len: usize,
    detail: impl FnOnce() -> String,
) -> Result<()>
where
    B::MaskSource: VectorShape,
{
    need(op, w_len == len, detail)?;
    check_vmask(op, mask, len)
}

/// The output matrix is `shape` (else [`Error::DimensionMismatch`] for `op`
/// with `detail()`), and so is the matrix mask, if any.
pub(crate) fn check_matrix_output<B: Backend, M: MatrixMaskArg<B>>(
    op: &'static str,
    mask: &M,
    c_shape: (usize, usize),
    shape: (usize, usize),
    detail: impl FnOnce() -> String,
) -> Result<()>
where
    B::MatrixMaskSource: MatrixShape,
{
    need(op, c_shape == shape, detail)?;
    check_mmask(op, mask, shape)
}

/// `w = f(u)`: `w` has the length of `u`, and so has the mask, if any.
pub(crate) fn check_unary_vector<B: Backend, M: MaskArg<B>>(
    op: &'static str,
    mask: &M,
    w_len: usize,
    u_len: usize,
) -> Result<()>
where
    B::MaskSource: VectorShape,
{
    check_vector_output(op, mask, w_len, u_len, || {
        format!("w has length {w_len}, u {u_len}")
    })
}

/// `C = f(A)` (`f(A')` with `transpose`): `C` has the shape of `A`, and so has
/// the mask, if any.
pub(crate) fn check_unary_matrix<B: Backend, M: MatrixMaskArg<B>, A: MatrixShape>(
    op: &'static str,
    mask: &M,
    c_shape: (usize, usize),
    a: &A,
    transpose: bool,
) -> Result<()>
where
    B::MatrixMaskSource: MatrixShape,
{
    let sa = dims_of(a, transpose);
    check_matrix_output(op, mask, c_shape, sa, || {
        format!("C is {}x{}, A {sa:?}", c_shape.0, c_shape.1)
    })
}

/// `(nrows, ncols)` as `"MxN"`, for error messages.
pub(crate) fn shape_str((r, c): (usize, usize)) -> String {
    format!("{r}x{c}")
}

/// `(nrows, ncols)` of `m`.
pub(crate) fn shape_of<M: MatrixShape>(m: &M) -> (usize, usize) {
    dims_of(m, false)
}

/// The targets of an assign: every index of each `(indices, len)` set is
/// `< len`, then no set repeats an index (all the bounds are checked first).
pub(crate) fn check_targets(op: &'static str, sets: &[(&[usize], usize)]) -> Result<()> {
    for &(idx, len) in sets {
        check_indices(op, idx, len)?;
    }
    for &(idx, _) in sets {
        check_distinct(op, idx)?;
    }
    Ok(())
}
