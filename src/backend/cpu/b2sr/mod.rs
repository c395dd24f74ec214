//! Specialised CPU kernels on B2SR (the Bit-GraphBLAS schemes, Tables II-III),
//! for the built-in semirings (`Semiring::KERNEL`). Each entry point either runs
//! a kernel and calls [`count_specialised`], or falls back to
//! [`super::generic`] (and counts that), so results never depend on the tier.
//!
//! | entry | kernel | when |
//! |---|---|---|
//! | [`mxv`] | `bin_bin_bin` | bit `u`, `⊕` idempotent (LOR, ANY, MIN, MAX) |
//! | [`mxv`] | `bin_bin_full` | bit `u`, `⊕ = PLUS` (popcounts) |
//! | [`mxv`] | `bin_full_full` | valued `u` |
//! | [`mxv_csr_bits`] | CSR rows against bits | CSR `A`, bit `u`, boolean product |
//! | [`vxm`] | push `bin_bin_bin` | bit `u`, `⊕` idempotent, transposed `A` |
//! | [`mxm_reduce`] | `bin_bin_sum` | `PLUS.PAIR`/`PLUS.TIMES`, B2SR mask and operands |
//! | [`mxm_pattern`] | tile Gustavson | `⊕` idempotent, both operands B2SR |
//! | [`mxm_dense_into`] | bit rows times dense rows | any built-in semiring |

mod mxm;
mod mxv;
pub(crate) mod plan;
#[cfg(test)]
mod tests;
pub(crate) mod tiles;

#[cfg(test)]
pub(crate) use mxm::mxm_dense;
pub(crate) use mxm::{mxm_dense_into, mxm_pattern, mxm_reduce};

use super::{count_generic, count_specialised, generic};
use crate::algebra::{Semiring, SemiringKind};
use crate::container::Vector;
use crate::scalar::Scalar;
use crate::storage::b2sr::TileBits;
use crate::storage::{B2sr, BitVec, Csr};

/// How the additive monoid combines equal terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddClass {
    /// `x ⊕ x = x` (LOR, ANY, MIN, MAX): only presence matters.
    Idempotent,
    /// `⊕ = PLUS`: equal terms add up, so counts matter.
    Plus,
}

/// The class of a built-in semiring's `⊕`; `None` for user semirings.
pub(crate) fn add_class<S: Semiring>() -> Option<AddClass> {
    Some(match S::KERNEL?.kind() {
        SemiringKind::PlusTimes | SemiringKind::PlusPair => AddClass::Plus,
        SemiringKind::LorLand
        | SemiringKind::AnyPair
        | SemiringKind::MinPlus
        | SemiringKind::MaxTimes
        | SemiringKind::MinSecond
        | SemiringKind::MinFirst
        | SemiringKind::MaxMin => AddClass::Idempotent,
    })
}

/// `x ⊕ x ⊕ … ⊕ x` (`n >= 1` terms), equal to the left-to-right fold the
/// generic path does: exact doubling for (wrapping) integers, and for floats a
/// count when `x` is one and the count is exact, a plain fold otherwise.
pub(crate) fn repeat_add<S: Semiring>(s: &S, x: S::T, n: usize) -> S::T {
    debug_assert!(n >= 1);
    if S::T::IS_FLOAT {
        if x == S::T::one() && n <= 1 << 24 {
            return S::T::from_usize(n);
        }
        return (1..n).fold(x, |a, _| s.add(a, x));
    }
    let (mut acc, mut p, mut n) = (None, x, n);
    while n > 0 {
        if n & 1 == 1 {
            acc = Some(acc.map_or(p, |a| s.add(a, p)));
        }
        n >>= 1;
        if n > 0 {
            p = s.add(p, p);
        }
    }
    acc.expect("n >= 1")
}

/// The `K`-bit slice of a bit vector starting at bit `tc * K` (tile column `tc`).
/// `K` divides 64, so a slice never straddles two words.
#[inline]
pub(crate) fn slice<L: TileBits>(words: &[u64], tc: usize) -> u64 {
    let bit = tc * L::K;
    let w = words[bit / 64] >> (bit % 64);
    if L::K == 64 {
        w
    } else {
        w & ((1u64 << L::K) - 1)
    }
}

/// `t = A ⊕.⊗ u` for a B2SR `A` with iso value `value`.
pub(crate) fn mxv<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Vector<S::T> {
    if let Some(t) = mxv::mxv(s, a, value, u, allowed, false) {
        count_specialised();
        return t;
    }
    count_generic();
    generic::mxv_b2sr(s, a, value, u, allowed)
}

/// `t = A ⊕.⊗ u` for a CSR `A` and packed-bit `u` with a boolean product
/// (`ANY.PAIR`, or `LOR.LAND` with all values true): packed bits out, each
/// row stopping at its first hit. `None` otherwise.
pub(crate) fn mxv_csr_bits<S: Semiring>(
    a: &Csr<S::T>,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Option<Vector<S::T>> {
    let t = mxv::csr_mxv_bits::<S>(a, u, allowed)?;
    count_specialised();
    Some(t)
}

/// `t = A' ⊕.⊗ u` for a B2SR `A`: pushes a packed-bit `u` through `A` without
/// transposing it where `⊕` is idempotent; otherwise transposes `A` (a
/// temporary, nothing is cached) and pulls.
pub(crate) fn vxm<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Vector<S::T> {
    if let Some(t) = mxv::mxv(s, a, value, u, allowed, true) {
        count_specialised();
        return t;
    }
    mxv(s, &a.transpose(), value, u, allowed)
}
