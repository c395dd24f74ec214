//! `ext::mxm_dense_scaled` (`C = diag(l) (A ⊕.⊗ (diag(r) B)) ⊕ bias`) on the
//! CUDA backend: the quickcheck property of `tests/ops_dense_scaled.rs`
//! (against the plain reference, every format, each vector absent, full or
//! partial), and the fused kernels (CSR, full vectors) against the CPU
//! backend bit for bit on larger matrices: hub rows of thousands of entries
//! (many rounds of gathers), empty rows, 1 to 64 columns, a GCN layer's
//! `D^-1/2 (A + I) D^-1/2 Y + bias`, rows short on average (a row's entries
//! in rounds, `csr_mxm_dense_rounds`, the rows of many more entries than the
//! mean a block each, `csr_mxm_dense_long`) and long (one after another,
//! `csr_mxm_dense`); and the plain `mxm_dense` on CSR, which shares them,
//! also for 8-byte values and MIN.PLUS where some rows are long.
//! `ext::mxm_counts_scaled` (the product of `i32` counts read as `f32`): its
//! quickcheck property, and its kernels against the CPU bit for bit, reading
//! the counts directly (few entries a row) and packed into bytes (many), with
//! rows of every packed mode and rows that fit none.
//!
//! Every device buffer starts poisoned (0xFF bytes), so an element no kernel
//! wrote shows up as a difference. Without a GPU each test prints a SKIPPED
//! line; with `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{MinPlus, PlusTimes, Semiring};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::ext::{self, DenseScales};
use bitgraphblas::{
    ops, Backend, Cpu, DenseMatrix, Desc, Format, Matrix, Scalar, TileSize, Vector,
};
use common::props::{
    counts_row, prop_mxm_counts_scaled, prop_mxm_dense_scaled, CountsCase, ScaledCase,
};
use common::{qc, seed, verdict};
use quickcheck::TestResult;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TESTS: u64 = 150;

macro_rules! scaled_props {
    ($($name:ident: $s:ty, $t:ty;)*) => {$(
        #[test]
        fn $name() {
            if cuda_or_skip(stringify!($name)).is_none() {
                return;
            }
            fn p(c: ScaledCase<$t>) -> TestResult {
                let gpu = cuda_or_skip(stringify!($name)).expect("opened above");
                verdict(prop_mxm_dense_scaled::<_, $s>(gpu, &c))
            }
            qc(TESTS).quickcheck(p as fn(ScaledCase<$t>) -> TestResult);
        }
    )*};
}

#[test]
fn prop_counts_read_as_f32() {
    if cuda_or_skip("prop_counts_read_as_f32").is_none() {
        return;
    }
    fn p(c: CountsCase) -> TestResult {
        let gpu = cuda_or_skip("prop_counts_read_as_f32").expect("opened above");
        verdict(prop_mxm_counts_scaled(gpu, &c))
    }
    qc(TESTS).quickcheck(p as fn(CountsCase) -> TestResult);
}

scaled_props! {
    prop_plus_times_f32: PlusTimes<f32>, f32;
    prop_plus_times_f64: PlusTimes<f64>, f64;
    prop_plus_times_i32: PlusTimes<i32>, i32;
    prop_min_plus_f32: MinPlus<f32>, f32;
}

/// `A + I` of a random graph of `n` vertices: row 3 a hub joined to every
/// vertex, every 11th row (but the diagonal) empty of neighbours.
fn graph(rng: &mut StdRng, n: usize, p: f64) -> Vec<(usize, usize, f32)> {
    let mut e = std::collections::BTreeSet::new();
    for i in 0..n {
        e.insert((i, i));
        if i % 11 == 5 {
            continue;
        }
        for j in 0..n {
            if rng.gen_bool(p) {
                e.insert((i, j));
            }
        }
    }
    for k in 0..n {
        e.insert((3, k));
    }
    e.into_iter().map(|(i, j)| (i, j, 1.0)).collect()
}

