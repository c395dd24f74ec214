//! Tile layouts: how one `k x k` bit tile is packed.
//!
//! **The bit order (one place, tested in `tests/b2sr_roundtrip.rs`):** tiles are
//! row-major, and within a tile the entry at (tile row `r`, tile column `c`) is
//! bit `r * k + c` of the tile read as one little-endian bit string. So
//! row `r` is a `k`-bit word whose bit `c` (LSB = column 0) is column `c`:
//!
//! | k  | storage        | row `r`                         |
//! |----|----------------|---------------------------------|
//! | 4  | `u16`          | bits `4r .. 4r+4` of the word   |
//! | 8  | `u64`          | byte `r` of the word            |
//! | 16 | `[u16; 16]`    | element `r`                     |
//! | 32 | `[u32; 32]`    | element `r`                     |
//! | 64 | `[u64; 64]`    | element `r`                     |

use std::fmt::Debug;

/// One packed `K x K` bit tile. Implemented by [`Tile4`], [`Tile8`], [`Tile16`],
/// [`Tile32`] and [`Tile64`]; kernels are generic over it so `K` is a constant.
///
/// ```
/// use bitgraphblas::storage::b2sr::{Tile4, TileBits};
/// let mut t = Tile4::default();
/// t.set(1, 2);
/// assert_eq!(t.row(1), 0b0100);
/// assert_eq!(t.0, 1 << (4 * 1 + 2));
/// ```
pub trait TileBits: Copy + Default + PartialEq + Eq + Debug + Send + Sync + 'static {
    /// Tile edge.
    const K: usize;
    /// Bytes one tile occupies.
    const BYTES: usize;
    /// Row `r` as a `K`-bit word (bit `c` = column `c`).
    fn row(&self, r: usize) -> u64;
    /// OR `bits` (bit `c` = column `c`) into row `r`.
    fn or_row(&mut self, r: usize, bits: u64);
    /// Set the bit at (`r`, `c`).
    #[inline]
    fn set(&mut self, r: usize, c: usize) {
        self.or_row(r, 1 << c);
    }
    /// True when no bit is set.
    fn is_zero(&self) -> bool {
        *self == Self::default()
    }
    /// Number of set bits.
    fn count_ones(&self) -> u32 {
        (0..Self::K).map(|r| self.row(r).count_ones()).sum()
    }
    /// The transposed tile.
    fn transpose(&self) -> Self {
        let mut t = Self::default();
        for r in 0..Self::K {
            let mut w = self.row(r);
            while w != 0 {
                let c = w.trailing_zeros() as usize;
                w &= w - 1;
                t.set(c, r);
            }
        }
        t
    }
    /// The tile as little-endian bytes, in the bit order above.
    fn to_le_bytes(&self, out: &mut Vec<u8>);
    /// Reads a tile written by `to_le_bytes` (`bytes.len() == BYTES`).
    fn from_le_bytes(bytes: &[u8]) -> Self;
}

/// A 4x4 tile in a `u16`: row `r` is bits `4r..4r+4`.
///
/// ```
/// use bitgraphblas::storage::b2sr::{Tile4, TileBits};
/// let t = Tile4(0b0001_0010); // (0, 1) and (1, 0)
/// assert_eq!((t.row(0), t.row(1), t.count_ones()), (0b0010, 0b0001, 2));
/// assert_eq!(t.transpose(), t); // symmetric
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tile4(pub u16);
/// An 8x8 tile in a `u64`: row `r` is byte `r`.
///
/// ```
/// use bitgraphblas::storage::b2sr::{Tile8, TileBits};
/// let mut t = Tile8::default();
/// t.set(7, 0);
/// assert_eq!(t.0, 1 << 56);
/// assert_eq!(t.transpose().row(0), 1 << 7);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tile8(pub u64);
/// A 16x16 tile: sixteen `u16` rows.
///
/// ```
/// use bitgraphblas::storage::b2sr::{Tile16, TileBits};
/// let mut t = Tile16::default();
/// t.set(3, 15);
/// assert_eq!(t.0[3], 1 << 15);
/// assert_eq!(Tile16::BYTES, 32);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tile16(pub [u16; 16]);
/// A 32x32 tile: thirty-two `u32` rows.
///
/// ```
/// use bitgraphblas::storage::b2sr::{Tile32, TileBits};
/// let mut t = Tile32::default();
/// t.or_row(2, 0b101);
/// assert_eq!((t.row(2), t.count_ones()), (0b101, 2));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tile32(pub [u32; 32]);
/// A 64x64 tile: sixty-four `u64` rows.
///
/// ```
/// use bitgraphblas::storage::b2sr::{Tile64, TileBits};
/// let mut t = Tile64::default();
/// t.set(0, 63);
/// assert!(!t.is_zero());
/// assert_eq!(t.transpose().row(63), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile64(pub [u64; 64]);

impl Default for Tile64 {
    fn default() -> Self {
        Tile64([0; 64])
    }
}

impl TileBits for Tile4 {
    const K: usize = 4;
    const BYTES: usize = 2;
    #[inline]
    fn row(&self, r: usize) -> u64 {
        (self.0 as u64 >> (4 * r)) & 0xF
    }
    #[inline]
    fn or_row(&mut self, r: usize, bits: u64) {
        self.0 |= ((bits & 0xF) << (4 * r)) as u16;
    }
    fn count_ones(&self) -> u32 {
        self.0.count_ones()
    }
    fn to_le_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn from_le_bytes(b: &[u8]) -> Self {
        Tile4(u16::from_le_bytes([b[0], b[1]]))
    }
}

impl TileBits for Tile8 {
    const K: usize = 8;
    const BYTES: usize = 8;
    #[inline]
    fn row(&self, r: usize) -> u64 {
        (self.0 >> (8 * r)) & 0xFF
    }
    #[inline]
    fn or_row(&mut self, r: usize, bits: u64) {
        self.0 |= (bits & 0xFF) << (8 * r);
    }
    fn count_ones(&self) -> u32 {
        self.0.count_ones()
    }
    /// The classic three-step 8x8 bit-matrix transpose (swap 1x1, 2x2, 4x4 blocks).
    fn transpose(&self) -> Self {
        let mut x = self.0;
        let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
        x ^= t ^ (t << 7);
        let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
        x ^= t ^ (t << 14);
        let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
        x ^= t ^ (t << 28);
        Tile8(x)
    }
    fn to_le_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn from_le_bytes(b: &[u8]) -> Self {
        Tile8(u64::from_le_bytes(b[..8].try_into().expect("8 bytes")))
    }
}

macro_rules! array_tile {
    ($name:ident, $k:literal, $w:ty) => {
        impl TileBits for $name {
            const K: usize = $k;
            const BYTES: usize = $k * std::mem::size_of::<$w>();
            #[inline]
            fn row(&self, r: usize) -> u64 {
                self.0[r] as u64
            }
            #[inline]
            fn or_row(&mut self, r: usize, bits: u64) {
                self.0[r] |= bits as $w;
            }
            fn to_le_bytes(&self, out: &mut Vec<u8>) {
                for w in &self.0 {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            fn from_le_bytes(b: &[u8]) -> Self {
                const W: usize = std::mem::size_of::<$w>();
                let mut t = Self::default();
                for (r, chunk) in b.chunks_exact(W).take($k).enumerate() {
                    t.0[r] = <$w>::from_le_bytes(chunk.try_into().expect("word"));
                }
                t
            }
        }
    };
}
array_tile!(Tile16, 16, u16);
array_tile!(Tile32, 32, u32);
array_tile!(Tile64, 64, u64);
