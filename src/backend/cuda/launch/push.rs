//! Typed launches of the push-product modules `push_<semiring>_<type>`
//! (`cuda/push.cu`): `A' ⊕.⊗ u` scattered from `u`'s entries.

use super::super::device::DevPtr;
use super::Push;
use super::{Segments, Tiles};

super::kernels! {
    { <T> (push: Push<T>) => push.id() }
    /// The push product on CSR, a lane per row of `A` in `u`'s words
    /// (`avals` NULL: every entry holds the value `isobits`).
    fn csr_push(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, avals: DevPtr<T>, isobits: u64, nrows: u64,
        u_vals: DevPtr<T>, u_pres: DevPtr<u32>, mask: DevPtr<u32>, mode: i32, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
    /// The push product on B2SR, short tile rows.
    fn b2sr_push[k](pattern: Tiles, nrows: u64, tile_rows: u32, short_max: u32, vbits: u64,
        u_vals: DevPtr<T>, u_pres: DevPtr<u32>, mask: DevPtr<u32>, mode: i32, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
    /// The push product on B2SR, the segments of long tile rows.
    fn b2sr_push_seg[k](pattern: Tiles, segments: Segments, nrows: u64, vbits: u64,
        u_vals: DevPtr<T>, u_pres: DevPtr<u32>, mask: DevPtr<u32>, mode: i32, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
}
