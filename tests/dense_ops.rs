//! The dense-matrix operations on the CPU against plain references
//! (`tests/common/dense.rs`), over random awkward shapes.

#[path = "common/dense.rs"]
mod dense;

use bitgraphblas::Cpu;
use quickcheck::{QuickCheck, TestResult};

#[test]
fn dense_ops_match_the_reference() {
    fn prop(seed: u64) -> TestResult {
        match dense::check_case(&Cpu::new(), seed) {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(u64) -> TestResult);
}

#[test]
fn bad_shapes_are_errors_and_change_nothing() {
    dense::check_bad_shapes(&Cpu::new());
}
