//! B2SR: bit-block compressed sparse rows.
//!
//! A CSR over the non-empty `k x k` tiles of a pattern matrix: `tile_row_ptr`
//! (one entry per tile row, plus one), `tile_col_idx` (one per non-empty tile,
//! strictly increasing within a tile row) and the packed bits of every tile in
//! the same order (see [`tile`] for the bit order). Dimensions that are not
//! multiples of `k` are padded; padding bits are always 0. Row offsets are
//! 32-bit; tile columns 32-bit, or 16-bit offsets from a base per tile row
//! where that saves bytes ([`columns`]).
//!
//! ```
//! use bitgraphblas::storage::{B2sr, Csr, TileSize};
//! let a = Csr::from_triplets(5, 5, vec![(0, 0, 1.0f32), (4, 3, 1.0)], |x, _| x).unwrap();
//! let b = B2sr::from_csr(&a, TileSize::T4).unwrap();
//! assert_eq!(b.ntiles(), 2);
//! assert_eq!(b.nnz(), 2);
//! assert_eq!(b.to_csr(1.0f32).unwrap(), a);
//! ```

pub mod columns;
mod convert;
pub mod profile;
pub mod tile;

use crate::error::{Error, Result};
pub use columns::{ColumnForm, ColumnsAt, NarrowColumns, OffsetColumns, RowColumns, TileColumns};
pub use profile::{row_spread, Profile, TileEstimate};
pub use tile::{Tile16, Tile32, Tile4, Tile64, Tile8, TileBits};

/// The tile edge `k`, or `Auto` to let the sampling profile choose.
///
/// ```
/// use bitgraphblas::TileSize;
/// let t: TileSize = "16".parse()?;
/// assert_eq!((t, t.k(), t.tile_bytes()), (TileSize::T16, Some(16), Some(32)));
/// assert_eq!("auto".parse::<TileSize>()?.k(), None);
/// assert!(TileSize::from_k(12).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileSize {
    /// 4x4 tiles (2 bytes each).
    T4,
    /// 8x8 tiles (8 bytes each).
    T8,
    /// 16x16 tiles (32 bytes each).
    T16,
    /// 32x32 tiles (128 bytes each).
    T32,
    /// 64x64 tiles (512 bytes each).
    T64,
    /// Choose by [`Profile`]: the size with the least estimated `mxv` work.
    Auto,
}

impl TileSize {
    /// Every fixed size, smallest first.
    pub const FIXED: [TileSize; 5] = [
        TileSize::T4,
        TileSize::T8,
        TileSize::T16,
        TileSize::T32,
        TileSize::T64,
    ];

    /// The edge `k` (`None` for `Auto`).
    pub fn k(self) -> Option<usize> {
        match self {
            TileSize::T4 => Some(4),
            TileSize::T8 => Some(8),
            TileSize::T16 => Some(16),
            TileSize::T32 => Some(32),
            TileSize::T64 => Some(64),
            TileSize::Auto => None,
        }
    }
    /// Bytes of one packed tile (`None` for `Auto`).
    pub fn tile_bytes(self) -> Option<usize> {
        self.k().map(|k| k * k / 8)
    }
    /// From an edge length (4, 8, 16, 32 or 64).
    pub fn from_k(k: usize) -> Result<Self> {
        match k {
            4 => Ok(TileSize::T4),
            8 => Ok(TileSize::T8),
            16 => Ok(TileSize::T16),
            32 => Ok(TileSize::T32),
            64 => Ok(TileSize::T64),
            _ => Err(Error::invalid(
                "TileSize::from_k",
                format!("tile size {k} is not 4, 8, 16, 32 or 64"),
            )),
        }
    }
}

impl std::str::FromStr for TileSize {
    type Err = Error;
    /// `"4"`, `"8"`, `"16"`, `"32"`, `"64"` or `"auto"`.
    fn from_str(s: &str) -> Result<Self> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(TileSize::Auto);
        }
        let k = s
            .parse::<usize>()
            .map_err(|_| Error::invalid("TileSize", format!("'{s}' is not a tile size")))?;
        TileSize::from_k(k)
    }
}

impl std::fmt::Display for TileSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.k() {
            Some(k) => write!(f, "{k}"),
            None => write!(f, "auto"),
        }
    }
}

/// The tile arrays at one tile layout `L`: a CSR whose entries are tiles.
///
/// ```
/// use bitgraphblas::storage::{b2sr::{B2srTiles, TileBits}, B2sr, Csr, TileSize};
/// // Entries (0, 5) and (1, 6) share the 4x4 tile at tile row 0, tile column 1.
/// let a = Csr::from_triplets(8, 8, vec![(0, 5, true), (1, 6, true)], |x, _| x)?;
/// let b = B2sr::from_csr(&a, TileSize::T4)?;
/// let B2srTiles::T4(blk) = b.tiles() else { unreachable!() };
/// assert_eq!((blk.tile_row_ptr(), &*blk.tile_col_idx()), (&[0, 1, 1][..], &[1][..]));
/// assert_eq!((blk.tiles()[0].row(0), blk.tiles()[0].row(1)), (0b0010, 0b0100));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct B2srBlocks<L> {
    pub(crate) tile_row_ptr: Vec<u32>,
    pub(crate) columns: TileColumns,
    pub(crate) tiles: Vec<L>,
}

