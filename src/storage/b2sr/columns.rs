//! Tile column indices in 32 or 16 bits.
//!
//! A B2SR stores the tile column of every non-empty tile. On meshes, road
//! networks and grids a tile row's tiles lie close together, and at small
//! tiles the 4-byte index outweighs the tile itself (a 4x4 tile is 2 bytes):
//! there the index is stored as a 16-bit offset from a 32-bit base per tile
//! row ([`TileColumns::Narrow`]). A tile row whose columns span more than
//! `u16::MAX` (a hub of a power-law graph) is escaped: its base has
//! [`ESCAPE`] set and the rest of it is where the row's columns start in a
//! side array of 32-bit columns.
//!
//! Packing gives 32-bit columns; [`super::B2sr::with_columns`] stores them in
//! 16 bits. Measured on the H100 (`benches/results/gpu-kernels.md`), the
//! 16-bit form saves 9-32% of a 4x4 or 8x8 matrix's bytes on meshes, roads,
//! grids and small power-law graphs, but the GPU product reading it ran at
//! 0.92-1.00x the 32-bit speed on grids, ego-Twitter, cnr-2000 and R-MAT 22
//! (it is bound by dependent loads, not bytes): it is the form for a matrix that must fit in less
//! memory, not the default. The sampling profile reports both sizes.
//!
//! ```
//! use bitgraphblas::storage::b2sr::{ColumnForm, TileColumns};
//! // Two tile rows: columns 7, 9, 10 and 70000, 70002.
//! let row_ptr = [0, 3, 5];
//! let cols = TileColumns::build(&row_ptr, vec![7, 9, 10, 70000, 70002], ColumnForm::Narrow);
//! assert_eq!(cols.form(), ColumnForm::Narrow);
//! assert_eq!(cols.bytes(), 4 * 2 + 2 * 5);
//! assert_eq!(cols.row(&row_ptr, 1).iter().collect::<Vec<_>>(), [70000, 70002]);
//! assert_eq!(cols.to_vec(&row_ptr), [7, 9, 10, 70000, 70002]);
//! ```

/// Set in a tile row's base when the row is escaped (its columns are stored
/// whole in the side array, from the position the other bits give).
pub const ESCAPE: u32 = 1 << 31;

/// How the tile column indices are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnForm {
    /// A `u32` per tile.
    Wide,
    /// A `u16` offset per tile from a `u32` base per tile row, long rows escaped.
    Narrow,
}

/// The tile column indices of a B2SR, in one of the two [`ColumnForm`]s.
///
/// Equality compares the columns, not the form.
#[derive(Clone, Debug)]
pub enum TileColumns {
    /// A `u32` per tile.
    Wide(Vec<u32>),
    /// 16-bit offsets from a base per tile row.
    Narrow(NarrowColumns),
}

/// 16-bit tile columns: tile `t` of tile row `r` is at column
/// `base[r] + offset[t]`, unless `base[r]` has [`ESCAPE`] set: then it is
/// `escaped[(base[r] & !ESCAPE) + t - row_ptr[r]]` (and `offset[t]` is 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NarrowColumns {
    pub(crate) base: Vec<u32>,
    pub(crate) offset: Vec<u16>,
    pub(crate) escaped: Vec<u32>,
}

impl NarrowColumns {
    /// The base of every tile row ([`ESCAPE`] marks an escaped one).
    pub fn base(&self) -> &[u32] {
        &self.base
    }
    /// The offset of every tile from its row's base (0 in escaped rows).
    pub fn offset(&self) -> &[u16] {
        &self.offset
    }
    /// The columns of the escaped rows, row after row.
    pub fn escaped(&self) -> &[u32] {
        &self.escaped
    }

    /// Bytes of the three arrays.
    pub fn bytes(&self) -> usize {
        4 * self.base.len() + 2 * self.offset.len() + 4 * self.escaped.len()
    }

