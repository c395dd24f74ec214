//! The shared property suite (tests/common: generic over the backend, checked
//! against the sprs oracle) run on the CUDA backend, with poisoned device
//! buffers. Without a GPU every test prints SKIPPED (and fails with
//! `BITGRAPHBLAS_REQUIRE_GPU=1`).
//!
//! The properties walk every storage format in turn. Where the device has no
//! kernel (64x64 tiles, always the last format; an operation with no device
//! kernel at all, e.g. a sparse-result `mxm` on CSR) the property stops there: a case that stopped at 64x64
//! tiles has passed every other format and counts as passed; one that stopped
//! at the first format checked nothing and is discarded. Each test needs a
//! quarter of its cases to pass.
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

fn verdict(r: Result<(), String>) -> TestResult {
    match r {
        Ok(()) => TestResult::passed(),
        Err(e) if e.contains("no kernel") && e.contains("64x64") => TestResult::passed(),
        Err(e) if e.contains("no kernel") => TestResult::discard(),
        Err(e) => TestResult::error(e),
    }
}

fn gpu() -> Option<&'static CudaBackend> {
    cuda_or_skip("cuda_props")
}

macro_rules! mxv_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            if gpu().is_none() {
                return;
            }
            fn p(c: MxvCase<$t>) -> TestResult {
                verdict(prop_mxv::<CudaBackend, $s>(gpu().expect("checked"), &c))
            }
            qc(MXV_TESTS)
                .min_tests_passed(MXV_TESTS / 4)
                .quickcheck(p as fn(MxvCase<$t>) -> TestResult);
        }
    )*};
}

mxv_props! {
    mxv_lor_land_bool: LorLand, bool;
    mxv_any_pair_u32: AnyPair<u32>, u32;
    mxv_plus_times_i32: PlusTimes<i32>, i32;
    mxv_plus_times_f32: PlusTimes<f32>, f32;
    mxv_plus_pair_u32: PlusPair<u32>, u32;
    mxv_plus_pair_f64: PlusPair<f64>, f64;
    mxv_min_plus_i64: MinPlus<i64>, i64;
    mxv_min_plus_f32: MinPlus<f32>, f32;
    mxv_max_times_u32: MaxTimes<u32>, u32;
    mxv_max_times_f64: MaxTimes<f64>, f64;
    mxv_min_second_i32: MinSecond<i32>, i32;
    mxv_min_first_u64: MinFirst<u64>, u64;
    mxv_max_min_f64: MaxMin<f64>, f64;
}

/// `mxm_reduce` has a device kernel for every built-in semiring, format of
/// operands and mask (CSR dot products where the B2SR count does not apply):
/// only a complemented mask may answer "no kernel" (discarded), and 64x64
/// tiles (passed, as above).
fn reduce_verdict(r: Result<(), String>) -> TestResult {
    match r {
        Err(e) if e.contains("no kernel") && e.contains("complemented") => TestResult::discard(),
        Err(e) if e.contains("no kernel") && !e.contains("64x64") => TestResult::error(e),
        r => verdict(r),
    }
}

macro_rules! mxm_reduce_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            if gpu().is_none() {
                return;
            }
            fn p(c: MxmCase<$t>) -> TestResult {
                reduce_verdict(prop_mxm_reduce::<CudaBackend, $s>(gpu().expect("checked"), &c))
            }
            qc(MXM_TESTS)
                .min_tests_passed(MXM_TESTS / 4)
                .quickcheck(p as fn(MxmCase<$t>) -> TestResult);
        }
    )*};
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

macro_rules! user_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        mod $name {
            use super::*;
            #[test]
            fn mxv_vxm() {
                if gpu().is_none() {
                    return;
                }
                fn p(c: MxvCase<$t>) -> TestResult {
                    reduce_verdict(prop_mxv::<CudaBackend, $s>(gpu().expect("checked"), &c))
                }
                qc(MXV_TESTS)
                    .min_tests_passed(MXV_TESTS / 2)
                    .quickcheck(p as fn(MxvCase<$t>) -> TestResult);
            }
            #[test]
            fn mxm() {
                if gpu().is_none() {
                    return;
                }
                fn p(c: MxmCase<$t>) -> TestResult {
                    reduce_verdict(prop_mxm::<CudaBackend, $s>(gpu().expect("checked"), &c))
                }
                qc(MXM_TESTS)
                    .min_tests_passed(MXM_TESTS / 2)
                    .quickcheck(p as fn(MxmCase<$t>) -> TestResult);
            }
            #[test]
            fn mxm_reduce() {
                if gpu().is_none() {
                    return;
                }
                fn p(c: MxmCase<$t>) -> TestResult {
                    reduce_verdict(prop_mxm_reduce::<CudaBackend, $s>(gpu().expect("checked"), &c))
                }
                qc(MXM_TESTS)
                    .min_tests_passed(MXM_TESTS / 4)
                    .quickcheck(p as fn(MxmCase<$t>) -> TestResult);
            }
        }
    )*};
}

