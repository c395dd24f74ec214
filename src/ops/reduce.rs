//! Reductions with a monoid: a matrix to a vector (per row or column), a
//! vector or a matrix to one value, or to a scalar that may be empty.

use super::check::{check_vector_output, dims_of};
use crate::algebra::Monoid;
use crate::backend::{Backend, VectorShape};
use crate::container::{Accumulate, Desc, MaskArg, NoMask};
use crate::error::Result;
use crate::scalar::Scalar;

/// `w<mask> = accum(w, ⊕_j A(i, j))` (columns with `desc.transpose_a()`).
/// A row with no entries leaves `w_i` absent.
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, Desc, Matrix, Vector};
/// // [[1, 2, 0], [0, 0, 0], [0, 4, 0]]
/// let a = Matrix::from_triplets(3, 3, vec![(0, 0, 1i32), (0, 1, 2), (2, 1, 4)])?;
/// let mut rows = Vector::empty(3);
/// ops::reduce_rows(&Cpu::new(), &mut rows, Plus, &a, &Desc::new())?;
/// assert_eq!(rows.entries(), vec![(0, 3), (2, 4)]);
/// let mut cols = Vector::empty(3);
/// ops::reduce_rows(&Cpu::new(), &mut cols, Plus, &a, &Desc::new().transpose_a())?;
/// assert_eq!(cols.entries(), vec![(0, 1), (1, 6)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn reduce_rows<B, T, Mo, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    monoid: Mo,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    Mo: Monoid<T>,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    let (m, _) = dims_of(a, desc.flags().transpose_a);
    check_vector_output("reduce_rows", desc.mask_arg(), w.len(), m, || {
        format!("w has length {}, A has {m} rows", w.len())
    })?;
    b.reduce_rows(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        monoid,
        a,
        desc.flags(),
    )
}

/// `⊕` over the present entries of `u` (the monoid's identity when there are none).
///
/// ```
/// use bitgraphblas::{ops, algebra::{Max, Plus}, Cpu, Vector};
/// let u = Vector::from_entries(5, vec![(1, 4u64), (3, 9), (4, 2)])?;
/// assert_eq!(ops::reduce(&Cpu::new(), Max, &u)?, 9);
/// assert_eq!(ops::reduce(&Cpu::new(), Plus, &u)?, 15);
/// assert_eq!(ops::reduce(&Cpu::new(), Plus, &Vector::<u64>::empty(5))?, 0);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn reduce<B: Backend, T: Scalar, Mo: Monoid<T>>(
    b: &B,
    monoid: Mo,
    u: &B::Vector<T>,
) -> Result<T> {
    b.reduce_vector(monoid, u)
}

/// `⊕` over the stored entries of `A`.
///
/// ```
/// use bitgraphblas::{ops, algebra::Min, Cpu, Matrix};
/// // The lightest edge of a weighted graph.
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 2.5f32), (1, 2, 0.75), (2, 0, 4.0)])?;
/// assert_eq!(ops::reduce_matrix(&Cpu::new(), Min, &a)?, 0.75);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn reduce_matrix<B: Backend, T: Scalar, Mo: Monoid<T>>(
    b: &B,
    monoid: Mo,
    a: &B::Matrix<T>,
) -> Result<T> {
    b.reduce_matrix(monoid, a)
}

/// A scalar that may be empty (GraphBLAS `GrB_Scalar`): `s = accum(s, ⊕ u)`,
/// where `⊕ u` over no entries is empty, not the identity. Without an
/// accumulator `s` becomes the reduction (`None` for an empty `u`); with one,
/// an empty reduction leaves `s` unchanged and an empty `s` takes the
/// reduction as it is.
///
/// ```
/// use bitgraphblas::{ops, algebra::{Max, Plus}, Cpu, Desc, Vector};
/// let cpu = Cpu::new();
/// let mut s = None;
/// ops::reduce_scalar(&cpu, &mut s, Max, &Vector::<i32>::empty(4), &Desc::new())?;
/// assert_eq!(s, None); // no entries: no maximum (`reduce` would give i32::MIN)
/// let u = Vector::from_entries(4, vec![(0, 3i32), (2, 5)])?;
/// ops::reduce_scalar(&cpu, &mut s, Plus, &u, &Desc::new().accum(Plus))?;
/// assert_eq!(s, Some(8));
/// ops::reduce_scalar(&cpu, &mut s, Plus, &u, &Desc::new().accum(Plus))?;
/// assert_eq!(s, Some(16));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn reduce_scalar<B: Backend, T: Scalar, Mo: Monoid<T>, A: Accumulate<T>>(
    b: &B,
    s: &mut Option<T>,
    monoid: Mo,
    u: &B::Vector<T>,
    desc: &Desc<NoMask, A>,
) -> Result<()> {
    let r = match b.vector_nvals(u)? {
        0 => None,
        _ => Some(b.reduce_vector(monoid, u)?),
    };
    *s = accumulate(desc.accum_op(), *s, r);
    Ok(())
}

/// [`reduce_scalar`] over the stored entries of a matrix.
///
/// ```
/// use bitgraphblas::{ops, algebra::{Min, Plus}, Cpu, Desc, Matrix};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 4.0f32), (1, 0, 1.5)])?;
/// let mut s = Some(1.0f32);
/// ops::reduce_matrix_scalar(&Cpu::new(), &mut s, Min, &a, &Desc::new().accum(Plus))?;
/// assert_eq!(s, Some(2.5));
/// // empty, with an accumulator: unchanged; without: emptied
/// ops::reduce_matrix_scalar(&Cpu::new(), &mut s, Min, &Matrix::empty(2, 2), &Desc::new().accum(Plus))?;
/// assert_eq!(s, Some(2.5));
/// ops::reduce_matrix_scalar(&Cpu::new(), &mut s, Min, &Matrix::empty(2, 2), &Desc::new())?;
/// assert_eq!(s, None);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn reduce_matrix_scalar<B: Backend, T: Scalar, Mo: Monoid<T>, A: Accumulate<T>>(
    b: &B,
    s: &mut Option<T>,
    monoid: Mo,
    a: &B::Matrix<T>,
    desc: &Desc<NoMask, A>,
) -> Result<()> {
    let r = match b.matrix_nvals(a)? {
        0 => None,
        _ => Some(b.reduce_matrix(monoid, a)?),
    };
    *s = accumulate(desc.accum_op(), *s, r);
    Ok(())
}

/// `accum(old, r)` on possibly empty scalars: an empty `r` keeps `old` under
/// an accumulator and empties it without one.
fn accumulate<T: Scalar, A: Accumulate<T>>(accum: A, old: Option<T>, r: Option<T>) -> Option<T> {
    match (A::ACTIVE, old, r) {
        (true, Some(o), Some(x)) => Some(accum.combine(o, x)),
        (true, o, None) => o,
        (_, _, x) => x,
    }
}