#[test]
fn fused_matches_cpu_bit_for_bit() {
    let Some(gpu) = cuda_or_skip("fused_matches_cpu_bit_for_bit") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    let s = PlusTimes::<f32>::new();
    for (n, p, cols) in [
        (2708, 0.0015, 7),
        (5003, 0.002, 16),
        (1031, 0.01, 64),
        (700, 0.02, 1),
        (900, 0.12, 5),
    ] {
        let a = Matrix::from_triplets(n, n, graph(&mut rng, n, p)).unwrap();
        let d: Vec<f32> = (0..n).map(|_| rng.gen_range(0.01f32..1.0)).collect();
        let y: Vec<f32> = (0..n * cols).map(|_| rng.gen_range(-4.0f32..4.0)).collect();
        let bias: Vec<f32> = (0..cols).map(|_| rng.gen_range(-1.0f32..1.0)).collect();
        let (d, bias) = (Vector::from_dense(d), Vector::from_dense(bias));
        let y = DenseMatrix::from_vec(n, cols, y).unwrap();
        let (gd, gbias, gy) = (
            gpu.upload_vector(&d).unwrap(),
            gpu.upload_vector(&bias).unwrap(),
            gpu.upload_dense(&y).unwrap(),
        );
        let every = [
            (true, true, true),
            (true, false, false),
            (false, true, true),
            (false, false, false),
        ];
        for fmt in [Format::Csr, Format::B2sr(TileSize::T4)] {
            let am = a.to_format(fmt).unwrap();
            let ga = gpu.upload_matrix(&am).unwrap();
            for (l, r, b) in every {
                let want_scales = DenseScales {
                    left: l.then_some(&d),
                    right: r.then_some(&d),
                    col: None,
                    bias: b.then_some(&bias),
                };
                let got_scales = DenseScales {
                    left: l.then_some(&gd),
                    right: r.then_some(&gd),
                    col: None,
                    bias: b.then_some(&gbias),
                };
                let mut want = cpu.dense_new(n, cols, 0.0f32).unwrap();
                ext::mxm_dense_scaled(&cpu, &mut want, s, &am, &y, want_scales).unwrap();
                // into a fresh output of the wrong contents, then in place
                let mut got = gpu.dense_new(n, cols, f32::NAN).unwrap();
                for pass in ["fresh", "in place"] {
                    ext::mxm_dense_scaled(gpu, &mut got, s, &ga, &gy, got_scales).unwrap();
                    let g = gpu.download_dense(&got).unwrap();
                    for (q, (x, z)) in want.as_slice().iter().zip(g.as_slice()).enumerate() {
                        assert!(
                            x.to_bits() == z.to_bits(),
                            "n {n} {fmt:?} l {l} r {r} bias {b} {pass}: element ({}, {}): cpu {x} gpu {z}",
                            q / cols,
                            q % cols
                        );
                    }
                }
            }
            // the plain product shares the kernel (no scalings)
            let mut want = cpu.dense_new(n, cols, 0.0f32).unwrap();
            ops::mxm_dense(&cpu, &mut want, s, &am, &y, &Desc::new()).unwrap();
            let mut got = gpu.dense_new(n, cols, f32::NAN).unwrap();
            ops::mxm_dense(gpu, &mut got, s, &ga, &gy, &Desc::new()).unwrap();
            let g = gpu.download_dense(&got).unwrap();
            let same = want
                .as_slice()
                .iter()
                .zip(g.as_slice())
                .all(|(x, z)| x.to_bits() == z.to_bits());
            assert!(same, "n {n} {fmt:?}: mxm_dense differs from the CPU");
        }
    }
}

/// The plain `mxm_dense` on CSR where a few rows hold many more entries than
/// the mean (a block each, `csr_mxm_dense_long`, the others in rounds): a hub
/// of every vertex (chunks of 512 entries) and a row of about 100, for
/// 8-byte values (8 columns a block) and another semiring, against the CPU
/// value for value (the same terms folded in the same order).
fn long_rows_match_cpu<S>(gpu: &CudaBackend, name: &str, s: S, val: fn(&mut StdRng) -> S::T)
where
    S: Semiring + Copy,
    S::T: PartialEq + std::fmt::Debug,
{
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for (n, p, cols) in [(1500, 0.003, 9), (3000, 0.001, 20)] {
        let mut pattern: std::collections::BTreeSet<(usize, usize)> = graph(&mut rng, n, p)
            .into_iter()
            .map(|(i, j, _)| (i, j))
            .collect();
        pattern.extend((0..n).step_by(n / 100).map(|j| (7, j)));
        let e: Vec<_> = pattern
            .into_iter()
            .map(|(i, j)| (i, j, val(&mut rng)))
            .collect();
        let a = Matrix::from_triplets(n, n, e).unwrap();
        let y = (0..n * cols).map(|_| val(&mut rng)).collect();
        let y = DenseMatrix::from_vec(n, cols, y).unwrap();
        let mut want = cpu.dense_new(n, cols, S::T::zero()).unwrap();
        ops::mxm_dense(&cpu, &mut want, s, &a, &y, &Desc::new()).unwrap();
        let (ga, gy) = (
            gpu.upload_matrix(&a).unwrap(),
            gpu.upload_dense(&y).unwrap(),
        );
        let mut got = gpu.dense_new(n, cols, S::T::zero()).unwrap();
        ops::mxm_dense(gpu, &mut got, s, &ga, &gy, &Desc::new()).unwrap();
        let g = gpu.download_dense(&got).unwrap();
        for (q, (x, z)) in want.as_slice().iter().zip(g.as_slice()).enumerate() {
            assert!(
                x == z,
                "{name} n {n}: element ({}, {}): cpu {x:?} gpu {z:?}",
                q / cols,
                q % cols
            );
        }
    }
}

