//! The dense-bit side of the CPU backend (issue 17): conversions, BMM,
//! BSpMM and the bit-plane products, one job per file. Every product
//! computes AND popcounts ([`popcount`]), turns them into the semiring's
//! value ([`Linear`]) and hands rows of values to the one epilogue
//! ([`epilogue`]) that writes counts, scaled `f32` or re-binarised bits.

mod bmm;
mod bspmm;
mod convert;
mod epilogue;
mod planes;
mod popcount;

pub(crate) use bmm::bmm;
pub(crate) use bspmm::bspmm;
pub(crate) use convert::{binarize, bit_transpose, dequantize, mean_abs, quantize, unpack_bits};
pub(crate) use planes::{bmm_planes, bspmm_planes};
pub(crate) use popcount::isa_name;

pub(super) use crate::algebra::bits::Linear;
#[cfg(test)]
use crate::algebra::BitSemiring;

/// The CPU's use of the popcount form: rows of counts turned into values.
impl Linear {
    /// Turns a row of `popc(a_i & w_j)` into values in place, with
    /// `pa = popc(a_i)` and `pw[j] = popc(w_j)` (empty when `gamma == 0`).
    /// Wrapping arithmetic: the terms may pass `i32` (`4 popc(a & w)` for
    /// `k > 2^29`) but the value, in `[-k, k]`, fits, and wrapping sums are
    /// exact modulo 2^32.
    #[inline]
    pub(super) fn apply_row(&self, row: &mut [i32], pa: i32, pw: &[i32]) {
        if self.clamp {
            row.iter_mut().for_each(|v| *v = (*v).min(1));
            return;
        }
        let base = self.beta.wrapping_mul(pa).wrapping_add(self.dk);
        if self.gamma == 0 {
            row.iter_mut()
                .for_each(|v| *v = self.alpha.wrapping_mul(*v).wrapping_add(base));
        } else {
            for (v, &p) in row.iter_mut().zip(pw) {
                *v = self
                    .alpha
                    .wrapping_mul(*v)
                    .wrapping_add(base)
                    .wrapping_add(self.gamma.wrapping_mul(p));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_matches_the_value_table() {
        for s in BitSemiring::ALL {
            for (and, pa, pw, k) in [(0, 0, 0, 0), (2, 3, 2, 4), (1, 5, 1, 9), (3, 3, 3, 3)] {
                let mut row = [and];
                Linear::of(s, k as usize).apply_row(&mut row, pa, &[pw]);
                assert_eq!(
                    row[0] as i64,
                    s.value(and, pa, pw, k),
                    "{s} {and} {pa} {pw} {k}"
                );
            }
        }
    }
}
