//! Sub-assign (SuiteSparse `GxB_subassign`): like `assign`, but the mask has
//! the shape of the region written (`indices.len()`, or `rows x cols`) and
//! replace deletes only inside that region; entries outside it never change.
//!
//! Each is the region extracted, `S<mask> = accum(S, x)` on it, and the
//! region assigned back whole: backend extract, apply (or scalar assign) and
//! assign, so every backend runs them.

use super::check::{check_mmask, check_targets, check_vmask, dims_of, need};
use super::compose::{new_matrix, new_vector, or_all};
use super::extract_assign::fill_region;
use crate::algebra::Identity;
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, Flags, MaskArg, MatrixMaskArg, NoAccum};
use crate::error::Result;
use crate::scalar::Scalar;

/// `w(indices)<mask> = accum(w(indices), u)` with a mask of length
/// `indices.len()` (`mask_k` decides `w_{indices[k]}`). Indices must be distinct.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Vector};
/// let mut w = Vector::from_dense(vec![1i32, 2, 3, 4]);
/// let u = Vector::from_dense(vec![70i32, 80]);
/// let m = Vector::from_dense(vec![false, true]); // allows w_1 only
/// ops::subassign(&Cpu::new(), &mut w, &u, &[3, 1], &Desc::new().mask(m.as_mask()).replace())?;
/// // w_3 is in the region and not allowed: replace deletes it; w_0, w_2 are outside.
/// assert_eq!(w.entries(), vec![(0, 1), (1, 80), (2, 3)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn subassign<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    u: &B::Vector<T>,
    indices: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    check_targets("subassign", &[(indices, w.len())])?;
    need("subassign", u.len() == indices.len(), || {
        format!("u has length {}, {} indices", u.len(), indices.len())
    })?;
    check_vmask("subassign", desc.mask_arg(), indices.len())?;
    let mask = desc.mask_arg().vector_mask();
    subassign_vector_with(b, w, indices, |s| {
        b.apply_vector(s, mask, desc.accum_op(), Identity, u, desc.flags())
    })
}

/// `w(indices)<mask> = accum(w(indices), value)` with a mask of length
/// `indices.len()`; every index when `indices` is `None` (then it is
/// [`assign_scalar`](super::assign_scalar)).
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Vector};
/// let mut w = Vector::from_entries(5, vec![(0, 1u32), (4, 9)])?;
/// let m = Vector::from_entries(2, vec![(0, true)])?; // allows the first target
/// ops::subassign_scalar(&Cpu::new(), &mut w, 5, Some(&[2, 4]), &Desc::new().mask(m.as_mask()))?;
/// assert_eq!(w.entries(), vec![(0, 1), (2, 5), (4, 9)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn subassign_scalar<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    value: T,
    indices: Option<&[usize]>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    let idx = or_all(indices, w.len());
    check_targets("subassign_scalar", &[(&idx, w.len())])?;
    check_vmask("subassign_scalar", desc.mask_arg(), idx.len())?;
    let mask = desc.mask_arg().vector_mask();
    subassign_vector_with(b, w, &idx, |s| {
        b.assign_vector_scalar(s, mask, desc.accum_op(), value, None, desc.flags())
    })
}

/// `C(rows, cols)<mask> = accum(C(rows, cols), A)` (`A'` with
/// `desc.transpose_a()`) with a `rows.len() x cols.len()` mask. Indices must
/// be distinct.
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, Desc, Matrix};
/// let mut c = Matrix::from_triplets(3, 3, vec![(0, 0, 1i32), (1, 1, 2), (2, 2, 3)])?;
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 10i32), (1, 1, 20)])?;
/// // The mask is 2x2, like the region C([1, 2], [1, 2]).
/// let m = Matrix::from_triplets(2, 2, vec![(1, 1, true)])?;
/// let d = Desc::new().mask(m.as_mask()).accum(Plus);
/// ops::subassign_matrix(&Cpu::new(), &mut c, &a, &[1, 2], &[1, 2], &d)?;
/// assert_eq!((c.get(1, 1), c.get(2, 2), c.get(0, 0)), (Some(2), Some(23), Some(1)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn subassign_matrix<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    a: &B::Matrix<T>,
    rows: &[usize],
    cols: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let op = "subassign_matrix";
    check_targets(op, &[(rows, c.nrows()), (cols, c.ncols())])?;
    let (sa, sel) = (
        dims_of(a, desc.flags().transpose_a),
        (rows.len(), cols.len()),
    );
    need(op, sa == sel, || {
        format!("A is {}x{}, selection {}x{}", sa.0, sa.1, sel.0, sel.1)
    })?;
    check_mmask(op, desc.mask_arg(), sel)?;
    let mask = desc.mask_arg().matrix_mask();
    subassign_matrix_with(b, c, rows, cols, |s| {
        b.apply_matrix(s, mask, desc.accum_op(), Identity, a, desc.flags())
    })
}

/// `C(rows, cols)<mask> = accum(C(rows, cols), value)` with a
/// `rows.len() x cols.len()` mask; every row (column) when `rows` (`cols`)
/// is `None`.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Matrix};
/// let mut c = Matrix::from_triplets(2, 3, vec![(0, 0, 1.0f64), (1, 2, 4.0)])?;
/// // The complement of an empty 2x1 mask allows the whole column 1.
/// let m = Matrix::<bool>::empty(2, 1);
/// let d = Desc::new().mask(m.as_mask().complement());
/// ops::subassign_matrix_scalar(&Cpu::new(), &mut c, 0.5, None, Some(&[1]), &d)?;
/// assert_eq!((c.get(0, 1), c.get(1, 1), c.nvals()), (Some(0.5), Some(0.5), 4));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn subassign_matrix_scalar<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    value: T,
    rows: Option<&[usize]>,
    cols: Option<&[usize]>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let op = "subassign_matrix_scalar";
    let (rows, cols) = (or_all(rows, c.nrows()), or_all(cols, c.ncols()));
    check_targets(op, &[(&rows, c.nrows()), (&cols, c.ncols())])?;
    check_mmask(op, desc.mask_arg(), (rows.len(), cols.len()))?;
    let mask = desc.mask_arg().matrix_mask();
    subassign_matrix_with(b, c, &rows, &cols, |s| {
        fill_region(b, s, mask, desc.accum_op(), value, None, None, desc.flags())
    })
}

/// `S = w(indices)`, `write(S)`, then `w(indices) = S` (absent entries of `S`
/// delete theirs).
fn subassign_vector_with<B: Backend, T: Scalar>(
    b: &B,
    w: &mut B::Vector<T>,
    indices: &[usize],
    write: impl FnOnce(&mut B::Vector<T>) -> Result<()>,
) -> Result<()> {
    let mut s = new_vector(b, indices.len())?;
    b.extract_vector(&mut s, None, NoAccum, w, indices, Flags::default())?;
    write(&mut s)?;
    b.assign_vector(w, None, NoAccum, &s, indices, Flags::default())
}

/// `S = C(rows, cols)`, `write(S)`, then `C(rows, cols) = S`.
fn subassign_matrix_with<B: Backend, T: Scalar>(
    b: &B,
    c: &mut B::Matrix<T>,
    rows: &[usize],
    cols: &[usize],
    write: impl FnOnce(&mut B::Matrix<T>) -> Result<()>,
) -> Result<()> {
    let mut s = new_matrix(b, rows.len(), cols.len())?;
    b.extract_matrix(&mut s, None, NoAccum, c, rows, cols, Flags::default())?;
    write(&mut s)?;
    b.assign_matrix(c, None, NoAccum, &s, rows, cols, Flags::default())
}
