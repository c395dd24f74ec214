//! Matrix formats on the device: CSR -> B2SR packing (long tile rows cut
//! into chunks), B2SR -> CSR unpacking, copies, the `convert` entry point
//! and entry counts.

use super::auto;
use super::device::{opt_ptr, DBuf, DevPtr};
use super::launch::{pack, Tiles};
use super::mem::{CsrVals, DMat, DevB2sr, Parts, PACK_CHUNK};
use super::transfer::from_bytes;
use super::{CudaBackend, CudaMatrix};
use crate::container::Format;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::b2sr::row_spread;
use crate::storage::TileSize;
use std::sync::Arc;

/// The tiles a CSR pattern packs into at one tile size ([`CudaBackend::count_tiles`]).
pub(crate) struct TileCount {
    tile_rows: usize,
    /// Tile rows, or chunks where some tile row is cut.
    nunits: usize,
    /// Non-empty tiles.
    pub(crate) ntiles: usize,
    chunk_off: DBuf<u32>,
    /// Each chunk's tile row and first entry, where some tile row is cut.
    cut: Option<(DBuf<u32>, DBuf<u32>)>,
    /// Tiles per unit, scanned.
    counts: DBuf<u32>,
}

impl CudaBackend {
    /// Packs a device CSR into B2SR with `k x k` tiles, on the device. Tile
    /// rows whose longest row has more than [`PACK_CHUNK`] entries are
    /// cut into chunks of tile columns, each packed by its own lane group.
    pub(crate) fn pack(
        &self,
        rowptr: &DBuf<u32>,
        colidx: &DBuf<u32>,
        nrows: usize,
        ncols: usize,
        k: usize,
    ) -> Result<DevB2sr> {
        let c = self.count_tiles(rowptr, colidx, nrows, k)?;
        let (tile_rows, ntiles, counts) = (c.tile_rows, c.ntiles, c.counts);
        let (crow, clo) = (
            opt_ptr(c.cut.as_ref().map(|c| &c.0)),
            opt_ptr(c.cut.as_ref().map(|c| &c.1)),
        );
        let groups = c.nunits.div_ceil(32 / k);
        let (rp, ci, n, units) = (rowptr.ptr(), colidx.ptr(), nrows as u64, c.nunits as u32);
        let out_col = self.dev.alloc::<u32>(ntiles)?;
        // every byte of every tile is written by the fill; the padding of
        // the last u32 word (k = 4, odd tile counts) must read as zero
        let out_tiles = self.dev.alloc::<u8>(ntiles * k * k / 8)?;
        if !(ntiles * k * k / 8).is_multiple_of(4) {
            self.dev.memset(&out_tiles, 0)?;
        }
        let (oc, ot) = (out_col.ptr(), out_tiles.ptr());
        pack::csr_to_b2sr_fill(k, rp, ci, n, units, crow, clo, counts.ptr(), oc, ot)
            .run(&self.dev, groups * 32)?;
        let tile_rowptr = if c.cut.is_some() {
            let t = self.dev.alloc::<u32>(tile_rows + 1)?;
            self.pack_chunks(
                rowptr,
                colidx,
                nrows,
                k,
                &c.chunk_off,
                2,
                None,
                Some((&counts, &t)),
            )?;
            t
        } else {
            counts
        };
        DevB2sr::new(
            &self.dev,
            k,
            nrows,
            ncols,
            ntiles,
            tile_rowptr,
            out_col,
            out_tiles,
        )
    }

    /// The first pass of [`CudaBackend::pack`]: the tiles of each tile row
    /// (or of each chunk of a cut tile row) at tile size `k`, scanned, and
    /// their total. Also what [`Format::Auto`] counts to choose a tile size.
    pub(crate) fn count_tiles(
        &self,
        rowptr: &DBuf<u32>,
        colidx: &DBuf<u32>,
        nrows: usize,
        k: usize,
    ) -> Result<TileCount> {
        let tile_rows = nrows.div_ceil(k);
        // chunks per tile row, scanned: chunk_off
        let chunk_off = self.dev.alloc::<u32>(tile_rows + 1)?;
        self.pack_chunks(rowptr, colidx, nrows, k, &chunk_off, 0, None, None)?;
        self.dev.scan(&chunk_off, tile_rows + 1)?;
        let nchunks = self.dev.read_u32(&chunk_off, tile_rows)? as usize;
        // units: tile rows, or chunks where some tile row is cut
        let cut = if nchunks > tile_rows {
            let row = self.dev.alloc::<u32>(nchunks)?;
            let lo = self.dev.alloc::<u32>(nchunks)?;
            self.pack_chunks(
                rowptr,
                colidx,
                nrows,
                k,
                &chunk_off,
                1,
                Some((&row, &lo)),
                None,
            )?;
            Some((row, lo))
        } else {
            None
        };
        let nunits = if cut.is_some() { nchunks } else { tile_rows };
        let (crow, clo) = (
            opt_ptr(cut.as_ref().map(|c| &c.0)),
            opt_ptr(cut.as_ref().map(|c| &c.1)),
        );
        let counts = self.dev.alloc::<u32>(nunits + 1)?;
        self.dev.memset(&counts, 0)?;
        let groups = nunits.div_ceil(32 / k);
        let (rp, ci, n, units) = (rowptr.ptr(), colidx.ptr(), nrows as u64, nunits as u32);
        pack::csr_to_b2sr_count(k, rp, ci, n, units, crow, clo, counts.ptr())
            .run(&self.dev, groups * 32)?;
        self.dev.scan(&counts, nunits + 1)?;
        let ntiles = self.dev.read_u32(&counts, nunits)? as usize;
        Ok(TileCount {
            tile_rows,
            nunits,
            ntiles,
            chunk_off,
            cut,
            counts,
        })
    }

