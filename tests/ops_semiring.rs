//! mxv, vxm, mxm, mxm_reduce and mxm_dense on the CPU backend against the sprs
//! oracle, for every built-in semiring at a couple of element types, every mask
//! kind, with and without accumulator and replace, every tile size and CSR; and
//! a user semiring on `MINUS`, which (like `MIN.FIRST` and `MIN.SECOND`) tells
//! the multiply's operands apart.

mod common;

use bitgraphblas::algebra::{
    AnyPair, LorLand, MaxMin, MaxTimes, MinFirst, MinPlus, MinSecond, Minus, Plus, PlusPair,
    PlusTimes, SemiringFrom,
};
use bitgraphblas::Cpu;
use common::props::{
    prop_mxm, prop_mxm_dense, prop_mxm_reduce, prop_mxv, DenseCase, MxmCase, MxvCase,
};
use common::{qc, verdict};
use quickcheck::TestResult;

const MXV_TESTS: u64 = 300;
const MXM_TESTS: u64 = 120;

macro_rules! semiring_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        mod $name {
            use super::*;
            #[test]
            fn mxv_vxm() {
                fn p(c: MxvCase<$t>) -> TestResult {
                    verdict(prop_mxv::<Cpu, $s>(&Cpu::new(), &c))
                }
                qc(MXV_TESTS).quickcheck(p as fn(MxvCase<$t>) -> TestResult);
            }
            #[test]
            fn mxm() {
                fn p(c: MxmCase<$t>) -> TestResult {
                    verdict(prop_mxm::<Cpu, $s>(&Cpu::new(), &c))
                }
                qc(MXM_TESTS).quickcheck(p as fn(MxmCase<$t>) -> TestResult);
            }
            #[test]
            fn mxm_reduce() {
                fn p(c: MxmCase<$t>) -> TestResult {
                    verdict(prop_mxm_reduce::<Cpu, $s>(&Cpu::new(), &c))
                }
                qc(MXM_TESTS).quickcheck(p as fn(MxmCase<$t>) -> TestResult);
            }
            #[test]
            fn mxm_dense() {
                fn p(c: DenseCase<$t>) -> TestResult {
                    verdict(prop_mxm_dense::<Cpu, $s>(&Cpu::new(), &c))
                }
                qc(MXM_TESTS).quickcheck(p as fn(DenseCase<$t>) -> TestResult);
            }
        }
    )*};
}

semiring_props! {
    lor_land_bool: LorLand, bool;
    any_pair_bool: AnyPair<bool>, bool;
    any_pair_u32: AnyPair<u32>, u32;
    plus_times_i32: PlusTimes<i32>, i32;
    plus_times_u64: PlusTimes<u64>, u64;
    plus_times_f32: PlusTimes<f32>, f32;
    plus_times_f64: PlusTimes<f64>, f64;
    plus_pair_u32: PlusPair<u32>, u32;
    plus_pair_f64: PlusPair<f64>, f64;
    min_plus_i64: MinPlus<i64>, i64;
    min_plus_f32: MinPlus<f32>, f32;
    max_times_u32: MaxTimes<u32>, u32;
    max_times_f64: MaxTimes<f64>, f64;
    min_second_i32: MinSecond<i32>, i32;
    min_second_f32: MinSecond<f32>, f32;
    min_first_u64: MinFirst<u64>, u64;
    min_first_f64: MinFirst<f64>, f64;
    plus_minus_i64: SemiringFrom<i64, Plus, Minus>, i64;
    max_min_i32: MaxMin<i32>, i32;
    max_min_f64: MaxMin<f64>, f64;
}
