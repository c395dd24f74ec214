//! B2SR transpose on the device (`cuda/transpose.cu`): the tile structure
//! goes CSR -> CSC (count per tile column, scan, unordered fill, per-column
//! sort, so the order is the CPU's), then every tile's bits are transposed.

use super::device::Arg;
use super::kernels::ModuleId;
use super::mem::DevB2sr;
use super::CudaBackend;
use crate::error::Result;

impl CudaBackend {
    /// The transpose of a device B2SR pattern, computed on the device; equal
    /// tile for tile to the host's `B2sr::transpose`.
    pub(super) fn b2sr_transpose(&self, p: &DevB2sr) -> Result<DevB2sr> {
        let (k, nt) = (p.k, p.ntiles);
        let tile_cols = p.ncols.div_ceil(k);
        let id = ModuleId::Transpose;
        let rowptr = self.dev.zeros::<u32>(tile_cols + 1)?;
        self.dev.run(
            id,
            "b2sr_tr_count",
            None,
            nt,
            &[p.colidx.arg(), Arg::U64(nt as u64), rowptr.arg()],
        )?;
        self.dev.scan(&rowptr, tile_cols + 1)?;
        let cursor = self.dev.zeros::<u32>(tile_cols)?;
        let perm = self.dev.alloc::<u32>(nt)?;
        self.dev.run(
            id,
            "b2sr_tr_fill",
            None,
            nt,
            &[
                p.colidx.arg(),
                Arg::U64(nt as u64),
                rowptr.arg(),
                cursor.arg(),
                perm.arg(),
            ],
        )?;
        let sorted = self.dev.alloc::<u32>(nt)?;
        self.dev.run(
            id,
            "b2sr_tr_sort",
            None,
            tile_cols * 32,
            &[
                rowptr.arg(),
                Arg::U32(tile_cols as u32),
                perm.arg(),
                sorted.arg(),
            ],
        )?;
        let colidx = self.dev.alloc::<u32>(nt)?;
        // zeroed: k = 4 tiles are u16, and the padding past them is counted by nvals
        let tiles = self.dev.zeros::<u8>(nt * k * k / 8)?;
        self.dev.run(
            id,
            "b2sr_tr_tiles",
            Some(k),
            nt.div_ceil(32 / k) * 32,
            &[
                p.rowptr.arg(),
                Arg::U32(p.tile_rows as u32),
                p.tiles.arg(),
                sorted.arg(),
                Arg::U64(nt as u64),
                colidx.arg(),
                tiles.arg(),
            ],
        )?;
        DevB2sr::new(&self.dev, k, p.ncols, p.nrows, nt, rowptr, colidx, tiles)
    }
}
