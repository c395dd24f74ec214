//! Dense-matrix operations on the host (`ops::dense`): the dense product
//! over a semiring (a GEMM for `PLUS_TIMES` on `f32`/`f64`), element-wise
//! maps, column scaling, and the row-wise `argmax` and `log_softmax`. Rows
//! are split over rayon's pool where the work pays for it.

use std::any::Any;

use super::dense_view::{dense_view, for_chunks_mut};
use crate::algebra::{BinaryOp, Semiring, SemiringKind, UnaryOp};
use crate::container::Vector;
use crate::scalar::Scalar;
use crate::storage::DenseMatrix;

/// Work (multiply-adds or element visits) of one parallel task.
const TASK_WORK: usize = 1 << 14;

/// Rows per task for rows of `row_work` each, so a task does about
/// [`TASK_WORK`] (at least one row).
fn rows_per_task(row_work: usize) -> usize {
    (TASK_WORK / row_work.max(1)).max(1)
}

/// `f(i, row_i)` over the rows (`ncols` wide) of `c`, in parallel tasks of
/// about [`TASK_WORK`] when the rows cost `row_work` each (on the calling
/// thread for small matrices).
fn for_rows<T: Send>(
    c: &mut [T],
    ncols: usize,
    row_work: usize,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    if ncols == 0 {
        return;
    }
    let rows = rows_per_task(row_work);
    let work = (c.len() / ncols).saturating_mul(row_work);
    for_chunks_mut(c, rows * ncols, work, |t, chunk| {
        for (r, row) in chunk.chunks_mut(ncols).enumerate() {
            f(t * rows + r, row);
        }
    });
}

/// `c` made an `nrows x ncols` output: kept when it has that shape (the
/// checked entry points make sure it has; every entry is then written),
/// else replaced.
fn output<T: Scalar>(c: &mut DenseMatrix<T>, nrows: usize, ncols: usize) {
    if (c.nrows(), c.ncols()) != (nrows, ncols) {
        *c = DenseMatrix::filled(nrows, ncols, T::default());
    }
}

/// `c_ij = f(a_ij, j, i)` over every entry (`c` gets `a`'s shape).
fn map_entries<T: Scalar>(
    c: &mut DenseMatrix<T>,
    a: &DenseMatrix<T>,
    f: impl Fn(T, usize, usize) -> T + Sync + Send,
) {
    output(c, a.nrows(), a.ncols());
    let n = a.ncols();
    for_rows(c.as_mut_slice(), n, n, |i, row| {
        for (j, (o, &x)) in row.iter_mut().zip(a.row(i)).enumerate() {
            *o = f(x, j, i);
        }
    });
}

/// `c_ij = op(a_ij, d_j)`; `a_ij` where `d_j` is absent.
pub(super) fn scale_cols<T: Scalar, Op: BinaryOp<T>>(
    c: &mut DenseMatrix<T>,
    op: Op,
    a: &DenseMatrix<T>,
    d: &Vector<T>,
) {
    let dv = dense_view(d);
    let cols: Vec<Option<T>> = (0..a.ncols()).map(|j| dv.get(j)).collect();
    map_entries(c, a, |x, j, _| cols[j].map_or(x, |dj| op.apply(x, dj)));
}

/// `c_ij = f(a_ij)`.
pub(super) fn apply<T: Scalar, F: UnaryOp<T>>(c: &mut DenseMatrix<T>, f: F, a: &DenseMatrix<T>) {
    map_entries(c, a, |x, _, _| f.apply(x));
}

/// `c_ij = op(a_ij, b_ij)`.
pub(super) fn ewise<T: Scalar, Op: BinaryOp<T>>(
    c: &mut DenseMatrix<T>,
    op: Op,
    a: &DenseMatrix<T>,
    b: &DenseMatrix<T>,
) {
    map_entries(c, a, |x, j, i| op.apply(x, b.row(i)[j]));
}

/// The column of `row`'s largest value: ties to the lowest column, the first
/// NaN beats every number. `row` is not empty.
fn argmax(row: &[f32]) -> u32 {
    let mut best = 0;
    for (j, &x) in row.iter().enumerate().skip(1) {
        if row[best].is_nan() {
            break;
        }
        if x.is_nan() || x > row[best] {
            best = j;
        }
    }
    best as u32
}

/// `out_i = argmax_j a_ij` (`out` is `m x 1`; `a` has columns or no rows).
pub(super) fn argmax_rows(out: &mut DenseMatrix<u32>, a: &DenseMatrix<f32>) {
    output(out, a.nrows(), 1);
    let n = a.ncols();
    for_rows(out.as_mut_slice(), 1, n, |i, o| o[0] = argmax(a.row(i)));
}

