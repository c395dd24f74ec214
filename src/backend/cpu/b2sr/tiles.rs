//! Word-level operations on one packed tile, per tile layout: the inner loops of
//! every B2SR kernel. `x` is always a `K`-bit slice of a bit vector (bit `c` =
//! tile column `c`), as [`super::slice`] extracts it.

use crate::storage::b2sr::{Tile16, Tile32, Tile4, Tile64, Tile8, TileBits};

/// Bit `c` set in every byte's lowest bit, for the 8x8 SWAR tricks.
const LSB8: u64 = 0x0101_0101_0101_0101;

/// The per-tile bit kernels. Implemented for every tile layout so kernels are
/// written once, generic over `L: TileOps`.
pub(crate) trait TileOps: TileBits {
    /// Bit `r` set iff `row(r) & x != 0` (one bit-AND per row, OR-reduced).
    fn any_rows(&self, x: u64) -> u64;
    /// `cnt[r] += popcount(row(r) & x)` for every row `r < K`.
    fn count_rows(&self, x: u64, cnt: &mut [u32]);
    /// The OR of the rows `r` whose bit is set in `x` (the transposed product).
    #[inline]
    fn or_rows(&self, mut x: u64) -> u64 {
        let mut acc = 0;
        while x != 0 {
            acc |= self.row(x.trailing_zeros() as usize);
            x &= x - 1;
        }
        acc
    }
    /// `Σ_{c ∈ sel} popcount(ar AND row(c))`: one row of `A` against the rows
    /// of this (transposed `B`) tile the mask selects.
    #[inline]
    fn dot_rows(&self, ar: u64, mut sel: u64) -> u32 {
        let mut n = 0;
        while sel != 0 {
            n += (ar & self.row(sel.trailing_zeros() as usize)).count_ones();
            sel &= sel - 1;
        }
        n
    }
    /// The boolean tile product: row `r` of the result is the OR of the rows of
    /// `b` selected by row `r` of `self`.
    #[inline]
    fn bool_mul(&self, b: &Self) -> Self {
        let mut out = Self::default();
        for r in 0..Self::K {
            let w = self.row(r);
            if w != 0 {
                out.or_row(r, b.or_rows(w));
            }
        }
        out
    }
}

impl TileOps for Tile4 {
    #[inline]
    fn any_rows(&self, x: u64) -> u64 {
        let mut y = self.0 as u64 & (x * 0x1111);
        y |= y >> 2;
        y |= y >> 1;
        (y & 1) | (y >> 3 & 2) | (y >> 6 & 4) | (y >> 9 & 8)
    }
    #[inline]
    fn count_rows(&self, x: u64, cnt: &mut [u32]) {
        let y = self.0 as u64 & (x * 0x1111);
        for (r, c) in cnt.iter_mut().enumerate().take(4) {
            *c += (y >> (4 * r) & 0xF).count_ones();
        }
    }
}

/// `BYTE_MASK[s]`: byte `c` is `0xFF` where bit `c` of `s` is set.
const BYTE_MASK: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut s = 0;
    while s < 256 {
        let mut c = 0;
        while c < 8 {
            if s >> c & 1 == 1 {
                t[s] |= 0xFF << (8 * c);
            }
            c += 1;
        }
        s += 1;
    }
    t
};

impl TileOps for Tile8 {
    #[inline]
    fn dot_rows(&self, ar: u64, sel: u64) -> u32 {
        (self.0 & ar.wrapping_mul(LSB8) & BYTE_MASK[sel as usize & 0xFF]).count_ones()
    }
    #[inline]
    fn any_rows(&self, x: u64) -> u64 {
        // Broadcast x to every byte, AND, then fold each byte to its low bit
        // and gather the eight low bits into one byte.
        let mut y = self.0 & x.wrapping_mul(LSB8);
        y |= y >> 4;
        y |= y >> 2;
        y |= y >> 1;
        (y & LSB8).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }
    #[inline]
    fn count_rows(&self, x: u64, cnt: &mut [u32]) {
        // Per-byte popcount (SWAR), then one add per row.
        let mut y = self.0 & x.wrapping_mul(LSB8);
        y -= (y >> 1) & 0x5555_5555_5555_5555;
        y = (y & 0x3333_3333_3333_3333) + ((y >> 2) & 0x3333_3333_3333_3333);
        y = (y + (y >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        for (r, c) in cnt.iter_mut().enumerate().take(8) {
            *c += (y >> (8 * r) & 0xFF) as u32;
        }
    }
}

macro_rules! array_tile_ops {
    ($t:ty, $w:ty) => {
        impl TileOps for $t {
            #[inline]
            fn any_rows(&self, x: u64) -> u64 {
                let x = x as $w;
                let mut m = 0u64;
                for (r, &row) in self.0.iter().enumerate() {
                    m |= (((row & x) != 0) as u64) << r;
                }
                m
            }
            #[inline]
            fn count_rows(&self, x: u64, cnt: &mut [u32]) {
                let x = x as $w;
                for (c, &row) in cnt.iter_mut().zip(self.0.iter()) {
                    *c += (row & x).count_ones();
                }
            }
        }
    };
}
array_tile_ops!(Tile16, u16);
array_tile_ops!(Tile32, u32);
array_tile_ops!(Tile64, u64);

#[cfg(test)]
mod tests {
    use super::*;

    fn check<L: TileOps>(seed: u64) {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s >> 11
        };
        for _ in 0..200 {
            let mut t = L::default();
            for r in 0..L::K {
                t.or_row(r, next() & next());
            }
            let full = if L::K == 64 { !0 } else { (1u64 << L::K) - 1 };
            let x = next() & next() & full;
            let mut cnt = vec![0u32; L::K];
            t.count_rows(x, &mut cnt);
            let mut any = 0;
            let mut or = 0;
            for r in 0..L::K {
                assert_eq!(cnt[r], (t.row(r) & x).count_ones());
                any |= ((t.row(r) & x != 0) as u64) << r;
                if x >> r & 1 == 1 {
                    or |= t.row(r);
                }
            }
            assert_eq!(t.any_rows(x), any);
            assert_eq!(t.or_rows(x), or);
            let ar = next() & full;
            let dot: u32 = (0..L::K)
                .filter(|&c| x >> c & 1 == 1)
                .map(|c| (ar & t.row(c)).count_ones())
                .sum();
            assert_eq!(t.dot_rows(ar, x), dot);
        }
    }

    #[test]
    fn tile_ops_match_row_loops() {
        check::<Tile4>(1);
        check::<Tile8>(2);
        check::<Tile16>(3);
        check::<Tile32>(4);
        check::<Tile64>(5);
    }
}
