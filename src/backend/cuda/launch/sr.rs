//! Typed launches of the semiring modules `sr_<semiring>_<type>`
//! (`cuda/sr.cu`): `mxv` on CSR (row groups, long-row chunks, row
//! blocks) and on B2SR (one launch for k <= 8, short rows and segments for
//! k >= 16), and B2SR times dense.

use super::super::device::{Dev, DevPtr};
use super::Sr;
use super::{NarrowCols, Segments, Tiles};
use crate::error::Result;
use crate::scalar::Scalar;

super::kernels! {
    { <T> (sr: Sr<T>) => sr.id() }
    /// `out = A ⊕.⊗ u` on CSR, a group of `2^vlog` lanes per row.
    fn csr_mxv(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, avals: DevPtr<T>, isobits: u64, nrows: u64,
        u_vals: DevPtr<T>, u_pres: DevPtr<u32>, allowed: DevPtr<u32>, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>, vlog: u32, long_min: u32, accum: i32);
    /// Partials of the chunks of long CSR rows.
    fn csr_mxv_long(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, avals: DevPtr<T>, isobits: u64,
        nrows: u64, nnz: u32, u_vals: DevPtr<T>, u_pres: DevPtr<u32>, allowed: DevPtr<u32>,
        long_min: u32, part_vals: DevPtr<T>, part_has: DevPtr<u8>);
    /// Folds the long rows' partials in order.
    fn csr_mxv_fix(rowptr: DevPtr<u32>, nrows: u64, long_min: u32, part_vals: DevPtr<T>,
        part_has: DevPtr<u8>, out_vals: DevPtr<T>, out_pres: DevPtr<u32>, accum: i32);
    /// The product by row blocks (whole rows staged in shared memory, hub
    /// rows in pieces), a block of 128 threads each.
    fn csr_mxv_blocks(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, avals: DevPtr<T>, isobits: u64,
        u_vals: DevPtr<T>, u_pres: DevPtr<u32>, allowed: DevPtr<u32>, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>, accum: i32, brow: DevPtr<u32>, bpiece: DevPtr<u32>,
        part_vals: DevPtr<T>, part_has: DevPtr<u8>, count: DevPtr<u32>, d_vals: DevPtr<T>,
        affine: bool, cbits: u64);
    /// Row `i`'s `⊕` over the masked dot products `A(i,:) ⊕.⊗ Bt(j,:)`, `(i, j)` in
    /// the mask's pattern, into `out_vals[i]` and presence bit `i`.
    fn csr_mxm_reduce_dot(m_rowptr: DevPtr<u32>, m_colidx: DevPtr<u32>, nrows: u64,
        a_rowptr: DevPtr<u32>, a_colidx: DevPtr<u32>, a_vals: DevPtr<T>, a_isobits: u64,
        b_rowptr: DevPtr<u32>, b_colidx: DevPtr<u32>, b_vals: DevPtr<T>, b_isobits: u64,
        out_vals: DevPtr<T>, out_pres: DevPtr<u32>);
    /// `C = A ⊕.⊗ B` on CSR, a thread per row merging rows of `B`: the
    /// entries per row (`c_rowptr` null; their sum into `total`), then the
    /// columns and values.
    fn csr_mxm_merge(a_rowptr: DevPtr<u32>, a_colidx: DevPtr<u32>, a_vals: DevPtr<T>, nrows: u64,
        b_rowptr: DevPtr<u32>, b_colidx: DevPtr<u32>, b_vals: DevPtr<T>, cursor: DevPtr<u32>,
        counts: DevPtr<u32>, total: DevPtr<u64>, c_rowptr: DevPtr<u32>, c_colidx: DevPtr<u32>,
        c_vals: DevPtr<T>);
    /// `C = diag(l) (A ⊕.⊗ (diag(r) B)) ⊕ bias` with `A` CSR and `B`, `C`
    /// dense row-major (`l`, `r`, `bias` null where absent; `vals` null:
    /// every entry holds the value `isobits`), a row's entries one after
    /// another.
    fn csr_mxm_dense(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, vals: DevPtr<T>, isobits: u64, nrows: u64,
        b: DevPtr<T>, nf: u64, left: DevPtr<T>, right: DevPtr<T>, bias: DevPtr<T>, c: DevPtr<T>);
    /// The same, a row's entries in rounds of 16 (short rows, few threads).
    fn csr_mxm_dense_rounds(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, vals: DevPtr<T>,
        isobits: u64, nrows: u64, b: DevPtr<T>, nf: u64, left: DevPtr<T>, right: DevPtr<T>, bias: DevPtr<T>,
        c: DevPtr<T>);
    /// The same in rounds, but the rows of more than `long_min` entries
    /// (`long_rows`, `nlong` of them) a block of 128 threads each for every
    /// 16 features (8 for 8-byte values), in the grid's first blocks.
    fn csr_mxm_dense_long(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, vals: DevPtr<T>, isobits: u64, nrows: u64,
        b: DevPtr<T>, nf: u64, left: DevPtr<T>, right: DevPtr<T>, bias: DevPtr<T>, c: DevPtr<T>,
        long_rows: DevPtr<u32>, nlong: u32, long_min: u32);
    /// `C = A ⊕.⊗ B` with `A` B2SR and `B`, `C` dense row-major.
    fn b2sr_mxm_dense[k](pattern: Tiles, nrows: u64, vbits: u64, b: DevPtr<T>, nfeat: u64,
        c: DevPtr<T>);
    /// The one-launch `mxv` on B2SR (k = 4, 8): segments, then short tile rows;
    /// 32-bit tile columns (`narrow` NULL).
    fn b2sr_mxv_fused[k](pattern: Tiles, narrow: NarrowCols, segments: Segments, tile_rows: u32,
        short_max: u32, llog: u32, nrows: u64, ulen: u64, vbits: u64, u_vals: DevPtr<T>,
        u_pres: DevPtr<u32>, allowed: DevPtr<u32>, out_vals: DevPtr<T>, out_pres: DevPtr<u32>,
        part_vals: DevPtr<T>, part_has: DevPtr<u32>, counter: DevPtr<u32>, accum: i32,
        d_vals: DevPtr<T>, affine: bool, cbits: u64);
    /// The same on 16-bit tile columns (`pattern.colidx` NULL).
    fn b2sr_mxv_fused_c16[k](pattern: Tiles, narrow: NarrowCols, segments: Segments,
        tile_rows: u32, short_max: u32, llog: u32, nrows: u64, ulen: u64, vbits: u64,
        u_vals: DevPtr<T>, u_pres: DevPtr<u32>, allowed: DevPtr<u32>, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>, part_vals: DevPtr<T>, part_has: DevPtr<u32>, counter: DevPtr<u32>,
        accum: i32, d_vals: DevPtr<T>, affine: bool, cbits: u64);
    /// The segments of long tile rows (k = 16, 32).
    fn b2sr_mxv[k](pattern: Tiles, segments: Segments, nrows: u64, vbits: u64, u_vals: DevPtr<T>,
        u_pres: DevPtr<u32>, allowed: DevPtr<u32>, out_vals: DevPtr<T>, out_pres: DevPtr<u32>,
        part_vals: DevPtr<T>, part_has: DevPtr<u8>);
    /// Folds the partials of split tile rows (k = 16, 32).
    fn b2sr_mxv_fix[k](split_rows: DevPtr<u32>, nsplit: u32, seg_off: DevPtr<u32>, nrows: u64,
        part_vals: DevPtr<T>, part_has: DevPtr<u8>, out_vals: DevPtr<T>, out_pres: DevPtr<u32>);
    /// The short tile rows, k lanes each (k = 16, 32).
    fn b2sr_mxv_short[k](pattern: Tiles, tile_rows: u32, short_max: u32, nrows: u64, ulen: u64,
        vbits: u64, u_vals: DevPtr<T>, u_pres: DevPtr<u32>, allowed: DevPtr<u32>,
        out_vals: DevPtr<T>, out_pres: DevPtr<u32>);
}

/// Blocks of `block` threads of `b2sr_mxv_fused` (tile size `k`; on 16-bit
/// tile columns with `narrow`) resident on one multiprocessor, `None` where
/// the driver cannot say.
pub(crate) fn b2sr_mxv_fused_per_sm<T: Scalar>(
    dev: &Dev,
    sr: Sr<T>,
    k: usize,
    narrow: bool,
    block: u32,
) -> Result<Option<u32>> {
    let entry = if narrow {
        Entry::b2sr_mxv_fused_c16
    } else {
        Entry::b2sr_mxv_fused
    };
    let f = dev.func(sr.id(), entry.name(), Some(k))?;
    Ok(
        f.occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .ok(),
    )
}
