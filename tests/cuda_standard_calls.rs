//! The GraphBLAS C API calls written on other entry points (row and column
//! extract and assign, scalar assign into a matrix, sub-assign, positional
//! apply, the COLLE/COLGT selects, reductions to an empty-able scalar)
//! through the CUDA backend: the properties of `tests/ops_standard_calls.rs`
//! (dense references, every mask kind, accumulator and replace, CSR and B2SR
//! at each tile size, empty and ragged shapes, out-of-range lines), and each
//! case's outputs equal to the CPU backend's on the same inputs. Bad input
//! must fail on the device too and change nothing.
//!
//! Without a GPU each test prints a SKIPPED line; with
//! `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::backend::cuda::cuda_or_skip;
use bitgraphblas::Cpu;
use common::gen::FORMATS;
use common::props_std::*;
use common::{compare, qc, verdict, TestScalar};
use quickcheck::TestResult;

const TESTS: u64 = 60;

/// The outputs of one property on the GPU and on the CPU, cell for cell.
fn same_as_cpu<T: TestScalar>(
    gpu: Result<Vec<Cells<T>>, String>,
    cpu: Result<Vec<Cells<T>>, String>,
) -> Result<(), String> {
    let (gpu, cpu) = (gpu?, cpu.map_err(|e| format!("cpu: {e}"))?);
    for (k, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
        compare(&format!("output {k}: cuda against cpu"), 1, c, g)?;
    }
    Ok(())
}

/// One quickcheck test per line: the property through the CUDA backend,
/// then against the CPU backend's outputs.
macro_rules! props {
    ($($name:ident: $case:ident<$t:ty> => $prop:ident;)*) => {$(
        #[test]
        fn $name() {
            if cuda_or_skip(stringify!($name)).is_none() {
                return;
            }
            fn p(c: $case<$t>) -> TestResult {
                let gpu = cuda_or_skip(stringify!($name)).expect("checked above");
                verdict(same_as_cpu($prop(gpu, &c), $prop(&Cpu::new(), &c)))
            }
            qc(TESTS).quickcheck(p as fn($case<$t>) -> TestResult);
        }
    )*};
}

props! {
    assign_line_i32: LineCase<i32> => prop_assign_line;
    assign_line_f32: LineCase<f32> => prop_assign_line;
    assign_line_bool: LineCase<bool> => prop_assign_line;
    extract_col_i32: ExtractColCase<i32> => prop_extract_col;
    extract_col_f64: ExtractColCase<f64> => prop_extract_col;
    extract_col_bool: ExtractColCase<bool> => prop_extract_col;
    scalar_matrix_u32: ScalarCase<u32> => prop_scalar_matrix;
    scalar_matrix_f32: ScalarCase<f32> => prop_scalar_matrix;
    scalar_matrix_bool: ScalarCase<bool> => prop_scalar_matrix;
    subassign_matrix_i32: SubCase<i32> => prop_subassign_matrix;
    subassign_matrix_f64: SubCase<f64> => prop_subassign_matrix;
    subassign_matrix_bool: SubCase<bool> => prop_subassign_matrix;
    subassign_vector_i64: SubVecCase<i64> => prop_subassign_vector;
    subassign_vector_f32: SubVecCase<f32> => prop_subassign_vector;
    subassign_vector_bool: SubVecCase<bool> => prop_subassign_vector;
    apply_index_i32: PosCase<i32> => prop_apply_index;
    apply_index_u64: PosCase<u64> => prop_apply_index;
    apply_index_f32: PosCase<f32> => prop_apply_index;
    apply_index_bool: PosCase<bool> => prop_apply_index;
    select_col_i32: PosCase<i32> => prop_select_col;
    select_col_f32: PosCase<f32> => prop_select_col;
    select_col_bool: PosCase<bool> => prop_select_col;
    reduce_scalar_i32: ScalarReduceCase<i32> => prop_reduce_scalar;
    reduce_scalar_f32: ScalarReduceCase<f32> => prop_reduce_scalar;
    reduce_scalar_bool: ScalarReduceCase<bool> => prop_reduce_scalar;
}

#[test]
fn bad_inputs_change_nothing() {
    let Some(gpu) = cuda_or_skip("bad_inputs_change_nothing") else {
        return;
    };
    for f in FORMATS {
        if let Err(e) = prop_bad_inputs(gpu, f) {
            panic!("{e}");
        }
    }
}
