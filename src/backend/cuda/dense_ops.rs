//! Element-wise operations and row reductions on dense row-major matrices:
//! the diagonal scalings `scale_dense_rows`/`scale_dense_cols` (one kernel,
//! `scale_dense`), `apply_dense` and `ewise_dense` (the vector kernels
//! `vec_apply` and `vec_ewise` over all `m n` values: a dense matrix is a full
//! vector), and `argmax_rows`/`log_softmax_rows` (`cuda/dense_rows.cu`).
//! Outputs are written in place into `C`'s buffer.

use super::codes::{op_code, unary_code};
use super::device::{bits_of, DevPtr};
use super::launch::{dense::rows, vec};
use super::mem::bit_words;
use super::vector::ewise_kind;
use super::{CudaBackend, CudaDense, CudaVector};
use crate::algebra::{BinaryOp, UnaryOp};
use crate::backend::EwiseKind;
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// `c` made an `nrows x ncols` output: its own buffer when it has that
    /// shape (the checked entry points make sure it has), else a new one.
    pub(crate) fn dense_output<T: Scalar>(
        &self,
        c: &mut CudaDense<T>,
        nrows: usize,
        ncols: usize,
    ) -> Result<()> {
        if (c.nrows, c.ncols) != (nrows, ncols) {
            *c = CudaDense {
                nrows,
                ncols,
                data: self.dev.alloc(nrows * ncols)?,
            };
        }
        Ok(())
    }

    /// The `scale_dense_rows` (`rows`: `c_ij = op(d_i, b_ij)`) and
    /// `scale_dense_cols` (`c_ij = op(b_ij, d_j)`) entry points; `b_ij` where
    /// `d`'s entry is absent.
    pub(crate) fn scale_dense_op<T: Scalar, Op: BinaryOp<T>>(
        &self,
        name: &'static str,
        c: &mut CudaDense<T>,
        d: &CudaVector<T>,
        b: &CudaDense<T>,
        rows: bool,
    ) -> Result<()> {
        let code = op_code::<T, Op>(name)?;
        self.dense_output(c, b.nrows, b.ncols)?;
        let dv = self.view(d)?;
        vec::scale_dense(
            code,
            rows,
            dv.vals,
            dv.pres,
            b.data.ptr(),
            b.nrows as u64,
            b.ncols as u64,
            c.data.ptr(),
        )
        .run(&self.dev, b.nrows * b.ncols)?;
        drop(dv);
        Ok(())
    }

    /// The `apply_dense` entry point: a built-in unary operator or a bound
    /// built-in binary operator on every value.
    pub(crate) fn apply_dense_op<T: Scalar, F: UnaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        f: F,
        a: &CudaDense<T>,
    ) -> Result<()> {
        let (code, s) = unary_code(&f, "apply_dense")?;
        self.dense_output(c, a.nrows, a.ncols)?;
        let n = a.nrows * a.ncols;
        vec::vec_apply(code, bits_of(s), a.data.ptr(), n as u64, c.data.ptr()).run(&self.dev, n)
    }

    /// The `ewise_dense` entry point: the intersection of two full vectors.
    pub(crate) fn ewise_dense_op<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        a: &CudaDense<T>,
        b: &CudaDense<T>,
    ) -> Result<()> {
        let code = op_code::<T, Op>("ewise_dense")?;
        self.dense_output(c, a.nrows, a.ncols)?;
        let n = a.nrows * a.ncols;
        let (kind, alpha, beta) = ewise_kind(EwiseKind::<T>::Mult);
        vec::vec_ewise(
            kind,
            code,
            bits_of(alpha),
            bits_of(beta),
            a.data.ptr(),
            DevPtr::null(),
            b.data.ptr(),
            DevPtr::null(),
            n as u64,
            c.data.ptr(),
            DevPtr::null(),
        )
        .run(&self.dev, bit_words(n) * 32)
    }

    /// The `argmax_rows` entry point: a warp per row, into `out` (`m x 1`).
    pub(crate) fn argmax_rows_op(
        &self,
        out: &mut CudaDense<u32>,
        a: &CudaDense<f32>,
    ) -> Result<()> {
        self.dense_output(out, a.nrows, 1)?;
        rows::dense_argmax_rows(a.data.ptr(), a.nrows as u64, a.ncols as u64, out.data.ptr())
            .run(&self.dev, a.nrows * 32)
    }

    /// The `log_softmax_rows` entry point: a warp per row.
    pub(crate) fn log_softmax_rows_op(
        &self,
        c: &mut CudaDense<f32>,
        a: &CudaDense<f32>,
    ) -> Result<()> {
        self.dense_output(c, a.nrows, a.ncols)?;
        rows::dense_log_softmax_rows(a.data.ptr(), a.nrows as u64, a.ncols as u64, c.data.ptr())
            .run(&self.dev, a.nrows * 32)
    }
}
