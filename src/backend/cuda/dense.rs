//! Products with dense row-major matrices: `A ⊕.⊗ B` with `A` CSR
//! (`cuda/csr_spmm.cu`) or B2SR (`cuda/b2sr_spmm.cu`), both in the semiring
//! modules, and `B` dense, the accumulation into `C`, and dense times dense
//! (`cuda/dense_mxm.cu`).

use super::codes::{accum_code, op_code};
use super::csr::CsrRef;
use super::device::{bits_of, DevPtr};
use super::launch::{dense, sr, vec, Launch, Sr, Tiles};
use super::mem::{no_kernel, DMat, LongRows, Parts};
use super::mxv::full_vals;
use super::{CudaBackend, CudaDense, CudaMatrix, CudaVector};
use crate::algebra::Semiring;
use crate::container::{Accumulate, Flags};
use crate::error::Result;
use crate::ext::scaled::{mxm_dense_scaled_generic, DenseScales};
use crate::scalar::Scalar;

/// CSR times dense walks a row's entries in rounds (`csr_mxm_dense_rounds`:
/// 16 entries, 8 for 8-byte values) where rows have at most this many
/// entries on average, else one after another (`csr_mxm_dense`). Measured
/// on an H200 (a thread per output, 7 to 128 columns, random columns):
/// rounds 2.5x faster on graphs of 2,708 to 89,250 vertices with 4 to 10
/// entries a row (Cora's hub of 168 entries was the one-by-one kernel's
/// whole time), the one-by-one loop as fast or faster at 490 entries a row
/// (the Reddit-size graph).
const ROUNDS_MEAN_ROW: usize = 64;

/// Threads of a block of `csr_mxm_dense_long` (`BLOCKS_NT`).
const LONG_BLOCK: usize = 128;

