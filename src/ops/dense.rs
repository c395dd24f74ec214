//! Operations on dense row-major matrices (GNN layers): the product of two
//! dense matrices over a semiring, column scaling (a bias), element-wise
//! maps and the row argmax (predictions). Each checks the shapes and
//! returns an [`Error`] naming the operation, outputs unchanged.

use super::check::shape_of;
use crate::algebra::{BinaryOp, Semiring, UnaryOp};
use crate::backend::{Backend, VectorShape};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// `Err` naming `op` unless `got == want`.
fn same(op: &'static str, what: &str, got: (usize, usize), want: (usize, usize)) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(Error::DimensionMismatch {
        op,
        detail: format!(
            "{what} is {}x{}, must be {}x{}",
            got.0, got.1, want.0, want.1
        ),
    })
}

/// `C = A ⊕.⊗ B` with `A` `m x k`, `B` `k x n`, `C` `m x n` dense
/// (overwritten). On the CPU the arithmetic semiring on `f32`/`f64` is a
/// GEMM (`matrixmultiply`); on the GPU the built-in semirings run.
///
/// ```
/// use bitgraphblas::{ops, algebra::{MinPlus, PlusTimes}, Cpu, DenseMatrix};
/// let a = DenseMatrix::from_vec(2, 2, vec![1.0f32, 2.0, 3.0, 4.0])?;
/// let b = DenseMatrix::from_vec(2, 1, vec![10.0f32, 1.0])?;
/// let mut c = DenseMatrix::filled(2, 1, 0.0f32);
/// ops::dense_mxm(&Cpu::new(), &mut c, PlusTimes::<f32>::new(), &a, &b)?;
/// assert_eq!(c.as_slice(), &[12.0, 34.0]);
/// ops::dense_mxm(&Cpu::new(), &mut c, MinPlus::<f32>::new(), &a, &b)?;
/// assert_eq!(c.as_slice(), &[3.0, 5.0]);
/// // inner dimensions that differ: an error, c unchanged
/// let e = ops::dense_mxm(&Cpu::new(), &mut c, PlusTimes::<f32>::new(), &a, &a).unwrap_err();
/// assert!(e.to_string().contains("dense_mxm"));
/// assert_eq!(c.as_slice(), &[3.0, 5.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn dense_mxm<B: Backend, S: Semiring>(
    b: &B,
    c: &mut B::Dense<S::T>,
    semiring: S,
    a: &B::Dense<S::T>,
    bd: &B::Dense<S::T>,
) -> Result<()> {
    const OP: &str = "dense_mxm";
    let ((m, k), (k2, n)) = (shape_of(a), shape_of(bd));
    if k != k2 {
        return Err(Error::DimensionMismatch {
            op: OP,
            detail: format!("A is {m}x{k}, B is {k2}x{n}"),
        });
    }
    same(OP, "C", shape_of(c), (m, n))?;
    b.dense_mxm(c, semiring, a, bd)
}

/// `c_ij = op(a_ij, d_j)`: a column scaling, or a bias with `Plus`
/// (columns whose `d_j` is absent are copied).
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, DenseMatrix, Vector};
/// let a = DenseMatrix::from_vec(2, 2, vec![1.0f32, 2.0, 3.0, 4.0])?;
/// let bias = Vector::from_dense(vec![0.5f32, -1.0]);
/// let mut c = DenseMatrix::filled(2, 2, 0.0f32);
/// ops::scale_dense_cols(&Cpu::new(), &mut c, Plus, &a, &bias)?;
/// assert_eq!(c.as_slice(), &[1.5, 1.0, 3.5, 3.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn scale_dense_cols<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Dense<T>,
    op: Op,
    a: &B::Dense<T>,
    d: &B::Vector<T>,
) -> Result<()> {
    const OP: &str = "scale_dense_cols";
    let s = shape_of(a);
    if d.len() != s.1 {
        return Err(Error::DimensionMismatch {
            op: OP,
            detail: format!("d has length {}, A has {} columns", d.len(), s.1),
        });
    }
    same(OP, "C", shape_of(c), s)?;
    b.scale_dense_cols(c, op, a, d)
}

/// `c_ij = f(a_ij)`. ReLU is `BindSecond(Max, 0.0)`.
///
/// ```
/// use bitgraphblas::{ops, algebra::{BindSecond, Max}, Cpu, DenseMatrix};
/// let a = DenseMatrix::from_vec(1, 3, vec![-1.0f32, 0.5, 2.0])?;
/// let mut c = DenseMatrix::filled(1, 3, 0.0f32);
/// ops::apply_dense(&Cpu::new(), &mut c, BindSecond(Max, 0.0f32), &a)?;
/// assert_eq!(c.as_slice(), &[0.0, 0.5, 2.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn apply_dense<B: Backend, T: Scalar, F: UnaryOp<T>>(
    b: &B,
    c: &mut B::Dense<T>,
    f: F,
    a: &B::Dense<T>,
) -> Result<()> {
    same("apply_dense", "C", shape_of(c), shape_of(a))?;
    b.apply_dense(c, f, a)
}

/// `c_ij = op(a_ij, b_ij)` on matrices of one shape.
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, DenseMatrix};
/// let a = DenseMatrix::from_vec(1, 2, vec![1.0f32, 2.0])?;
/// let mut c = DenseMatrix::filled(1, 2, 0.0f32);
/// ops::ewise_dense(&Cpu::new(), &mut c, Plus, &a, &a)?;
/// assert_eq!(c.as_slice(), &[2.0, 4.0]);
/// assert!(ops::ewise_dense(&Cpu::new(), &mut c, Plus, &a, &DenseMatrix::filled(2, 1, 0.0)).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn ewise_dense<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Dense<T>,
    op: Op,
    a: &B::Dense<T>,
    bd: &B::Dense<T>,
) -> Result<()> {
    const OP: &str = "ewise_dense";
    same(OP, "B", shape_of(bd), shape_of(a))?;
    same(OP, "C", shape_of(c), shape_of(a))?;
    b.ewise_dense(c, op, a, bd)
}

/// `out_i` = the column of row `i`'s largest value (`out` is `m x 1`): the
/// first on ties, a NaN counting as larger than any number (as
/// `torch.argmax`). A matrix with rows but no columns is an error.
///
/// ```
/// use bitgraphblas::{ops, Cpu, DenseMatrix};
/// let a = DenseMatrix::from_vec(3, 3, vec![1.0f32, 3.0, 3.0, 0.0, f32::NAN, 9.0, -1.0, -2.0, -3.0])?;
/// let mut p = DenseMatrix::filled(3, 1, 0u32);
/// ops::argmax_rows(&Cpu::new(), &mut p, &a)?;
/// assert_eq!(p.as_slice(), &[1, 1, 0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn argmax_rows<B: Backend>(b: &B, out: &mut B::Dense<u32>, a: &B::Dense<f32>) -> Result<()> {
    const OP: &str = "argmax_rows";
    let (m, n) = shape_of(a);
    if m > 0 && n == 0 {
        return Err(Error::invalid(
            OP,
            format!("A is {m}x0: a row without columns has no argmax"),
        ));
    }
    same(OP, "out", shape_of(out), (m, 1))?;
    b.argmax_rows(out, a)
}
