//! The device's matrix products and transposes with a B2SR result against the
//! CPU backend on the same inputs: B2SR transpose, the boolean `mxm` (LOR.LAND,
//! ANY.PAIR, MIN.PLUS with iso values) with masks (valued, structural,
//! complemented), replace and accumulate, `mxm_reduce` and `mxm_dense` with
//! operands transposed by the descriptor, for tile sizes 4, 8, 16 and 32.
//!
//! Inputs have sizes off the tile grid, empty rows, dense blocks and a hub
//! row and column; every device buffer starts poisoned (0xFF bytes), so an
//! unwritten tile shows up. Results must match the CPU's bit for bit (B2SR
//! results tile for tile where the CPU also returns B2SR).
//!
//! Without a GPU each test prints a SKIPPED line; with
//! `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead. The seed is
//! printed and can be fixed with `BITGRAPHBLAS_SEED`.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{AnyPair, Lor, LorLand, Min, MinPlus, PlusPair, PlusTimes, Semiring};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::container::{Accum, Accumulate, Flags, MatrixMask, NoAccum};
use bitgraphblas::{Backend, Cpu, DenseMatrix, Format, Matrix, Scalar, TileSize};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TILES: [TileSize; 4] = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];
/// Shapes off the tile grid (and one on it), down to a single row or column.
const DIMS: [usize; 6] = [1, 7, 33, 64, 100, 131];

fn gpu(test: &str) -> Option<&'static CudaBackend> {
    cuda_or_skip(test)
}

fn rng() -> StdRng {
    StdRng::seed_from_u64(seed())
}

/// A random `n x m` B2SR matrix with iso value `v`: density `p`, a dense
/// block, empty rows, and sometimes a full row 1 and column 2.
fn b2sr<T: Scalar>(rng: &mut StdRng, n: usize, m: usize, p: f64, v: T, t: TileSize) -> Matrix<T> {
    let mut e = std::collections::BTreeSet::new();
    let hub = rng.gen_bool(0.3);
    for i in 0..n {
        if i % 13 == 4 {
            continue;
        }
        for j in 0..m {
            if rng.gen_bool(p) || (hub && (i == 1 || j == 2)) {
                e.insert((i, j));
            }
        }
    }
    if n > 0 && m > 0 && rng.gen_bool(0.5) {
        let (bi, bj) = (rng.gen_range(0..n), rng.gen_range(0..m));
        for i in bi..(bi + 20).min(n) {
            for j in bj..(bj + 17).min(m) {
                e.insert((i, j));
            }
        }
    }
    Matrix::from_triplets(n, m, e.into_iter().map(|(i, j)| (i, j, v)).collect())
        .unwrap()
        .to_format(Format::B2sr(t))
        .unwrap()
}

/// [`b2sr`] with a random density (empty to dense).
fn rand_b2sr<T: Scalar>(rng: &mut StdRng, n: usize, m: usize, v: T, t: TileSize) -> Matrix<T> {
    let p = [0.0, 0.01, 0.05, 0.2, 0.6][rng.gen_range(0..5)];
    b2sr(rng, n, m, p, v, t)
}

/// The CPU and device masks over `m` for mask kind `kind` (0 none, 1 valued,
/// 2 structural, 3 valued complemented, 4 structural complemented).
fn masks<'a, T: Scalar>(
    kind: usize,
    m: &'a Matrix<T>,
    gm: &'a <CudaBackend as Backend>::Matrix<T>,
) -> (
    Option<MatrixMask<'a, Cpu>>,
    Option<MatrixMask<'a, CudaBackend>>,
) {
    if kind == 0 {
        return (None, None);
    }
    let (mut c, mut g) = (m.as_mask(), CudaBackend::matrix_mask(gm));
    if kind == 2 || kind == 4 {
        (c, g) = (c.structure(), g.structure());
    }
    if kind >= 3 {
        (c, g) = (c.complement(), g.complement());
    }
    (Some(c), Some(g))
}

/// Same entries and values; where both are B2SR, the same tiles.
fn same<T: Scalar>(what: &str, cpu: &Matrix<T>, got: &Matrix<T>) {
    got.validate()
        .unwrap_or_else(|e| panic!("{what}: invalid result: {e}"));
    assert_eq!(cpu.as_csr(), got.as_csr(), "{what}");
    if matches!(cpu.format(), Format::B2sr(_)) && cpu.format() == got.format() {
        assert_eq!(cpu, got, "{what}: tiles");
    }
}

