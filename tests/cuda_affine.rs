//! `ext::mxv_affine` (`w = c ⊕ A ⊕.⊗ (d ⊗ u)`) on the CUDA backend: the
//! quickcheck property of `tests/ops_affine.rs` (against the plain
//! reference, every format, full and partial `d`, `u`), and the fused
//! kernels (B2SR with 4x4 and 8x8 tiles, CSR row blocks) against the CPU
//! backend on larger matrices: hub rows long enough to be cut into segments
//! and hub pieces, empty rows, sizes off the tile grid, the output
//! reused in place or replaced, `d ⊗ u` gathered in the product or scaled
//! in a pass of its own first.
//!
//! Every device buffer starts poisoned (0xFF bytes), so a row no kernel
//! wrote shows up as a difference. Without a GPU each test prints a SKIPPED
//! line; with `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{LorLand, MinPlus, PlusTimes};
use bitgraphblas::backend::cuda::cuda_or_skip;
use bitgraphblas::{ext, Backend, Cpu, Format, Matrix, TileSize, Vector};
use common::props::{prop_mxv_affine, AffineCase};
use common::{qc, seed, verdict};
use quickcheck::TestResult;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TESTS: u64 = 150;

macro_rules! affine_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            if cuda_or_skip(stringify!($name)).is_none() {
                return;
            }
            fn p(c: AffineCase<$t>) -> TestResult {
                let gpu = cuda_or_skip(stringify!($name)).expect("opened above");
                verdict(prop_mxv_affine::<_, $s>(gpu, &c))
            }
            qc(TESTS).quickcheck(p as fn(AffineCase<$t>) -> TestResult);
        }
    )*};
}

affine_props! {
    prop_plus_times_f64: PlusTimes<f64>, f64;
    prop_plus_times_i32: PlusTimes<i32>, i32;
    prop_min_plus_f32: MinPlus<f32>, f32;
    prop_lor_land_bool: LorLand, bool;
}

/// An `n x n` pattern: density `p`, every 13th row empty, row 3 and column
/// 5 full (a hub row of `n` entries: segments of a long tile row, a CSR hub
/// row in pieces), a dense block.
fn pattern(rng: &mut StdRng, n: usize, p: f64) -> Vec<(usize, usize, f64)> {
    let mut e = std::collections::BTreeSet::new();
    for i in (0..n).filter(|i| i % 13 != 7) {
        for j in 0..n {
            if rng.gen_bool(p) {
                e.insert((i, j));
            }
        }
    }
    for k in 0..n {
        e.insert((3, k));
        e.insert((k, 5));
    }
    let b = rng.gen_range(0..n - 20);
    for i in b..b + 20 {
        for j in b..b + 17 {
            e.insert((i, j));
        }
    }
    e.into_iter().map(|(i, j)| (i, j, 1.0)).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn fused_matches_cpu_on_large_matrices() {
    let Some(gpu) = cuda_or_skip("fused_matches_cpu_on_large_matrices") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let s = PlusTimes::<f64>::new();
    for (n, p) in [(1021, 0.004), (4099, 0.001), (20_000, 0.0003)] {
        let a = Matrix::from_triplets(n, n, pattern(&mut rng, n, p)).unwrap();
        let d: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..1.0)).collect();
        let u: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..2.0)).collect();
        let c = rng.gen_range(-1.0..1.0);
        let (d, u) = (Vector::from_dense(d), Vector::from_dense(u));
        let (gd, gu) = (
            gpu.upload_vector(&d).unwrap(),
            gpu.upload_vector(&u).unwrap(),
        );
        let formats = [
            Format::Csr,
            Format::B2sr(TileSize::T4),
            Format::B2sr(TileSize::T8),
            Format::B2sr(TileSize::T16),
        ];
        for fmt in formats {
            let am = a.to_format(fmt).unwrap();
            let mut want = Vector::empty(n);
            ext::mxv_affine(&Cpu::new(), &mut want, s, c, &am, &d, &u).unwrap();
            let ga = gpu.upload_matrix(&am).unwrap();
            // into a fresh (replaced) output, then in place into the full
            // result; CSR with d ⊗ u gathered in the product and pre-scaled
            let mut gw = gpu.upload_vector(&Vector::<f64>::empty(n)).unwrap();
            for (pass, prescale) in [
                ("replaced", Some(false)),
                ("in place", Some(true)),
                ("again", None),
            ] {
                gpu.set_affine_prescale(prescale);
                ext::mxv_affine(gpu, &mut gw, s, c, &ga, &gd, &gu).unwrap();
                let got = gpu.download_vector(&gw).unwrap();
                assert_eq!(got.nvals(), n, "n {n} {fmt:?} {pass}: not full");
                for i in 0..n {
                    let (x, y) = (want.get(i).unwrap(), got.get(i).unwrap());
                    assert!(
                        close(x, y),
                        "n {n} {fmt:?} {pass}: row {i}: cpu {x} gpu {y}"
                    );
                }
            }
        }
    }
}

/// The semiring's `⊗` scales and its `⊕` shifts: MIN.PLUS on the fused path
/// (`w_i = min(c, min_j a_ij + d_j + u_j)`).
#[test]
fn fused_min_plus_matches_cpu() {
    let Some(gpu) = cuda_or_skip("fused_min_plus_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let s = MinPlus::<f64>::new();
    let n = 3001;
    let a = Matrix::from_triplets(n, n, pattern(&mut rng, n, 0.002)).unwrap();
    let d = Vector::from_dense((0..n).map(|_| rng.gen_range(0.0..9.0)).collect());
    let u = Vector::from_dense((0..n).map(|_| rng.gen_range(0.0..9.0)).collect());
    let c = 4.0;
    for fmt in [Format::Csr, Format::B2sr(TileSize::T8)] {
        let am = a.to_format(fmt).unwrap();
        let mut want = Vector::empty(n);
        ext::mxv_affine(&Cpu::new(), &mut want, s, c, &am, &d, &u).unwrap();
        let (gd, gu) = (
            gpu.upload_vector(&d).unwrap(),
            gpu.upload_vector(&u).unwrap(),
        );
        let ga = gpu.upload_matrix(&am).unwrap();
        let mut gw = gpu.upload_vector(&Vector::<f64>::empty(n)).unwrap();
        ext::mxv_affine(gpu, &mut gw, s, c, &ga, &gd, &gu).unwrap();
        let got = gpu.download_vector(&gw).unwrap();
        assert_eq!(got.to_vec(f64::NAN), want.to_vec(f64::NAN), "{fmt:?}");
        assert!(
            got.to_vec(0.0).iter().any(|&x| x < c),
            "{fmt:?}: some rows below c"
        );
    }
}
