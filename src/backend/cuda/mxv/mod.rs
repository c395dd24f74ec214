//! Matrix-vector products `w<mask> = accum(w, A ⊕.⊗ u)`: the entry point
//! chooses between the CSR products (`csr`), the B2SR products (`b2sr`) and,
//! for `A'`, the push products (`push`); `affine` fuses PageRank's step.

mod affine;
pub(crate) use affine::full_vals;
mod b2sr;
mod csr;
mod push;

use super::codes::{accum_code, ACCUM_NONE};
use super::device::{opt_ptr, DevPtr};
use super::launch::Sr;
use super::mem::{bit_words, DVec, Parts};
use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::Semiring;
use crate::container::{Accumulate, Flags, Mask};
use crate::error::Result;

/// The vectors one product launch reads and writes: `u`'s values and
/// presence bits, the rows allowed (NULL: every row), and the output's
/// values and presence bits.
#[derive(Clone, Copy)]
pub(crate) struct Io<T> {
    /// Values and presence bits of the input vector.
    pub u: (DevPtr<T>, DevPtr<u32>),
    /// Bits of the rows the mask allows (NULL: every row).
    pub allowed: DevPtr<u32>,
    /// Values and presence bits of the output.
    pub out: (DevPtr<T>, DevPtr<u32>),
}

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
        let sr = Sr::of(&semiring, "mxv")?;
        let acc = accum_code::<S::T, A>("mxv")?;
        if flags.transpose_a {
            // A' u (vxm): pushed from u's entries, no transpose (push.rs).
            return self.mxv_push(w, mask, (sr, semiring.zero()), acc, a, u, flags.replace);
        }
        let allowed = self.allowed(mask)?;
        let t = match a.repr.parts() {
            Parts::B2sr(pat, value) => {
                // w = A u with no mask or accumulator: write into w's buffers;
                // w ⊕= A u into a full w with no mask: folded in place (k <= 8)
                let plain = allowed.is_none() && acc < 0;
                let in_place = allowed.is_none()
                    && acc >= 0
                    && matches!(w.repr, DVec::Dense { pres: None, .. });
                match self.b2sr_mxv(
                    sr,
                    pat,
                    value,
                    u,
                    allowed.as_ref(),
                    (plain || in_place).then_some(&*w),
                    acc,
                )? {
                    Some(t) => t,
                    None => return Ok(()),
                }
            }
            Parts::Csr(csr) => {
                let uv = self.view(u)?;
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
                    let io = Io {
                        u: (uv.vals, uv.pres),
                        allowed: DevPtr::null(),
                        out,
                    };
                    return self.csr_mxv(sr, csr, a.nrows, io, acc);
                }
                // `w = A u` with no mask or accumulator into a vector with
                // presence: written into its buffers (the product writes
                // every value; its presence is set as `csr_mxv_into` says).
                if let (
                    None,
                    true,
                    DVec::Dense {
                        vals: w_vals,
                        pres: Some(w_pres),
                    },
                ) = (&allowed, acc < 0 && w.len == a.nrows, &w.repr)
                {
                    let out = (w_vals.ptr(), w_pres);
                    return self.csr_mxv_into(sr, csr, a.nrows, (uv.vals, uv.pres), out);
                }
                let out_vals = self.dev.alloc::<S::T>(a.nrows)?;
                let out_pres = self.dev.zeros::<u32>(bit_words(a.nrows))?;
                self.csr_mxv(
                    sr,
                    csr,
                    a.nrows,
                    Io {
                        u: (uv.vals, uv.pres),
                        allowed: opt_ptr(allowed.as_ref()),
                        out: (out_vals.ptr(), out_pres.ptr()),
                    },
                    ACCUM_NONE,
                )?;
                self.dense_vec(a.nrows, out_vals, out_pres)
            }
        };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }
}
