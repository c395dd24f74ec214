//! CSR ⇄ B2SR packing, transposition and validation.

use rayon::prelude::*;

use super::{
    for_tile_size, with_blocks, B2sr, B2srBlocks, B2srTiles, ColumnForm, Profile, TileBits,
    TileColumns, TileSize,
};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::csr::{check_u32, Csr};

/// Packs the tile rows `trs` of `csr`, appending to `cols` / `tiles` and one
/// tile count per tile row to `lens`. `scratch` is reused between tile rows.
fn pack_tile_rows<L: TileBits, T: Scalar>(
    csr: &Csr<T>,
    trs: std::ops::Range<usize>,
    out: &mut (Vec<u32>, Vec<u32>, Vec<L>),
    scratch: &mut Vec<u32>,
) {
    let k = L::K as u32;
    let (lens, cols, tiles) = out;
    for tr in trs {
        let r0 = tr * L::K;
        let r1 = (r0 + L::K).min(csr.nrows());
        scratch.clear();
        for r in r0..r1 {
            // Rows are sorted: push each tile column once per row.
            let mut last = u32::MAX;
            for &c in csr.row(r).0 {
                let tc = c / k;
                if tc != last {
                    scratch.push(tc);
                    last = tc;
                }
            }
        }
        scratch.sort_unstable();
        scratch.dedup();
        let first = tiles.len();
        cols.extend_from_slice(scratch);
        tiles.resize(first + scratch.len(), L::default());
        let row_tiles = &mut tiles[first..];
        for r in r0..r1 {
            // Both the row's columns and the tile columns are sorted: walk together.
            let mut t = 0;
            for &c in csr.row(r).0 {
                let tc = c / k;
                while scratch[t] != tc {
                    t += 1;
                }
                row_tiles[t].set(r - r0, (c % k) as usize);
            }
        }
        lens.push(scratch.len() as u32);
    }
}

fn pack<L: TileBits, T: Scalar>(csr: &Csr<T>) -> B2srBlocks<L> {
    let tile_rows = csr.nrows().div_ceil(L::K);
    // Chunks of tile rows with about equal entries, a few per thread.
    let parts = (rayon::current_num_threads() * 4).min(csr.nnz() / 4096 + 1);
    let ptr = csr.row_ptr();
    let mut bounds = vec![0usize];
    for p in 1..parts {
        let target = csr.nnz() * p / parts;
        let row = ptr.partition_point(|&x| x < target);
        let tr = (row / L::K).min(tile_rows);
        if tr > *bounds.last().expect("non-empty") {
            bounds.push(tr);
        }
    }
    if *bounds.last().expect("non-empty") < tile_rows || tile_rows == 0 {
        bounds.push(tile_rows);
    }
    let chunks: Vec<(Vec<u32>, Vec<u32>, Vec<L>)> = bounds
        .par_windows(2)
        .map(|w| {
            let mut out = (Vec::with_capacity(w[1] - w[0]), Vec::new(), Vec::new());
            pack_tile_rows::<L, T>(csr, w[0]..w[1], &mut out, &mut Vec::new());
            out
        })
        .collect();
    let ntiles: usize = chunks.iter().map(|c| c.1.len()).sum();
    let mut tile_row_ptr = Vec::with_capacity(tile_rows + 1);
    let mut tile_col_idx = Vec::with_capacity(ntiles);
    let mut tiles = Vec::with_capacity(ntiles);
    tile_row_ptr.push(0u32);
    for (lens, c, t) in chunks {
        for l in lens {
            tile_row_ptr.push(tile_row_ptr.last().expect("non-empty") + l);
        }
        tile_col_idx.extend_from_slice(&c);
        tiles.extend_from_slice(&t);
    }
    B2srBlocks::from_raw(tile_row_ptr, tile_col_idx, tiles)
}

