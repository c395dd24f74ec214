//! `ext::mxm_dense_scaled` (`C = diag(l) (A ⊕.⊗ (diag(r) B)) diag(s) ⊕
//! bias`) on the CPU backend against a plain reference (the sprs product
//! between the scalings, the bias last), for several built-in semirings,
//! every tile size and CSR, random shapes off the tile grid with empty rows,
//! each vector absent, full or partial; `ext::mxm_counts_scaled` (the same
//! product of `i32` counts read as `f32`) against the same reference and
//! bit for bit against `mxm_dense_scaled` of the converted counts; and their
//! argument checks (an `Err`, the output unchanged).

mod common;

use bitgraphblas::algebra::{MinPlus, PlusTimes};
use bitgraphblas::ext::{self, DenseScales};
use bitgraphblas::{Cpu, DenseMatrix, Error, Matrix, Vector};
use common::props::{prop_mxm_counts_scaled, prop_mxm_dense_scaled, CountsCase, ScaledCase};
use common::{qc, verdict};
use quickcheck::TestResult;

const TESTS: u64 = 300;

macro_rules! scaled_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            fn p(c: ScaledCase<$t>) -> TestResult {
                verdict(prop_mxm_dense_scaled::<Cpu, $s>(&Cpu::new(), &c))
            }
            qc(TESTS).quickcheck(p as fn(ScaledCase<$t>) -> TestResult);
        }
    )*};
}

scaled_props! {
    plus_times_f32: PlusTimes<f32>, f32;
    plus_times_f64: PlusTimes<f64>, f64;
    plus_times_i32: PlusTimes<i32>, i32;
    min_plus_f32: MinPlus<f32>, f32;
}

#[test]
fn counts_read_as_f32() {
    fn p(c: CountsCase) -> TestResult {
        verdict(prop_mxm_counts_scaled(&Cpu::new(), &c))
    }
    qc(TESTS).quickcheck(p as fn(CountsCase) -> TestResult);
}

#[test]
fn counts_of_wrong_shapes_are_errors_and_change_nothing() {
    let cpu = Cpu::new();
    let a = Matrix::from_triplets(3, 2, vec![(0, 1, 1.0f32), (2, 0, 2.0)]).unwrap();
    let v = DenseMatrix::from_vec(2, 4, vec![3i32; 8]).unwrap();
    let tall = DenseMatrix::from_vec(3, 4, vec![3i32; 12]).unwrap();
    let (v3, v4, v5) = (
        Vector::from_dense(vec![1.0f32; 3]),
        Vector::from_dense(vec![1.0f32; 4]),
        Vector::from_dense(vec![1.0f32; 5]),
    );
    let old = DenseMatrix::from_vec(3, 4, vec![7.0f32; 12]).unwrap();
    let bad_s = DenseScales {
        col: Some(&v5),
        ..DenseScales::default()
    };
    let bad_r = DenseScales {
        right: Some(&v3),
        col: Some(&v4),
        ..DenseScales::default()
    };
    for (what, v, scales) in [
        ("s of the wrong length", &v, bad_s),
        ("r of the wrong length", &v, bad_r),
        (
            "V with the wrong number of rows",
            &tall,
            DenseScales::default(),
        ),
    ] {
        let mut c = old.clone();
        let r = ext::mxm_counts_scaled(&cpu, &mut c, &a, v, scales);
        assert!(
            matches!(
                r,
                Err(Error::DimensionMismatch {
                    op: "mxm_counts_scaled",
                    ..
                })
            ),
            "{what}: {r:?}"
        );
        assert_eq!(c.as_slice(), old.as_slice(), "{what}: output changed");
    }
    let mut c = old.clone();
    let ok = DenseScales {
        col: Some(&v4),
        ..DenseScales::default()
    };
    ext::mxm_counts_scaled(&cpu, &mut c, &a, &v, ok).unwrap();
    // row 0: the count 3 of V's row 1; row 1 empty: 0
    assert_eq!(
        &c.as_slice()[..8],
        &[3.0, 3.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0]
    );
}

#[test]
fn wrong_shapes_are_errors_and_change_nothing() {
    let cpu = Cpu::new();
    let s = PlusTimes::<f32>::new();
    let a = Matrix::from_triplets(3, 2, vec![(0, 1, 1.0f32), (2, 0, 2.0)]).unwrap();
    let y = DenseMatrix::from_vec(2, 4, vec![1.0f32; 8]).unwrap();
    let (v2, v3, v4) = (
        Vector::from_dense(vec![1.0f32; 2]),
        Vector::from_dense(vec![1.0f32; 3]),
        Vector::from_dense(vec![1.0f32; 4]),
    );
    let old = DenseMatrix::from_vec(3, 4, vec![7.0f32; 12]).unwrap();
    let cases: [(&str, DenseScales<'_, Cpu, f32>); 3] = [
        (
            "l of the wrong length",
            DenseScales {
                left: Some(&v2),
                ..DenseScales::default()
            },
        ),
        (
            "r of the wrong length",
            DenseScales {
                right: Some(&v3),
                ..DenseScales::default()
            },
        ),
        (
            "bias of the wrong length",
            DenseScales {
                left: Some(&v3),
                right: Some(&v2),
                col: None,
                bias: Some(&v3),
            },
        ),
    ];
    for (what, scales) in cases {
        let mut c = old.clone();
        let r = ext::mxm_dense_scaled(&cpu, &mut c, s, &a, &y, scales);
        assert!(
            matches!(
                r,
                Err(Error::DimensionMismatch {
                    op: "mxm_dense_scaled",
                    ..
                })
            ),
            "{what}: {r:?}"
        );
        assert_eq!(c.as_slice(), old.as_slice(), "{what}: output changed");
    }
    // B with the wrong number of rows, C of the wrong shape
    let tall = DenseMatrix::from_vec(3, 4, vec![1.0f32; 12]).unwrap();
    let mut c = old.clone();
    let r = ext::mxm_dense_scaled(&cpu, &mut c, s, &a, &tall, DenseScales::default());
    assert!(matches!(r, Err(Error::DimensionMismatch { .. })), "{r:?}");
    let mut small = DenseMatrix::from_vec(2, 4, vec![7.0f32; 8]).unwrap();
    let ok = DenseScales {
        left: Some(&v3),
        right: Some(&v2),
        col: None,
        bias: Some(&v4),
    };
    let r = ext::mxm_dense_scaled(&cpu, &mut small, s, &a, &y, ok);
    assert!(matches!(r, Err(Error::DimensionMismatch { .. })), "{r:?}");
    assert_eq!(small.as_slice(), &[7.0f32; 8]);
    // and the right shapes work: row 1 of A is empty (zero, then the bias)
    let r = ext::mxm_dense_scaled(&cpu, &mut c, s, &a, &y, ok);
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(&c.as_slice()[4..8], &[1.0f32; 4]);
}
