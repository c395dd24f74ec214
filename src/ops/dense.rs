//! Operations on dense row-major matrices ([`DenseMatrix`](crate::DenseMatrix)
//! on the host, the backend's `Dense` type elsewhere): the dense product over
//! a semiring, element-wise maps, column scaling, and the row-wise `argmax` and
//! `log_softmax` of a classifier's output. The pieces of a GNN layer between
//! its sparse aggregations ([`mxm_dense`](super::mxm_dense)).
//!
//! Each checks shapes first and returns an [`Error`](crate::Error) naming the
//! operation (a shape mismatch is [`DimensionMismatch`](crate::Error::DimensionMismatch)),
//! leaving the output unchanged; then every entry of the output is written.
//! A backend without a kernel for a semiring or operator (the CUDA backend
//! with a closure, or a user-defined semiring without its operators as CUDA
//! source) returns [`NoKernel`](crate::Error::NoKernel).
//!
//! A GCN layer's dense half, `log_softmax(relu(H W + b))`:
//!
//! ```
//! use bitgraphblas::{ops, algebra::{BindSecond, Max, Plus, PlusTimes}, Cpu, DenseMatrix, Vector};
//! let cpu = Cpu::new();
//! let h = DenseMatrix::from_vec(2, 2, vec![1.0f32, 2.0, -1.0, 0.5])?;
//! let w = DenseMatrix::from_vec(2, 3, vec![1.0f32, 0.0, -1.0, 0.0, 1.0, 1.0])?;
//! let bias = Vector::from_dense(vec![0.0f32, -1.0, 0.5]);
//! let mut z = DenseMatrix::filled(2, 3, 0.0f32);
//! ops::dense_mxm(&cpu, &mut z, PlusTimes::<f32>::new(), &h, &w)?;
//! let mut zb = z.clone();
//! ops::scale_dense_cols(&cpu, &mut zb, Plus, &z, &bias)?;
//! ops::apply_dense(&cpu, &mut z, BindSecond(Max, 0.0f32), &zb)?; // ReLU
//! assert_eq!(z.as_slice(), &[1.0, 1.0, 1.5, 0.0, 0.0, 2.0]);
//! let mut out = DenseMatrix::filled(2, 3, 0.0f32);
//! ops::log_softmax_rows(&cpu, &mut out, &z)?;
//! let mut class = DenseMatrix::filled(2, 1, 0u32);
//! ops::argmax_rows(&cpu, &mut class, &out)?;
//! assert_eq!(class.as_slice(), &[2, 2]);
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use super::check::{need, shape_of, shape_str};
use crate::algebra::{BinaryOp, Semiring, UnaryOp};
use crate::backend::{Backend, VectorShape};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// `C` has `A`'s shape (`C = f(A)`, `C = A op B`...).
fn check_same(op: &'static str, c: (usize, usize), a: (usize, usize)) -> Result<()> {
    need(op, c == a, || {
        format!("C is {}, A is {}", shape_str(c), shape_str(a))
    })
}

/// `C = A ⊕.⊗ B` on dense row-major matrices: `A` is `m x k`, `B` `k x n`
/// and `C` `m x n`, overwritten: `c_ij = a_i1 ⊗ b_1j ⊕ ... ⊕ a_ik ⊗ b_kj`
/// (the semiring's zero where `k = 0`). Every entry of `A` and `B` is a
/// value: there are no absent entries.
///
/// The CPU backend runs `PLUS_TIMES` on `f32` and `f64` as a GEMM
/// (`matrixmultiply`, rows split over threads; floating-point sums in the
/// GEMM's order) and every other semiring as `⊕` over `k` in order, from the
/// first term. The CUDA backend runs the semirings it has kernels for (the
/// built-in ones, and user-defined ones with their operators as CUDA source,
/// [`Semiring::device_ops`]) in a tiled kernel, also `⊕` over `k` in order
/// from the first term (the built-in semirings' `f32` and `f64` products may
/// be fused multiply-adds), and returns `NoKernel` for any other.
///
/// ```
/// use bitgraphblas::{ops, algebra::{MinPlus, PlusTimes}, Cpu, DenseMatrix};
/// let cpu = Cpu::new();
/// let a = DenseMatrix::from_vec(2, 3, vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let b = DenseMatrix::from_vec(3, 1, vec![1.0f32, 0.0, -3.0])?;
/// let mut c = DenseMatrix::filled(2, 1, 0.0f32);
/// ops::dense_mxm(&cpu, &mut c, PlusTimes::<f32>::new(), &a, &b)?;
/// assert_eq!(c.as_slice(), &[-8.0, -14.0]);
/// // tropical: c_i = min_k (a_ik + b_k)
/// ops::dense_mxm(&cpu, &mut c, MinPlus::<f32>::new(), &a, &b)?;
/// assert_eq!(c.as_slice(), &[0.0, 3.0]);
/// // the inner dimensions must agree
/// let e = ops::dense_mxm(&cpu, &mut c, PlusTimes::<f32>::new(), &a, &a).unwrap_err();
/// assert!(e.to_string().contains("dense_mxm"));
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
    let (sa, sb, sc) = (shape_of(a), shape_of(bd), shape_of(c));
    need(OP, sa.1 == sb.0, || {
        format!(
            "A is {}, B is {}: inner dimensions differ",
            shape_str(sa),
            shape_str(sb)
        )
    })?;
    need(OP, sc == (sa.0, sb.1), || {
        format!("C is {}, A B is {}", shape_str(sc), shape_str((sa.0, sb.1)))
    })?;
    b.dense_mxm(c, semiring, a, bd)
}

