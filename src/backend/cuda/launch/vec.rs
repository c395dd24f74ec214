//! Typed launches of the element-wise modules `vec_<type>` (`cuda/vec.cu`).

use super::super::device::DevPtr;
use super::super::kernels::ModuleId;

super::kernels! {
    { <T> () => ModuleId::Vec(T::TYPE) }
    /// `vals[i] = vbits` for `i < n`.
    fn vec_fill(vals: DevPtr<T>, n: u64, vbits: u64);
    /// The positions a vector mask allows, as bits.
    fn vec_mask(vals: DevPtr<T>, pres: DevPtr<u32>, n: u64, structural: bool, comp: bool,
        out: DevPtr<u32>);
    /// `w<allowed> = accum(w, t)` with replace, dense with presence bits.
    fn vec_writeback(t_vals: DevPtr<T>, t_pres: DevPtr<u32>, w_vals: DevPtr<T>, w_pres: DevPtr<u32>,
        allowed: DevPtr<u32>, accum: i32, replace: bool, n: u64, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
    /// Element-wise union, intersection or union with fill values.
    fn vec_ewise(kind: i32, op: i32, abits: u64, bbits: u64, u_vals: DevPtr<T>, u_pres: DevPtr<u32>,
        v_vals: DevPtr<T>, v_pres: DevPtr<u32>, n: u64, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
    /// A built-in unary operator on `n` values.
    fn vec_apply(code: i32, sbits: u64, u_vals: DevPtr<T>, n: u64, out_vals: DevPtr<T>);
    /// The entries a built-in predicate keeps.
    fn vec_select(code: i32, k: i64, tbits: u64, u_vals: DevPtr<T>, u_pres: DevPtr<u32>, n: u64,
        out_vals: DevPtr<T>, out_pres: DevPtr<u32>);
    /// One partial reduction per block.
    fn vec_reduce(op: i32, vals: DevPtr<T>, pres: DevPtr<u32>, n: u64, partials: DevPtr<T>,
        part_pres: DevPtr<u32>);
    /// `s ⊙ f` at the sparse operand's entries (`swap`: `f ⊙ s`).
    fn vec_ewise_gather(op: i32, swap: bool, s_idx: DevPtr<u32>, s_vals: DevPtr<T>, nnz: u64,
        f_vals: DevPtr<T>, out_vals: DevPtr<T>);
    /// Ones where the bits are set.
    fn bits_to_vals(bits: DevPtr<u32>, n: u64, vals: DevPtr<T>);
    /// Present values other than `xbits`, counted into `bad`.
    fn count_ne(vals: DevPtr<T>, pres: DevPtr<u32>, n: u64, xbits: u64, bad: DevPtr<u64>);
    /// Dense to sparse at the scanned positions `pos`.
    fn vec_compact(vals: DevPtr<T>, pres: DevPtr<u32>, pos: DevPtr<u32>, n: u64,
        out_idx: DevPtr<u32>, out_vals: DevPtr<T>);
    /// Sparse entries into dense values and presence bits.
    fn sparse_scatter(idx: DevPtr<u32>, svals: DevPtr<T>, nnz: u64, vals: DevPtr<T>,
        pres: DevPtr<u32>);
    /// `out = u(idx)`.
    fn vec_gather(u_vals: DevPtr<T>, u_pres: DevPtr<u32>, idx: DevPtr<u32>, m: u64,
        out_vals: DevPtr<T>, out_pres: DevPtr<u32>);
    /// `z(idx) = accum(z(idx), u or the scalar)`.
    fn vec_scatter(u_vals: DevPtr<T>, u_pres: DevPtr<u32>, scalar_bits: u64, use_scalar: bool,
        idx: DevPtr<u32>, m: u64, accum: i32, z_vals: DevPtr<T>, z_pres: DevPtr<u32>);
    /// `w<mask> = accum(w, scalar)` at every index, in place.
    fn vec_assign_all(sbits: u64, mask: DevPtr<u32>, comp: bool, accum: i32, replace: bool, n: u64,
        vals: DevPtr<T>, pres: DevPtr<u32>);
    /// Row reductions of an iso-valued matrix from its row lengths.
    fn reduce_rows_iso(op: i32, vbits: u64, lens: DevPtr<u32>, n: u64, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
    /// Row reductions of CSR values.
    fn reduce_rows_csr(op: i32, rowptr: DevPtr<u32>, avals: DevPtr<T>, n: u64, out_vals: DevPtr<T>,
        out_pres: DevPtr<u32>);
    /// `c_ij = op(d_i, b_ij)` (`rows`) or `op(b_ij, d_j)` on a dense row-major
    /// matrix (`b_ij` where `d`'s entry is absent).
    fn scale_dense(op: i32, rows: bool, d_vals: DevPtr<T>, d_pres: DevPtr<u32>, b: DevPtr<T>,
        nrows: u64, ncols: u64, c: DevPtr<T>);
    /// `c = op(c, t)` element by element.
    fn dense_accum(op: i32, t: DevPtr<T>, n: u64, c: DevPtr<T>);
}
