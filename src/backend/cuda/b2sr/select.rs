//! The `select_matrix` entry point: structural predicates on a B2SR input
//! (no mask, accumulator or transpose) keep a B2SR result, selected tile by
//! tile on the device (`cuda/pack.cu`); every other case goes through CSR
//! (`csr/elementwise.rs`).

use super::super::codes::{select_code, SELECT_VALUE_EQ};
use super::super::launch::{pack, Tiles};
use super::super::mem::{no_kernel, DMat, DevB2sr};
use super::super::{CudaBackend, CudaMatrix};
use crate::algebra::IndexUnaryOp;
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// The `select_matrix` entry point.
    pub(crate) fn select_matrix_op<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        pred: P,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let (DMat::B2sr { pat, value }, false, None, false) =
            (&a.repr, flags.transpose_a, &mask, A::ACTIVE)
        else {
            // CSR, transposed, masked or accumulated: the CSR path.
            return self.select_matrix_csr::<T, P, A>(c, mask, pred, a, flags);
        };
        let p = pred
            .builtin()
            .ok_or_else(|| no_kernel("select_matrix", "a user predicate"))?;
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
        *c = CudaMatrix {
            nrows: a.nrows,
            ncols: a.ncols,
            repr: DMat::B2sr {
                pat: new_pat,
                value: *value,
            },
        };
        Ok(())
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
            Tiles::of(pat),
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
            ..Tiles::of(pat)
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
