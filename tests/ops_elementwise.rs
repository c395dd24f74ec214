//! Element-wise, structural and scaling operations on the CPU backend against
//! dense specs: every mask kind, accumulator and replace, inputs in every
//! matrix format (CSR, B2SR at each tile size) and vector format.

mod common;

use bitgraphblas::algebra::{
    Abs, Ainv, BindFirst, BindSecond, Div, First, Land, Lnot, Lor, Lxor, Max, Min, Minus, One,
    Plus, Second, Times,
};
use bitgraphblas::Cpu;
use common::props::DenseCase;
use common::props_elem::*;
use common::{qc, verdict};
use quickcheck::TestResult;

const VEC_TESTS: u64 = 300;
const MAT_TESTS: u64 = 100;

/// One quickcheck test per line: `name: Case<T> => property(&Cpu, &case, extra...)`.
macro_rules! props {
    ($($name:ident: $case:ident<$t:ty>, $n:expr => $prop:ident $(, $arg:expr)*;)*) => {$(
        #[test]
        fn $name() {
            fn p(c: $case<$t>) -> TestResult {
                verdict($prop::<Cpu, $t, _>(&Cpu::new(), &c $(, $arg)*))
            }
            qc($n).quickcheck(p as fn($case<$t>) -> TestResult);
        }
    )*};
}
macro_rules! props_plain {
    ($($name:ident: $case:ident<$t:ty>, $n:expr => $prop:ident;)*) => {$(
        #[test]
        fn $name() {
            fn p(c: $case<$t>) -> TestResult {
                verdict($prop::<Cpu, $t>(&Cpu::new(), &c))
            }
            qc($n).quickcheck(p as fn($case<$t>) -> TestResult);
        }
    )*};
}

props! {
    ewise_vector_i32_minus: VecCase<i32>, VEC_TESTS => prop_ewise_vector, Minus;
    ewise_vector_u32_min: VecCase<u32>, VEC_TESTS => prop_ewise_vector, Min;
    ewise_vector_f64_plus: VecCase<f64>, VEC_TESTS => prop_ewise_vector, Plus;
    ewise_vector_f32_div: VecCase<f32>, VEC_TESTS => prop_ewise_vector, Div;
    ewise_vector_bool_lxor: VecCase<bool>, VEC_TESTS => prop_ewise_vector, Lxor;
    ewise_vector_i64_first: VecCase<i64>, VEC_TESTS => prop_ewise_vector, First;
    ewise_matrix_i32_minus: MatCase<i32>, MAT_TESTS => prop_ewise_matrix, Minus;
    ewise_matrix_f64_times: MatCase<f64>, MAT_TESTS => prop_ewise_matrix, Times;
    ewise_matrix_bool_land: MatCase<bool>, MAT_TESTS => prop_ewise_matrix, Land;
    ewise_matrix_u64_second: MatCase<u64>, MAT_TESTS => prop_ewise_matrix, Second;
    apply_vector_i32_ainv: VecCase<i32>, VEC_TESTS => prop_apply_vector, Ainv;
    apply_vector_f32_bind_second: VecCase<f32>, VEC_TESTS => prop_apply_vector, BindSecond(Times, 0.5f32);
    apply_vector_u64_bind_first: VecCase<u64>, VEC_TESTS => prop_apply_vector, BindFirst(Minus, 3u64);
    apply_vector_bool_lnot: VecCase<bool>, VEC_TESTS => prop_apply_vector, Lnot;
    apply_matrix_i64_abs: MatCase<i64>, MAT_TESTS => prop_apply_matrix, Abs;
    apply_matrix_f64_one: MatCase<f64>, MAT_TESTS => prop_apply_matrix, One;
    apply_matrix_u32_bind_second: MatCase<u32>, MAT_TESTS => prop_apply_matrix, BindSecond(Max, 5u32);
    reduce_vector_i32_plus: VecCase<i32>, VEC_TESTS => prop_reduce_vector, Plus;
    reduce_vector_f64_min: VecCase<f64>, VEC_TESTS => prop_reduce_vector, Min;
    reduce_vector_bool_lor: VecCase<bool>, VEC_TESTS => prop_reduce_vector, Lor;
    reduce_vector_u64_times: VecCase<u64>, VEC_TESTS => prop_reduce_vector, Times;
    reduce_i32_plus: MatCase<i32>, MAT_TESTS => prop_reduce, Plus;
    reduce_f32_max: MatCase<f32>, MAT_TESTS => prop_reduce, Max;
    reduce_bool_lor: MatCase<bool>, MAT_TESTS => prop_reduce, Lor;
    reduce_u64_min: MatCase<u64>, MAT_TESTS => prop_reduce, Min;
    scale_i32_times: MatCase<i32>, MAT_TESTS => prop_scale, Times;
    scale_f64_minus: MatCase<f64>, MAT_TESTS => prop_scale, Minus;
    scale_bool_land: MatCase<bool>, MAT_TESTS => prop_scale, Land;
    scale_dense_rows_f32_times: DenseCase<f32>, MAT_TESTS => prop_scale_dense_rows, Times;
    scale_dense_rows_i32_minus: DenseCase<i32>, MAT_TESTS => prop_scale_dense_rows, Minus;
}

props_plain! {
    select_vector_i32: VecCase<i32>, VEC_TESTS => prop_select_vector;
    select_vector_f64: VecCase<f64>, VEC_TESTS => prop_select_vector;
    select_vector_bool: VecCase<bool>, VEC_TESTS => prop_select_vector;
    select_matrix_i32: MatCase<i32>, MAT_TESTS => prop_select_matrix;
    select_matrix_f32: MatCase<f32>, MAT_TESTS => prop_select_matrix;
    select_matrix_bool: MatCase<bool>, MAT_TESTS => prop_select_matrix;
    extract_vector_i32: VecCase<i32>, VEC_TESTS => prop_extract_vector;
    extract_vector_f64: VecCase<f64>, VEC_TESTS => prop_extract_vector;
    extract_matrix_i32: MatCase<i32>, MAT_TESTS => prop_extract_matrix;
    extract_matrix_bool: MatCase<bool>, MAT_TESTS => prop_extract_matrix;
    assign_vector_i32: VecCase<i32>, VEC_TESTS => prop_assign_vector;
    assign_vector_f32: VecCase<f32>, VEC_TESTS => prop_assign_vector;
    assign_scalar_u32: VecCase<u32>, VEC_TESTS => prop_assign_scalar;
    assign_scalar_bool: VecCase<bool>, VEC_TESTS => prop_assign_scalar;
    assign_matrix_i32: MatCase<i32>, MAT_TESTS => prop_assign_matrix;
    assign_matrix_f64: MatCase<f64>, MAT_TESTS => prop_assign_matrix;
    transpose_i32: MatCase<i32>, MAT_TESTS => prop_transpose;
    transpose_bool: MatCase<bool>, MAT_TESTS => prop_transpose;
}
