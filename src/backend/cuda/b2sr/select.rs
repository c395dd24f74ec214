//! `select_matrix` with a B2SR result: structural predicates on a B2SR
//! input (no mask, accumulator or transpose; the entry point in
//! `csr/elementwise.rs` decides) are selected tile by tile on the device
//! (`cuda/pack.cu`), a value predicate on the iso value keeps all or nothing.

use super::super::codes::{select_code, SELECT_VALUE_EQ};
use super::super::launch::{pack, Tiles};
use super::super::mem::{DMat, DevB2sr};
use super::super::{CudaBackend, CudaMatrix};
use crate::algebra::{IndexOp, IndexUnaryOp};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// The entries of the B2SR `a` that the built-in predicate `p` (`pred`'s)
    /// keeps, as B2SR; `None` for a CSR `a` (the caller's CSR path).
    pub(crate) fn select_b2sr<T: Scalar, P: IndexUnaryOp<T>>(
        &self,
        pred: &P,
        p: IndexOp<T>,
        a: &CudaMatrix<T>,
    ) -> Result<Option<CudaMatrix<T>>> {
        let DMat::B2sr { pat, value } = &a.repr else {
            return Ok(None);
        };
        let (code, kk, _) = select_code(p);
        let new_pat = if code >= SELECT_VALUE_EQ {
            // A value predicate on an iso-valued matrix keeps all or nothing.
            if pred.keep(*value, 0, 0) {
                self.copy_b2sr(pat)?
            } else {
                DevB2sr::new(
                    &self.dev,
                    pat.k,
                    pat.nrows,
                    pat.ncols,
                    0,
                    self.dev.zeros(pat.tile_rows + 1)?,
                    self.dev.alloc(0)?,
                    self.dev.alloc(0)?,
                )?
            }
        } else {
            self.b2sr_select(pat, code, kk)?
        };
        Ok(Some(CudaMatrix {
            nrows: a.nrows,
            ncols: a.ncols,
            repr: DMat::B2sr {
                pat: new_pat,
                value: *value,
            },
        }))
    }

    /// The entries of `pat` a structural predicate (`code` below
    /// `SELECT_VALUE_EQ`, offset `kk`)
    /// keeps: the bits per tile, then the tiles that keep any.
    fn b2sr_select(&self, pat: &DevB2sr, code: i32, kk: i64) -> Result<DevB2sr> {
        let k = pat.k;
        let tb = k * k / 8;
        let tmp_tiles = self.dev.zeros::<u8>(pat.ntiles * tb)?;
        let keep = self.dev.zeros::<u32>(pat.ntiles + 1)?;
        pack::b2sr_select(
            k,
            Tiles::of(&self.dev, pat)?,
            pat.tile_rows as u32,
            code,
            kk,
            tmp_tiles.ptr(),
            keep.ptr(),
        )
        .run(&self.dev, pat.tile_rows)?;
        let pos = self.dev.copy(&keep)?;
        self.dev.scan(&pos, pat.ntiles + 1)?;
        let nt = self.dev.read_u32(&pos, pat.ntiles)? as usize;
        let rowptr = self.dev.alloc::<u32>(pat.tile_rows + 1)?;
        let colidx = self.dev.alloc::<u32>(nt)?;
        let tiles = self.dev.zeros::<u8>(nt * tb)?;
        let selected = Tiles {
            tiles: tmp_tiles.ptr(),
            ..Tiles::of(&self.dev, pat)?
        };
        let out = Tiles {
            rowptr: rowptr.ptr(),
            colidx: colidx.ptr(),
            tiles: tiles.ptr(),
        };
        pack::tiles_compact(
            selected,
            pat.tile_rows as u32,
            pat.ntiles as u64,
            tb as u32,
            keep.ptr(),
            pos.ptr(),
            out,
        )
        .run(&self.dev, pat.ntiles.max(pat.tile_rows + 1))?;
        DevB2sr::new(
            &self.dev, k, pat.nrows, pat.ncols, nt, rowptr, colidx, tiles,
        )
    }
}