/// `C = A ⊗ diag(d)` on a dense matrix: `c_ij = op(a_ij, d_j)`, with `d` of
/// length `A`'s number of columns and `C` of `A`'s shape (a bias added with
/// `Plus`, per-column scales with `Times`). Columns whose `d_j` is absent
/// are copied from `A`, as [`scale_dense_rows`](super::scale_dense_rows)
/// copies the rows whose `d_i` is absent.
///
/// ```
/// use bitgraphblas::{ops, algebra::{Plus, Times}, Cpu, DenseMatrix, Vector};
/// let cpu = Cpu::new();
/// let a = DenseMatrix::from_vec(2, 3, vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut c = DenseMatrix::filled(2, 3, 0.0f32);
/// ops::scale_dense_cols(&cpu, &mut c, Plus, &a, &Vector::from_dense(vec![10.0f32, 20.0, 30.0]))?;
/// assert_eq!(c.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// // d_1 absent: column 1 is A's
/// let d = Vector::from_entries(3, vec![(0, 2.0f32), (2, -1.0)])?;
/// ops::scale_dense_cols(&cpu, &mut c, Times, &a, &d)?;
/// assert_eq!(c.as_slice(), &[2.0, 2.0, -3.0, 8.0, 5.0, -6.0]);
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
    let sa = shape_of(a);
    need(OP, d.len() == sa.1, || {
        format!("d has length {}, A is {}", d.len(), shape_str(sa))
    })?;
    check_same(OP, shape_of(c), sa)?;
    b.scale_dense_cols(c, op, a, d)
}

/// `C = f(A)` element by element on dense matrices of one shape. On the CUDA
/// backend `f` must be a built-in unary operator or a built-in binary operator
/// with one operand bound ([`BindFirst`](crate::algebra::BindFirst),
/// [`BindSecond`](crate::algebra::BindSecond)); closures are `NoKernel` there.
///
/// ReLU is `max(x, 0)` (the float `Max` ignores a NaN operand, so
/// `relu(NaN) = 0`):
///
/// ```
/// use bitgraphblas::{ops, algebra::{BindSecond, Max}, Cpu, DenseMatrix};
/// let cpu = Cpu::new();
/// let x = DenseMatrix::from_vec(2, 2, vec![-1.5f32, 0.0, 2.0, -0.25])?;
/// let mut y = DenseMatrix::filled(2, 2, 0.0f32);
/// ops::apply_dense(&cpu, &mut y, BindSecond(Max, 0.0f32), &x)?;
/// assert_eq!(y.as_slice(), &[0.0, 0.0, 2.0, 0.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn apply_dense<B: Backend, T: Scalar, F: UnaryOp<T>>(
    b: &B,
    c: &mut B::Dense<T>,
    op: F,
    a: &B::Dense<T>,
) -> Result<()> {
    check_same("apply_dense", shape_of(c), shape_of(a))?;
    b.apply_dense(c, op, a)
}