fn unpack<L: TileBits, T: Scalar>(
    b: &B2srBlocks<L>,
    nrows: usize,
    ncols: usize,
    value: T,
) -> Csr<T> {
    let k = L::K;
    let tile_rows = nrows.div_ceil(k);
    // Each tile row yields the CSR rows r0..r0+k; built in parallel, then joined.
    let parts: Vec<(Vec<usize>, Vec<u32>)> = (0..tile_rows)
        .into_par_iter()
        .map(|tr| {
            let range = b.tile_range(tr);
            let rows = (nrows - tr * k).min(k);
            let mut lens = Vec::with_capacity(rows);
            let mut cols = Vec::new();
            let tile_cols = b.row_columns(tr);
            for r in 0..rows {
                let before = cols.len();
                for (i, t) in range.clone().enumerate() {
                    let base = tile_cols.get(i) * k as u32;
                    let mut w = b.tiles[t].row(r);
                    while w != 0 {
                        cols.push(base + w.trailing_zeros());
                        w &= w - 1;
                    }
                }
                lens.push(cols.len() - before);
            }
            (lens, cols)
        })
        .collect();
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0usize);
    let nnz: usize = parts.iter().map(|p| p.1.len()).sum();
    let mut col_idx = Vec::with_capacity(nnz);
    for (lens, cols) in parts {
        for l in lens {
            row_ptr.push(row_ptr.last().unwrap() + l);
        }
        col_idx.extend_from_slice(&cols);
    }
    Csr::from_parts_unchecked(nrows, ncols, row_ptr, col_idx, vec![value; nnz])
}

fn transpose_blocks<L: TileBits>(
    b: &B2srBlocks<L>,
    tile_rows: usize,
    tile_cols: usize,
) -> B2srBlocks<L> {
    let mut ptr = vec![0u32; tile_cols + 1];
    for tr in 0..tile_rows {
        for c in b.row_columns(tr).iter() {
            ptr[c as usize + 1] += 1;
        }
    }
    for j in 0..tile_cols {
        ptr[j + 1] += ptr[j];
    }
    let mut next = ptr.clone();
    let mut col_idx = vec![0u32; b.tiles.len()];
    let mut tiles = vec![L::default(); b.tiles.len()];
    for tr in 0..tile_rows {
        for (c, t) in b.row_columns(tr).iter().zip(b.tile_range(tr)) {
            let p = &mut next[c as usize];
            col_idx[*p as usize] = tr as u32;
            tiles[*p as usize] = b.tiles[t].transpose();
            *p += 1;
        }
    }
    B2srBlocks::from_raw(ptr, col_idx, tiles)
}

fn validate_blocks<L: TileBits>(b: &B2srBlocks<L>, nrows: usize, ncols: usize) -> Result<()> {
    let bad = |d: String| Err(Error::storage("B2SR", d));
    let k = L::K;
    let (tile_rows, tile_cols) = (nrows.div_ceil(k), ncols.div_ceil(k));
    if b.tile_row_ptr.len() != tile_rows + 1 {
        return bad(format!(
            "tile_row_ptr has {} entries for {tile_rows} tile rows",
            b.tile_row_ptr.len()
        ));
    }
    if b.tile_row_ptr[0] != 0 || b.tile_row_ptr[tile_rows] as usize != b.columns.len() {
        return bad("tile_row_ptr does not span the tiles".into());
    }
    if b.tiles.len() != b.columns.len() {
        return bad(format!(
            "{} tiles for {} tile column indices",
            b.tiles.len(),
            b.columns.len()
        ));
    }
    if b.tile_row_ptr.windows(2).any(|w| w[0] > w[1]) {
        return bad("tile_row_ptr decreases".into());
    }
    if let TileColumns::Narrow(n) = &b.columns {
        n.check(&b.tile_row_ptr)
            .map_err(|d| Error::storage("B2SR", format!("16-bit tile columns: {d}")))?;
    }
    let row_pad = match nrows % k {
        0 => k,
        r => r,
    };
    let col_pad = match ncols % k {
        0 => k,
        r => r,
    };
    let col_mask = if col_pad == 64 {
        u64::MAX
    } else {
        (1u64 << col_pad) - 1
    };
    for tr in 0..tile_rows {
        if b.tile_row_ptr[tr] > b.tile_row_ptr[tr + 1] {
            return bad(format!("tile_row_ptr decreases at tile row {tr}"));
        }
        let range = b.tile_range(tr);
        // A 16-bit row's base is below 2^31 (not escaped), so base + offset
        // cannot wrap.
        let cols = b.row_columns(tr);
        if (1..cols.len()).any(|i| cols.get(i - 1) >= cols.get(i)) {
            return bad(format!(
                "tile row {tr}: tile columns not strictly increasing"
            ));
        }
        if let Some(c) = cols.len().checked_sub(1).map(|i| cols.get(i)) {
            if c as u64 >= tile_cols as u64 {
                return bad(format!("tile row {tr}: tile column {c} >= {tile_cols}"));
            }
        }
        for (i, t) in range.enumerate() {
            let tile = &b.tiles[t];
            if tile.is_zero() {
                return bad(format!("tile row {tr}: stored tile {t} is empty"));
            }
            let last_row = tr + 1 == tile_rows;
            let last_col = cols.get(i) as u64 + 1 == tile_cols as u64;
            for r in 0..k {
                let w = tile.row(r);
                if (last_row && r >= row_pad && w != 0) || (last_col && w & !col_mask != 0) {
                    return bad(format!("tile row {tr}: tile {t} has bits set in padding"));
                }
            }
        }
    }
    Ok(())
}

