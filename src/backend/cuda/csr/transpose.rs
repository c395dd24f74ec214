//! CSR transpose on the device: counts per column scanned into row
//! pointers, and a stable LSD radix sort of the entries by column (so each
//! row of the result lists its entries in increasing column, as the CPU's
//! `Csr::transpose`). Also sorts rows (two stable transposes).

use super::super::codes::accum_code;
use super::super::device::{opt_ptr, DBuf, DevPtr};
use super::super::launch::mat;
use super::super::{CudaBackend, CudaMatrix};
use super::{csr, CsrRef};
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// `A'` as device CSR with values (B2SR inputs are unpacked first). Each
    /// row of the result lists its entries in increasing column, as the CPU's
    /// `Csr::transpose`.
    ///
    /// For the `transpose` and transposed-CSR `mxv` entry points.
    ///
    /// ```no_run
    /// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Matrix};
    /// let gpu = CudaBackend::new(0)?;
    /// let a = Matrix::from_triplets(2, 3, vec![(0, 2, 1.5f32), (1, 0, 2.0)])?;
    /// let t = gpu.csr_transpose(&gpu.upload_matrix(&a)?)?;
    /// assert_eq!(gpu.download_matrix(&t)?.get(2, 0), Some(1.5));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn csr_transpose<T: Scalar>(&self, a: &CudaMatrix<T>) -> Result<CudaMatrix<T>> {
        let r = self.csr_input(a, true)?;
        self.csr_owned(r)
    }

    /// `C<mask> = accum(C, A')` (`A` with `flags.transpose_a`) with a CSR
    /// result: the whole `transpose` entry point except a B2SR fast path.
    /// Call it through [`crate::ops::transpose`] once that entry point is wired to it.
    #[doc(hidden)]
    pub fn transpose_into<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("transpose")?;
        let t = self.csr_input(a, !flags.transpose_a)?;
        let t = self.csr_owned(t)?;
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The transpose of `r`: counts per column and a scan give the row
    /// pointers; a stable radix sort of the entries by column gives the order.
    pub(super) fn transpose_ref<T: Scalar>(&self, r: &CsrRef<T>) -> Result<CudaMatrix<T>> {
        let (n, m, nnz) = (r.nrows, r.ncols, r.nnz);
        let rowptr = self.dev.zeros::<u32>(m + 1)?;
        mat::col_counts::<T>(r.colidx, nnz as u64, rowptr.ptr()).run(&self.dev, nnz)?;
        self.dev.scan(&rowptr, m + 1)?;
        let rows = self.dev.alloc::<u32>(nnz)?;
        mat::csr_row_ids::<T>(r.rowptr, n as u64, nnz as u64, rows.ptr()).run(&self.dev, nnz)?;
        let perm = self.radix_perm::<T>(r.colidx, nnz, m)?;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let vals = self.dev.alloc::<T>(nnz)?;
        mat::csr_gather(
            opt_ptr(perm.as_ref()),
            rows.ptr(),
            r.vals,
            nnz as u64,
            colidx.ptr(),
            vals.ptr(),
        )
        .run(&self.dev, nnz)?;
        Ok(csr(m, n, rowptr, colidx, vals, nnz))
    }

    /// The permutation that sorts `n` keys (below `bound`) stably: LSD radix
    /// passes of 8 bits. `None` when no pass is needed (identity).
    fn radix_perm<T: Scalar>(
        &self,
        keys: DevPtr<u32>,
        n: usize,
        bound: usize,
    ) -> Result<Option<DBuf<u32>>> {
        if n == 0 || bound <= 1 {
            return Ok(None);
        }
        let bits = 32 - ((bound - 1) as u32).leading_zeros();
        let passes = bits.div_ceil(8) as usize;
        let nb = n.div_ceil(2048).clamp(1, 16384);
        let per = n.div_ceil(nb);
        let ghist = self.dev.alloc::<u32>(256 * nb)?;
        let mut bufs = Vec::with_capacity(2);
        for _ in 0..passes.min(2) {
            bufs.push((self.dev.alloc::<u32>(n)?, self.dev.alloc::<u32>(n)?));
        }
        let (mut src_keys, mut src_pay) = (keys, DevPtr::null());
        let (n64, per64, grid) = (n as u64, per as u64, nb as u32);
        for pass in 0..passes {
            let shift = 8 * pass as u32;
            mat::radix_hist::<T>(src_keys, n64, shift, per64, ghist.ptr())
                .grid(&self.dev, grid, 256)?;
            self.dev.scan(&ghist, 256 * nb)?;
            let (ko, po) = &bufs[pass % 2];
            mat::radix_scatter::<T>(
                src_keys,
                src_pay,
                n64,
                shift,
                per64,
                ghist.ptr(),
                ko.ptr(),
                po.ptr(),
            )
            .grid(&self.dev, grid, 256)?;
            (src_keys, src_pay) = (ko.ptr(), po.ptr());
        }
        let last = (passes - 1) % 2;
        Ok(bufs.into_iter().nth(last).map(|b| b.1))
    }

    /// Rows of `r` in any order within a row, sorted: two stable transposes.
    pub(super) fn sort_rows<T: Scalar>(&self, r: &CsrRef<T>) -> Result<CudaMatrix<T>> {
        let t = CsrRef::owned(self.transpose_ref(r)?);
        self.transpose_ref(&t)
    }
}
