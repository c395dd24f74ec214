//! Typed launches of the type-free `mxm` module (`cuda/mxm.cu`): the
//! boolean product with a B2SR result, the masked accumulating B2SR write,
//! and the tensor-core masked count.

use super::super::device::DevPtr;
use super::super::kernels::ModuleId;
use super::Tiles;

super::kernels! {
    { () => ModuleId::Mxm }
    /// Hash slots per tile row of the symbolic product (bounds, and their total).
    fn mxm_bound(a_rowptr: DevPtr<u32>, a_colidx: DevPtr<u32>, tile_rows: u32,
        b_rowptr: DevPtr<u32>, b_tile_cols: u32, cap: DevPtr<u32>, total: DevPtr<u64>);
    /// The symbolic product: tile columns hashed per tile row, and counted.
    fn mxm_symbolic(a_rowptr: DevPtr<u32>, a_colidx: DevPtr<u32>, tile_rows: u32,
        b_rowptr: DevPtr<u32>, b_colidx: DevPtr<u32>, hoff: DevPtr<u32>, keys: DevPtr<u32>,
        cnt: DevPtr<u32>);
    /// The hashed tile columns, sorted, per tile row.
    fn mxm_collect(tile_rows: u32, hoff: DevPtr<u32>, keys: DevPtr<u32>, rowptr: DevPtr<u32>,
        colidx: DevPtr<u32>);
    /// The numeric boolean product of the tiles.
    fn mxm_numeric[k](a: Tiles, tile_rows: u32, b: Tiles, c: Tiles);
    /// `C<M> = accum(C, T)` on B2SR patterns: counts (`counts` given) or the
    /// result (`out_*` given).
    fn b2sr_merge[k](t: Tiles, c: Tiles, m: Tiles, mmode: i32, comp: bool, accum: bool,
        replace: bool, tile_rows: u32, counts: DevPtr<u32>, out: Tiles);
    /// The masked count on the 1-bit tensor cores (k = 16, 32).
    fn b2sr_tc_tensor[k](m: Tiles, m_tile_rows: u32, m_ntiles: u64, a: Tiles, b: Tiles,
        total: DevPtr<u64>);
}
