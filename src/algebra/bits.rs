//! Semirings on bits: how the products of [`crate::ops::bmm`] and
//! [`crate::ops::bspmm`] read their operands' bits as numbers and combine them.
//!
//! With domains `dl`, `dr` and bits `a`, `w` over `k` positions, the value
//! of `PlusTimes(dl, dr)` is written with AND popcounts only (the "AND form":
//! on Hopper XOR.POPC is emulated and about 7x slower than AND.POPC):
//!
//! | left \ right | `Binary` | `Signed` |
//! |---|---|---|
//! | `Binary` | `popc(a & w)` | `2 popc(a & w) - popc(a)` |
//! | `Signed` | `2 popc(a & w) - popc(w)` | `4 popc(a & w) - 2 popc(a) - 2 popc(w) + k` |
//!
//! (the last is `k - 2 popc(a ^ w)`). `LorLand` is `popc(a & w) > 0` as 0 or 1.
//!
//! ```
//! use bitgraphblas::algebra::{BitDomain, BitSemiring};
//! assert_eq!(BitSemiring::PLUS_XNOR, BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Signed));
//! // a = 1,0,1,1 and w = 0,0,1,1 (k = 4): popc(a & w) = 2, popc(a) = 3, popc(w) = 2;
//! // as +1/-1: (+1)(-1) + (-1)(-1) + (+1)(+1) + (+1)(+1) = 2
//! assert_eq!(BitSemiring::PLUS_XNOR.value(2, 3, 2, 4), 2);
//! assert_eq!(BitSemiring::PLUS_LAND.value(2, 3, 2, 4), 2);
//! ```

/// How an operand's bits are read as numbers.
///
/// ```
/// use bitgraphblas::algebra::BitDomain;
/// assert_eq!((BitDomain::Binary.of(false), BitDomain::Binary.of(true)), (0, 1));
/// assert_eq!((BitDomain::Signed.of(false), BitDomain::Signed.of(true)), (-1, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitDomain {
    /// `0 -> 0`, `1 -> 1` (adjacency, counts).
    Binary,
    /// `0 -> -1`, `1 -> +1` (binary neural-network activations and weights).
    Signed,
}

impl BitDomain {
    /// The number a bit stands for in this domain.
    ///
    /// ```
    /// use bitgraphblas::algebra::BitDomain;
    /// assert_eq!(BitDomain::Signed.of(false), -1);
    /// ```
    pub fn of(self, bit: bool) -> i32 {
        match (self, bit) {
            (_, true) => 1,
            (BitDomain::Binary, false) => 0,
            (BitDomain::Signed, false) => -1,
        }
    }
}

/// The semirings of bit products.
///
/// ```
/// use bitgraphblas::algebra::{BitDomain, BitSemiring};
/// let s = BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Binary);
/// assert_eq!(s.name(), "plus_signed_land");
/// assert_eq!(BitSemiring::LorLand.name(), "lor_land");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitSemiring {
    /// PLUS.TIMES with each operand's bits read in its domain (left, right).
    PlusTimes(BitDomain, BitDomain),
    /// LOR.LAND: 1 where some `k` has `a_ik = w_kj = 1`, as the integer 0 or 1.
    LorLand,
}

