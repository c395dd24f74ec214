//! The dense-matrix operations on the CUDA backend against the same plain
//! references as the CPU's (`tests/common/dense.rs`; exact: the inputs are
//! dyadic), outputs poisoned. Without a GPU: SKIPPED (fails with
//! `BITGRAPHBLAS_REQUIRE_GPU=1`).
#![cfg(feature = "cuda")]

#[path = "common/dense.rs"]
mod dense;

use bitgraphblas::backend::cuda::cuda_or_skip;

#[test]
fn dense_ops_on_the_gpu_match_the_reference() {
    let Some(g) = cuda_or_skip("dense_ops_on_the_gpu_match_the_reference") else {
        return;
    };
    for seed in 0..200u64 {
        if let Err(e) = dense::check_case(g, seed) {
            panic!("{e}");
        }
    }
}

#[test]
fn bad_shapes_on_the_gpu_are_errors_and_change_nothing() {
    let Some(g) = cuda_or_skip("bad_shapes_on_the_gpu") else {
        return;
    };
    dense::check_bad_shapes(g);
}
