//! Dense row-major matrices on the host: the product over a semiring
//! (`f32`/`f64` PLUS_TIMES through `matrixmultiply`'s GEMM, other
//! semirings row by row), row-wise maps and the row argmax.

use std::any::Any;

use rayon::prelude::*;

use crate::algebra::{Semiring, SemiringKind};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::DenseMatrix;

/// `a`'s rows mapped by `f(row, out_row)` into a new matrix of its shape.
pub(super) fn map_rows<T: Scalar>(
    a: &DenseMatrix<T>,
    f: impl Fn(&[T], &mut [T]) + Sync,
) -> DenseMatrix<T> {
    let mut out = DenseMatrix::filled(a.nrows(), a.ncols(), T::default());
    let n = a.ncols();
    if n > 0 {
        out.as_mut_slice()
            .par_chunks_mut(n)
            .enumerate()
            .for_each(|(i, o)| f(a.row(i), o));
    }
    out
}

/// `A ⊕.⊗ B`.
pub(super) fn mxm<S: Semiring>(
    semiring: S,
    a: &DenseMatrix<S::T>,
    b: &DenseMatrix<S::T>,
) -> Result<DenseMatrix<S::T>> {
    let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
    let arithmetic = S::KERNEL.is_some_and(|id| id.kind() == SemiringKind::PlusTimes);
    if arithmetic {
        if let Some(c) = gemm_f32(a, b) {
            return Ok(c);
        }
        if let Some(c) = gemm_f64(a, b) {
            return Ok(c);
        }
    }
    let zero = semiring.zero();
    let mut c = DenseMatrix::filled(m, n, zero);
    if n > 0 {
        c.as_mut_slice()
            .par_chunks_mut(n)
            .enumerate()
            .for_each(|(i, row)| {
                for (p, &x) in a.row(i).iter().enumerate().take(k) {
                    for (o, &y) in row.iter_mut().zip(b.row(p)) {
                        *o = semiring.add(*o, semiring.mul(x, y));
                    }
                }
            });
    }
    Ok(c)
}

macro_rules! gemm {
    ($name:ident, $t:ty, $kernel:ident) => {
        /// The GEMM when `T` is this type (`None` otherwise).
        fn $name<T: Scalar>(a: &DenseMatrix<T>, b: &DenseMatrix<T>) -> Option<DenseMatrix<T>> {
            let a = (a as &dyn Any).downcast_ref::<DenseMatrix<$t>>()?;
            let b = (b as &dyn Any).downcast_ref::<DenseMatrix<$t>>()?;
            let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
            let mut c = DenseMatrix::<$t>::filled(m, n, 0.0);
            if m > 0 && n > 0 && k > 0 {
                // SAFETY: the slices hold m*k, k*n and m*n elements with the
                // row strides given (k, n, n) and column stride 1.
                unsafe {
                    matrixmultiply::$kernel(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_slice().as_ptr(),
                        k as isize,
                        1,
                        b.as_slice().as_ptr(),
                        n as isize,
                        1,
                        0.0,
                        c.as_mut_slice().as_mut_ptr(),
                        n as isize,
                        1,
                    );
                }
            }
            let boxed: Box<dyn Any> = Box::new(c);
            boxed.downcast::<DenseMatrix<T>>().ok().map(|c| *c)
        }
    };
}

gemm!(gemm_f32, f32, sgemm);
gemm!(gemm_f64, f64, dgemm);

/// The column of each row's largest value (first on ties, NaN largest).
pub(super) fn argmax_rows(a: &DenseMatrix<f32>) -> Result<DenseMatrix<u32>> {
    let mut out = DenseMatrix::filled(a.nrows(), 1, 0u32);
    out.as_mut_slice()
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, o)| *o = argmax(a.row(i)));
    Ok(out)
}

/// The index of the largest value of `row` (first on ties; the first NaN
/// wins over every number; 0 for an empty row).
pub(crate) fn argmax(row: &[f32]) -> u32 {
    let mut best = 0usize;
    for (j, &x) in row.iter().enumerate().skip(1) {
        let b = row[best];
        if !b.is_nan() && (x.is_nan() || x > b) {
            best = j;
        }
    }
    best as u32
}