/// Whether CSR times dense walks `a`'s rows in rounds, its long rows a
/// block each (short rows on average), rather than one entry after another.
fn walks_in_rounds<T: Scalar>(a: &CsrRef<T>) -> bool {
    a.nnz <= ROUNDS_MEAN_ROW * a.nrows
}

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
        let r = self.csr_product_input(a, transpose)?;
        let long = self.spmm_long_rows(a, &r, transpose)?;
        let nf = b.ncols;
        let out = self.dev.alloc::<S::T>(r.nrows * nf)?;
        let none = DevPtr::null();
        self.csr_spmm(m, &r, long, b, [none; 3], out.ptr())?;
        Ok(CudaDense {
            nrows: r.nrows,
            ncols: nf,
            data: out,
        })
    }

    /// [`crate::ext::mxm_dense_scaled`]: one kernel (`csr_spmm`) where `A`
    /// is CSR, the semiring has a kernel, the given vectors are full and
    /// there is no column scale `s` (where rows are long, after a pass that
    /// scales `B` by `r`); [`mxm_dense_scaled_generic`] otherwise. `C` is written in place
    /// where it has the result's shape.
    pub(crate) fn mxm_dense_scaled_op<S: Semiring>(
        &self,
        c: &mut CudaDense<S::T>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        scales: DenseScales<'_, CudaBackend, S::T>,
    ) -> Result<()> {
        let full = |v: Option<&CudaVector<S::T>>| v.map_or(Some(DevPtr::null()), full_vals);
        let (Ok(id), DMat::Csr { .. }, Some(left), Some(right), Some(bias), None) = (
            Sr::of(&semiring, "mxm_dense_scaled"),
            &a.repr,
            full(scales.left),
            full(scales.right),
            full(scales.bias),
            scales.col,
        ) else {
            return mxm_dense_scaled_generic(self, c, semiring, a, b, scales);
        };
        let r = self.csr_product_input(a, false)?;
        self.dense_output(c, r.nrows, b.ncols)?;
        // Long rows (the one-by-one kernel): B scaled in a pass of its own,
        // read by many rows after, rather than r_j gathered beside every
        // row of B a thread reads (the same products, so the same values).
        if let (false, Some(rv), Ok(_)) = (
            walks_in_rounds(&r),
            scales.right,
            op_code::<S::T, S::Mul>("mxm_dense_scaled"),
        ) {
            let mut scaled = crate::Backend::dense_for_output(self, b.nrows, b.ncols)?;
            self.scale_dense_op::<S::T, S::Mul>("mxm_dense_scaled", &mut scaled, rv, b, true)?;
            let none = DevPtr::null();
            return self.csr_spmm(id, &r, None, &scaled, [left, none, bias], c.data.ptr());
        }
        let long = self.spmm_long_rows(a, &r, false)?;
        self.csr_spmm(id, &r, long, b, [left, right, bias], c.data.ptr())
    }

    /// The long rows of `a` (its list, made at its first product: the rows
    /// of more than four times the mean entries, 32 at least) for CSR times
    /// dense in rounds with those rows a block each: where `r` is `a` as
    /// stored (CSR, not transposed), its rows short on average and some long;
    /// `None` otherwise.
    pub(super) fn spmm_long_rows<'a, T: Scalar>(
        &self,
        a: &'a CudaMatrix<T>,
        r: &CsrRef<T>,
        transposed: bool,
    ) -> Result<Option<&'a LongRows>> {
        match a.repr.parts() {
            Parts::Csr((p, _)) if !transposed && walks_in_rounds(r) => {
                let long = self.long_rows(&p.plans.long_rows, &p.rowptr, p.nnz, a.nrows)?;
                Ok((long.count > 0).then_some(long))
            }
            _ => Ok(None),
        }
    }

    /// `out = diag(l) (A ⊕.⊗ (diag(r) B)) ⊕ bias` on CSR `a` (`[l, r, bias]`
    /// null where absent), a thread per output element: a row's entries in
    /// rounds where the rows are short (at most `ROUNDS_MEAN_ROW` entries on
    /// average), else one after another; with `long`, its rows a block each
    /// (whose threads gather a row's products together) and the others in
    /// rounds.
    fn csr_spmm<T: Scalar>(
        &self,
        id: Sr<T>,
        a: &CsrRef<T>,
        long: Option<&LongRows>,
        b: &CudaDense<T>,
        [left, right, bias]: [DevPtr<T>; 3],
        out: DevPtr<T>,
    ) -> Result<()> {
        let (m, nf) = (a.nrows as u64, b.ncols as u64);
        if let Some(long) = long {
            // the long rows' blocks, then a thread an output for the others
            let feature_chunks =
                b.ncols
                    .div_ceil(if std::mem::size_of::<T>() > 4 { 8 } else { 16 });
            let long_blocks = long.count * feature_chunks;
            let short_blocks = (a.nrows * b.ncols).div_ceil(LONG_BLOCK).min(1 << 20);
            let grid = u32::try_from(long_blocks + short_blocks).map_err(|_| {
                crate::error::Error::TooLarge {
                    what: "matrix",
                    detail: format!("{} long rows by {nf} columns", long.count),
                }
            })?;
            return sr::csr_mxm_dense_long(
                id,
                a.rowptr,
                a.colidx,
                a.vals,
                a.isobits,
                m,
                b.data.ptr(),
                nf,
                left,
                right,
                bias,
                out,
                long.rows.ptr(),
                long.count as u32,
                long.long_min,
            )
            .grid(&self.dev, grid, LONG_BLOCK as u32);
        }
        let kernel = if walks_in_rounds(a) {
            sr::csr_mxm_dense_rounds
        } else {
            sr::csr_mxm_dense
        };
        kernel(
            id,
            a.rowptr,
            a.colidx,
            a.vals,
            a.isobits,
            m,
            b.data.ptr(),
            nf,
            left,
            right,
            bias,
            out,
        )
        .run(&self.dev, a.nrows * b.ncols)
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
            Tiles::of(&self.dev, &pat)?,
            pat.nrows as u64,
            bits_of(*value),
            b.data.ptr(),
            nf as u64,
            out.ptr(),
        );
        // compiled even where there is nothing to launch; a thread per output element
        product.func(&self.dev)?;
        if rows * nf > 0 {
            product.run(&self.dev, rows * nf)?;
        }
        let t = CudaDense {
            nrows: rows,
            ncols: nf,
            data: out,
        };
        self.accum_dense(c, t, acc)
    }
    /// The `dense_mxm` entry point: `C = A ⊕.⊗ B` on dense row-major
    /// matrices (`cuda/dense_mxm.cu`: blocks of 128 x 16 outputs for
    /// `n <= 16`, else 64 x 64), into `C`'s buffer.
    pub(crate) fn dense_mxm_op<S: Semiring>(
        &self,
        c: &mut CudaDense<S::T>,
        s: S,
        a: &CudaDense<S::T>,
        b: &CudaDense<S::T>,
    ) -> Result<()> {
        let sr = Sr::of(&s, "dense_mxm")?;
        let (m, k, n) = (a.nrows, a.ncols, b.ncols);
        self.dense_output(c, m, n)?;
        type Kernel<T> = fn(Sr<T>, DevPtr<T>, DevPtr<T>, u64, u64, u64, DevPtr<T>) -> Launch;
        let ((bm, bn), kernel): (_, Kernel<S::T>) = if n <= 16 {
            ((128, 16), dense::mxm::dense_mxm_n16)
        } else {
            ((64, 64), dense::mxm::dense_mxm_n64)
        };
        let product = kernel(
            sr,
            a.data.ptr(),
            b.data.ptr(),
            m as u64,
            k as u64,
            n as u64,
            c.data.ptr(),
        );
        // compiled even where there is nothing to launch
        product.func(&self.dev)?;
        let blocks = m.div_ceil(bm) * n.div_ceil(bn);
        let grid = blocks.min(self.dev.sm_count as usize * 8) as u32;
        product.grid(&self.dev, grid, 256)
    }
}