    /// Encodes `cols`, escaping every tile row whose columns do not fit 16-bit
    /// offsets from its first; `None` when `row_ptr` does not span `cols` in
    /// order, or the escaped columns would not fit the 31 bits a base has for
    /// their start.
    fn encode(row_ptr: &[u32], cols: &[u32]) -> Option<NarrowColumns> {
        let spans = row_ptr.windows(2).all(|w| w[0] <= w[1])
            && row_ptr.first().is_none_or(|&p| p == 0)
            && row_ptr
                .last()
                .map_or(cols.is_empty(), |&p| p as usize == cols.len());
        if !spans {
            return None;
        }
        let rows = row_ptr.len().saturating_sub(1);
        let mut base = Vec::with_capacity(rows);
        let mut offset = Vec::with_capacity(cols.len());
        let mut escaped = Vec::new();
        for r in 0..rows {
            let row = &cols[row_ptr[r] as usize..row_ptr[r + 1] as usize];
            let first = row.first().copied().unwrap_or(0);
            let fits = |c: u32| c >= first && c - first <= u16::MAX as u32;
            if row.iter().all(|&c| fits(c)) {
                base.push(first);
                offset.extend(row.iter().map(|&c| (c - first) as u16));
            } else {
                if escaped.len() >= ESCAPE as usize {
                    return None;
                }
                base.push(ESCAPE | escaped.len() as u32);
                escaped.extend_from_slice(row);
                offset.resize(offset.len() + row.len(), 0);
            }
        }
        Some(NarrowColumns {
            base,
            offset,
            escaped,
        })
    }

    /// Checks the arrays against `row_ptr` (lengths, escapes in order and in
    /// range); the columns themselves are checked by the matrix's validation.
    pub(crate) fn check(&self, row_ptr: &[u32]) -> std::result::Result<(), String> {
        let rows = row_ptr.len().saturating_sub(1);
        if self.base.len() != rows {
            return Err(format!(
                "{} column bases for {rows} tile rows",
                self.base.len()
            ));
        }
        let mut next = 0usize;
        for r in 0..rows {
            let (lo, hi) = (row_ptr[r] as usize, row_ptr[r + 1] as usize);
            if hi < lo || hi > self.offset.len() {
                return Err(format!("tile row {r}: offsets out of range"));
            }
            let b = self.base[r];
            if b & ESCAPE != 0 {
                if (b & !ESCAPE) as usize != next {
                    return Err(format!(
                        "tile row {r}: escaped columns start at {} where {next} was expected",
                        b & !ESCAPE
                    ));
                }
                if self.offset[lo..hi].iter().any(|&o| o != 0) {
                    return Err(format!("tile row {r}: an escaped row has non-zero offsets"));
                }
                next += hi - lo;
                if next > self.escaped.len() {
                    return Err(format!("tile row {r}: escaped columns run past the array"));
                }
            }
        }
        if next != self.escaped.len() {
            return Err(format!(
                "{} escaped columns, {next} used by the escaped rows",
                self.escaped.len()
            ));
        }
        Ok(())
    }
}

/// A tile row's columns read by position, in one stored form: the one place
/// the 16-bit form is decoded. Hot loops take it as a type parameter (match
/// on [`RowColumns`] once per row), so each form gets its own loop.
///
/// ```
/// use bitgraphblas::storage::b2sr::{ColumnForm, ColumnsAt, RowColumns, TileColumns};
/// let row_ptr = [0, 3];
/// let cols = TileColumns::build(&row_ptr, vec![7, 9, 10], ColumnForm::Narrow);
/// // the sum of a row's columns, one loop per stored form
/// fn sum(c: impl ColumnsAt, len: usize) -> u32 {
///     (0..len).map(|i| c.at(i)).sum()
/// }
/// let total = match cols.row(&row_ptr, 0) {
///     RowColumns::Wide(c) => sum(c, c.len()),
///     RowColumns::Offsets(o) => sum(o, o.offsets().len()),
/// };
/// assert_eq!(total, 26);
/// ```
pub trait ColumnsAt: Copy {
    /// The column of the row's `i`-th tile.
    fn at(self, i: usize) -> u32;
}

impl ColumnsAt for &[u32] {
    #[inline(always)]
    fn at(self, i: usize) -> u32 {
        self[i]
    }
}

/// A tile row's columns as 16-bit offsets from its first column (made by
/// [`TileColumns::row`] only: its base is below 2^31, so `base + offset`
/// never wraps).
#[derive(Clone, Copy, Debug)]
pub struct OffsetColumns<'a> {
    base: u32,
    offsets: &'a [u16],
}

impl<'a> OffsetColumns<'a> {
    /// The row's first column.
    pub fn base(&self) -> u32 {
        self.base
    }
    /// Every tile's distance from [`Self::base`].
    pub fn offsets(&self) -> &'a [u16] {
        self.offsets
    }
}

