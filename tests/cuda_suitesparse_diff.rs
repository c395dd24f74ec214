//! bitgraphblas on the CUDA backend against SuiteSparse:GraphBLAS (issue 21): the
//! cases of `tests/suitesparse_diff.rs` (operands uploaded, results downloaded),
//! in every matrix format. A result that differs fails, and so does an error:
//! every case has a device kernel (`Error::NoKernel` fails like a wrong answer).
//!
//! Without a GPU the test prints SKIPPED; with `BITGRAPHBLAS_REQUIRE_GPU=1` a
//! missing GPU fails instead.
#![cfg(feature = "cuda")]

mod suitesparse;

use bitgraphblas::backend::cuda::cuda_or_skip;

#[test]
fn cuda_agrees_with_suitesparse() {
    if let Some(gpu) = cuda_or_skip("cuda_agrees_with_suitesparse") {
        suitesparse::agree_with_suitesparse(gpu);
    }
}
