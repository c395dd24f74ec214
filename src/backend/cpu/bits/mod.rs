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

use crate::algebra::{BitDomain, BitSemiring};

/// A semiring's value as a linear form of its popcounts over `k` positions:
/// `v = alpha popc(a & w) + beta popc(a) + gamma popc(w) + delta k`, or
/// `min(popc(a & w), 1)` for `LorLand` (`clamp`). The AND form of every
/// entry of the table in [`crate::algebra::bits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Linear {
    pub alpha: i32,
    pub beta: i32,
    pub gamma: i32,
    /// `delta * k`, folded.
    pub dk: i32,
    pub clamp: bool,
}

impl Linear {
    /// The form of `s` over `k` positions (`k` fits `i32`: checked by `ops`).
    pub fn of(s: BitSemiring, k: usize) -> Self {
        use BitDomain::{Binary, Signed};
        let k = k as i32;
        let (alpha, beta, gamma, dk) = match s {
            BitSemiring::PlusTimes(Binary, Binary) | BitSemiring::LorLand => (1, 0, 0, 0),
            BitSemiring::PlusTimes(Binary, Signed) => (2, -1, 0, 0),
            BitSemiring::PlusTimes(Signed, Binary) => (2, 0, -1, 0),
            BitSemiring::PlusTimes(Signed, Signed) => (4, -2, -2, k),
        };
        Linear {
            alpha,
            beta,
            gamma,
            dk,
            clamp: s == BitSemiring::LorLand,
        }
    }

    /// Turns a row of `popc(a_i & w_j)` into values in place, with
    /// `pa = popc(a_i)` and `pw[j] = popc(w_j)` (empty when `gamma == 0`).
    /// Wrapping arithmetic: the terms may pass `i32` (`4 popc(a & w)` for
    /// `k > 2^29`) but the value, in `[-k, k]`, fits, and wrapping sums are
    /// exact modulo 2^32.
    #[inline]
    pub fn apply_row(&self, row: &mut [i32], pa: i32, pw: &[i32]) {
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
