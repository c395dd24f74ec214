//! Matrix formats on the device: CSR -> B2SR packing (long tile rows cut
//! into chunks), B2SR -> CSR unpacking, copies, the `convert` entry point
//! and entry counts.

use super::device::{opt_ptr, DBuf, DevPtr};
use super::launch::{pack, Tiles};
use super::mem::{no_kernel, DMat, DevB2sr, Parts, PACK_CHUNK};
use super::transfer::from_bytes;
use super::{CudaBackend, CudaMatrix};
use crate::container::Format;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::TileSize;

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
        let tile_rows = nrows.div_ceil(k);
        // chunks per tile row, scanned: chunk_off
        let chunk_off = self.dev.alloc::<u32>(tile_rows + 1)?;
        let chunks = |mode: i32, row, lo, tiles, out| {
            pack::pack_chunks(
                rowptr.ptr(),
                colidx.ptr(),
                nrows as u64,
                tile_rows as u32,
                k as u32,
                PACK_CHUNK,
                mode,
                chunk_off.ptr(),
                row,
                lo,
                tiles,
                out,
            )
            .run(&self.dev, tile_rows + 1)
        };
        let null = DevPtr::null();
        chunks(0, null, null, null, null)?;
        self.dev.scan(&chunk_off, tile_rows + 1)?;
        let nchunks = self.dev.read_u32(&chunk_off, tile_rows)? as usize;
        // units: tile rows, or chunks where some tile row is cut
        let cut = if nchunks > tile_rows {
            let row = self.dev.alloc::<u32>(nchunks)?;
            let lo = self.dev.alloc::<u32>(nchunks)?;
            chunks(1, row.ptr(), lo.ptr(), null, null)?;
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
        let tile_rowptr = if cut.is_some() {
            let t = self.dev.alloc::<u32>(tile_rows + 1)?;
            chunks(2, null, null, counts.ptr(), t.ptr())?;
            t
        } else {
            counts
        };
        drop(cut);
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

    /// Row lengths of a B2SR pattern (`nrows + 1` entries, the last 0).
    pub(crate) fn b2sr_row_lens(&self, pat: &DevB2sr) -> Result<DBuf<u32>> {
        let lens = self.dev.zeros::<u32>(pat.nrows + 1)?;
        pack::b2sr_to_csr_count(pat.k, Tiles::of(pat), pat.nrows as u64, lens.ptr())
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
            Tiles::of(pat),
            pat.nrows as u64,
            rowptr.ptr(),
            colidx.ptr(),
        )
        .run(&self.dev, pat.nrows)?;
        Ok((rowptr, colidx, nnz))
    }

    /// A device copy of a B2SR pattern.
    pub(crate) fn copy_b2sr(&self, p: &DevB2sr) -> Result<DevB2sr> {
        DevB2sr::new(
            &self.dev,
            p.k,
            p.nrows,
            p.ncols,
            p.ntiles,
            self.dev.copy(&p.rowptr)?,
            self.dev.copy(&p.colidx)?,
            self.dev.copy(&p.tiles)?,
        )
    }

    /// The `convert` entry point: CSR <-> B2SR and B2SR between tile sizes,
    /// on the device (CSR to B2SR only where every entry holds one value).
    pub(crate) fn convert_op<T: Scalar>(
        &self,
        m: &CudaMatrix<T>,
        format: Format,
    ) -> Result<CudaMatrix<T>> {
        let k = match format {
            Format::Csr => None,
            // The device kernels take tiles of 4 to 32: 64x64 tiles are kept as 32x32.
            Format::B2sr(TileSize::T64) => TileSize::T32.k(),
            Format::B2sr(t) if t != TileSize::Auto => t.k(),
            _ => return Err(no_kernel("convert", format!("{format:?} on the device"))),
        };
        let repr = match (m.repr.parts(), k) {
            (Parts::Csr((rowptr, colidx, vals, nnz, iso)), None) => DMat::Csr {
                rowptr: self.dev.copy(rowptr)?,
                colidx: self.dev.copy(colidx)?,
                vals: self.dev.copy(vals)?,
                nnz,
                iso,
            },
            (Parts::B2sr(pat, value), Some(k)) if pat.k == k => DMat::B2sr {
                pat: self.copy_b2sr(pat)?,
                value,
            },
            (Parts::B2sr(pat, value), k) => {
                let (rowptr, colidx, nnz) = self.unpack(pat)?;
                match k {
                    None => DMat::Csr {
                        rowptr,
                        colidx,
                        vals: self.fill(nnz, value)?,
                        nnz,
                        iso: (nnz > 0 && value.is_nonzero()).then_some(value),
                    },
                    Some(k) => DMat::B2sr {
                        pat: self.pack(&rowptr, &colidx, m.nrows, m.ncols, k)?,
                        value,
                    },
                }
            }
            (Parts::Csr((rowptr, colidx, vals, nnz, _)), Some(k)) => {
                let value = if nnz == 0 {
                    T::one()
                } else {
                    let b = self.dev.download_bytes(vals, 1)?;
                    from_bytes::<T>(&b, 1)[0]
                };
                if nnz > 0 && self.count_ne(vals.ptr(), DevPtr::null(), nnz, value)? > 0 {
                    return Err(Error::invalid(
                        "convert",
                        "B2SR stores one value for all entries but they differ",
                    ));
                }
                DMat::B2sr {
                    pat: self.pack(rowptr, colidx, m.nrows, m.ncols, k)?,
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

    /// The `matrix_nvals` entry point (a bit count of the tiles for B2SR).
    pub(crate) fn matrix_nvals_op<T: Scalar>(&self, m: &CudaMatrix<T>) -> Result<usize> {
        Ok(match &m.repr {
            DMat::Csr { nnz, .. } => *nnz,
            DMat::B2sr { pat, .. } => self.popc(
                pat.tiles.ptr().cast::<u32>(),
                (pat.ntiles * pat.k * pat.k / 8).div_ceil(4),
            )? as usize,
        })
    }
}