/// Equal when the tiles are (whatever form the columns are stored in).
impl<L: PartialEq> PartialEq for B2srBlocks<L> {
    fn eq(&self, other: &Self) -> bool {
        self.tile_row_ptr == other.tile_row_ptr
            && self.tiles == other.tiles
            && self.columns.to_vec(&self.tile_row_ptr) == other.columns.to_vec(&other.tile_row_ptr)
    }
}

impl<L: Eq> Eq for B2srBlocks<L> {}

impl<L: TileBits> B2srBlocks<L> {
    /// `tile_rows + 1` offsets into the tile columns and `tiles`.
    pub fn tile_row_ptr(&self) -> &[u32] {
        &self.tile_row_ptr
    }
    /// The tile column of every non-empty tile, as 32-bit indices (a copy when
    /// they are stored in 16 bits; kernels read [`Self::row_columns`]).
    pub fn tile_col_idx(&self) -> std::borrow::Cow<'_, [u32]> {
        self.columns.as_wide(&self.tile_row_ptr)
    }
    /// The tile columns as stored.
    pub fn columns(&self) -> &TileColumns {
        &self.columns
    }
    /// The tile columns of tile row `tr`.
    #[inline]
    pub fn row_columns(&self, tr: usize) -> RowColumns<'_> {
        self.columns.row(&self.tile_row_ptr, tr)
    }
    /// The packed tiles.
    pub fn tiles(&self) -> &[L] {
        &self.tiles
    }
    /// The range of tiles in tile row `tr`.
    #[inline]
    pub fn tile_range(&self, tr: usize) -> std::ops::Range<usize> {
        self.tile_row_ptr[tr] as usize..self.tile_row_ptr[tr + 1] as usize
    }
}

/// The tile arrays, for whichever tile size the matrix uses.
///
/// ```
/// use bitgraphblas::storage::{b2sr::B2srTiles, B2sr, Csr, TileSize};
/// let a = Csr::from_triplets(40, 40, vec![(0, 39, true)], |x, _| x)?;
/// let b = B2sr::from_csr(&a, TileSize::T32)?;
/// match b.tiles() {
///     B2srTiles::T32(blk) => assert_eq!(&*blk.tile_col_idx(), &[1]),
///     _ => unreachable!("packed at 32x32"),
/// }
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum B2srTiles {
    /// 4x4 tiles.
    T4(B2srBlocks<Tile4>),
    /// 8x8 tiles.
    T8(B2srBlocks<Tile8>),
    /// 16x16 tiles.
    T16(B2srBlocks<Tile16>),
    /// 32x32 tiles.
    T32(B2srBlocks<Tile32>),
    /// 64x64 tiles.
    T64(B2srBlocks<Tile64>),
}

/// Runs `$body` with `$blk` bound to the `B2srBlocks<L>` inside a `B2srTiles`,
/// so generic code is written once for every tile size.
macro_rules! with_blocks {
    ($tiles:expr, $blk:ident => $body:expr) => {
        match $tiles {
            $crate::storage::b2sr::B2srTiles::T4($blk) => $body,
            $crate::storage::b2sr::B2srTiles::T8($blk) => $body,
            $crate::storage::b2sr::B2srTiles::T16($blk) => $body,
            $crate::storage::b2sr::B2srTiles::T32($blk) => $body,
            $crate::storage::b2sr::B2srTiles::T64($blk) => $body,
        }
    };
}
pub(crate) use with_blocks;

/// Builds a `B2srTiles` of the variant `$size` names, running `$make::<L>()`.
macro_rules! for_tile_size {
    ($size:expr, $make:ident ( $($arg:expr),* )) => {
        match $size {
            $crate::storage::b2sr::TileSize::T4 => $crate::storage::b2sr::B2srTiles::T4($make::<$crate::storage::b2sr::Tile4, _>($($arg),*)),
            $crate::storage::b2sr::TileSize::T8 => $crate::storage::b2sr::B2srTiles::T8($make::<$crate::storage::b2sr::Tile8, _>($($arg),*)),
            $crate::storage::b2sr::TileSize::T16 => $crate::storage::b2sr::B2srTiles::T16($make::<$crate::storage::b2sr::Tile16, _>($($arg),*)),
            $crate::storage::b2sr::TileSize::T32 => $crate::storage::b2sr::B2srTiles::T32($make::<$crate::storage::b2sr::Tile32, _>($($arg),*)),
            $crate::storage::b2sr::TileSize::T64 => $crate::storage::b2sr::B2srTiles::T64($make::<$crate::storage::b2sr::Tile64, _>($($arg),*)),
            $crate::storage::b2sr::TileSize::Auto => unreachable!("Auto is resolved before packing"),
        }
    };
}
pub(crate) use for_tile_size;

