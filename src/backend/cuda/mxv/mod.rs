//! Matrix-vector products `w<mask> = accum(w, A ⊕.⊗ u)`: the entry point
//! chooses between the CSR products (`csr`), the B2SR products (`b2sr`) and,
//! for `A'`, the push products (`push`); `affine` fuses PageRank's step.

mod affine;
mod b2sr;
mod csr;
mod push;

use super::codes::{accum_code, ACCUM_NONE};
use super::device::DevPtr;
use super::launch::Sr;
use super::mem::{bit_words, DMat, DVec};
use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::Semiring;
use crate::container::{Accumulate, Flags, Mask};
use crate::error::Result;

impl CudaBackend {
    /// The `mxv` entry point.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mxv_op<S: Semiring, A: Accumulate<S::T>>(
        &self,
        w: &mut CudaVector<S::T>,
        mask: Option<Mask<'_, Self>>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        u: &CudaVector<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let sr = Sr::of::<S>("mxv")?;
        let acc = accum_code::<S::T, A>("mxv")?;
        if flags.transpose_a {
            // A' u (vxm): pushed from u's entries, no transpose (push.rs).
            return self.mxv_push::<S, A>(w, mask, semiring, a, u, flags);
        }
        let allowed = self.allowed(mask)?;
        let t = match &a.repr {
            DMat::B2sr { pat, value } => {
                // w = A u with no mask or accumulator: write into w's buffers;
                // w ⊕= A u into a full w with no mask: folded in place (k <= 8)
                let plain = allowed.is_none() && acc < 0;
                let in_place = allowed.is_none()
                    && acc >= 0
                    && matches!(w.repr, DVec::Dense { pres: None, .. });
                match self.b2sr_mxv(
                    sr,
                    pat,
                    *value,
                    u,
                    allowed.as_ref(),
                    (plain || in_place).then_some(&*w),
                    acc,
                )? {
                    Some(t) => t,
                    None => return Ok(()),
                }
            }
            DMat::Csr {
                rowptr,
                colidx,
                vals,
                nnz,
                iso,
            } => {
                let uv = self.view(u)?;
                let csr = (rowptr, colidx, vals, *nnz, *iso);
                // `w += A u` into a full `w` with no mask: folded in place by
                // the product itself (no temporary, no second pass).
                if let (
                    None,
                    true,
                    DVec::Dense {
                        vals: w_vals,
                        pres: None,
                    },
                ) = (&allowed, acc >= 0, &w.repr)
                {
                    let out = (w_vals.ptr(), DevPtr::null());
                    return self.csr_mxv(sr, csr, a.nrows, (uv.vals, uv.pres), None, out, acc);
                }
                let out_vals = self.dev.alloc::<S::T>(a.nrows)?;
                let out_pres = self.dev.zeros::<u32>(bit_words(a.nrows))?;
                self.csr_mxv(
                    sr,
                    csr,
                    a.nrows,
                    (uv.vals, uv.pres),
                    allowed.as_ref(),
                    (out_vals.ptr(), out_pres.ptr()),
                    ACCUM_NONE,
                )?;
                self.dense_vec(a.nrows, out_vals, out_pres)
            }
        };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }
}