#[test]
fn transpose_matches_cpu() {
    let Some(g) = gpu("cuda_mxm::transpose_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = rng();
    for t in TILES {
        for &n in &DIMS {
            for &m in &DIMS {
                let a = rand_b2sr(&mut rng, n, m, 3u32, t);
                let ga = g.upload_matrix(&a).unwrap();
                for ta in [false, true] {
                    let flags = Flags {
                        transpose_a: ta,
                        ..Flags::default()
                    };
                    let mut want = Matrix::<u32>::empty(1, 1);
                    cpu.transpose(&mut want, None, NoAccum, &a, flags).unwrap();
                    let mut gc = g.upload_matrix(&Matrix::<u32>::empty(1, 1)).unwrap();
                    g.transpose(&mut gc, None, NoAccum, &ga, flags).unwrap();
                    let got = g.download_matrix(&gc).unwrap();
                    same(&format!("transpose {t:?} {n}x{m} ta={ta}"), &want, &got);
                }
            }
        }
    }
}

#[test]
fn transpose_masked_accumulated_matches_cpu() {
    let Some(g) = gpu("cuda_mxm::transpose_masked_accumulated_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = rng();
    for t in TILES {
        for _ in 0..6 {
            let (n, m) = (DIMS[rng.gen_range(0..6)], DIMS[rng.gen_range(0..6)]);
            let a = rand_b2sr(&mut rng, n, m, true, t);
            let c0 = rand_b2sr(&mut rng, m, n, true, t);
            // the mask at another tile size half the time, valued false sometimes
            let mt = TILES[rng.gen_range(0..4)];
            let mv = rng.gen_bool(0.8);
            let mk = rand_b2sr(&mut rng, m, n, mv, mt);
            // a CSR mask a quarter of the time (the CSR transpose takes it)
            let mk = if rng.gen_bool(0.25) {
                mk.to_format(Format::Csr).unwrap()
            } else {
                mk
            };
            let (ga, gmk) = (g.upload_matrix(&a).unwrap(), g.upload_matrix(&mk).unwrap());
            for kind in 0..5 {
                for replace in [false, true] {
                    let flags = Flags {
                        replace,
                        ..Flags::default()
                    };
                    let (cm, gm) = masks(kind, &mk, &gmk);
                    let what = format!(
                        "transpose {t:?} {n}x{m} mask {kind} {:?} r={replace}",
                        mk.format()
                    );
                    let mut want = c0.clone();
                    cpu.transpose(&mut want, cm, Accum(Lor), &a, flags).unwrap();
                    let mut gc = g.upload_matrix(&c0).unwrap();
                    g.transpose(&mut gc, gm, Accum(Lor), &ga, flags).unwrap();
                    same(&what, &want, &g.download_matrix(&gc).unwrap());
                    let (cm, gm) = masks(kind, &mk, &gmk);
                    let mut want = c0.clone();
                    cpu.transpose(&mut want, cm, NoAccum, &a, flags).unwrap();
                    let mut gc = g.upload_matrix(&c0).unwrap();
                    g.transpose(&mut gc, gm, NoAccum, &ga, flags).unwrap();
                    same(
                        &format!("{what} no accum"),
                        &want,
                        &g.download_matrix(&gc).unwrap(),
                    );
                }
            }
        }
    }
}

/// `C<mask> = accum(C, op(A) ⊕.⊗ op(B))` on both backends, every transpose
/// combination, mask kind, replace and accumulate.
fn mxm_case<S: Semiring + Copy, A: Accumulate<S::T>>(
    g: &CudaBackend,
    rng: &mut StdRng,
    s: S,
    accum: A,
    (va, vb, vc): (S::T, S::T, S::T),
    t: TileSize,
) {
    let cpu = Cpu::new();
    let (m, k, n) = (
        DIMS[rng.gen_range(0..6)],
        DIMS[rng.gen_range(0..6)],
        DIMS[rng.gen_range(0..6)],
    );
    let (ta, tb) = (rng.gen_bool(0.5), rng.gen_bool(0.5));
    let a = if ta {
        rand_b2sr(rng, k, m, va, t)
    } else {
        rand_b2sr(rng, m, k, va, t)
    };
    let b = if tb {
        rand_b2sr(rng, n, k, vb, t)
    } else {
        rand_b2sr(rng, k, n, vb, t)
    };
    let c0 = rand_b2sr(rng, m, n, vc, t);
    let mt = TILES[rng.gen_range(0..4)];
    let mv = rng.gen_bool(0.8);
    let mk = rand_b2sr(rng, m, n, mv, mt);
    let (ga, gb, gmk) = (
        g.upload_matrix(&a).unwrap(),
        g.upload_matrix(&b).unwrap(),
        g.upload_matrix(&mk).unwrap(),
    );
    for kind in 0..5 {
        for replace in [false, true] {
            let flags = Flags {
                replace,
                transpose_a: ta,
                transpose_b: tb,
            };
            let what = format!(
                "mxm {} {t:?} {m}x{k}x{n} ta={ta} tb={tb} mask {kind} {mt:?} replace={replace} accum={}",
                S::NAME,
                A::ACTIVE
            );
            let (cm, gm) = masks(kind, &mk, &gmk);
            let mut want = c0.clone();
            cpu.mxm(&mut want, cm, accum, s, &a, &b, flags).unwrap();
            let mut gc = g.upload_matrix(&c0).unwrap();
            g.mxm(&mut gc, gm, accum, s, &ga, &gb, flags)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            same(&what, &want, &g.download_matrix(&gc).unwrap());
        }
    }
}

#[test]
fn mxm_lor_land_matches_cpu() {
    let Some(g) = gpu("cuda_mxm::mxm_lor_land_matches_cpu") else {
        return;
    };
    let mut rng = rng();
    for t in TILES {
        for _ in 0..5 {
            let v = (true, true, true);
            mxm_case(g, &mut rng, LorLand, NoAccum, v, t);
            mxm_case(g, &mut rng, LorLand, Accum(Lor), v, t);
        }
    }
}

#[test]
fn mxm_any_pair_and_min_plus_match_cpu() {
    let Some(g) = gpu("cuda_mxm::mxm_any_pair_and_min_plus_match_cpu") else {
        return;
    };
    let mut rng = rng();
    for t in TILES {
        for _ in 0..3 {
            mxm_case(g, &mut rng, AnyPair::<u32>::new(), NoAccum, (3, 5, 1), t);
            mxm_case(g, &mut rng, AnyPair::<u32>::new(), Accum(Min), (3, 5, 1), t);
            mxm_case(g, &mut rng, MinPlus::<i32>::new(), NoAccum, (2, 3, 5), t);
            mxm_case(g, &mut rng, MinPlus::<i32>::new(), Accum(Min), (2, 3, 5), t);
        }
    }
}

#[test]
fn mxm_large_product_matches_cpu() {
    let Some(g) = gpu("cuda_mxm::mxm_large_product_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = rng();
    for t in TILES {
        let a = b2sr(&mut rng, 1000, 777, 0.004, true, t);
        let b = b2sr(&mut rng, 777, 1203, 0.004, true, t);
        let (ga, gb) = (g.upload_matrix(&a).unwrap(), g.upload_matrix(&b).unwrap());
        let mut want = Matrix::<bool>::empty(1, 1);
        cpu.mxm(&mut want, None, NoAccum, LorLand, &a, &b, Flags::default())
            .unwrap();
        let mut gc = g.upload_matrix(&Matrix::<bool>::empty(1, 1)).unwrap();
        g.mxm(&mut gc, None, NoAccum, LorLand, &ga, &gb, Flags::default())
            .unwrap();
        same(
            &format!("large mxm {t:?}"),
            &want,
            &g.download_matrix(&gc).unwrap(),
        );
    }
}

#[test]
fn mxm_reduce_transposed_matches_cpu() {
    let Some(g) = gpu("cuda_mxm::mxm_reduce_transposed_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = rng();
    for t in TILES {
        for _ in 0..4 {
            let n = DIMS[rng.gen_range(1..6)];
            let a = rand_b2sr(&mut rng, n, n, 2i64, t);
            let b = rand_b2sr(&mut rng, n, n, 3i64, t);
            let mt = TILES[rng.gen_range(0..4)];
            let mv = rng.gen_bool(0.8);
            let mk = rand_b2sr(&mut rng, n, n, mv, mt);
            let (ga, gb, gmk) = (
                g.upload_matrix(&a).unwrap(),
                g.upload_matrix(&b).unwrap(),
                g.upload_matrix(&mk).unwrap(),
            );
            for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
                let flags = Flags {
                    transpose_a: ta,
                    transpose_b: tb,
                    ..Flags::default()
                };
                for kind in [1, 2] {
                    let what = format!("mxm_reduce {t:?} n={n} ta={ta} tb={tb} mask {kind} {mt:?}");
                    let (cm, gm) = masks(kind, &mk, &gmk);
                    let (cm, gm) = (cm.unwrap(), gm.unwrap());
                    let s = PlusTimes::<i64>::new();
                    let want = cpu.mxm_reduce(cm, s, &a, &b, flags).unwrap();
                    let got = g.mxm_reduce(gm, s, &ga, &gb, flags).unwrap();
                    assert_eq!(want, got, "{what} PLUS.TIMES");
                    let s = PlusPair::<i64>::new();
                    let want = cpu.mxm_reduce(cm, s, &a, &b, flags).unwrap();
                    let got = g.mxm_reduce(gm, s, &ga, &gb, flags).unwrap();
                    assert_eq!(want, got, "{what} PLUS.PAIR");
                }
            }
        }
    }
}

#[test]
fn mxm_dense_transposed_matches_cpu() {
    let Some(g) = gpu("cuda_mxm::mxm_dense_transposed_matches_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = rng();
    for t in TILES {
        let (m, k, f) = (DIMS[rng.gen_range(0..6)], DIMS[rng.gen_range(0..6)], 5);
        let a = rand_b2sr(&mut rng, k, m, 3i32, t);
        let bd: Vec<i32> = (0..k * f).map(|_| rng.gen_range(-9..9)).collect();
        let bd = DenseMatrix::from_vec(k, f, bd).unwrap();
        let flags = Flags {
            transpose_a: true,
            ..Flags::default()
        };
        let s = PlusTimes::<i32>::new();
        let mut want = DenseMatrix::filled(1, 1, 0);
        cpu.mxm_dense(&mut want, NoAccum, s, &a, &bd, flags)
            .unwrap();
        let mut gc = g.dense_new(1, 1, 0).unwrap();
        let (ga, gbd) = (g.upload_matrix(&a).unwrap(), g.upload_dense(&bd).unwrap());
        g.mxm_dense(&mut gc, NoAccum, s, &ga, &gbd, flags).unwrap();
        assert_eq!(
            want,
            g.download_dense(&gc).unwrap(),
            "mxm_dense A' {t:?} {k}x{m}"
        );
    }
}

/// What the B2SR boolean product cannot hold (a PLUS semiring's counts, CSR
/// operands, a result whose entries differ) runs on the CSR merge product and
/// agrees with the CPU.
#[test]
fn general_products_match_cpu() {
    let Some(g) = gpu("cuda_mxm::general_products_match_cpu") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = rng();
    let a = b2sr(&mut rng, 40, 40, 0.1, 1u32, TileSize::T8);
    let acsr = a.to_format(Format::Csr).unwrap();
    let c7 = b2sr(&mut rng, 40, 40, 0.5, 7u32, TileSize::T8);
    let f = Flags::default();
    let run = |what: &str, c0: &Matrix<u32>, x: &Matrix<u32>, y: &Matrix<u32>, plus: bool| {
        let (gx, gy) = (g.upload_matrix(x).unwrap(), g.upload_matrix(y).unwrap());
        let mut want = c0.clone();
        let mut gc = g.upload_matrix(c0).unwrap();
        if plus {
            cpu.mxm(&mut want, None, NoAccum, PlusPair::<u32>::new(), x, y, f)
                .unwrap();
            g.mxm(&mut gc, None, NoAccum, PlusPair::<u32>::new(), &gx, &gy, f)
                .unwrap();
        } else {
            cpu.mxm(&mut want, None, Accum(Min), AnyPair::<u32>::new(), x, y, f)
                .unwrap();
            g.mxm(
                &mut gc,
                None,
                Accum(Min),
                AnyPair::<u32>::new(),
                &gx,
                &gy,
                f,
            )
            .unwrap();
        }
        same(what, &want, &g.download_matrix(&gc).unwrap());
    };
    run("PLUS.PAIR, B2SR operands", &a, &a, &a, true);
    run("PLUS.PAIR, CSR and B2SR operands", &a, &acsr, &a, true);
    // C's entries (value 7) survive next to new ones (value 1)
    run("ANY.PAIR into C with other values", &c7, &a, &a, false);
    run("ANY.PAIR, CSR operands", &c7, &acsr, &acsr, false);
}

/// The strict lower triangle of `g` as B2SR with tile size `t` (host).
fn lower<T: Scalar>(g: &Matrix<T>, t: TileSize) -> Matrix<T> {
    let mut l = Matrix::<T>::empty(1, 1);
    Cpu::new()
        .select_matrix(
            &mut l,
            None,
            NoAccum,
            bitgraphblas::IndexOp::Tril(-1),
            g,
            Flags::default(),
        )
        .unwrap();
    l.to_format(Format::B2sr(t)).unwrap()
}

/// Triangle counts `Σ_{(i,j) ∈ L} |L(i,:) ∧ L(j,:)|` with the masked count on
/// the tensor cores and on the CUDA cores, against the CPU.
fn triangle_counts(g: &CudaBackend, l: &Matrix<u64>) -> (u64, u64, u64) {
    let flags = Flags {
        transpose_b: true,
        ..Flags::default()
    };
    let s = PlusPair::<u64>::new();
    let cpu = Cpu::new()
        .mxm_reduce(l.as_mask().structure(), s, l, l, flags)
        .unwrap();
    let gl = g.upload_matrix(l).unwrap();
    let run = |tensor| {
        CudaBackend::set_tensor_cores(Some(tensor));
        let r = g
            .mxm_reduce(
                CudaBackend::matrix_mask(&gl).structure(),
                s,
                &gl,
                &gl,
                flags,
            )
            .unwrap();
        CudaBackend::set_tensor_cores(None);
        r
    };
    (cpu, run(true), run(false))
}

#[test]
fn masked_count_tensor_cores_match_cuda_cores() {
    let Some(g) = gpu("cuda_mxm::masked_count_tensor_cores_match_cuda_cores") else {
        return;
    };
    let mut rng = rng();
    for t in [TileSize::T16, TileSize::T32] {
        for &n in &[1usize, 33, 100, 300] {
            for p in [0.02, 0.3, 0.9] {
                let mut e = std::collections::BTreeSet::new();
                for i in 0..n {
                    for j in 0..i {
                        if rng.gen_bool(p) {
                            e.insert((i, j, 1u64));
                            e.insert((j, i, 1u64));
                        }
                    }
                }
                let sym = Matrix::from_triplets(n, n, e.into_iter().collect()).unwrap();
                let l = lower(&sym, t);
                let (cpu, tensor, cores) = triangle_counts(g, &l);
                assert_eq!(cpu, tensor, "tensor cores {t:?} n={n} p={p}");
                assert_eq!(cpu, cores, "CUDA cores {t:?} n={n} p={p}");
            }
        }
    }
}

/// The measurement behind `dense_tile_rows` (src/backend/cuda/mxm.rs):
/// triangle counting's masked count with the 1-bit tensor cores against the
/// CUDA-core kernel, same process, same inputs, minimum of 10 runs after a
/// warm-up. Run on the GPU machine with
/// `bash .gpu-cuda-mxm/run.sh exec .gpu-cuda-mxm/tests/cuda_mxm --ignored --nocapture bench_masked_count`.
#[test]
#[ignore]
fn bench_masked_count() {
    let Some(g) = gpu("cuda_mxm::bench_masked_count") else {
        return;
    };
    use bitgraphblas::generate;
    g.set_poison(false); // no memset per buffer, no synchronisation per launch
    let graphs: Vec<(&str, Matrix<u64>)> = vec![
        ("rmat16", generate::rmat(16, 16, 1)),
        ("rmat18", generate::rmat(18, 16, 1)),
        ("rgg16", generate::random_geometric(1 << 16, 0.012, 1)),
        ("grid1024", generate::grid_2d(1024)),
    ];
    let flags = Flags {
        transpose_b: true,
        ..Flags::default()
    };
    let s = PlusPair::<u64>::new();
    let mut out = std::io::stderr();
    use std::io::Write;
    let _ = writeln!(
        out,
        "graph k ntiles(L) tiles/tile_row triangles tensor_ms cuda_core_ms speedup ({})",
        g.device_name()
    );
    for (name, a) in &graphs {
        for t in [TileSize::T16, TileSize::T32] {
            let l = lower(a, t);
            let gl = g.upload_matrix(&l).unwrap();
            let time = |tensor| {
                CudaBackend::set_tensor_cores(Some(tensor));
                let mut best = f64::INFINITY;
                let mut n = 0;
                for rep in 0..11 {
                    let t0 = std::time::Instant::now();
                    n = g
                        .mxm_reduce(
                            CudaBackend::matrix_mask(&gl).structure(),
                            s,
                            &gl,
                            &gl,
                            flags,
                        )
                        .unwrap();
                    if rep > 0 {
                        best = best.min(t0.elapsed().as_secs_f64() * 1e3);
                    }
                }
                CudaBackend::set_tensor_cores(None);
                (n, best)
            };
            let (n1, tt) = time(true);
            let (n2, tc) = time(false);
            assert_eq!(n1, n2, "{name} {t:?}");
            let _ = writeln!(
                out,
                "{name} {} {} {:.1} {n1} {tt:.3} {tc:.3} {:.2}",
                t.k().unwrap(),
                gl.ntiles(),
                gl.ntiles() as f64 / l.nrows().div_ceil(t.k().unwrap()) as f64,
                tc / tt
            );
        }
    }
    g.set_poison(true);
}

/// Device `mxm` (LOR.LAND, `C = A * A`) and `transpose` against the CPU
/// backend on generated graphs: results equal, minimum of 5 runs each after a
/// warm-up (device times include the read-back of the sizes). Run like
/// `bench_masked_count`, with the filter `bench_mxm_transpose`.
#[test]
#[ignore]
fn bench_mxm_transpose() {
    let Some(g) = gpu("cuda_mxm::bench_mxm_transpose") else {
        return;
    };
    use bitgraphblas::generate;
    use std::io::Write;
    g.set_poison(false);
    let cpu = Cpu::new();
    let mut out = std::io::stderr();
    let _ = writeln!(
        out,
        "graph k op gpu_ms cpu_ms nvals ({}, CPU {} threads)",
        g.device_name(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let graphs: Vec<(&str, Matrix<bool>)> = vec![
        ("rmat16", generate::rmat(16, 16, 1)),
        ("rgg16", generate::random_geometric(1 << 16, 0.012, 1)),
        ("grid1024", generate::grid_2d(1024)),
    ];
    fn best(mut f: impl FnMut()) -> f64 {
        f();
        (0..5)
            .map(|_| {
                let t0 = std::time::Instant::now();
                f();
                t0.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min)
    }
    let f = Flags::default();
    for (name, a) in &graphs {
        for t in [TileSize::T8, TileSize::T32] {
            let a = a.to_format(Format::B2sr(t)).unwrap();
            let ga = g.upload_matrix(&a).unwrap();
            let mut want = Matrix::<bool>::empty(1, 1);
            let mut gc = g.upload_matrix(&Matrix::<bool>::empty(1, 1)).unwrap();
            let tc = best(|| {
                cpu.mxm(&mut want, None, NoAccum, LorLand, &a, &a, f)
                    .unwrap()
            });
            let tg = best(|| {
                g.mxm(&mut gc, None, NoAccum, LorLand, &ga, &ga, f).unwrap();
                g.synchronize().unwrap();
            });
            let got = g.download_matrix(&gc).unwrap();
            same(&format!("{name} {t:?} mxm"), &want, &got);
            let k = t.k().unwrap();
            let _ = writeln!(out, "{name} {k} mxm {tg:.3} {tc:.3} {}", got.nvals());
            let tc = best(|| cpu.transpose(&mut want, None, NoAccum, &a, f).unwrap());
            let tg = best(|| {
                g.transpose(&mut gc, None, NoAccum, &ga, f).unwrap();
                g.synchronize().unwrap();
            });
            let got = g.download_matrix(&gc).unwrap();
            same(&format!("{name} {t:?} transpose"), &want, &got);
            let _ = writeln!(out, "{name} {k} transpose {tg:.3} {tc:.3} {}", got.nvals());
        }
    }
    g.set_poison(true);
}
