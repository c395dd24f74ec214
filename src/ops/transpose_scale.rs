//! Transpose, and scaling the rows or columns of a matrix by a vector
//! (multiplying by a diagonal matrix without building it).

use super::check::{check_matrix_output, dims_of, need, shape_of};
use crate::algebra::BinaryOp;
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, MatrixMaskArg};
use crate::error::Result;
use crate::scalar::Scalar;

/// `C<mask> = accum(C, A')` (with `desc.transpose_a()`, `C<mask> = accum(C, A)`).
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Matrix};
/// let a = Matrix::from_triplets(2, 3, vec![(0, 2, 1u32), (1, 0, 2)])?;
/// let mut t = Matrix::empty(3, 2);
/// ops::transpose(&Cpu::new(), &mut t, &a, &Desc::new())?;
/// assert_eq!((t.get(2, 0), t.get(0, 1)), (Some(1), Some(2)));
/// assert_eq!(t.nvals(), 2);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn transpose<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    // With `desc.transpose_a()` the input is read as `A'`, so `C = A`.
    let sa = dims_of(a, !desc.flags().transpose_a);
    check_matrix_output("transpose", desc.mask_arg(), shape_of(c), sa, || {
        format!("C is {}x{}, A' {sa:?}", c.nrows(), c.ncols())
    })?;
    b.transpose(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        a,
        desc.flags(),
    )
}

/// `C = diag(d) ⊗ A`: `c_ij = op(d_i, a_ij)` (row scaling; PageRank, GCN normalisation).
///
/// ```
/// use bitgraphblas::{ops, algebra::Times, Cpu, Matrix, Vector};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f32), (0, 1, 1.0), (1, 0, 1.0)])?;
/// let d = Vector::from_dense(vec![0.5f32, 2.0]);
/// let mut c = Matrix::empty(2, 2);
/// ops::scale_rows(&Cpu::new(), &mut c, Times, &d, &a)?;
/// assert_eq!((c.get(0, 1), c.get(1, 0), c.get(1, 1)), (Some(0.5), Some(2.0), None));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn scale_rows<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Matrix<T>,
    op: Op,
    d: &B::Vector<T>,
    a: &B::Matrix<T>,
) -> Result<()> {
    check_scale(
        "scale_rows",
        d.len(),
        ("A", a.nrows(), "rows"),
        shape_of(c),
        shape_of(a),
    )?;
    b.scale(c, op, d, a, true)
}

/// `C = A ⊗ diag(d)`: `c_ij = op(a_ij, d_j)` (column scaling).
///
/// ```
/// use bitgraphblas::{ops, algebra::Div, Cpu, Matrix, Vector};
/// // Divide each column by its sum: a column-stochastic matrix.
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f64), (1, 0, 3.0), (1, 1, 2.0)])?;
/// let colsum = Vector::from_dense(vec![4.0, 2.0]);
/// let mut c = Matrix::empty(2, 2);
/// ops::scale_cols(&Cpu::new(), &mut c, Div, &a, &colsum)?;
/// assert_eq!((c.get(0, 0), c.get(1, 0), c.get(1, 1)), (Some(0.25), Some(0.75), Some(1.0)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn scale_cols<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Matrix<T>,
    op: Op,
    a: &B::Matrix<T>,
    d: &B::Vector<T>,
) -> Result<()> {
    check_scale(
        "scale_cols",
        d.len(),
        ("A", a.ncols(), "columns"),
        shape_of(c),
        shape_of(a),
    )?;
    b.scale(c, op, d, a, false)
}

/// `C = diag(d) ⊗ B` on dense matrices: `c_ij = op(d_i, b_ij)`.
///
/// ```
/// use bitgraphblas::{ops, algebra::Times, Cpu, DenseMatrix, Vector};
/// let h = DenseMatrix::from_vec(2, 3, vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let d = Vector::from_dense(vec![10.0f32, 0.5]);
/// let mut c = DenseMatrix::filled(2, 3, 0.0);
/// ops::scale_dense_rows(&Cpu::new(), &mut c, Times, &d, &h)?;
/// assert_eq!(c.as_slice(), &[10.0, 20.0, 30.0, 2.0, 2.5, 3.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn scale_dense_rows<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Dense<T>,
    op: Op,
    d: &B::Vector<T>,
    bd: &B::Dense<T>,
) -> Result<()> {
    check_scale(
        "scale_dense_rows",
        d.len(),
        ("B", bd.nrows(), "rows"),
        shape_of(c),
        shape_of(bd),
    )?;
    b.scale_dense_rows(c, op, d, bd)
}

/// The checks of a scaling: `d` has `len` entries (the number of `dim` of the
/// scaled matrix `name`), and `C` has the scaled matrix's shape.
fn check_scale(
    op: &'static str,
    d_len: usize,
    (name, len, dim): (&str, usize, &str),
    c_shape: (usize, usize),
    shape: (usize, usize),
) -> Result<()> {
    need(op, d_len == len, || {
        format!("d has length {d_len}, {name} has {len} {dim}")
    })?;
    need(op, c_shape == shape, || {
        format!("C and {name} differ in shape")
    })
}