#[test]
fn long_rows_match_cpu_for_other_values() {
    let Some(gpu) = cuda_or_skip("long_rows_match_cpu_for_other_values") else {
        return;
    };
    long_rows_match_cpu(gpu, "plus.times f64", PlusTimes::<f64>::new(), |r| {
        r.gen_range(-4.0f64..4.0)
    });
    long_rows_match_cpu(gpu, "min.plus f32", MinPlus::<f32>::new(), |r| {
        r.gen_range(-100i32..100) as f32 / 8.0
    });
}

/// The counts kernels against the CPU, value for value: graphs with a hub
/// and empty rows, at few entries a row of `V` (read directly, the hub a
/// block each for every 16 columns: one, two and three such blocks) and many
/// (packed where the mean is at least 8 and there are more than 8 columns;
/// the hub there too a block each), iso and valued `A`, 1 to 130 columns
/// (several chunks of a row's lanes), every row kind of [`counts_row`] (both
/// packed modes, and rows packed as neither), each factor present or absent.
#[test]
fn counts_match_cpu_bit_for_bit() {
    let Some(gpu) = cuda_or_skip("counts_match_cpu_bit_for_bit") else {
        return;
    };
    gpu.set_poison(true);
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for (n, p, cols, valued) in [
        (2708, 0.0015, 7, false),
        (1200, 0.02, 41, false),
        (1500, 0.012, 41, true),
        (700, 0.03, 1, false),
        (900, 0.015, 130, true),
        (3000, 0.0008, 16, true),
        (2000, 0.001, 40, true),
    ] {
        let e: Vec<_> = graph(&mut rng, n, p)
            .into_iter()
            .map(|(i, j, _)| {
                (
                    i,
                    j,
                    if valued {
                        rng.gen_range(-2.0f32..2.0)
                    } else {
                        1.0
                    },
                )
            })
            .collect();
        let a = Matrix::from_triplets(n, n, e).unwrap();
        let mut draw = |below: u32| rng.gen_range(0..below);
        let v: Vec<i32> = (0..n)
            .flat_map(|j| counts_row(&mut draw, (j % 7 % 4) as u32, cols))
            .collect();
        let v = DenseMatrix::from_vec(n, cols, v).unwrap();
        let vec_of = |rng: &mut StdRng, len| {
            Vector::from_dense((0..len).map(|_| rng.gen_range(0.01f32..1.5)).collect())
        };
        let (d, s, bias) = (
            vec_of(&mut rng, n),
            vec_of(&mut rng, cols),
            vec_of(&mut rng, cols),
        );
        let ga = gpu.upload_matrix(&a).unwrap();
        let (gv, gd, gs, gb) = (
            gpu.upload_dense(&v).unwrap(),
            gpu.upload_vector(&d).unwrap(),
            gpu.upload_vector(&s).unwrap(),
            gpu.upload_vector(&bias).unwrap(),
        );
        for (l, r, c, b) in [
            (true, true, true, true),
            (false, true, true, false),
            (true, false, false, true),
            (false, false, false, false),
        ] {
            let want_scales = DenseScales {
                left: l.then_some(&d),
                right: r.then_some(&d),
                col: c.then_some(&s),
                bias: b.then_some(&bias),
            };
            let got_scales = DenseScales {
                left: l.then_some(&gd),
                right: r.then_some(&gd),
                col: c.then_some(&gs),
                bias: b.then_some(&gb),
            };
            let mut want = cpu.dense_new(n, cols, 0.0f32).unwrap();
            ext::mxm_counts_scaled(&cpu, &mut want, &a, &v, want_scales).unwrap();
            let mut got = gpu.dense_new(n, cols, f32::NAN).unwrap();
            for pass in ["fresh", "in place"] {
                ext::mxm_counts_scaled(gpu, &mut got, &ga, &gv, got_scales).unwrap();
                let g = gpu.download_dense(&got).unwrap();
                for (q, (x, z)) in want.as_slice().iter().zip(g.as_slice()).enumerate() {
                    assert!(
                        x.to_bits() == z.to_bits(),
                        "n {n} cols {cols} valued {valued} l {l} r {r} s {c} bias {b} {pass}: \
                         element ({}, {}): cpu {x} gpu {z}",
                        q / cols,
                        q % cols
                    );
                }
            }
        }
    }
    gpu.set_poison(false);
}
