//! Typed launches of the dense-matrix modules: the products
//! `dense_mxm_<semiring>_<type>` (`cuda/dense_mxm.cu`) and the type-free
//! row reductions `dense_rows` (`cuda/dense_rows.cu`).

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

/// `dense_rows`: row reductions of `f32` matrices, a warp per row.
pub(crate) mod rows {
    use super::super::super::device::DevPtr;
    use super::super::super::kernels::ModuleId;

    super::super::kernels! {
        { () => ModuleId::DenseRows }
        /// `out_i` = the column of row `i`'s largest value.
        fn dense_argmax_rows(a: DevPtr<f32>, m: u64, n: u64, out: DevPtr<u32>);
        /// `c = log_softmax(a)` along each row.
        fn dense_log_softmax_rows(a: DevPtr<f32>, m: u64, n: u64, c: DevPtr<f32>);
    }
}
