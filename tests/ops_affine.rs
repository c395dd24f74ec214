//! `ext::mxv_affine` (`w = c ⊕ A ⊕.⊗ (d ⊗ u)`) on the CPU backend against a
//! plain reference (`t = d ⊗ u`, the sprs product, `c` folded into every
//! row), for several built-in semirings, every tile size and CSR, random
//! shapes off the tile grid with empty rows and dense blocks, full and
//! partial `d` and `u`; and its argument checks.

mod common;

use bitgraphblas::algebra::{LorLand, MaxTimes, MinPlus, PlusTimes};
use bitgraphblas::{ext, Cpu, Error, Matrix, Vector};
use common::props::{prop_mxv_affine, AffineCase};
use common::{qc, verdict};
use quickcheck::TestResult;

const TESTS: u64 = 300;

macro_rules! affine_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            fn p(c: AffineCase<$t>) -> TestResult {
                verdict(prop_mxv_affine::<Cpu, $s>(&Cpu::new(), &c))
            }
            qc(TESTS).quickcheck(p as fn(AffineCase<$t>) -> TestResult);
        }
    )*};
}

affine_props! {
    plus_times_f64: PlusTimes<f64>, f64;
    plus_times_i32: PlusTimes<i32>, i32;
    min_plus_f32: MinPlus<f32>, f32;
    max_times_u32: MaxTimes<u32>, u32;
    lor_land_bool: LorLand, bool;
}

#[test]
fn pagerank_step_by_hand() {
    // 0 -> 1, 0 -> 2, 1 -> 2: A' row j = the vertices with an edge to j
    let at = Matrix::from_triplets(3, 3, vec![(1, 0, 1.0), (2, 0, 1.0), (2, 1, 1.0)]).unwrap();
    let s = Vector::from_dense(vec![0.85 / 2.0, 0.85, 0.0]);
    let x = Vector::from_dense(vec![1.0 / 3.0; 3]);
    let mut xn = Vector::empty(3);
    let c = 0.05;
    ext::mxv_affine(
        &Cpu::new(),
        &mut xn,
        PlusTimes::<f64>::new(),
        c,
        &at,
        &s,
        &x,
    )
    .unwrap();
    let third = 1.0 / 3.0;
    let want = [c, c + 0.425 * third, c + 0.425 * third + 0.85 * third];
    for (i, w) in want.iter().enumerate() {
        assert!((xn.get(i).unwrap() - w).abs() < 1e-15, "vertex {i}");
    }
}

#[test]
fn bad_lengths_are_errors() {
    let cpu = Cpu::new();
    let s = PlusTimes::<f64>::new();
    let a = Matrix::from_triplets(2, 3, vec![(0, 1, 1.0)]).unwrap();
    let (v2, v3) = (
        Vector::from_dense(vec![1.0; 2]),
        Vector::from_dense(vec![1.0; 3]),
    );
    let mut w2 = Vector::empty(2);
    let mut w3 = Vector::empty(3);
    for (what, r) in [
        ("d", ext::mxv_affine(&cpu, &mut w2, s, 0.0, &a, &v2, &v3)),
        ("u", ext::mxv_affine(&cpu, &mut w2, s, 0.0, &a, &v3, &v2)),
        ("w", ext::mxv_affine(&cpu, &mut w3, s, 0.0, &a, &v3, &v3)),
    ] {
        assert!(
            matches!(r, Err(Error::DimensionMismatch { .. })),
            "{what}: {r:?}"
        );
    }
    // the output is left as it was
    assert_eq!(w2.nvals(), 0);
    assert!(ext::mxv_affine(&cpu, &mut w2, s, 0.0, &a, &v3, &v3).is_ok());
    assert_eq!(w2.to_vec(-1.0), vec![1.0, 0.0]);
}
