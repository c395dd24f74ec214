//! Word-level operations on one packed tile, per tile layout: the inner loops of
//! every B2SR kernel. `x` is always a `K`-bit slice of a bit vector (bit `c` =
//! tile column `c`), as [`super::slice`] extracts it.

use crate::storage::b2sr::{Tile16, Tile32, Tile4, Tile64, Tile8, TileBits};

/// Bit `c` set in every byte's lowest bit, for the 8x8 SWAR tricks.
const LSB8: u64 = 0x0101_0101_0101_0101;

/// The per-tile bit kernels. Implemented for every tile layout so kernels are
/// written once, generic over `L: TileOps`.
pub(crate) trait TileOps: TileBits {
    /// Per-row hits of a boolean product over one tile row: row `r` holds the
    /// OR of `row(r) & x` over the tiles seen so far (a tile's own layout, so
    /// adding a tile is one AND and one OR per word, no per-row reduction).
    type Hits: Copy;
    /// No hits yet, except rows `done` (set to all ones: they count as hit).
    fn hits_new(done: u64) -> Self::Hits;
    /// `hits[r] |= row(r) & x` for every row `r`.
    fn hits_add(&self, hits: &mut Self::Hits, x: u64);
    /// True when every row has a hit (branch-free over the rows).
    fn hits_all(hits: &Self::Hits) -> bool;
    /// Bit `r` set iff row `r` has a hit.
    fn hits_rows(hits: &Self::Hits) -> u64;
    /// Bit `r` set iff `row(r) & x != 0` (one bit-AND per row, OR-reduced).
    #[inline]
    fn any_rows(&self, x: u64) -> u64 {
        let mut h = Self::hits_new(0);
        self.hits_add(&mut h, x);
        Self::hits_rows(&h)
    }
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
    /// Calls `f(r, c)` for every set bit with row `r` in `rows` and column `c`
    /// in `x`, row by row, columns ascending. Small tiles walk the whole tile
    /// as one word, so a sparse tile costs one loop, not one per row.
    #[inline]
    fn for_each_bit(&self, x: u64, mut rows: u64, mut f: impl FnMut(usize, usize)) {
        while rows != 0 {
            let r = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            let mut w = self.row(r) & x;
            while w != 0 {
                f(r, w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
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
    fn for_each_bit(&self, x: u64, rows: u64, mut f: impl FnMut(usize, usize)) {
        let rm = (BYTE_MASK[rows as usize & 0xF] & 0x0F0F_0F0F) as u32;
        // Bytes to nibbles: byte c of rm is 0x0F where row c is selected.
        let nib = (rm & 0xF) | (rm >> 4 & 0xF0) | (rm >> 8 & 0xF00) | (rm >> 12 & 0xF000);
        let mut w = self.0 as u64 & (x * 0x1111) & nib as u64;
        while w != 0 {
            let p = w.trailing_zeros() as usize;
            w &= w - 1;
            f(p / 4, p % 4);
        }
    }
    type Hits = u64;
    #[inline]
    fn hits_new(done: u64) -> u64 {
        nibble_mask(done)
    }
    #[inline]
    fn hits_add(&self, hits: &mut u64, x: u64) {
        *hits |= self.0 as u64 & (x * 0x1111);
    }
    #[inline]
    fn hits_all(hits: &u64) -> bool {
        // No zero nibble (the classic has-zero test; exact as a yes/no).
        (hits.wrapping_sub(0x1111) & !hits & 0x8888) == 0
    }
    #[inline]
    fn hits_rows(hits: &u64) -> u64 {
        const LOW3: u64 = 0x7777;
        let y = *hits;
        // High bit of each nibble: set iff the nibble is nonzero; then gather
        // bits 3, 7, 11, 15 into bits 12..16 with one multiply.
        let h = (((y & LOW3) + LOW3) | y) & 0x8888;
        (((h >> 3) * 0x1248) >> 12) & 0xF
    }
    #[inline]
    fn count_rows(&self, x: u64, cnt: &mut [u32]) {
        let y = self.0 as u64 & (x * 0x1111);
        for (r, c) in cnt.iter_mut().enumerate().take(4) {
            *c += (y >> (4 * r) & 0xF).count_ones();
        }
    }
}

/// Nibble `c` is `0xF` where bit `c` of `s` is set (`c < 4`).
#[inline]
fn nibble_mask(s: u64) -> u64 {
    (0..4).fold(0, |m, c| m | ((s >> c & 1) * 0xF) << (4 * c))
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
    fn for_each_bit(&self, x: u64, rows: u64, mut f: impl FnMut(usize, usize)) {
        let mut w = self.0 & x.wrapping_mul(LSB8) & BYTE_MASK[rows as usize & 0xFF];
        while w != 0 {
            let p = w.trailing_zeros() as usize;
            w &= w - 1;
            f(p / 8, p % 8);
        }
    }
    #[inline]
    fn dot_rows(&self, ar: u64, sel: u64) -> u32 {
        (self.0 & ar.wrapping_mul(LSB8) & BYTE_MASK[sel as usize & 0xFF]).count_ones()
    }
    type Hits = u64;
    #[inline]
    fn hits_new(done: u64) -> u64 {
        BYTE_MASK[done as usize & 0xFF]
    }
    #[inline]
    fn hits_add(&self, hits: &mut u64, x: u64) {
        // Broadcast x to every byte and AND: byte r is row r's hits.
        *hits |= self.0 & x.wrapping_mul(LSB8);
    }
    #[inline]
    fn hits_all(hits: &u64) -> bool {
        (hits.wrapping_sub(LSB8) & !hits & (LSB8 << 7)) == 0
    }
    #[inline]
    fn hits_rows(hits: &u64) -> u64 {
        // Fold each byte to its high bit, then gather the eight into one byte.
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        let y = *hits;
        // High bit of each byte: set iff the byte is nonzero (no carries cross bytes).
        let h = (((y & LOW7) + LOW7) | y) & !LOW7;
        (h >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
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

/// Lanes of `W` bits in a `u64`, for the SWAR tricks on 16x16 to 64x64 tiles:
/// bit `W * j` of every lane set.
const fn lane_lsb(w: usize) -> u64 {
    let mut m = 0u64;
    let mut j = 0;
    while j < 64 {
        m |= 1 << j;
        j += w;
    }
    m
}

/// For the array tiles (`K` rows of `W = K` bits): the hits are the rows packed
/// `64 / W` to a `u64` (rows `4i..4i+4` of a 16x16 tile in word `i`), so a
/// tile is added with `K / (64 / W)` ANDs and ORs of whole words (which LLVM
/// vectorises) and "every row hit" is the has-zero-lane test per word.
macro_rules! array_tile_ops {
    ($t:ty, $w:ty, $k:literal) => {
        impl TileOps for $t {
            type Hits = [u64; $k * $k / 64];
            #[inline]
            fn hits_new(done: u64) -> Self::Hits {
                const W: usize = <$w>::BITS as usize;
                std::array::from_fn(|i| {
                    (0..64 / W).fold(0, |h, j| {
                        let r = i * (64 / W) + j;
                        h | ((done >> r & 1) * (<$w>::MAX as u64)) << (j * W)
                    })
                })
            }
            #[inline]
            fn hits_add(&self, hits: &mut Self::Hits, x: u64) {
                const W: usize = <$w>::BITS as usize;
                let xb = (x & <$w>::MAX as u64).wrapping_mul(lane_lsb(W));
                for (i, h) in hits.iter_mut().enumerate() {
                    // Rows i*(64/W).. as one word (LLVM makes this one load).
                    let rows = (0..64 / W).fold(0u64, |w, j| {
                        w | (self.0[i * (64 / W) + j] as u64) << (j * W)
                    });
                    *h |= rows & xb;
                }
            }
            #[inline]
            fn hits_all(hits: &Self::Hits) -> bool {
                const W: usize = <$w>::BITS as usize;
                const LSB: u64 = lane_lsb(W);
                const MSB: u64 = LSB << (W - 1);
                // A has-zero-lane test per word, OR-reduced without branches.
                hits.iter()
                    .fold(0, |z, &h| z | (h.wrapping_sub(LSB) & !h & MSB))
                    == 0
            }
            #[inline]
            fn hits_rows(hits: &Self::Hits) -> u64 {
                const W: usize = <$w>::BITS as usize;
                const MSB: u64 = lane_lsb(W) << (W - 1);
                let mut m = 0u64;
                for (i, &y) in hits.iter().enumerate() {
                    // High bit of each lane: set iff the lane is nonzero.
                    let h = (((y & !MSB) + (!MSB)) | y) & MSB;
                    for j in 0..64 / W {
                        m |= (h >> (j * W + W - 1) & 1) << (i * (64 / W) + j);
                    }
                }
                m
            }
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
array_tile_ops!(Tile16, u16, 16);
array_tile_ops!(Tile32, u32, 32);
array_tile_ops!(Tile64, u64, 64);

#[cfg(test)]
mod tests {
    use super::*;

    fn check<L: TileOps>(seed: u64) {
        let mut s = seed;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
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
            for (r, &c) in cnt.iter().enumerate() {
                assert_eq!(c, (t.row(r) & x).count_ones());
                any |= ((t.row(r) & x != 0) as u64) << r;
                if x >> r & 1 == 1 {
                    or |= t.row(r);
                }
            }
            assert_eq!(t.any_rows(x), any);
            for done in [next() & full, full, 0, full ^ 1] {
                let mut h = L::hits_new(done);
                t.hits_add(&mut h, x);
                let want = (any | done) & full;
                assert_eq!(L::hits_rows(&h), want);
                assert_eq!(L::hits_all(&h), want == full);
            }
            assert_eq!(t.or_rows(x), or);
            let ar = next() & full;
            let dot: u32 = (0..L::K)
                .filter(|&c| x >> c & 1 == 1)
                .map(|c| (ar & t.row(c)).count_ones())
                .sum();
            assert_eq!(t.dot_rows(ar, x), dot);
            let rows = next() & full;
            let mut seen = Vec::new();
            t.for_each_bit(x, rows, |r, c| seen.push((r, c)));
            let want: Vec<(usize, usize)> = (0..L::K)
                .filter(|&r| rows >> r & 1 == 1)
                .flat_map(|r| (0..L::K).map(move |c| (r, c)))
                .filter(|&(r, c)| t.row(r) >> c & x >> c & 1 == 1)
                .collect();
            assert_eq!(seen, want);
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
