//! Typed launches of the type-free `pack` module (`cuda/pack.cu`): scans,
//! load-balance segments, CSR <-> B2SR packing, tile selection and
//! compaction, bit-vector kernels and the CUDA-core masked count.

use super::super::device::DevPtr;
use super::super::kernels::ModuleId;
use super::Tiles;

super::kernels! {
    { () => ModuleId::Pack }
    /// Exclusive scan of each block of 1024 elements, block totals out.
    fn scan_block(data: DevPtr<u32>, n: u64, block_sums: DevPtr<u32>);
    /// Adds the scanned block totals back.
    fn scan_add(data: DevPtr<u32>, n: u64, block_sums: DevPtr<u32>);
    /// Load-balance segments per tile row.
    fn seg_count(rowptr: DevPtr<u32>, tile_rows: u32, short_max: u32, seg_len: u32,
        counts: DevPtr<u32>);
    /// Each segment's tile row, and the list of split tile rows.
    fn seg_fill(seg_off: DevPtr<u32>, tile_rows: u32, seg_row: DevPtr<u32>, split_rows: DevPtr<u32>,
        nsplit: DevPtr<u32>);
    /// Packing chunks of long tile rows (`mode` 0: count, 1: list, 2: row pointers).
    fn pack_chunks(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, nrows: u64, tile_rows: u32, k: u32,
        chunk_len: u32, mode: i32, chunk_off: DevPtr<u32>, chunk_row: DevPtr<u32>,
        chunk_lo: DevPtr<u32>, unit_tiles: DevPtr<u32>, tile_rowptr: DevPtr<u32>);
    /// Tile columns from the 16-bit form.
    fn cols_widen(rowptr: DevPtr<u32>, tile_rows: u32, base: DevPtr<u32>, offset: DevPtr<u16>,
        escaped: DevPtr<u32>, colidx: DevPtr<u32>);
    /// Keeps the flagged tiles of a B2SR pattern.
    fn tiles_compact(pattern: Tiles, tile_rows: u32, ntiles: u64, tile_bytes: u32,
        keep: DevPtr<u32>, pos: DevPtr<u32>, out: Tiles);
    /// Set bits of `nwords` words, added to `total`.
    fn popc_words(words: DevPtr<u32>, nwords: u64, total: DevPtr<u64>);
    /// The complement of the first `n` bits.
    fn bits_not(a: DevPtr<u32>, n: u64, nwords: u64, out: DevPtr<u32>);
    /// `w<allowed> = t` on packed bits.
    fn bits_writeback(t: DevPtr<u32>, w: DevPtr<u32>, allowed: DevPtr<u32>, replace: bool,
        nwords: u64, out: DevPtr<u32>);
    /// One flag per present position (`n + 1`, the last 0).
    fn pres_flags(pres: DevPtr<u32>, n: u64, flags: DevPtr<u32>);
    /// Tiles per packing unit of CSR -> B2SR.
    fn csr_to_b2sr_count[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, nrows: u64, nunits: u32,
        chunk_row: DevPtr<u32>, chunk_lo: DevPtr<u32>, counts: DevPtr<u32>);
    /// Tile columns and bits of CSR -> B2SR.
    fn csr_to_b2sr_fill[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, nrows: u64, nunits: u32,
        chunk_row: DevPtr<u32>, chunk_lo: DevPtr<u32>, unit_tiles: DevPtr<u32>,
        out_colidx: DevPtr<u32>, out_tiles: DevPtr<u8>);
    /// Row lengths of B2SR -> CSR.
    fn b2sr_to_csr_count[k](pattern: Tiles, nrows: u64, lens: DevPtr<u32>);
    /// Column indices of B2SR -> CSR.
    fn b2sr_to_csr_fill[k](pattern: Tiles, nrows: u64, rowptr: DevPtr<u32>, colidx: DevPtr<u32>);
    /// The masked count `Σ_{(i,j) ∈ M} |A(i,:) ∧ B(j,:)|` on CUDA cores.
    fn b2sr_tc[k](m: Tiles, m_tile_rows: u32, m_ntiles: u64, a: Tiles, b: Tiles,
        total: DevPtr<u64>);
    /// The bits a structural predicate keeps, and which tiles keep any.
    fn b2sr_select[tile](pattern: Tiles, tile_rows: u32, code: i32, k: i64, out_tiles: DevPtr<u8>,
        keep: DevPtr<u32>);
}
