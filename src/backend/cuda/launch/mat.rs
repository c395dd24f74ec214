//! Typed launches of the matrix-level CSR modules `mat_<type>` (`cuda/matrix.cu`).

use super::super::device::DevPtr;
use super::super::kernels::ModuleId;

super::kernels! {
    { <T> () => ModuleId::Mat(T::TYPE) }
    /// The row of every entry.
    fn csr_row_ids(rowptr: DevPtr<u32>, nrows: u64, nnz: u64, rows: DevPtr<u32>);
    /// Entries per column.
    fn col_counts(colidx: DevPtr<u32>, nnz: u64, counts: DevPtr<u32>);
    /// Per-block histograms of one radix digit.
    fn radix_hist(keys: DevPtr<u32>, n: u64, shift: u32, per: u64, ghist: DevPtr<u32>);
    /// The stable scatter of one radix pass.
    fn radix_scatter(keys: DevPtr<u32>, pay: DevPtr<u32>, n: u64, shift: u32, per: u64,
        ghist: DevPtr<u32>, keys_out: DevPtr<u32>, pay_out: DevPtr<u32>);
    /// Columns and values in the permuted order.
    fn csr_gather(perm: DevPtr<u32>, rows: DevPtr<u32>, vals: DevPtr<T>, nnz: u64,
        out_col: DevPtr<u32>, out_vals: DevPtr<T>);
    /// Entries per row of an element-wise result.
    fn ewise_count(kind: i32, a_rowptr: DevPtr<u32>, a_col: DevPtr<u32>, b_rowptr: DevPtr<u32>,
        b_col: DevPtr<u32>, nrows: u64, counts: DevPtr<u32>);
    /// The entries of an element-wise result.
    fn ewise_fill(kind: i32, op: i32, abits: u64, bbits: u64, a_rowptr: DevPtr<u32>,
        a_col: DevPtr<u32>, a_vals: DevPtr<T>, b_rowptr: DevPtr<u32>, b_col: DevPtr<u32>,
        b_vals: DevPtr<T>, nrows: u64, rowptr: DevPtr<u32>, out_col: DevPtr<u32>,
        out_vals: DevPtr<T>);
    /// Flags of the entries a built-in predicate keeps.
    fn select_flags(code: i32, k: i64, tbits: u64, rowptr: DevPtr<u32>, nrows: u64,
        colidx: DevPtr<u32>, vals: DevPtr<T>, nnz: u64, flags: DevPtr<u32>);
    /// Diagonal scaling: flags of the kept entries and their values.
    fn scale_flags(op: i32, by_rows: bool, d_vals: DevPtr<T>, d_pres: DevPtr<u32>,
        rowptr: DevPtr<u32>, nrows: u64, colidx: DevPtr<u32>, vals: DevPtr<T>, nnz: u64,
        flags: DevPtr<u32>, out_vals: DevPtr<T>);
    /// Flags of the entries outside an assigned region.
    fn region_flags(rowptr: DevPtr<u32>, nrows: u64, colidx: DevPtr<u32>, nnz: u64,
        row_in: DevPtr<u32>, col_in: DevPtr<u32>, flags: DevPtr<u32>);
    /// Keeps the flagged entries (`pos`: the scanned flags).
    fn csr_compact(rowptr: DevPtr<u32>, nrows: u64, colidx: DevPtr<u32>, vals: DevPtr<T>, nnz: u64,
        pos: DevPtr<u32>, out_rowptr: DevPtr<u32>, out_col: DevPtr<u32>, out_vals: DevPtr<T>);
    /// Entries per output row of a row/column map.
    fn map_count(a_rowptr: DevPtr<u32>, src_row: DevPtr<u32>, nrows_out: u64, a_col: DevPtr<u32>,
        map_ptr: DevPtr<u32>, counts: DevPtr<u32>);
    /// The entries of a row/column map.
    fn map_fill(a_rowptr: DevPtr<u32>, a_col: DevPtr<u32>, a_vals: DevPtr<T>, src_row: DevPtr<u32>,
        nrows_out: u64, map_ptr: DevPtr<u32>, map_k: DevPtr<u32>, rowptr: DevPtr<u32>,
        out_col: DevPtr<u32>, out_vals: DevPtr<T>);
    /// Entries per row of `C<mask> = accum(C, T)`.
    fn mat_write_count(c_rowptr: DevPtr<u32>, c_col: DevPtr<u32>, t_rowptr: DevPtr<u32>,
        t_col: DevPtr<u32>, m_rowptr: DevPtr<u32>, m_col: DevPtr<u32>, comp: bool, accum: i32,
        replace: bool, nrows: u64, counts: DevPtr<u32>);
    /// The entries of `C<mask> = accum(C, T)`.
    fn mat_write_fill(c_rowptr: DevPtr<u32>, c_col: DevPtr<u32>, c_vals: DevPtr<T>,
        t_rowptr: DevPtr<u32>, t_col: DevPtr<u32>, t_vals: DevPtr<T>, m_rowptr: DevPtr<u32>,
        m_col: DevPtr<u32>, comp: bool, accum: i32, replace: bool, nrows: u64, rowptr: DevPtr<u32>,
        out_col: DevPtr<u32>, out_vals: DevPtr<T>);
}