impl BitSemiring {
    /// +1/-1 by +1/-1: `k - 2 popc(a xor w)`, computed in AND form as
    /// `4 popc(a & w) - 2 popc(a) - 2 popc(w) + k`.
    ///
    /// ```
    /// use bitgraphblas::algebra::BitSemiring;
    /// assert_eq!(BitSemiring::PLUS_XNOR.name(), "plus_xnor");
    /// ```
    pub const PLUS_XNOR: Self = BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Signed);
    /// 0/1 by 0/1: `popc(a & w)` (counts).
    ///
    /// ```
    /// use bitgraphblas::algebra::BitSemiring;
    /// assert_eq!(BitSemiring::PLUS_LAND.name(), "plus_land");
    /// ```
    pub const PLUS_LAND: Self = BitSemiring::PlusTimes(BitDomain::Binary, BitDomain::Binary);
    /// 0/1 by +1/-1 (adjacency by activations): `2 popc(a & w) - popc(a)`.
    ///
    /// ```
    /// use bitgraphblas::algebra::BitSemiring;
    /// assert_eq!(BitSemiring::PLUS_LAND_SIGNED.name(), "plus_land_signed");
    /// ```
    pub const PLUS_LAND_SIGNED: Self = BitSemiring::PlusTimes(BitDomain::Binary, BitDomain::Signed);

    /// Every bit semiring (for tests and benchmarks).
    ///
    /// ```
    /// use bitgraphblas::algebra::BitSemiring;
    /// assert_eq!(BitSemiring::ALL.len(), 5);
    /// ```
    pub const ALL: [BitSemiring; 5] = [
        BitSemiring::PLUS_XNOR,
        BitSemiring::PLUS_LAND,
        BitSemiring::PLUS_LAND_SIGNED,
        BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Binary),
        BitSemiring::LorLand,
    ];

    /// `"plus_xnor"`, `"plus_land"`, `"plus_land_signed"`, `"plus_signed_land"`
    /// or `"lor_land"` (errors, benchmark ids).
    ///
    /// ```
    /// use bitgraphblas::algebra::BitSemiring;
    /// assert_eq!(BitSemiring::PLUS_LAND_SIGNED.name(), "plus_land_signed");
    /// ```
    pub fn name(self) -> &'static str {
        use BitDomain::{Binary, Signed};
        match self {
            BitSemiring::PlusTimes(Signed, Signed) => "plus_xnor",
            BitSemiring::PlusTimes(Binary, Binary) => "plus_land",
            BitSemiring::PlusTimes(Binary, Signed) => "plus_land_signed",
            BitSemiring::PlusTimes(Signed, Binary) => "plus_signed_land",
            BitSemiring::LorLand => "lor_land",
        }
    }

    /// The product's value from its popcounts: `and = popc(a & w)`,
    /// `pa = popc(a)`, `pw = popc(w)` over `k` positions (the table of the
    /// [module documentation](self)). Every backend's epilogue computes this.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BitDomain, BitSemiring};
    /// let s = BitSemiring::PlusTimes(BitDomain::Binary, BitDomain::Signed);
    /// // a = 110, w = 100: 1*(+1) + 1*(-1) + 0*(-1)
    /// assert_eq!(s.value(1, 2, 1, 3), 0);
    /// assert_eq!(BitSemiring::LorLand.value(1, 2, 1, 3), 1);
    /// ```
    ///
    /// Computed in `i64`: the terms may pass `i32` where the value does not.
    #[inline(always)]
    pub fn value(self, and: i32, pa: i32, pw: i32, k: i32) -> i64 {
        use BitDomain::{Binary, Signed};
        let (and, pa, pw, k) = (and as i64, pa as i64, pw as i64, k as i64);
        match self {
            BitSemiring::PlusTimes(Binary, Binary) => and,
            BitSemiring::PlusTimes(Binary, Signed) => 2 * and - pa,
            BitSemiring::PlusTimes(Signed, Binary) => 2 * and - pw,
            BitSemiring::PlusTimes(Signed, Signed) => 4 * and - 2 * pa - 2 * pw + k,
            BitSemiring::LorLand => (and > 0) as i64,
        }
    }

    /// The left operand's domain (`Binary` for `LorLand`).
    ///
    /// ```
    /// use bitgraphblas::algebra::{BitDomain, BitSemiring};
    /// assert_eq!(BitSemiring::PLUS_LAND_SIGNED.left(), BitDomain::Binary);
    /// ```
    pub fn left(self) -> BitDomain {
        match self {
            BitSemiring::PlusTimes(l, _) => l,
            BitSemiring::LorLand => BitDomain::Binary,
        }
    }

    /// The right operand's domain (`Binary` for `LorLand`).
    ///
    /// ```
    /// use bitgraphblas::algebra::{BitDomain, BitSemiring};
    /// assert_eq!(BitSemiring::PLUS_LAND_SIGNED.right(), BitDomain::Signed);
    /// ```
    pub fn right(self) -> BitDomain {
        match self {
            BitSemiring::PlusTimes(_, r) => r,
            BitSemiring::LorLand => BitDomain::Binary,
        }
    }
}

impl std::fmt::Display for BitSemiring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A semiring's value over `k` positions as a linear form of popcounts,
/// the AND form every backend computes:
/// `v = alpha popc(a & w) + beta popc(a) + gamma popc(w) + dk`, or
/// `min(popc(a & w), 1)` where `clamp` (`LorLand`). The coefficients are
/// read off [`BitSemiring::value`], the one definition of the value table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Linear {
    pub alpha: i32,
    pub beta: i32,
    pub gamma: i32,
    /// `delta * k`, folded.
    pub dk: i32,
    pub clamp: bool,
}

impl Linear {
    /// The form of `s` over `k` positions (`k` fits `i32`: `ops` checks it).
    pub fn of(s: BitSemiring, k: usize) -> Linear {
        let at = |and, pa, pw, k| s.value(and, pa, pw, k) as i32;
        let base = at(0, 0, 0, 0);
        Linear {
            alpha: at(1, 0, 0, 0) - base,
            beta: at(0, 1, 0, 0) - base,
            gamma: at(0, 0, 1, 0) - base,
            dk: (at(0, 0, 0, 1) - base).wrapping_mul(k as i32),
            clamp: s == BitSemiring::LorLand,
        }
    }

    /// The raw count itself (the bit-plane products).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn identity() -> Linear {
        Linear {
            alpha: 1,
            beta: 0,
            gamma: 0,
            dk: 0,
            clamp: false,
        }
    }
}