impl B2sr {
    /// Packs the pattern of `csr` into `tile`-sized tiles (values are dropped).
    /// `TileSize::Auto` picks the size with the least estimated `mxv` work by [`Profile`]
    /// (use [`Profile::recommend`] to learn whether to keep CSR instead).
    pub fn from_csr<T: Scalar>(csr: &Csr<T>, tile: TileSize) -> Result<Self> {
        check_u32("matrix", csr.nrows())?;
        check_u32("matrix", csr.ncols())?;
        let tile = match tile {
            TileSize::Auto => Profile::sample(csr).best_tile(),
            t => t,
        };
        let tiles = for_tile_size!(tile, pack(csr));
        if with_blocks!(&tiles, b => b.tiles.len()) > u32::MAX as usize {
            return Err(Error::TooLarge {
                what: "B2SR",
                detail: "more than 2^32 tiles".into(),
            });
        }
        Ok(B2sr {
            nrows: csr.nrows(),
            ncols: csr.ncols(),
            tiles,
        })
    }

    /// Unpacks to CSR with every stored entry equal to `value` (lossless for the pattern).
    pub fn to_csr<T: Scalar>(&self, value: T) -> Result<Csr<T>> {
        Ok(with_blocks!(&self.tiles, b => unpack(b, self.nrows, self.ncols, value)))
    }

    /// The transpose: a tile-level CSR-to-CSC pass plus an in-tile bit transpose.
    pub fn transpose(&self) -> B2sr {
        let (tr, tc) = (self.tile_rows(), self.tile_cols());
        let tiles = match &self.tiles {
            B2srTiles::T4(b) => B2srTiles::T4(transpose_blocks(b, tr, tc)),
            B2srTiles::T8(b) => B2srTiles::T8(transpose_blocks(b, tr, tc)),
            B2srTiles::T16(b) => B2srTiles::T16(transpose_blocks(b, tr, tc)),
            B2srTiles::T32(b) => B2srTiles::T32(transpose_blocks(b, tr, tc)),
            B2srTiles::T64(b) => B2srTiles::T64(transpose_blocks(b, tr, tc)),
        };
        B2sr {
            nrows: self.ncols,
            ncols: self.nrows,
            tiles,
        }
    }

    /// Checks every invariant: array lengths, monotone offsets, sorted in-range
    /// tile columns, no empty stored tile, zero padding bits.
    pub fn validate(&self) -> Result<()> {
        check_u32("matrix", self.nrows)?;
        check_u32("matrix", self.ncols)?;
        with_blocks!(&self.tiles, b => validate_blocks(b, self.nrows, self.ncols))
    }

    /// From raw arrays (for loaders), validated before it is returned.
    pub fn from_parts(nrows: usize, ncols: usize, tiles: B2srTiles) -> Result<Self> {
        let m = B2sr {
            nrows,
            ncols,
            tiles,
        };
        m.validate()?;
        Ok(m)
    }
}

impl<L: TileBits> B2srBlocks<L> {
    /// From raw arrays (32-bit tile columns); validate the result through
    /// [`B2sr::from_parts`].
    pub fn from_raw(tile_row_ptr: Vec<u32>, tile_col_idx: Vec<u32>, tiles: Vec<L>) -> Self {
        B2srBlocks {
            tile_row_ptr,
            columns: TileColumns::Wide(tile_col_idx),
            tiles,
        }
    }

    /// From row offsets, columns in either form and tiles (for loaders);
    /// validate the result through [`B2sr::from_parts`].
    pub fn from_columns(tile_row_ptr: Vec<u32>, columns: TileColumns, tiles: Vec<L>) -> Self {
        B2srBlocks {
            tile_row_ptr,
            columns,
            tiles,
        }
    }

    /// Stores the columns in `form`.
    pub(crate) fn set_column_form(&mut self, form: ColumnForm) {
        if self.columns.form() != form {
            let cols = self.columns.to_vec(&self.tile_row_ptr);
            self.columns = TileColumns::build(&self.tile_row_ptr, cols, form);
        }
    }
}
