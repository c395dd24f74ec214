//! Push products `w<mask> = accum(w, A' ⊕.⊗ u)` (`vxm(u, A)`, or `mxv` with
//! `A` transposed) on CSR and B2SR, scattered from the entries of `u`
//! without transposing `A` (kernels in `cuda/push.cu`).
//!
//! The kernels visit only the rows of `A` where `u` has entries (a word of
//! `u`'s presence bits without entries costs one load), so a push from a
//! small frontier costs `O(n / 32 + its rows)`. A mask whose pattern is
//! stored as bits (packed bits, or a structural mask on presence bits,
//! complemented or not) is read in place; with replace or no mask, and no
//! accumulator, the product is the result and needs no write-back pass.

use super::device::{bits_of, Arg};
use super::kernels::ModuleId;
use super::mem::{bit_words, seg_len, DMat, DVec, SHORT_MAX};
use super::{accum_code, kernel_of, CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::{Semiring, SemiringKind};
use crate::container::{Accumulate, Flags, Mask};
use crate::error::Result;
use crate::scalar::Scalar;

/// How a kernel reads the mask (`cuda/push.cu`: `MASK_*`).
const MASK_NONE: i32 = 0;
const MASK_SET: i32 = 1;
const MASK_CLEAR: i32 = 2;

impl CudaBackend {
    /// `w<mask> = accum(w, A' ⊕.⊗ u)` by scattering from `u`'s entries.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mxv_push<S: Semiring, A: Accumulate<S::T>>(
        &self,
        w: &mut CudaVector<S::T>,
        mask: Option<Mask<'_, Self>>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        u: &CudaVector<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let ModuleId::Sr(kind, ty) = kernel_of::<S>("vxm")? else {
            unreachable!("semiring modules are ModuleId::Sr")
        };
        let id = ModuleId::Push(kind, ty);
        let acc = accum_code::<S::T, A>("vxm")?;
        let n_out = a.ncols;
        // The product is the result: no accumulator, and no mask or replace.
        let direct = acc < 0 && (mask.is_none() || flags.replace);
        let in_place = match mask {
            Some(m) if direct => m
                .source
                .pattern_words(m.structural)
                .map(|p| (p, if m.complemented { MASK_CLEAR } else { MASK_SET })),
            _ => None,
        };
        let allowed = match in_place {
            Some(_) => None,
            None => self.allowed(mask)?,
        };
        let (mask_ptr, mode) = match (in_place, &allowed) {
            (Some(pm), _) => pm,
            (None, Some(b)) => (b.ptr(), MASK_SET),
            (None, None) => (0, MASK_NONE),
        };
        let uv = self.view(u)?;
        let bits_out = kind == SemiringKind::LorLand
            && matches!(u.repr, DVec::Bits(_))
            && matches!(&a.repr, DMat::B2sr { value, .. } if value.is_nonzero());
        let out_pres = self.dev.zeros::<u32>(bit_words(n_out))?;
        let out_vals = if bits_out {
            None
        } else {
            Some(self.fill(n_out, semiring.zero())?)
        };
        let ov = Arg::U64(out_vals.as_ref().map_or(0, |v| v.ptr()));
        let in_words = a.nrows.div_ceil(32);
        match &a.repr {
            DMat::Csr {
                rowptr,
                colidx,
                vals,
                ..
            } => self.dev.run(
                id,
                "csr_push",
                None,
                in_words * 32,
                &[
                    rowptr.arg(),
                    colidx.arg(),
                    vals.arg(),
                    Arg::U64(a.nrows as u64),
                    Arg::U64(uv.vals),
                    Arg::U64(uv.pres),
                    Arg::U64(mask_ptr),
                    Arg::I32(mode),
                    ov,
                    out_pres.arg(),
                ],
            )?,
            DMat::B2sr { pat, value } => {
                let k = pat.k;
                self.dev.run(
                    id,
                    "b2sr_push",
                    Some(k),
                    in_words,
                    &[
                        pat.rowptr.arg(),
                        pat.colidx.arg(),
                        pat.tiles.arg(),
                        Arg::U64(pat.nrows as u64),
                        Arg::U32(pat.tile_rows as u32),
                        Arg::U32(SHORT_MAX),
                        Arg::U64(bits_of(*value)),
                        Arg::U64(uv.vals),
                        Arg::U64(uv.pres),
                        Arg::U64(mask_ptr),
                        Arg::I32(mode),
                        ov,
                        out_pres.arg(),
                    ],
                )?;
                if pat.nseg > 0 {
                    self.dev.run(
                        id,
                        "b2sr_push_seg",
                        Some(k),
                        pat.nseg,
                        &[
                            pat.rowptr.arg(),
                            pat.colidx.arg(),
                            pat.tiles.arg(),
                            pat.seg_row.arg(),
                            pat.seg_off.arg(),
                            Arg::U32(pat.nseg as u32),
                            Arg::U32(seg_len(k)),
                            Arg::U64(pat.nrows as u64),
                            Arg::U64(bits_of(*value)),
                            Arg::U64(uv.vals),
                            Arg::U64(uv.pres),
                            Arg::U64(mask_ptr),
                            Arg::I32(mode),
                            ov,
                            out_pres.arg(),
                        ],
                    )?;
                }
            }
        }
        drop(uv);
        let t = match out_vals {
            None => CudaVector {
                len: n_out,
                repr: DVec::Bits(out_pres),
            },
            Some(v) => self.dense_vec(n_out, v, out_pres),
        };
        if direct {
            *w = t;
            Ok(())
        } else {
            self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
        }
    }
}