/// `c = log_softmax(a)` along each row, in `f32`: `m` = the largest
/// number of the row (NaN ignored), `t_j = a_j - m`, `s = Σ_j exp(t_j)`
/// summed in column order from 0, `c_j = t_j - ln(s)`.
pub(super) fn log_softmax_rows(c: &mut DenseMatrix<f32>, a: &DenseMatrix<f32>) {
    output(c, a.nrows(), a.ncols());
    let n = a.ncols();
    for_rows(c.as_mut_slice(), n, 4 * n, |i, row| {
        let ar = a.row(i);
        let m = ar.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
        let s = ar.iter().fold(0.0f32, |s, &x| s + (x - m).exp());
        let ls = s.ln();
        for (o, &x) in row.iter_mut().zip(ar) {
            *o = (x - m) - ls;
        }
    });
}

/// `C = A ⊕.⊗ B` on dense row-major matrices (`C` gets the product's shape):
/// a GEMM for `PLUS_TIMES` on `f32` and `f64`, else `⊕` over `k` in order
/// from the first term (the zero where `k = 0`).
pub(super) fn dense_mxm<S: Semiring>(
    c: &mut DenseMatrix<S::T>,
    s: S,
    a: &DenseMatrix<S::T>,
    b: &DenseMatrix<S::T>,
) {
    let (k, n) = (a.ncols(), b.ncols());
    output(c, a.nrows(), n);
    if k == 0 {
        c.as_mut_slice().fill(s.zero());
        return;
    }
    if S::KERNEL.map(|id| id.kind()) == Some(SemiringKind::PlusTimes) && gemm_any(c, a, b) {
        return;
    }
    let b0 = b.row(0);
    for_rows(c.as_mut_slice(), n, k * n, |i, row| {
        let ar = a.row(i);
        for (o, &x) in row.iter_mut().zip(b0) {
            *o = s.mul(ar[0], x);
        }
        for (kk, &aik) in ar.iter().enumerate().skip(1) {
            for (o, &x) in row.iter_mut().zip(b.row(kk)) {
                *o = s.add(*o, s.mul(aik, x));
            }
        }
    });
}

/// The `f32` and `f64` GEMMs of `matrixmultiply`.
trait Gemm: Scalar {
    /// `C = A B` (`beta = 0`: `C` is only written) with row-major `A`
    /// (`m x k`), `B` (`k x n`), `C` (`m x n`).
    fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
}

/// Implements [`Gemm`] for a float type with its `matrixmultiply` function.
macro_rules! gemm_impl {
    ($t:ty, $f:path) => {
        impl Gemm for $t {
            fn gemm(m: usize, k: usize, n: usize, a: &[$t], b: &[$t], c: &mut [$t]) {
                assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n);
                // SAFETY: the three slices have exactly the sizes the
                // row-major strides below address (checked above); with
                // beta = 0, `c` is written and never read.
                unsafe {
                    $f(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        k as isize,
                        1,
                        b.as_ptr(),
                        n as isize,
                        1,
                        0.0,
                        c.as_mut_ptr(),
                        n as isize,
                        1,
                    )
                }
            }
        }
    };
}
gemm_impl!(f32, matrixmultiply::sgemm);
gemm_impl!(f64, matrixmultiply::dgemm);

/// The GEMM when the element type is `f32` or `f64` (`true`), else nothing.
fn gemm_any<T: Scalar>(c: &mut DenseMatrix<T>, a: &DenseMatrix<T>, b: &DenseMatrix<T>) -> bool {
    fn run<U: Gemm>(c: &mut dyn Any, a: &dyn Any, b: &dyn Any) -> bool {
        match (
            c.downcast_mut::<DenseMatrix<U>>(),
            a.downcast_ref::<DenseMatrix<U>>(),
            b.downcast_ref::<DenseMatrix<U>>(),
        ) {
            (Some(c), Some(a), Some(b)) => {
                gemm_rows(c, a, b);
                true
            }
            _ => false,
        }
    }
    run::<f32>(c, a, b) || run::<f64>(c, a, b)
}

/// Least rows of one GEMM task (the row blocks of `matrixmultiply`'s kernels).
const GEMM_MIN_ROWS: usize = 64;

/// `C = A B` by row blocks, one `matrixmultiply` call each, over rayon's
/// pool (`B` is shared by every block: the tall-skinny products of GNN
/// layers split along `m`).
fn gemm_rows<T: Gemm>(c: &mut DenseMatrix<T>, a: &DenseMatrix<T>, b: &DenseMatrix<T>) {
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    if m == 0 || n == 0 {
        return;
    }
    let tasks = 4 * rayon::current_num_threads();
    let rows = m.div_ceil(tasks).clamp(GEMM_MIN_ROWS, 1024);
    let (av, bv) = (a.as_slice(), b.as_slice());
    for_chunks_mut(
        c.as_mut_slice(),
        rows * n,
        m.saturating_mul(k).saturating_mul(n),
        |t, cc| {
            let (r0, mr) = (t * rows, cc.len() / n);
            T::gemm(mr, k, n, &av[r0 * k..(r0 + mr) * k], bv, cc);
        },
    );
}