    /// One mode of the `pack_chunks` kernel: 0 counts the chunks of each
    /// tile row, 1 writes each chunk's tile row and first entry (`cut`), 2
    /// gathers the chunk counts back into tile-row pointers (`(counts, out)`).
    #[allow(clippy::too_many_arguments)]
    fn pack_chunks(
        &self,
        rowptr: &DBuf<u32>,
        colidx: &DBuf<u32>,
        nrows: usize,
        k: usize,
        chunk_off: &DBuf<u32>,
        mode: i32,
        cut: Option<(&DBuf<u32>, &DBuf<u32>)>,
        gather: Option<(&DBuf<u32>, &DBuf<u32>)>,
    ) -> Result<()> {
        let tile_rows = nrows.div_ceil(k);
        let ptr = |b: Option<&DBuf<u32>>| opt_ptr(b);
        pack::pack_chunks(
            rowptr.ptr(),
            colidx.ptr(),
            nrows as u64,
            tile_rows as u32,
            k as u32,
            PACK_CHUNK,
            mode,
            chunk_off.ptr(),
            ptr(cut.map(|c| c.0)),
            ptr(cut.map(|c| c.1)),
            ptr(gather.map(|g| g.0)),
            ptr(gather.map(|g| g.1)),
        )
        .run(&self.dev, tile_rows + 1)
    }

    /// Row lengths of a B2SR pattern (`nrows + 1` entries, the last 0).
    pub(crate) fn b2sr_row_lens(&self, pat: &DevB2sr) -> Result<DBuf<u32>> {
        let lens = self.dev.zeros::<u32>(pat.nrows + 1)?;
        pack::b2sr_to_csr_count(
            pat.k,
            Tiles::of(&self.dev, pat)?,
            pat.nrows as u64,
            lens.ptr(),
        )
        .run(&self.dev, pat.nrows)?;
        Ok(lens)
    }

    /// Unpacks B2SR into device CSR `(row_ptr, col_idx, nnz)`.
    pub(crate) fn unpack(&self, pat: &DevB2sr) -> Result<(DBuf<u32>, DBuf<u32>, usize)> {
        let rowptr = self.b2sr_row_lens(pat)?;
        self.dev.scan(&rowptr, pat.nrows + 1)?;
        let nnz = self.dev.read_u32(&rowptr, pat.nrows)? as usize;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        pack::b2sr_to_csr_fill(
            pat.k,
            Tiles::of(&self.dev, pat)?,
            pat.nrows as u64,
            rowptr.ptr(),
            colidx.ptr(),
        )
        .run(&self.dev, pat.nrows)?;
        Ok((rowptr, colidx, nnz))
    }

    /// A device copy of a B2SR pattern.
    pub(crate) fn copy_b2sr(&self, p: &DevB2sr) -> Result<DevB2sr> {
        p.copy(&self.dev)
    }

