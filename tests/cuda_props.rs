//! The shared property suite (tests/common: generic over the backend, checked
//! against the sprs oracle) run on the CUDA backend, with poisoned device
//! buffers. Without a GPU every test prints SKIPPED (and fails with
//! `BITGRAPHBLAS_REQUIRE_GPU=1`).
//!
//! The properties walk every storage format (64x64 tiles are held on the
//! device as 32x32 tiles). Every operation has a device kernel for every
//! format, mask and semiring here, so any error, `NoKernel` included, fails.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{
    Abs, Ainv, AnyPair, BindFirst, BindSecond, DeviceOps, Div, First, Land, LorLand, Lxor, MaxMin,
    MaxTimes, Min, MinFirst, MinPlus, MinSecond, Minus, Plus, PlusPair, PlusTimes, Semiring,
    SemiringFrom, Times,
};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use common::props::{prop_mxm, prop_mxm_reduce, prop_mxv, MxmCase, MxvCase};
use common::props_elem::*;
use common::qc;
use quickcheck::TestResult;

const MXV_TESTS: u64 = 150;
const VEC_TESTS: u64 = 150;
const MXM_TESTS: u64 = 80;

fn gpu() -> Option<&'static CudaBackend> {
    cuda_or_skip("cuda_props")
}

/// One quickcheck test per line, `name: Case<T> => prop::<generics>(extra args)`,
/// the property run on the device with `tests` cases (a quarter must pass).
macro_rules! props {
    ($tests:expr; $($name:ident: $case:ident<$t:ty> => $prop:ident::<$($g:ty),+>($($arg:expr),*);)*) => {$(
        #[test]
        fn $name() {
            if gpu().is_none() {
                return;
            }
            fn p(c: $case<$t>) -> TestResult {
                match $prop::<CudaBackend, $($g),+>(gpu().expect("checked"), &c $(, $arg)*) {
                    Ok(()) => TestResult::passed(),
                    Err(e) => TestResult::error(e),
                }
            }
            qc($tests)
                .min_tests_passed($tests / 4)
                .quickcheck(p as fn($case<$t>) -> TestResult);
        }
    )*};
}

props! { MXV_TESTS;
    mxv_lor_land_bool: MxvCase<bool> => prop_mxv::<LorLand>();
    mxv_any_pair_u32: MxvCase<u32> => prop_mxv::<AnyPair<u32>>();
    mxv_plus_times_i32: MxvCase<i32> => prop_mxv::<PlusTimes<i32>>();
    mxv_plus_times_f32: MxvCase<f32> => prop_mxv::<PlusTimes<f32>>();
    mxv_plus_pair_u32: MxvCase<u32> => prop_mxv::<PlusPair<u32>>();
    mxv_plus_pair_f64: MxvCase<f64> => prop_mxv::<PlusPair<f64>>();
    mxv_min_plus_i64: MxvCase<i64> => prop_mxv::<MinPlus<i64>>();
    mxv_min_plus_f32: MxvCase<f32> => prop_mxv::<MinPlus<f32>>();
    mxv_max_times_u32: MxvCase<u32> => prop_mxv::<MaxTimes<u32>>();
    mxv_max_times_f64: MxvCase<f64> => prop_mxv::<MaxTimes<f64>>();
    mxv_min_second_i32: MxvCase<i32> => prop_mxv::<MinSecond<i32>>();
    mxv_min_first_u64: MxvCase<u64> => prop_mxv::<MinFirst<u64>>();
    mxv_max_min_f64: MxvCase<f64> => prop_mxv::<MaxMin<f64>>();
}

// `mxm` with a sparse result: the B2SR boolean product where it applies, the
// CSR merge product for everything else (PLUS semirings, CSR operands and
// masks, results with several values).
props! { MXM_TESTS;
    mxm_lor_land: MxmCase<bool> => prop_mxm::<LorLand>();
    mxm_plus_times_i64: MxmCase<i64> => prop_mxm::<PlusTimes<i64>>();
    mxm_plus_times_f32: MxmCase<f32> => prop_mxm::<PlusTimes<f32>>();
    mxm_plus_pair_u32: MxmCase<u32> => prop_mxm::<PlusPair<u32>>();
    mxm_min_plus_u32: MxmCase<u32> => prop_mxm::<MinPlus<u32>>();
    mxm_min_second_i32: MxmCase<i32> => prop_mxm::<MinSecond<i32>>();
    mxm_max_min_f64: MxmCase<f64> => prop_mxm::<MaxMin<f64>>();
    mxm_any_pair_u64: MxmCase<u64> => prop_mxm::<AnyPair<u64>>();
}

// `mxm_reduce`: B2SR counts for PLUS.PAIR / PLUS.TIMES on B2SR operands and
// masks, CSR dot products otherwise, the formed product under a complemented mask.
props! { MXM_TESTS;
    mxm_reduce_plus_pair_u64: MxmCase<u64> => prop_mxm_reduce::<PlusPair<u64>>();
    mxm_reduce_plus_times_i32: MxmCase<i32> => prop_mxm_reduce::<PlusTimes<i32>>();
    mxm_reduce_plus_times_f64: MxmCase<f64> => prop_mxm_reduce::<PlusTimes<f64>>();
    mxm_reduce_min_plus_i64: MxmCase<i64> => prop_mxm_reduce::<MinPlus<i64>>();
    mxm_reduce_max_times_u32: MxmCase<u32> => prop_mxm_reduce::<MaxTimes<u32>>();
    mxm_reduce_min_first_u32: MxmCase<u32> => prop_mxm_reduce::<MinFirst<u32>>();
    mxm_reduce_max_min_f32: MxmCase<f32> => prop_mxm_reduce::<MaxMin<f32>>();
    mxm_reduce_any_pair_u32: MxmCase<u32> => prop_mxm_reduce::<AnyPair<u32>>();
    mxm_reduce_lor_land: MxmCase<bool> => prop_mxm_reduce::<LorLand>();
}

