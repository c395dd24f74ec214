//! Products and scaling with dense row-major matrices: `A ⊕.⊗ B` with `A`
//! CSR (`cuda/csr_spmm.cu`) or B2SR (`cuda/b2sr_spmm.cu`), both in the semiring
//! modules, and `B` dense, the
//! accumulation into `C`, and `scale_dense_rows`.

use super::codes::{accum_code, op_code, unary_code};
use super::device::{bits_of, DevPtr};
use super::kernels::semiring_ops;
use super::launch::{sr, vec, Sr, Tiles};
use super::mem::{no_kernel, DMat};
use super::{CudaBackend, CudaDense, CudaMatrix, CudaVector};
use crate::algebra::{BinaryOp, Semiring, UnaryOp};
use crate::container::{Accumulate, Flags};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// The `mxm_dense` entry point: `C = accum(C, op(A) ⊕.⊗ B)` on the B2SR
    /// or the CSR path.
    pub(crate) fn mxm_dense_op<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        match a.repr {
            DMat::B2sr { .. } => self.mxm_dense_b2sr::<S, A>(c, semiring, a, b, flags),
            DMat::Csr { .. } => self.mxm_dense_csr_into::<S, A>(c, semiring, a, b, flags),
        }
    }

    /// `C = accum(C, T)` element by element (`accum < 0`: `C = T`).
    fn accum_dense<T: Scalar>(
        &self,
        c: &mut CudaDense<T>,
        t: CudaDense<T>,
        accum: i32,
    ) -> Result<()> {
        if accum < 0 {
            *c = t;
            return Ok(());
        }
        let n = t.nrows * t.ncols;
        vec::dense_accum(accum, t.data.ptr(), n as u64, c.data.ptr()).run(&self.dev, n)
    }

    /// `A ⊕.⊗ B` (`A'` with `transpose`) with `B` dense, for any input
    /// format: CSR as stored, B2SR unpacked, transposes on the device. For
    /// the `mxm_dense` entry point (CSR or transposed `A`).
    ///
    /// ```no_run
    /// use bitgraphblas::{algebra::PlusTimes, backend::cuda::CudaBackend, Backend, DenseMatrix, Matrix};
    /// let gpu = CudaBackend::new(0)?;
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 2.0f32), (1, 0, 3.0)])?;
    /// let x = DenseMatrix::from_vec(2, 1, vec![1.0f32, 10.0])?;
    /// let y = gpu.csr_mxm_dense(PlusTimes::<f32>::new(), &gpu.upload_matrix(&a)?, &gpu.upload_dense(&x)?, false)?;
    /// assert_eq!(gpu.download_dense(&y)?.as_slice(), &[20.0, 3.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn csr_mxm_dense<S: Semiring>(
        &self,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        transpose: bool,
    ) -> Result<CudaDense<S::T>> {
        let m = Sr::of(&s, "mxm_dense")?;
        let r = self.csr_input(a, transpose)?;
        let nf = b.ncols;
        let out = self.dev.alloc::<S::T>(r.nrows * nf)?;
        sr::csr_mxm_dense(
            m,
            r.rowptr,
            r.colidx,
            r.vals,
            r.nrows as u64,
            b.data.ptr(),
            nf as u64,
            out.ptr(),
        )
        .run(&self.dev, r.nrows * nf)?;
        Ok(CudaDense {
            nrows: r.nrows,
            ncols: nf,
            data: out,
        })
    }

    /// The whole `mxm_dense` entry point on the CSR path: `C = accum(C, A ⊕.⊗ B)`
    /// (`A'` with `flags.transpose_a`). Call it through [`crate::ops`] once
    /// that entry point is wired to it.
    #[doc(hidden)]
    pub fn mxm_dense_csr_into<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<S::T, A>("mxm_dense")?;
        let t = self.csr_mxm_dense(s, a, b, flags.transpose_a)?;
        self.accum_dense(c, t, acc)
    }

    /// `C = accum(C, op(A) ⊕.⊗ B)` with `B`, `C` dense row-major and `A` B2SR
    /// (transposed on the device where the descriptor asks).
    fn mxm_dense_b2sr<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let m = Sr::of(&s, "mxm_dense")?;
        let acc = accum_code::<S::T, A>("mxm_dense")?;
        let DMat::B2sr { pat, value } = &a.repr else {
            return Err(no_kernel("mxm_dense", "a CSR matrix (convert it to B2SR)"));
        };
        let pat = self.oriented(pat, flags.transpose_a)?;
        let (rows, nf) = (pat.nrows, b.ncols);
        let out = self.dev.alloc::<S::T>(rows * nf)?;
        let product = sr::b2sr_mxm_dense(
            m,
            pat.k,
            Tiles::of(&pat),
            pat.nrows as u64,
            pat.tile_rows as u32,
            bits_of(*value),
            b.data.ptr(),
            nf as u64,
            out.ptr(),
        );
        // compiled even where there is nothing to launch
        product.func(&self.dev)?;
        let block = nf.next_multiple_of(32).clamp(32, 256) as u32;
        let grid = pat.tile_rows.clamp(1, self.dev.sm_count as usize * 64) as u32;
        if pat.tile_rows > 0 {
            product.grid(&self.dev, grid, block)?;
        }
        let t = CudaDense {
            nrows: rows,
            ncols: nf,
            data: out,
        };
        self.accum_dense(c, t, acc)
    }

    /// The `scale_dense_rows` entry point: `c_ij = op(d_i, b_ij)`.
    pub(crate) fn scale_dense_rows_op<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        d: &CudaVector<T>,
        b: &CudaDense<T>,
    ) -> Result<()> {
        let code = op_code::<T, Op>("scale_dense_rows")?;
        let dv = self.view(d)?;
        let out = self.dev.alloc::<T>(b.nrows * b.ncols)?;
        vec::scale_dense_rows(
            code,
            dv.vals,
            dv.pres,
            b.data.ptr(),
            b.nrows as u64,
            b.ncols as u64,
            out.ptr(),
        )
        .run(&self.dev, b.nrows * b.ncols)?;
        drop(dv);
        *c = CudaDense {
            nrows: b.nrows,
            ncols: b.ncols,
            data: out,
        };
        Ok(())
    }
}

