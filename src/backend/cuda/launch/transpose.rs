//! Typed launches of the type-free `transpose` module (`cuda/transpose.cu`).

use super::super::device::DevPtr;
use super::super::kernels::ModuleId;

super::kernels! {
    { () => ModuleId::Transpose }
    /// Tiles per tile column.
    fn b2sr_tr_count(colidx: DevPtr<u32>, ntiles: u64, counts: DevPtr<u32>);
    /// Tile indices by tile column, unordered within a column.
    fn b2sr_tr_fill(colidx: DevPtr<u32>, ntiles: u64, colptr: DevPtr<u32>, cursor: DevPtr<u32>,
        perm: DevPtr<u32>);
    /// Each tile column's tiles in increasing tile row.
    fn b2sr_tr_sort(colptr: DevPtr<u32>, tile_cols: u32, perm: DevPtr<u32>, sorted: DevPtr<u32>);
    /// The transposed tiles and their tile columns.
    fn b2sr_tr_tiles[k](rowptr: DevPtr<u32>, tile_rows: u32, tiles: DevPtr<u8>, sorted: DevPtr<u32>,
        ntiles: u64, out_colidx: DevPtr<u32>, out_tiles: DevPtr<u8>);
}