/// User semirings with their operators as CUDA source, compiled into the
/// built-in templates: a non-commutative `⊗` (so `vxm`'s operand order
/// shows), and a boolean `⊕` other than OR (the byte-wide atomic fold).
#[derive(Clone, Copy, Debug, Default)]
struct MinMinusI32;

impl Semiring for MinMinusI32 {
    type T = i32;
    type Add = Min;
    type Mul = Minus;
    const NAME: &'static str = "min_minus_i32";
    fn add_op(&self) -> Min {
        Min
    }
    fn mul_op(&self) -> Minus {
        Minus
    }
    fn device_ops(&self) -> Option<DeviceOps> {
        Some(DeviceOps::new("x < y ? x : y", "x - y", "2147483647"))
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct LxorLand;

impl Semiring for LxorLand {
    type T = bool;
    type Add = Lxor;
    type Mul = Land;
    const NAME: &'static str = "lxor_land";
    fn add_op(&self) -> Lxor {
        Lxor
    }
    fn mul_op(&self) -> Land {
        Land
    }
    fn device_ops(&self) -> Option<DeviceOps> {
        Some(DeviceOps::new("x != y", "x && y", "false"))
    }
}

// User semirings: compiled from their CUDA source, or from the built-in
// operators of a pairing that is not built in (no source needed).
props! { MXV_TESTS;
    user_min_minus_i32_mxv_vxm: MxvCase<i32> => prop_mxv::<MinMinusI32>();
    user_lxor_land_mxv_vxm: MxvCase<bool> => prop_mxv::<LxorLand>();
    user_plus_minus_i64_mxv_vxm: MxvCase<i64> => prop_mxv::<SemiringFrom<i64, Plus, Minus>>();
    user_min_first_f64_mxv_vxm: MxvCase<f64> => prop_mxv::<SemiringFrom<f64, Min, First>>();
}

props! { MXM_TESTS;
    user_min_minus_i32_mxm: MxmCase<i32> => prop_mxm::<MinMinusI32>();
    user_lxor_land_mxm: MxmCase<bool> => prop_mxm::<LxorLand>();
    user_plus_minus_i64_mxm: MxmCase<i64> => prop_mxm::<SemiringFrom<i64, Plus, Minus>>();
    user_min_first_f64_mxm: MxmCase<f64> => prop_mxm::<SemiringFrom<f64, Min, First>>();
    user_min_minus_i32_mxm_reduce: MxmCase<i32> => prop_mxm_reduce::<MinMinusI32>();
    user_lxor_land_mxm_reduce: MxmCase<bool> => prop_mxm_reduce::<LxorLand>();
    user_plus_minus_i64_mxm_reduce: MxmCase<i64> => prop_mxm_reduce::<SemiringFrom<i64, Plus, Minus>>();
    user_min_first_f64_mxm_reduce: MxmCase<f64> => prop_mxm_reduce::<SemiringFrom<f64, Min, First>>();
}

props! { VEC_TESTS;
    ewise_vector_i32_minus: VecCase<i32> => prop_ewise_vector::<i32, _>(Minus);
    ewise_vector_u32_min: VecCase<u32> => prop_ewise_vector::<u32, _>(Min);
    ewise_vector_f64_plus: VecCase<f64> => prop_ewise_vector::<f64, _>(Plus);
    ewise_vector_f32_div: VecCase<f32> => prop_ewise_vector::<f32, _>(Div);
    ewise_vector_bool_lxor: VecCase<bool> => prop_ewise_vector::<bool, _>(Lxor);
    ewise_vector_i64_first: VecCase<i64> => prop_ewise_vector::<i64, _>(First);
    apply_vector_i32_ainv: VecCase<i32> => prop_apply_vector::<i32, _>(Ainv);
    apply_vector_f32_bind_second: VecCase<f32> => prop_apply_vector::<f32, _>(BindSecond(Times, 0.5f32));
    apply_vector_u64_bind_first: VecCase<u64> => prop_apply_vector::<u64, _>(BindFirst(Minus, 3u64));
    apply_vector_i64_abs: VecCase<i64> => prop_apply_vector::<i64, _>(Abs);
    reduce_vector_i32_plus: VecCase<i32> => prop_reduce_vector::<i32, _>(Plus);
    reduce_vector_f64_min: VecCase<f64> => prop_reduce_vector::<f64, _>(Min);
    reduce_vector_u64_times: VecCase<u64> => prop_reduce_vector::<u64, _>(Times);
    select_vector_i32: VecCase<i32> => prop_select_vector::<i32>();
    select_vector_f64: VecCase<f64> => prop_select_vector::<f64>();
    extract_vector_i32: VecCase<i32> => prop_extract_vector::<i32>();
    extract_vector_f64: VecCase<f64> => prop_extract_vector::<f64>();
}