/// `C = A op B` element by element: `c_ij = op(a_ij, b_ij)`, all three of
/// one shape.
///
/// ```
/// use bitgraphblas::{ops, algebra::{Minus, Times}, Cpu, DenseMatrix};
/// let cpu = Cpu::new();
/// let a = DenseMatrix::from_vec(1, 3, vec![1i32, 2, 3])?;
/// let b = DenseMatrix::from_vec(1, 3, vec![4i32, 5, 6])?;
/// let mut c = DenseMatrix::filled(1, 3, 0);
/// ops::ewise_dense(&cpu, &mut c, Times, &a, &b)?;
/// assert_eq!(c.as_slice(), &[4, 10, 18]);
/// ops::ewise_dense(&cpu, &mut c, Minus, &a, &b)?;
/// assert_eq!(c.as_slice(), &[-3, -3, -3]);
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
    let (sa, sb) = (shape_of(a), shape_of(bd));
    need(OP, sa == sb, || {
        format!("A is {}, B is {}", shape_str(sa), shape_str(sb))
    })?;
    check_same(OP, shape_of(c), sa)?;
    b.ewise_dense(c, op, a, bd)
}

/// `out_i` = the column of the largest entry of row `i` of `A` (`m x n`,
/// `n > 0`; `out` is `m x 1`): ties go to the lowest column, and NaN counts
/// as larger than every number (the first NaN of a row wins), as
/// `torch.argmax` does. An `A` with rows and no columns is an
/// [`InvalidArgument`](crate::Error::InvalidArgument).
///
/// ```
/// use bitgraphblas::{ops, Cpu, DenseMatrix};
/// let cpu = Cpu::new();
/// let a = DenseMatrix::from_vec(3, 3, vec![
///     0.5f32, 2.0, 2.0, // tie: the lower column
///     -1.0, f32::NAN, f32::NAN, // the first NaN
///     f32::NEG_INFINITY, -3.0, f32::INFINITY,
/// ])?;
/// let mut out = DenseMatrix::filled(3, 1, 9u32);
/// ops::argmax_rows(&cpu, &mut out, &a)?;
/// assert_eq!(out.as_slice(), &[1, 1, 2]);
/// assert!(ops::argmax_rows(&cpu, &mut out, &DenseMatrix::filled(3, 0, 0.0)).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn argmax_rows<B: Backend>(b: &B, out: &mut B::Dense<u32>, a: &B::Dense<f32>) -> Result<()> {
    const OP: &str = "argmax_rows";
    let sa = shape_of(a);
    if sa.0 > 0 && sa.1 == 0 {
        return Err(Error::invalid(
            OP,
            format!(
                "A is {}: a row without columns has no argmax",
                shape_str(sa)
            ),
        ));
    }
    if sa.1 > u32::MAX as usize {
        return Err(Error::invalid(
            OP,
            format!("A is {}: column indices must fit in u32", shape_str(sa)),
        ));
    }
    let so = shape_of(out);
    need(OP, so == (sa.0, 1), || {
        format!(
            "out is {}, A is {}: out must be {}x1",
            shape_str(so),
            shape_str(sa),
            sa.0
        )
    })?;
    b.argmax_rows(out, a)
}

/// `C = log_softmax(A)` along each row, numerically stable:
/// `c_ij = (a_ij - m_i) - ln(s_i)` with `m_i = max_j a_ij` and
/// `s_i = Σ_j exp(a_ij - m_i)`, all in `f32`: `t_ij = a_ij - m_i` rounded,
/// then `exp(t_ij)` summed (in column order on the CPU, as per-lane partial
/// sums combined in a tree on the CUDA backend: results agree to rounding),
/// then `t_ij - ln(s_i)`. Rows of huge magnitude do not overflow (the
/// largest term of `s_i` is 1). A row with a NaN, or with `+inf`, or all
/// `-inf`, gives NaN throughout (as PyTorch does).
///
/// ```
/// use bitgraphblas::{ops, Cpu, DenseMatrix};
/// let cpu = Cpu::new();
/// let a = DenseMatrix::from_vec(2, 2, vec![0.0f32, 0.0, 1e30, 0.0])?;
/// let mut c = DenseMatrix::filled(2, 2, 0.0f32);
/// ops::log_softmax_rows(&cpu, &mut c, &a)?;
/// assert!((c.get(0, 0) + std::f32::consts::LN_2).abs() < 1e-6);
/// assert_eq!((c.get(1, 0), c.get(1, 1)), (0.0, -1e30));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn log_softmax_rows<B: Backend>(b: &B, c: &mut B::Dense<f32>, a: &B::Dense<f32>) -> Result<()> {
    check_same("log_softmax_rows", shape_of(c), shape_of(a))?;
    b.log_softmax_rows(c, a)
}