impl CudaBackend {
    /// A new `nrows x ncols` dense matrix whose data `fill` writes.
    fn dense_from<T: Scalar>(
        &self,
        nrows: usize,
        ncols: usize,
        fill: impl FnOnce(DevPtr<T>) -> Result<()>,
    ) -> Result<CudaDense<T>> {
        let data = self.dev.alloc::<T>(nrows * ncols)?;
        fill(data.ptr())?;
        Ok(CudaDense { nrows, ncols, data })
    }

    /// The `dense_mxm` entry point (built-in semirings).
    pub(crate) fn dense_mxm_op<S: Semiring>(
        &self,
        c: &mut CudaDense<S::T>,
        a: &CudaDense<S::T>,
        b: &CudaDense<S::T>,
    ) -> Result<()> {
        let id = S::KERNEL
            .ok_or_else(|| no_kernel("dense_mxm", format!("user semiring {}", S::NAME)))?;
        let (add, mul) = semiring_ops(id.kind());
        let (m, k, n) = (a.nrows, a.ncols, b.ncols);
        *c = self.dense_from(m, n, |out| {
            let tiles = m.div_ceil(16) * n.div_ceil(16);
            if tiles == 0 {
                return Ok(());
            }
            vec::dense_mxm(
                add as i32,
                mul as i32,
                a.data.ptr(),
                b.data.ptr(),
                m as u64,
                k as u64,
                n as u64,
                out,
            )
            .run(&self.dev, tiles * 256)
        })?;
        Ok(())
    }

    /// The `scale_dense_cols` entry point.
    pub(crate) fn scale_dense_cols_op<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        a: &CudaDense<T>,
        d: &CudaVector<T>,
    ) -> Result<()> {
        let code = op_code::<T, Op>("scale_dense_cols")?;
        let dv = self.view(d)?;
        let (m, n) = (a.nrows, a.ncols);
        *c = self.dense_from(m, n, |out| {
            vec::scale_dense_cols(
                code,
                dv.vals,
                dv.pres,
                a.data.ptr(),
                m as u64,
                n as u64,
                out,
            )
            .run(&self.dev, m * n)
        })?;
        Ok(())
    }

    /// The `apply_dense` entry point (built-in unary operators and bound
    /// built-in binary ones).
    pub(crate) fn apply_dense_op<T: Scalar, F: UnaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        f: F,
        a: &CudaDense<T>,
    ) -> Result<()> {
        let (code, s) = unary_code(&f)?;
        let len = a.nrows * a.ncols;
        *c = self.dense_from(a.nrows, a.ncols, |out| {
            vec::vec_apply(code, bits_of(s), a.data.ptr(), len as u64, out).run(&self.dev, len)
        })?;
        Ok(())
    }

    /// The `ewise_dense` entry point: a copy of `a`, then `op(a, b)` in place.
    pub(crate) fn ewise_dense_op<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        a: &CudaDense<T>,
        b: &CudaDense<T>,
    ) -> Result<()> {
        let code = op_code::<T, Op>("ewise_dense")?;
        let data = self.dev.copy(&a.data)?;
        let len = a.nrows * a.ncols;
        vec::dense_accum(code, b.data.ptr(), len as u64, data.ptr()).run(&self.dev, len)?;
        *c = CudaDense {
            nrows: a.nrows,
            ncols: a.ncols,
            data,
        };
        Ok(())
    }

    /// The `argmax_rows` entry point.
    pub(crate) fn argmax_rows_op(
        &self,
        out: &mut CudaDense<u32>,
        a: &CudaDense<f32>,
    ) -> Result<()> {
        let (m, n) = (a.nrows, a.ncols);
        *out = self.dense_from(m, 1, |o| {
            vec::dense_argmax_rows(a.data.ptr(), m as u64, n as u64, o).run(&self.dev, m * 32)
        })?;
        Ok(())
    }
}