    /// The `convert` entry point: CSR <-> B2SR and B2SR between tile sizes,
    /// on the device (CSR to B2SR only where every entry holds one value).
    /// `Format::Auto` and `Format::B2sr(TileSize::Auto)` count the tiles of
    /// each candidate size on the device and let this backend's cost model
    /// choose (`auto`); a matrix whose values differ stays CSR under `Auto`.
    pub(crate) fn convert_op<T: Scalar>(
        &self,
        m: &CudaMatrix<T>,
        format: Format,
    ) -> Result<CudaMatrix<T>> {
        let format = match format {
            Format::Auto | Format::B2sr(TileSize::Auto) => self.auto_choice(m, format)?,
            f => f,
        };
        let k = match format {
            // The device kernels take tiles of 4 to 32: 64x64 tiles are kept as 32x32.
            Format::B2sr(TileSize::T64) => TileSize::T32.k(),
            Format::B2sr(t) => t.k(),
            _ => None,
        };
        let repr = match (m.repr.parts(), k) {
            // the pattern is never written after it is made: shared
            (Parts::Csr((p, vals)), None) => DMat::Csr {
                pat: Arc::clone(p),
                vals: match vals {
                    CsrVals::Each(v) => CsrVals::Each(self.dev.copy(v)?),
                    CsrVals::Iso(v) => CsrVals::Iso(*v),
                },
            },
            (Parts::B2sr(pat, value), Some(k)) if pat.k == k => DMat::B2sr {
                pat: self.copy_b2sr(pat)?,
                value,
            },
            (Parts::B2sr(pat, value), k) => {
                let (rowptr, colidx, nnz) = self.unpack(pat)?;
                match k {
                    None => {
                        let vals = if nnz > 0 && value.is_nonzero() {
                            CsrVals::Iso(value)
                        } else {
                            CsrVals::Each(self.fill(nnz, value)?)
                        };
                        DMat::csr_of(rowptr, colidx, nnz, vals)
                    }
                    Some(k) => DMat::B2sr {
                        pat: self.pack(&rowptr, &colidx, m.nrows, m.ncols, k)?,
                        value,
                    },
                }
            }
            (Parts::Csr((p, vals)), Some(k)) => {
                let value = match vals {
                    _ if p.nnz == 0 => T::one(),
                    CsrVals::Iso(v) => *v,
                    CsrVals::Each(vals) => {
                        let b = self.dev.download_bytes(vals, 1)?;
                        let first = from_bytes::<T>(&b, 1)[0];
                        if self.count_ne(vals.ptr(), DevPtr::null(), p.nnz, first)? > 0 {
                            return Err(Error::invalid(
                                "convert",
                                "B2SR stores one value for all entries but they differ",
                            ));
                        }
                        first
                    }
                };
                DMat::B2sr {
                    pat: self.pack(&p.rowptr, &p.colidx, m.nrows, m.ncols, k)?,
                    value,
                }
            }
        };
        Ok(CudaMatrix {
            nrows: m.nrows,
            ncols: m.ncols,
            repr,
        })
    }

    /// [`crate::ext::pattern_with`]: a CSR matrix shares `m`'s pattern (and
    /// stores `value` once where it is nonzero); a B2SR one gets a copy.
    pub(crate) fn pattern_with_op<T: Scalar, U: Scalar>(
        &self,
        m: &CudaMatrix<T>,
        value: U,
    ) -> Result<CudaMatrix<U>> {
        let repr = match &m.repr {
            DMat::Csr { pat, .. } => DMat::Csr {
                pat: Arc::clone(pat),
                vals: if pat.nnz > 0 && value.is_nonzero() {
                    CsrVals::Iso(value)
                } else {
                    CsrVals::Each(self.fill(pat.nnz, value)?)
                },
            },
            DMat::B2sr { pat, .. } => DMat::B2sr {
                pat: self.copy_b2sr(pat)?,
                value,
            },
        };
        Ok(CudaMatrix {
            nrows: m.nrows,
            ncols: m.ncols,
            repr,
        })
    }

    /// What [`Format::Auto`] (`requested`) resolves to for `m` on this
    /// backend: CSR where its values differ (Auto only), else the choice of
    /// the cost model on the tile counts of every candidate size, counted on
    /// the device.
    fn auto_choice<T: Scalar>(&self, m: &CudaMatrix<T>, requested: Format) -> Result<Format> {
        let unpacked;
        let (rowptr, colidx, nnz) = match m.repr.parts() {
            Parts::Csr((p, vals)) => {
                if let (Format::Auto, CsrVals::Each(vals), true) = (requested, vals, p.nnz > 0) {
                    let b = self.dev.download_bytes(vals, 1)?;
                    let first = from_bytes::<T>(&b, 1)[0];
                    if self.count_ne(vals.ptr(), DevPtr::null(), p.nnz, first)? > 0 {
                        return Ok(Format::Csr);
                    }
                }
                (&p.rowptr, &p.colidx, p.nnz)
            }
            Parts::B2sr(pat, _) => {
                unpacked = self.unpack(pat)?;
                (&unpacked.0, &unpacked.1, unpacked.2)
            }
        };
        let mut tiles = [0.0; auto::CANDIDATES.len()];
        for (t, count) in auto::CANDIDATES.iter().zip(&mut tiles) {
            let k = t.k().expect("a fixed tile size");
            *count = self.count_tiles(rowptr, colidx, m.nrows, k)?.ntiles as f64;
        }
        let rows = self.dev.download_vec::<u32>(rowptr, m.nrows + 1)?;
        let row_spread = row_spread(rows.windows(2).map(|w| (w[1] - w[0]) as usize));
        let size = auto::PatternSize {
            nnz,
            tiles,
            row_spread,
        };
        Ok(auto::choose(&size, requested == Format::Auto))
    }

    /// The `matrix_nvals` entry point (a bit count of the tiles for B2SR).
    pub(crate) fn matrix_nvals_op<T: Scalar>(&self, m: &CudaMatrix<T>) -> Result<usize> {
        Ok(match &m.repr {
            DMat::Csr { pat, .. } => pat.nnz,
            DMat::B2sr { pat, .. } => self.popc(
                pat.tiles.ptr().cast::<u32>(),
                (pat.ntiles * pat.k * pat.k / 8).div_ceil(4),
            )? as usize,
        })
    }
}