/// A B2SR pattern matrix (no values: a [`crate::Matrix`] adds the iso value).
///
/// ```
/// use bitgraphblas::storage::{B2sr, Csr, TileSize};
/// // A 10x10 diagonal: three 4x4 tile rows, one tile each on the diagonal.
/// let a = Csr::from_triplets(10, 10, (0..10).map(|i| (i, i, true)), |x, _| x)?;
/// let b = B2sr::from_csr(&a, TileSize::T4)?;
/// assert_eq!((b.tile_rows(), b.ntiles(), b.nnz()), (3, 3, 10));
/// assert_eq!(b.bytes(), 4 * 4 + 4 * 3 + 3 * 2);
/// assert_eq!(b.entries()[9], (9, 9));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct B2sr {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) tiles: B2srTiles,
}

impl B2sr {
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// The tile size (never `Auto`).
    pub fn tile_size(&self) -> TileSize {
        match &self.tiles {
            B2srTiles::T4(_) => TileSize::T4,
            B2srTiles::T8(_) => TileSize::T8,
            B2srTiles::T16(_) => TileSize::T16,
            B2srTiles::T32(_) => TileSize::T32,
            B2srTiles::T64(_) => TileSize::T64,
        }
    }
    /// The tile edge `k`.
    pub fn k(&self) -> usize {
        self.tile_size().k().expect("fixed")
    }
    /// The tile arrays.
    pub fn tiles(&self) -> &B2srTiles {
        &self.tiles
    }
    /// Number of tile rows (`ceil(nrows / k)`).
    pub fn tile_rows(&self) -> usize {
        self.nrows.div_ceil(self.k())
    }
    /// Number of tile columns (`ceil(ncols / k)`).
    pub fn tile_cols(&self) -> usize {
        self.ncols.div_ceil(self.k())
    }
    /// Number of non-empty tiles.
    pub fn ntiles(&self) -> usize {
        with_blocks!(&self.tiles, b => b.tiles.len())
    }
    /// Number of set bits (stored entries).
    pub fn nnz(&self) -> usize {
        with_blocks!(&self.tiles, b => b.tiles.iter().map(|t| t.count_ones() as usize).sum())
    }
    /// Exact bytes of the arrays: `4 (tile_rows + 1)` row offsets, the tile
    /// columns ([`TileColumns::bytes`]: `4 ntiles` in 32 bits) and `ntiles k²/8`.
    pub fn bytes(&self) -> usize {
        let t = self.ntiles();
        let cols = with_blocks!(&self.tiles, b => b.columns.bytes());
        4 * (self.tile_rows() + 1) + cols + t * self.tile_size().tile_bytes().expect("fixed")
    }
    /// How the tile columns are stored (32-bit from packing; see
    /// [`Self::with_columns`]).
    pub fn column_form(&self) -> ColumnForm {
        with_blocks!(&self.tiles, b => b.columns.form())
    }
    /// The same matrix with its tile columns stored in `form` (16 bits: fewer
    /// bytes, a slightly slower product; [`columns`]). A matrix whose escaped
    /// rows would hold 2^31 tiles or more (the side array's 31-bit starts
    /// cannot address them) keeps 32-bit columns: [`Self::column_form`] says
    /// which form it got.
    ///
    /// ```
    /// use bitgraphblas::storage::{b2sr::ColumnForm, B2sr, Csr, TileSize};
    /// // A 64x64 tridiagonal matrix: three 4x4 tiles in most tile rows.
    /// let t = (0..64).flat_map(|i| [i.max(1) - 1, i, (i + 1).min(63)].map(|j| (i, j, true)));
    /// let a = Csr::from_triplets(64, 64, t, |x, _| x)?;
    /// let b = B2sr::from_csr(&a, TileSize::T4)?;
    /// assert_eq!(b.column_form(), ColumnForm::Wide);
    /// let n = b.clone().with_columns(ColumnForm::Narrow);
    /// assert_eq!((n.column_form(), n == b), (ColumnForm::Narrow, true));
    /// assert_eq!(b.bytes() - n.bytes(), 2 * b.ntiles() - 4 * b.tile_rows());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn with_columns(mut self, form: ColumnForm) -> B2sr {
        with_blocks!(&mut self.tiles, b => b.set_column_form(form));
        self
    }
    /// Average fraction of bits set in a non-empty tile (0 when there are no tiles).
    pub fn fill(&self) -> f64 {
        let t = self.ntiles();
        if t == 0 {
            return 0.0;
        }
        let k = self.k() as f64;
        self.nnz() as f64 / (t as f64 * k * k)
    }
    /// The pattern as a tile-free list of `(row, col)` pairs in row-major order.
    pub fn entries(&self) -> Vec<(usize, usize)> {
        let csr = self.to_csr(true).expect("a valid B2SR always converts");
        (0..csr.nrows())
            .flat_map(|i| {
                csr.row(i)
                    .0
                    .iter()
                    .map(move |&j| (i, j as usize))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}
