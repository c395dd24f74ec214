//! The affine product `w = c ⊕ A ⊕.⊗ (d ⊗ u)` ([`crate::ops::mxv_affine`])
//! in one pass: the product kernels of `cuda/sr.cu` read `d_j ⊗ u_j` where
//! they gather `u_j`, and write every row as `c ⊕ value` instead of reading
//! the output (B2SR with tiles of at most 8x8: `b2sr_mxv_fused`; CSR: the
//! merge path). PageRank's iteration `x' = c + A' (x ⊙ s)` then reads `x`,
//! `s` and the matrix and writes `x'` once.

use super::device::bits_of;
use super::kernels::ModuleId;
use super::mem::{DMat, DVec};
use super::{kernel_of, CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::Semiring;
use crate::backend::mxv_affine_generic;
use crate::error::Result;
use crate::scalar::Scalar;

/// The device address of a full vector's values (no presence bits).
fn full_vals<T: Scalar>(v: &CudaVector<T>) -> Option<u64> {
    match &v.repr {
        DVec::Dense { vals, pres: None } => Some(vals.ptr()),
        _ => None,
    }
}

impl CudaBackend {
    /// [`crate::Backend::mxv_affine`]: fused where `d` and `u` are full
    /// vectors, the semiring is built in and `A` is CSR or B2SR with tiles of
    /// at most 8x8; [`mxv_affine_generic`] otherwise. `w` is written in
    /// place when it is a full vector of the right length, else replaced.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mxv_affine_fused<S: Semiring>(
        &self,
        w: &mut CudaVector<S::T>,
        semiring: S,
        c: S::T,
        a: &CudaMatrix<S::T>,
        d: &CudaVector<S::T>,
        u: &CudaVector<S::T>,
    ) -> Result<()> {
        let id = kernel_of::<S>("mxv_affine").ok();
        let fits = match &a.repr {
            DMat::B2sr { pat, .. } => pat.k <= 8,
            DMat::Csr { .. } => true,
        };
        let (Some(id), Some(d_vals), Some(u_vals), true) = (id, full_vals(d), full_vals(u), fits)
        else {
            return mxv_affine_generic(self, w, semiring, c, a, d, u);
        };
        let n = a.nrows;
        if !(w.len == n && full_vals(w).is_some()) {
            *w = CudaVector {
                len: n,
                repr: DVec::Dense {
                    vals: self.dev.alloc::<S::T>(n)?,
                    pres: None,
                },
            };
        }
        let DVec::Dense { vals: out, .. } = &w.repr else {
            unreachable!("w was made a full vector above")
        };
        let affine = Some((d_vals, bits_of(c)));
        self.affine_product(id, a, u_vals, out, affine)
    }

    /// The fused product into the full `out` (see [`Self::mxv_affine_fused`]).
    fn affine_product<T: Scalar>(
        &self,
        id: ModuleId,
        a: &CudaMatrix<T>,
        u_vals: u64,
        out: &super::device::DBuf<T>,
        affine: Option<(u64, u64)>,
    ) -> Result<()> {
        match &a.repr {
            DMat::B2sr { pat, value } => self.b2sr_mxv_fused(
                id,
                pat,
                bits_of(*value),
                (u_vals, 0),
                None,
                (out.ptr(), 0),
                -1,
                affine,
            ),
            DMat::Csr {
                rowptr,
                colidx,
                vals,
                nnz,
                iso,
            } => {
                let (avals, isobits) = match iso {
                    Some(x) => (0, bits_of(*x)),
                    None => (vals.ptr(), 0),
                };
                self.csr_mxv_merge(
                    id,
                    (rowptr, colidx, *nnz),
                    (avals, isobits),
                    a.nrows,
                    (u_vals, 0),
                    None,
                    (out, 0),
                    -1,
                    affine,
                )
            }
        }
    }
}
