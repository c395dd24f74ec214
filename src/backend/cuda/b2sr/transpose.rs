//! B2SR transpose on the device (`cuda/transpose.cu`): the tile structure
//! goes CSR -> CSC (count per tile column, scan, unordered fill, per-column
//! sort, so the order is the CPU's), then every tile's bits are transposed.
//! Also the `transpose` entry point (B2SR here, CSR in `csr/transpose.rs`).

use super::super::launch::transpose;
use super::super::mem::{DMat, DevB2sr};
use super::super::{CudaBackend, CudaMatrix};
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// The transpose of a device B2SR pattern, computed on the device; equal
    /// tile for tile to the host's `B2sr::transpose`.
    pub(crate) fn b2sr_transpose(&self, p: &DevB2sr) -> Result<DevB2sr> {
        let (k, nt) = (p.k, p.ntiles);
        let tile_cols = p.ncols.div_ceil(k);
        let rowptr = self.dev.zeros::<u32>(tile_cols + 1)?;
        transpose::b2sr_tr_count(p.colidx(&self.dev)?.ptr(), nt as u64, rowptr.ptr())
            .run(&self.dev, nt)?;
        self.dev.scan(&rowptr, tile_cols + 1)?;
        let cursor = self.dev.zeros::<u32>(tile_cols)?;
        let perm = self.dev.alloc::<u32>(nt)?;
        transpose::b2sr_tr_fill(
            p.colidx(&self.dev)?.ptr(),
            nt as u64,
            rowptr.ptr(),
            cursor.ptr(),
            perm.ptr(),
        )
        .run(&self.dev, nt)?;
        let sorted = self.dev.alloc::<u32>(nt)?;
        transpose::b2sr_tr_sort(rowptr.ptr(), tile_cols as u32, perm.ptr(), sorted.ptr())
            .run(&self.dev, tile_cols * 32)?;
        let colidx = self.dev.alloc::<u32>(nt)?;
        // zeroed: k = 4 tiles are u16, and the padding past them is counted by nvals
        let tiles = self.dev.zeros::<u8>(nt * k * k / 8)?;
        transpose::b2sr_tr_tiles(
            k,
            p.rowptr.ptr(),
            p.tile_rows as u32,
            p.tiles.ptr(),
            sorted.ptr(),
            nt as u64,
            colidx.ptr(),
            tiles.ptr(),
        )
        .run(&self.dev, nt.div_ceil(32 / k) * 32)?;
        DevB2sr::new(&self.dev, k, p.ncols, p.nrows, nt, rowptr, colidx, tiles)
    }

    /// The `transpose` entry point, `C<mask> = accum(C, op(A)')`: a B2SR
    /// result for a B2SR `A` where the B2SR output phase takes the mask and
    /// `C`, CSR otherwise ([`Self::transpose_into`]).
    pub(crate) fn transpose_op<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        // A CSR mask, or C's entries holding another value than the new ones:
        // the CSR transpose and output phase, which take any of them.
        let DMat::B2sr { pat, value } = &a.repr else {
            return self.transpose_into::<T, A>(c, mask, a, flags);
        };
        if !self.b2sr_output_applies(c, *value, &mask, &accum, flags.replace) {
            return self.transpose_into::<T, A>(c, mask, a, flags);
        }
        // A transposed input descriptor cancels the transpose.
        let t = if flags.transpose_a {
            self.copy_b2sr(pat)?
        } else {
            self.b2sr_transpose(pat)?
        };
        self.write_b2sr("transpose", c, t, *value, mask, accum, flags.replace, true)
    }
}