impl ColumnsAt for OffsetColumns<'_> {
    #[inline(always)]
    fn at(self, i: usize) -> u32 {
        self.base + self.offsets[i] as u32
    }
}

/// The tile columns of one tile row.
#[derive(Clone, Copy, Debug)]
pub enum RowColumns<'a> {
    /// 32-bit columns.
    Wide(&'a [u32]),
    /// `base + offset` for every offset.
    Offsets(OffsetColumns<'a>),
}

impl<'a> RowColumns<'a> {
    /// Number of tiles in the row.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            RowColumns::Wide(c) => c.len(),
            RowColumns::Offsets(o) => o.offsets.len(),
        }
    }
    /// Whether the row has no tiles.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The column of the row's `i`-th tile.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            RowColumns::Wide(c) => c.at(i),
            RowColumns::Offsets(o) => o.at(i),
        }
    }
    /// The columns in order.
    #[inline]
    pub fn iter(self) -> impl Iterator<Item = u32> + 'a {
        let (wide, narrow): (&[u32], OffsetColumns<'a>) = match self {
            RowColumns::Wide(c) => (
                c,
                OffsetColumns {
                    base: 0,
                    offsets: &[],
                },
            ),
            RowColumns::Offsets(o) => (&[], o),
        };
        wide.iter()
            .copied()
            .chain((0..narrow.offsets.len()).map(move |i| narrow.at(i)))
    }
}

impl TileColumns {
    /// The columns `cols` in the form `form` (32 bits where 16 cannot hold
    /// them: `row_ptr` not spanning `cols`, or 2^31 escaped columns).
    pub fn build(row_ptr: &[u32], cols: Vec<u32>, form: ColumnForm) -> TileColumns {
        match form {
            ColumnForm::Wide => TileColumns::Wide(cols),
            ColumnForm::Narrow => match NarrowColumns::encode(row_ptr, &cols) {
                Some(n) => TileColumns::Narrow(n),
                None => TileColumns::Wide(cols),
            },
        }
    }

    /// Which form the columns are stored in.
    pub fn form(&self) -> ColumnForm {
        match self {
            TileColumns::Wide(_) => ColumnForm::Wide,
            TileColumns::Narrow(_) => ColumnForm::Narrow,
        }
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        match self {
            TileColumns::Wide(c) => c.len(),
            TileColumns::Narrow(n) => n.offset.len(),
        }
    }

    /// Whether there are no tiles.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the index arrays: `4 T`, or `4 R + 2 T + 4 E` (bases,
    /// offsets, escaped columns).
    pub fn bytes(&self) -> usize {
        match self {
            TileColumns::Wide(c) => 4 * c.len(),
            TileColumns::Narrow(n) => n.bytes(),
        }
    }

    /// The columns of tile row `r` (`row_ptr` is the matrix's tile row offsets).
    #[inline]
    pub fn row<'a>(&'a self, row_ptr: &[u32], r: usize) -> RowColumns<'a> {
        let (lo, hi) = (row_ptr[r] as usize, row_ptr[r + 1] as usize);
        match self {
            TileColumns::Wide(c) => RowColumns::Wide(&c[lo..hi]),
            TileColumns::Narrow(n) => {
                let b = n.base[r];
                if b & ESCAPE != 0 {
                    let s = (b & !ESCAPE) as usize;
                    RowColumns::Wide(&n.escaped[s..s + hi - lo])
                } else {
                    RowColumns::Offsets(OffsetColumns {
                        base: b,
                        offsets: &n.offset[lo..hi],
                    })
                }
            }
        }
    }

    /// Every column as a `u32`, tile after tile.
    pub fn to_vec(&self, row_ptr: &[u32]) -> Vec<u32> {
        match self {
            TileColumns::Wide(c) => c.clone(),
            TileColumns::Narrow(_) => {
                let rows = row_ptr.len().saturating_sub(1);
                let mut out = Vec::with_capacity(self.len());
                for r in 0..rows {
                    out.extend(self.row(row_ptr, r).iter());
                }
                out
            }
        }
    }

    /// The 32-bit columns, borrowed when they are stored so.
    pub fn as_wide(&self, row_ptr: &[u32]) -> std::borrow::Cow<'_, [u32]> {
        match self {
            TileColumns::Wide(c) => std::borrow::Cow::Borrowed(c),
            TileColumns::Narrow(_) => std::borrow::Cow::Owned(self.to_vec(row_ptr)),
        }
    }
}
