//! `mxm` with a sparse result on CSR (`cuda/csr_spgemm.cu`): the general
//! product for every semiring with a device module (built-in, or a user one
//! with its operators as source), any operand formats (B2SR ones unpacked on
//! the device), any mask (through the CSR output phase) and results whose
//! entries carry different values. The B2SR boolean product
//! (`b2sr/mxm.rs`) stays the fast path where it applies.

use super::super::device::DevPtr;
use super::super::launch::{sr, Sr};
use super::super::{CudaBackend, CudaMatrix};
use crate::algebra::Semiring;
use crate::container::{Flags, MatrixMask};
use crate::error::{Error, Result};

impl CudaBackend {
    /// `C<mask> = accum(C, op(A) ⊕.⊗ op(B))` with a CSR result: the rows of
    /// `op(B)` merged per row of `op(A)` (a count pass sizes the result, then
    /// a fill pass), then `C`'s mask, accumulator and replace applied by the
    /// CSR output phase. `accum` is the accumulator's code (negative: none).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mxm_csr<S: Semiring>(
        &self,
        c: &mut CudaMatrix<S::T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: i32,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let m = Sr::of(&s, "mxm")?;
        let ar = self.csr_input(a, flags.transpose_a)?;
        let br = self.csr_input(b, flags.transpose_b)?;
        let (nrows, ncols) = (ar.nrows, br.ncols);
        let cursor = self.dev.alloc::<u32>(ar.nnz.max(1))?;
        let total = self.dev.zeros::<u64>(1)?;
        let threads = nrows.max(1);
        let t = self.count_fill::<S::T>(
            nrows,
            ncols,
            |counts| {
                sr::csr_mxm_merge(
                    m,
                    ar.rowptr,
                    ar.colidx,
                    ar.vals,
                    nrows as u64,
                    br.rowptr,
                    br.colidx,
                    br.vals,
                    cursor.ptr(),
                    counts.ptr(),
                    total.ptr(),
                    DevPtr::null(),
                    DevPtr::null(),
                    DevPtr::null(),
                )
                .run(&self.dev, threads)?;
                let n = self.dev.read_u64(&total)?;
                if n > u64::from(u32::MAX) {
                    return Err(Error::TooLarge {
                        what: "mxm result",
                        detail: format!("{n} entries, more than a device CSR holds (2^32 - 1)"),
                    });
                }
                Ok(())
            },
            |rowptr, colidx, vals| {
                sr::csr_mxm_merge(
                    m,
                    ar.rowptr,
                    ar.colidx,
                    ar.vals,
                    nrows as u64,
                    br.rowptr,
                    br.colidx,
                    br.vals,
                    cursor.ptr(),
                    DevPtr::null(),
                    DevPtr::null(),
                    rowptr,
                    colidx,
                    vals,
                )
                .run(&self.dev, threads)
            },
        )?;
        self.write_matrix(c, t, mask, accum, flags.replace)
    }
}
