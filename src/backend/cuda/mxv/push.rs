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

use super::super::device::{bits_of, opt_ptr, DevPtr};
use super::super::launch::{push, Segments, Sr, Tiles};
use super::super::mem::{bit_words, DMat, DVec, Parts, SHORT_MAX};
use super::super::transfer::from_bytes;
use super::super::{CudaBackend, CudaMatrix, CudaVector};
use super::csr::operand;
use crate::algebra::SemiringKind;
use crate::container::Mask;
use crate::error::Result;
use crate::scalar::{Scalar, ScalarType};

/// How a kernel reads the mask (`cuda/push.cu`: `MASK_*`).
const MASK_NONE: i32 = 0;
const MASK_SET: i32 = 1;
const MASK_CLEAR: i32 = 2;

/// The "nothing folded yet" mark of a floating-point scatter output folded by
/// compare-and-swap (`SCATTER_EMPTY_F32/F64` in `cuda/semiring.cuh`).
const SCATTER_EMPTY_F32: u32 = 0x7fc0_de5d;
const SCATTER_EMPTY_F64: u64 = 0x7ff8_de5d_de5d_de5d;

/// What the scatter output starts at: the monoid's identity `zero`, except
/// for floating point folded by compare-and-swap (every monoid but the
/// `PLUS` of `PLUS.TIMES`/`PLUS.PAIR`, which adds atomically from zero), where
/// it starts at the empty mark, so the first value is taken as it is (a float
/// `MIN` over a lone NaN is NaN, as on the CPU, not the identity +inf).
fn scatter_start<T: Scalar>(kind: Option<SemiringKind>, zero: T) -> T {
    if matches!(kind, Some(SemiringKind::PlusTimes | SemiringKind::PlusPair)) {
        return zero;
    }
    let mark = match T::TYPE {
        ScalarType::F32 => SCATTER_EMPTY_F32.to_le_bytes().to_vec(),
        ScalarType::F64 => SCATTER_EMPTY_F64.to_le_bytes().to_vec(),
        _ => return zero,
    };
    from_bytes::<T>(&mark, 1)[0]
}

impl CudaBackend {
    /// `w<mask> = accum(w, A' ⊕.⊗ u)` by scattering from `u`'s entries, for
    /// `mxv_op` (its semiring's module `sr`, its zero, the accumulator code).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mxv_push<T: Scalar>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        (sr, zero): (Sr<T>, T),
        acc: i32,
        a: &CudaMatrix<T>,
        u: &CudaVector<T>,
        replace: bool,
    ) -> Result<()> {
        let (kind, module) = (sr.kind(), sr.push());
        let n_out = a.ncols;
        // The product is the result: no accumulator, and no mask or replace.
        let direct = acc < 0 && (mask.is_none() || replace);
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
            (None, None) => (DevPtr::null(), MASK_NONE),
        };
        let uv = self.view(u)?;
        let bits_out = kind == Some(SemiringKind::LorLand)
            && matches!(u.repr, DVec::Bits(_))
            && matches!(&a.repr, DMat::B2sr { value, .. } if value.is_nonzero());
        let out_pres = self.dev.zeros::<u32>(bit_words(n_out))?;
        let out_vals = if bits_out {
            None
        } else {
            Some(self.fill(n_out, scatter_start(kind, zero))?)
        };
        let ov = opt_ptr(out_vals.as_ref());
        let (u_vals, u_pres, op) = (uv.vals, uv.pres, out_pres.ptr());
        let in_words = a.nrows.div_ceil(32);
        match a.repr.parts() {
            Parts::Csr(csr) => {
                let (rowptr, colidx, avals, isobits) = operand(csr);
                push::csr_push(
                    module,
                    rowptr,
                    colidx,
                    avals,
                    isobits,
                    a.nrows as u64,
                    u_vals,
                    u_pres,
                    mask_ptr,
                    mode,
                    ov,
                    op,
                )
                .run(&self.dev, in_words * 32)?
            }
            Parts::B2sr(pat, value) => {
                let k = pat.k;
                let tiles = Tiles::of(&self.dev, pat)?;
                let (nrows, vbits) = (pat.nrows as u64, bits_of(value));
                push::b2sr_push(
                    module,
                    k,
                    tiles,
                    nrows,
                    pat.tile_rows as u32,
                    SHORT_MAX,
                    vbits,
                    u_vals,
                    u_pres,
                    mask_ptr,
                    mode,
                    ov,
                    op,
                )
                .run(&self.dev, in_words)?;
                if pat.nseg > 0 {
                    push::b2sr_push_seg(
                        module,
                        k,
                        tiles,
                        Segments::of(pat),
                        nrows,
                        vbits,
                        u_vals,
                        u_pres,
                        mask_ptr,
                        mode,
                        ov,
                        op,
                    )
                    .run(&self.dev, pat.nseg)?;
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
            self.write_vector(w, t, allowed.as_ref(), acc, replace)
        }
    }
}
