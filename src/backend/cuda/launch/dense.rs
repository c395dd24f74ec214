//! Typed launches of the dense-matrix modules: the products
//! `dense_mxm_<semiring>_<type>` (`cuda/dense_mxm.cu`) and the type-free
//! row kernels `dense_rows` (`cuda/dense_rows.cu`, `cuda/csr_counts.cu`).

/// `dense_mxm_<semiring>_<type>`: `C = A ⊕.⊗ B` on dense row-major matrices.
pub(crate) mod mxm {
    use super::super::super::device::DevPtr;
    use super::super::Sr;

    super::super::kernels! {
        { <T> (sr: Sr<T>) => sr.dense_mxm_id() }
        /// Blocks of 128 x 16 outputs (`n <= 16`), 256 threads.
        fn dense_mxm_n16(a: DevPtr<T>, b: DevPtr<T>, m: u64, k: u64, n: u64, c: DevPtr<T>);
        /// Blocks of 64 x 64 outputs, 256 threads.
        fn dense_mxm_n64(a: DevPtr<T>, b: DevPtr<T>, m: u64, k: u64, n: u64, c: DevPtr<T>);
    }
}

/// `dense_rows`: row reductions of `f32` matrices, a warp per row, and the
/// CSR product of `i32` counts.
pub(crate) mod rows {
    use super::super::super::device::{Arg, DevPtr};
    use super::super::super::kernels::ModuleId;
    use super::super::KernelArg;

    /// The arguments the CSR products of counts share (`cuda/csr_counts.cu`):
    /// CSR `A` (`vals` null: every entry `isobits`) with `m` rows, the
    /// `i32` counts `v` (`nf` columns) and their packed rows (`stride`
    /// words each; null where unused), `g` lanes a row, the factors `l`,
    /// `r`, `s` and the bias (null where absent), and the output `c`.
    #[derive(Clone, Copy)]
    pub(crate) struct CountsProduct {
        pub rowptr: DevPtr<u32>,
        pub colidx: DevPtr<u32>,
        pub vals: DevPtr<f32>,
        pub isobits: u64,
        pub m: u64,
        pub v: DevPtr<i32>,
        pub packed: DevPtr<u32>,
        pub stride: u64,
        pub nf: u64,
        pub g: u32,
        pub left: DevPtr<f32>,
        pub right: DevPtr<f32>,
        pub col: DevPtr<f32>,
        pub bias: DevPtr<f32>,
        pub c: DevPtr<f32>,
    }

    impl KernelArg for CountsProduct {
        fn push_to(self, args: &mut Vec<Arg>) {
            let p = self;
            (p.rowptr, p.colidx, p.vals, p.isobits, p.m).push_to(args);
            (p.v, p.packed, p.stride, p.nf, p.g).push_to(args);
            (p.left, p.right, p.col, p.bias, p.c).push_to(args);
        }
    }

    super::super::kernels! {
        { () => ModuleId::DenseRows }
        /// `out_i` = the column of row `i`'s largest value.
        fn dense_argmax_rows(a: DevPtr<f32>, m: u64, n: u64, out: DevPtr<u32>);
        /// `c = log_softmax(a)` along each row.
        fn dense_log_softmax_rows(a: DevPtr<f32>, m: u64, n: u64, c: DevPtr<f32>);
        /// Each row of the `k x nf` counts `v` as `stride` words: `r_j`
        /// (1 where `right` is null), its mode, its values a byte each.
        fn counts_pack(v: DevPtr<i32>, k: u64, nf: u64, right: DevPtr<f32>, stride: u64,
            packed: DevPtr<u32>);
        /// `c = ((l (A (r v))) s) + bias` ([`CountsProduct`]), `v` read
        /// directly, a column a lane; the `nlong` rows of `long_rows` (more
        /// than `long_min` entries) a block each for every 16 columns, in
        /// the grid's first blocks.
        fn csr_mxm_counts(p: CountsProduct, long_rows: DevPtr<u32>, nlong: u32, long_min: u32);
        /// The same, the other rows' `v` read from `packed` (`counts_pack`;
        /// `v` for the rows that did not fit), 16 columns a lane.
        fn csr_mxm_counts_packed(p: CountsProduct, long_rows: DevPtr<u32>, nlong: u32,
            long_min: u32);
        /// The same where `A` is an iso matrix of ones (`vals` null,
        /// `isobits` those of 1.0).
        fn csr_mxm_counts_packed_ones(p: CountsProduct, long_rows: DevPtr<u32>, nlong: u32,
            long_min: u32);
    }
}
