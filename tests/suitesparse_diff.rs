//! bitgraphblas against SuiteSparse:GraphBLAS on the CPU backend (issue 21): every
//! case of `tests/data/suitesparse-cases.jsonl.gz` (or of the file named by
//! `BITGRAPHBLAS_SUITESPARSE_CASES`), in every matrix format, must give
//! SuiteSparse's pattern and values; the known differences (`suitesparse::KNOWN`)
//! are counted, not failed. See `tests/suitesparse/mod.rs` and
//! `scripts/suitesparse-cases.py`.

mod suitesparse;

#[test]
fn cpu_agrees_with_suitesparse() {
    suitesparse::agree_with_suitesparse(&bitgraphblas::Cpu::new());
}