user_props! {
    user_min_minus_i32: MinMinusI32, i32;
    user_lxor_land: LxorLand, bool;
    // built-in operators in pairings that are not built in: no source needed
    user_plus_minus_i64: SemiringFrom<i64, Plus, Minus>, i64;
    user_min_first_f64: SemiringFrom<f64, Min, First>, f64;
}

/// `mxm` with a sparse result: the B2SR boolean product where it applies,
/// the CSR merge product for everything else (PLUS semirings, CSR operands
/// and masks, results with several values); no "no kernel" but 64x64 tiles.
macro_rules! mxm_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            if gpu().is_none() {
                return;
            }
            fn p(c: MxmCase<$t>) -> TestResult {
                reduce_verdict(prop_mxm::<CudaBackend, $s>(gpu().expect("checked"), &c))
            }
            qc(MXM_TESTS)
                .min_tests_passed(MXM_TESTS / 2)
                .quickcheck(p as fn(MxmCase<$t>) -> TestResult);
        }
    )*};
}

mxm_props! {
    mxm_lor_land: LorLand, bool;
    mxm_plus_times_i64: PlusTimes<i64>, i64;
    mxm_plus_times_f32: PlusTimes<f32>, f32;
    mxm_plus_pair_u32: PlusPair<u32>, u32;
    mxm_min_plus_u32: MinPlus<u32>, u32;
    mxm_min_second_i32: MinSecond<i32>, i32;
    mxm_max_min_f64: MaxMin<f64>, f64;
    mxm_any_pair_u64: AnyPair<u64>, u64;
}

mxm_reduce_props! {
    mxm_reduce_plus_pair_u64: PlusPair<u64>, u64;
    mxm_reduce_plus_times_i32: PlusTimes<i32>, i32;
    mxm_reduce_plus_times_f64: PlusTimes<f64>, f64;
    mxm_reduce_min_plus_i64: MinPlus<i64>, i64;
    mxm_reduce_max_times_u32: MaxTimes<u32>, u32;
    mxm_reduce_min_first_u32: MinFirst<u32>, u32;
    mxm_reduce_max_min_f32: MaxMin<f32>, f32;
    mxm_reduce_any_pair_u32: AnyPair<u32>, u32;
    mxm_reduce_lor_land: LorLand, bool;
}

macro_rules! vec_props {
    ($($name:ident: $t:ty => $prop:ident $(, $arg:expr)*;)*) => {$(
        #[test]
        fn $name() {
            if gpu().is_none() {
                return;
            }
            fn p(c: VecCase<$t>) -> TestResult {
                verdict($prop::<CudaBackend, $t, _>(gpu().expect("checked"), &c $(, $arg)*))
            }
            qc(VEC_TESTS)
                .min_tests_passed(VEC_TESTS / 4)
                .quickcheck(p as fn(VecCase<$t>) -> TestResult);
        }
    )*};
}

vec_props! {
    ewise_vector_i32_minus: i32 => prop_ewise_vector, Minus;
    ewise_vector_u32_min: u32 => prop_ewise_vector, Min;
    ewise_vector_f64_plus: f64 => prop_ewise_vector, Plus;
    ewise_vector_f32_div: f32 => prop_ewise_vector, Div;
    ewise_vector_bool_lxor: bool => prop_ewise_vector, Lxor;
    ewise_vector_i64_first: i64 => prop_ewise_vector, First;
    apply_vector_i32_ainv: i32 => prop_apply_vector, Ainv;
    apply_vector_f32_bind_second: f32 => prop_apply_vector, BindSecond(Times, 0.5f32);
    apply_vector_u64_bind_first: u64 => prop_apply_vector, BindFirst(Minus, 3u64);
    apply_vector_i64_abs: i64 => prop_apply_vector, Abs;
    reduce_vector_i32_plus: i32 => prop_reduce_vector, Plus;
    reduce_vector_f64_min: f64 => prop_reduce_vector, Min;
    reduce_vector_u64_times: u64 => prop_reduce_vector, Times;
}

macro_rules! vec_props_plain {
    ($($name:ident: $t:ty => $prop:ident;)*) => {$(
        #[test]
        fn $name() {
            if gpu().is_none() {
                return;
            }
            fn p(c: VecCase<$t>) -> TestResult {
                verdict($prop::<CudaBackend, $t>(gpu().expect("checked"), &c))
            }
            qc(VEC_TESTS)
                .min_tests_passed(VEC_TESTS / 4)
                .quickcheck(p as fn(VecCase<$t>) -> TestResult);
        }
    )*};
}

vec_props_plain! {
    select_vector_i32: i32 => prop_select_vector;
    select_vector_f64: f64 => prop_select_vector;
    extract_vector_i32: i32 => prop_extract_vector;
    extract_vector_f64: f64 => prop_extract_vector;
}
