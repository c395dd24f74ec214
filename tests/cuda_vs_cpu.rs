//! The CUDA backend against the CPU backend on the same inputs: random
//! matrices (sizes off the tile grid, empty rows, dense blocks, hub rows long
//! enough to be split across warps) and real graphs from `data/`.
//!
//! Every device buffer starts poisoned (0xFF bytes: NaN / MAX), so an output
//! element no kernel wrote shows up as a difference. Integer and boolean
//! results must match bit for bit, floats within 1e-4 relative.
//!
//! Without a GPU each test prints a SKIPPED line; with
//! `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead. The seed of the
//! random inputs is printed and can be fixed with `BITGRAPHBLAS_SEED`.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{
    Abs, AnyPair, BindSecond, Identity, IndexOp, LorLand, Max, MaxMin, MaxTimes, Min, MinPlus,
    MinSecond, Plus, PlusPair, PlusTimes, Semiring, Times,
};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::backend::EwiseKind;
use bitgraphblas::container::{Accum, Accumulate, Flags, NoAccum};
use bitgraphblas::{
    Backend, Cpu, DenseMatrix, Format, Matrix, Scalar, TileSize, Vector, VectorFormat,
};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TILES: [TileSize; 4] = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];

/// Random pattern: density `p`, a dense block, an empty band of rows, and
/// (when `hub`) row 1 and column 2 full, so long tile rows get split.
fn pattern(rng: &mut StdRng, n: usize, m: usize, p: f64, hub: bool) -> Vec<(usize, usize)> {
    let mut e = std::collections::BTreeSet::new();
    for i in 0..n {
        if i % 17 == 5 {
            continue; // empty rows
        }
        for j in 0..m {
            if rng.gen_bool(p) {
                e.insert((i, j));
            }
        }
    }
    let (bi, bj) = (rng.gen_range(0..n), rng.gen_range(0..m));
    for i in bi..(bi + 9).min(n) {
        for j in bj..(bj + 11).min(m) {
            e.insert((i, j));
        }
    }
    if hub && n > 2 && m > 2 {
        for j in 0..m {
            e.insert((1, j));
        }
        for i in 0..n {
            e.insert((i, 2));
        }
    }
    e.into_iter().collect()
}

fn matrix<T: Scalar>(n: usize, m: usize, e: &[(usize, usize)], v: T) -> Matrix<T> {
    Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, v)).collect()).unwrap()
}

fn rand_val<T: Scalar>(rng: &mut StdRng) -> T {
    if T::TYPE == bitgraphblas::ScalarType::Bool {
        T::from_f64(rng.gen_range(0..4) as f64) // mostly true
    } else if T::IS_FLOAT {
        T::from_f64(rng.gen_range(-4.0..8.0))
    } else {
        T::from_f64(rng.gen_range(0..50) as f64)
    }
}

/// A random vector of length n in `format` (Bits: values one).
fn vector<T: Scalar>(
    rng: &mut StdRng,
    n: usize,
    p_present: f64,
    format: VectorFormat,
) -> Vector<T> {
    let mut e: Vec<(usize, T)> = Vec::new();
    for i in 0..n {
        if rng.gen_bool(p_present) {
            let v = if format == VectorFormat::Bits {
                T::one()
            } else {
                rand_val(rng)
            };
            e.push((i, v));
        }
    }
    Vector::from_entries(n, e)
        .unwrap()
        .to_format(format)
        .unwrap()
}

fn close<T: Scalar>(a: T, b: T) -> bool {
    if !T::IS_FLOAT {
        return a == b;
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-4 * x.abs().max(y.abs()).max(1.0)
}

#[track_caller]
fn same_vector<T: Scalar>(cpu: &Vector<T>, gpu: &Vector<T>, ctx: &str) {
    assert_eq!(cpu.len(), gpu.len(), "{ctx}: length");
    let (a, b) = (cpu.entries(), gpu.entries());
    let ia: Vec<usize> = a.iter().map(|e| e.0).collect();
    let ib: Vec<usize> = b.iter().map(|e| e.0).collect();
    if ia != ib {
        let only_cpu: Vec<_> = ia.iter().filter(|i| !ib.contains(i)).take(8).collect();
        let only_gpu: Vec<_> = ib.iter().filter(|i| !ia.contains(i)).take(8).collect();
        panic!(
            "{ctx}: patterns differ ({} vs {} entries); only cpu {only_cpu:?}, only gpu {only_gpu:?}",
            ia.len(),
            ib.len()
        );
    }
    for (x, y) in a.iter().zip(&b) {
        assert!(
            close(x.1, y.1),
            "{ctx}: entry {}: cpu {:?} gpu {:?}",
            x.0,
            x.1,
            y.1
        );
    }
}

/// One `mxv` case on both backends (mask from `mvec`, kinds 0 none, 1 valued,
/// 2 structural, 3 complemented valued, 4 complemented structural).
#[allow(clippy::too_many_arguments)]
fn mxv_case<S: Semiring, A: Accumulate<S::T>>(
    gpu: &CudaBackend,
    s: S,
    accum: A,
    a: &Matrix<S::T>,
    ga: &<CudaBackend as Backend>::Matrix<S::T>,
    u: &Vector<S::T>,
    w0: &Vector<S::T>,
    mvec: &Vector<S::T>,
    mask_kind: u8,
    flags: Flags,
    ctx: &str,
) {
    let cpu = Cpu::new();
    let gu = gpu.upload_vector(u).unwrap();
    let gm = gpu.upload_vector(mvec).unwrap();
    let mut gw = gpu.upload_vector(w0).unwrap();
    let mut cw = w0.clone();
    let cm = mvec.as_mask();
    let dm = CudaBackend::mask(&gm);
    let (cmask, dmask) = match mask_kind {
        0 => (None, None),
        1 => (Some(cm), Some(dm)),
        2 => (Some(cm.structure()), Some(dm.structure())),
        3 => (Some(cm.complement()), Some(dm.complement())),
        _ => (
            Some(cm.structure().complement()),
            Some(dm.structure().complement()),
        ),
    };
    cpu.mxv(&mut cw, cmask, accum, s, a, u, flags).unwrap();
    gpu.mxv(&mut gw, dmask, accum, s, ga, &gu, flags)
        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    same_vector(&cw, &gpu.download_vector(&gw).unwrap(), ctx);
}

fn mxv_semiring<S: Semiring>(
    gpu: &CudaBackend,
    s: S,
    rng: &mut StdRng,
    value: S::T,
    formats: &[VectorFormat],
) where
    Accum<Plus>: Accumulate<S::T>,
{
    for &(n, m, p, hub) in &[
        (37usize, 29usize, 0.15, false),
        (1500, 1300, 0.004, true),
        (3, 130, 0.3, false),
    ] {
        let e = pattern(rng, n, m, p, hub);
        let host = matrix(n, m, &e, value);
        for t in TILES {
            let a = host.to_format(Format::B2sr(t)).unwrap();
            // packed on the device from CSR
            let ga = gpu
                .convert(&gpu.upload_matrix(&host).unwrap(), Format::B2sr(t))
                .unwrap();
            for transpose in [false, true] {
                let (ulen, wlen) = if transpose { (n, m) } else { (m, n) };
                for &fmt in formats {
                    let u = vector::<S::T>(rng, ulen, 0.6, fmt);
                    let w0 = vector::<S::T>(rng, wlen, 0.5, VectorFormat::Dense);
                    let mvec = vector::<S::T>(rng, wlen, 0.5, VectorFormat::Dense);
                    for mk in 0..5u8 {
                        for replace in [false, true] {
                            let flags = Flags {
                                replace,
                                transpose_a: transpose,
                                transpose_b: false,
                            };
                            let ctx = format!("{} {n}x{m} k={t} T={transpose} u={fmt:?} mask={mk} replace={replace}", S::NAME);
                            mxv_case(gpu, s, NoAccum, &a, &ga, &u, &w0, &mvec, mk, flags, &ctx);
                            if mk == 1 {
                                mxv_case(
                                    gpu,
                                    s,
                                    Accum(Plus),
                                    &a,
                                    &ga,
                                    &u,
                                    &w0,
                                    &mvec,
                                    mk,
                                    flags,
                                    &format!("{ctx} accum=plus"),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn mxv_vxm_every_semiring_tile_mask_format() {
    let Some(gpu) = cuda_or_skip("mxv_vxm_every_semiring_tile_mask_format") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    use VectorFormat::{Bits, Dense, Sparse};
    mxv_semiring(gpu, LorLand, &mut rng, true, &[Bits, Dense, Sparse]);
    mxv_semiring(
        gpu,
        PlusTimes::<f32>::new(),
        &mut rng,
        0.5,
        &[Dense, Sparse, Bits],
    );
    mxv_semiring(gpu, MinPlus::<f32>::new(), &mut rng, 2.0, &[Dense]);
    mxv_semiring(gpu, MaxTimes::<f32>::new(), &mut rng, 1.5, &[Dense]);
    mxv_semiring(gpu, PlusPair::<u32>::new(), &mut rng, 1, &[Bits, Dense]);
    mxv_semiring(gpu, PlusPair::<i64>::new(), &mut rng, 1, &[Bits]);
    mxv_semiring(gpu, PlusTimes::<i32>::new(), &mut rng, 3, &[Dense]);
    mxv_semiring(gpu, MinSecond::<u64>::new(), &mut rng, 1, &[Dense]);
    mxv_semiring(gpu, MaxMin::<f64>::new(), &mut rng, 2.5, &[Dense]);
    mxv_semiring(gpu, AnyPair::<bool>::new(), &mut rng, true, &[Bits, Dense]);
}

#[test]
fn csr_mxv_matches_cpu() {
    let Some(gpu) = cuda_or_skip("csr_mxv_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let e = pattern(&mut rng, 300, 200, 0.05, true);
    let a = Matrix::from_triplets(
        300,
        200,
        e.iter()
            .map(|&(i, j)| (i, j, rand_val::<f32>(&mut rng)))
            .collect(),
    )
    .unwrap();
    let ga = gpu.upload_matrix(&a).unwrap();
    let u = vector::<f32>(&mut rng, 200, 0.7, VectorFormat::Dense);
    let w0 = vector::<f32>(&mut rng, 300, 0.5, VectorFormat::Dense);
    let mvec = vector::<f32>(&mut rng, 300, 0.5, VectorFormat::Dense);
    for mk in 0..5 {
        mxv_case(
            gpu,
            PlusTimes::<f32>::new(),
            NoAccum,
            &a,
            &ga,
            &u,
            &w0,
            &mvec,
            mk,
            Flags::default(),
            "csr plus_times",
        );
        mxv_case(
            gpu,
            MinPlus::<f32>::new(),
            NoAccum,
            &a,
            &ga,
            &u,
            &w0,
            &mvec,
            mk,
            Flags::default(),
            "csr min_plus",
        );
    }
}

/// CSR `mxv` with hub rows long enough to be cut into chunks (rows 2 and 3
/// long and adjacent, so a chunk holds the end of one and the start of the
/// next; the last row long too), every mask kind, with and without an
/// accumulator, valued and bit inputs.
#[test]
fn csr_mxv_hub_rows_match_cpu() {
    let Some(gpu) = cuda_or_skip("csr_mxv_hub_rows_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let (n, m) = (3000, 5000);
    let mut e: std::collections::BTreeSet<(usize, usize)> =
        pattern(&mut rng, n, m, 0.001, false).into_iter().collect();
    for (row, from, len) in [
        (1, 0, m),
        (2, 700, 2500),
        (3, 1, 2500),
        (400, 17, 2100),
        (n - 1, 300, 4500),
    ] {
        e.extend((from..from + len).map(|j| (row, j)));
    }
    let e: Vec<(usize, usize)> = e.into_iter().collect();
    let a = Matrix::from_triplets(
        n,
        m,
        e.iter()
            .map(|&(i, j)| (i, j, rand_val::<f64>(&mut rng)))
            .collect(),
    )
    .unwrap();
    let ga = gpu.upload_matrix(&a).unwrap();
    let u = vector::<f64>(&mut rng, m, 0.7, VectorFormat::Dense);
    let w0 = vector::<f64>(&mut rng, n, 0.5, VectorFormat::Dense);
    let mvec = vector::<f64>(&mut rng, n, 0.5, VectorFormat::Dense);
    let (a32, ac) = (matrix(n, m, &e, 1.5f32), matrix(n, m, &e, 1u32));
    let (ga32, gac) = (
        gpu.upload_matrix(&a32).unwrap(),
        gpu.upload_matrix(&ac).unwrap(),
    );
    let u32v = vector::<f32>(&mut rng, m, 0.6, VectorFormat::Dense);
    let ubits = vector::<u32>(&mut rng, m, 0.5, VectorFormat::Bits);
    let (w32, m32) = (
        vector::<f32>(&mut rng, n, 0.5, VectorFormat::Dense),
        vector::<f32>(&mut rng, n, 0.5, VectorFormat::Dense),
    );
    let (wc, mc) = (
        vector::<u32>(&mut rng, n, 0.5, VectorFormat::Dense),
        vector::<u32>(&mut rng, n, 0.5, VectorFormat::Dense),
    );
    let f = Flags::default();
    for mk in 0..5 {
        let s = PlusTimes::<f64>::new();
        mxv_case(
            gpu,
            s,
            NoAccum,
            &a,
            &ga,
            &u,
            &w0,
            &mvec,
            mk,
            f,
            "csr hubs f64",
        );
        let acc = Accum(Plus);
        mxv_case(
            gpu,
            s,
            acc,
            &a,
            &ga,
            &u,
            &w0,
            &mvec,
            mk,
            f,
            "csr hubs f64 accum",
        );
        let s = MinPlus::<f32>::new();
        mxv_case(
            gpu,
            s,
            NoAccum,
            &a32,
            &ga32,
            &u32v,
            &w32,
            &m32,
            mk,
            f,
            "csr hubs min_plus",
        );
        let s = PlusPair::<u32>::new();
        mxv_case(
            gpu,
            s,
            NoAccum,
            &ac,
            &gac,
            &ubits,
            &wc,
            &mc,
            mk,
            f,
            "csr hubs plus_pair bits",
        );
    }
}

/// `mxv` on B2SR with k = 4 and 8 (the one-launch kernel) on patterns that
/// force its edge paths: tile rows split into several segments next to short
/// ones (full rows, one of them the last row), a band of more than 2000 empty
/// rows right after them, a matrix with no entries, one with a single row,
/// sizes off the tile grid; every mask kind, an accumulator, valued and bit
/// inputs, with poisoned device buffers. The f32 product must also be the
/// same, bit for bit, on every run (split rows are folded in a fixed order).
#[test]
fn mxv_skewed_tile_rows() {
    let Some(gpu) = cuda_or_skip("mxv_skewed_tile_rows") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let (n, m) = (6001, 5003);
    let mut e: std::collections::BTreeSet<(usize, usize)> = std::collections::BTreeSet::new();
    for i in 0..n {
        // sparse rows, then no entries in rows 12..2400, a dense hub row
        if (12..2400).contains(&i) {
            continue;
        }
        for _ in 0..rng.gen_range(0..6) {
            e.insert((i, rng.gen_range(0..m)));
        }
    }
    for (row, from, len) in [
        (0, 0, m),
        (5, 3, 4000),
        (6, 1000, 4003),
        (2500, 0, m),
        (n - 1, 7, 4990),
    ] {
        e.extend((from..from + len).map(|j| (row, j)));
    }
    let e: Vec<(usize, usize)> = e.into_iter().collect();
    // (rows, columns, entries): the skewed one, no entries, a single row
    let one_row: Vec<(usize, usize)> = (0..4099).step_by(2).map(|j| (0, j)).collect();
    let shapes = [(n, m, e), (9, 13, Vec::new()), (1, 4099, one_row)];
    let f = Flags::default();
    for (n, m, e) in &shapes {
        let (n, m) = (*n, *m);
        let (a32, ac, ab) = (
            matrix(n, m, e, 1.5f32),
            matrix(n, m, e, 1u32),
            matrix(n, m, e, true),
        );
        let u32v = vector::<f32>(&mut rng, m, 0.7, VectorFormat::Dense);
        let ubits = vector::<u32>(&mut rng, m, 0.5, VectorFormat::Bits);
        let ubool = vector::<bool>(&mut rng, m, 0.5, VectorFormat::Bits);
        let (w32, m32) = (
            vector::<f32>(&mut rng, n, 0.5, VectorFormat::Dense),
            vector::<f32>(&mut rng, n, 0.5, VectorFormat::Dense),
        );
        let (wc, mc) = (
            vector::<u32>(&mut rng, n, 0.5, VectorFormat::Dense),
            vector::<u32>(&mut rng, n, 0.5, VectorFormat::Dense),
        );
        let (wb, mb) = (
            vector::<bool>(&mut rng, n, 0.5, VectorFormat::Bits),
            vector::<bool>(&mut rng, n, 0.5, VectorFormat::Dense),
        );
        for t in [TileSize::T4, TileSize::T8] {
            let g32 = gpu
                .convert(&gpu.upload_matrix(&a32).unwrap(), Format::B2sr(t))
                .unwrap();
            let gc = gpu
                .convert(&gpu.upload_matrix(&ac).unwrap(), Format::B2sr(t))
                .unwrap();
            let gb = gpu
                .convert(&gpu.upload_matrix(&ab).unwrap(), Format::B2sr(t))
                .unwrap();
            let ctx = format!("{n}x{m} k={t}");
            for mk in 0..5 {
                let c = format!("{ctx} mask={mk}");
                let s = PlusTimes::<f32>::new();
                mxv_case(gpu, s, NoAccum, &a32, &g32, &u32v, &w32, &m32, mk, f, &c);
                mxv_case(
                    gpu,
                    s,
                    Accum(Plus),
                    &a32,
                    &g32,
                    &u32v,
                    &w32,
                    &m32,
                    mk,
                    f,
                    &c,
                );
                let s = MinPlus::<f32>::new();
                mxv_case(gpu, s, NoAccum, &a32, &g32, &u32v, &w32, &m32, mk, f, &c);
                let s = PlusPair::<u32>::new();
                mxv_case(gpu, s, NoAccum, &ac, &gc, &ubits, &wc, &mc, mk, f, &c);
                mxv_case(gpu, LorLand, NoAccum, &ab, &gb, &ubool, &wb, &mb, mk, f, &c);
            }
            // the same bits on every run
            let gu = gpu.upload_vector(&u32v).unwrap();
            let run = || {
                let mut w = gpu.vector_new::<f32>(n, None, VectorFormat::Dense).unwrap();
                gpu.mxv(&mut w, None, NoAccum, PlusTimes::<f32>::new(), &g32, &gu, f)
                    .unwrap();
                let v = gpu.download_vector(&w).unwrap();
                v.entries()
                    .iter()
                    .map(|e| (e.0, e.1.to_bits()))
                    .collect::<Vec<_>>()
            };
            let first = run();
            for _ in 0..3 {
                assert!(run() == first, "{ctx}: f32 results differ between runs");
            }
        }
    }
}

#[test]
fn device_packing_matches_host() {
    let Some(gpu) = cuda_or_skip("device_packing_matches_host") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    for &(n, m, p) in &[
        (1usize, 1usize, 1.0),
        (70, 45, 0.1),
        (2000, 1700, 0.003),
        (64, 64, 0.9),
    ] {
        let e = pattern(&mut rng, n, m, p, n > 2);
        let host = matrix(n, m, &e, 1.0f32);
        let gh = gpu.upload_matrix(&host).unwrap();
        for t in TILES {
            let want = host.to_format(Format::B2sr(t)).unwrap();
            let gb = gpu.convert(&gh, Format::B2sr(t)).unwrap();
            let got = gpu.download_matrix(&gb).unwrap();
            assert_eq!(got, want, "CSR->B2SR {n}x{m} k={t}");
            assert_eq!(gpu.matrix_nvals(&gb).unwrap(), e.len());
            // B2SR -> CSR on the device
            let back = gpu
                .download_matrix(&gpu.convert(&gb, Format::Csr).unwrap())
                .unwrap();
            assert_eq!(back, host, "B2SR->CSR {n}x{m} k={t}");
            // B2SR (host-packed, uploaded) -> another tile size on the device
            let other = if t == TileSize::T4 {
                TileSize::T32
            } else {
                TileSize::T4
            };
            let gx = gpu
                .convert(&gpu.upload_matrix(&want).unwrap(), Format::B2sr(other))
                .unwrap();
            assert_eq!(
                gpu.download_matrix(&gx).unwrap(),
                host.to_format(Format::B2sr(other)).unwrap()
            );
        }
    }
    // differing values cannot become B2SR
    let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f32), (1, 1, 2.0)]).unwrap();
    assert!(gpu
        .convert(&gpu.upload_matrix(&a).unwrap(), Format::B2sr(TileSize::T4))
        .is_err());
}

fn brute_triangles(n: usize, e: &[(usize, usize)]) -> u64 {
    let mut adj = vec![std::collections::BTreeSet::new(); n];
    for &(i, j) in e {
        adj[i].insert(j);
    }
    let mut c = 0u64;
    for &(i, j) in e {
        if j < i {
            c += adj[i]
                .iter()
                .filter(|&&k| k < j && adj[j].contains(&k))
                .count() as u64;
        }
    }
    c
}

fn symmetric(rng: &mut StdRng, n: usize, p: f64) -> Vec<(usize, usize)> {
    let mut s = std::collections::BTreeSet::new();
    for (i, j) in pattern(rng, n, n, p, true) {
        if i != j {
            s.insert((i, j));
            s.insert((j, i));
        }
    }
    s.into_iter().collect()
}

#[test]
fn triangle_count_bin_bin_sum() {
    let Some(gpu) = cuda_or_skip("triangle_count_bin_bin_sum") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for &(n, p) in &[(50usize, 0.2), (700, 0.02), (1200, 0.004)] {
        let e = symmetric(&mut rng, n, p);
        let want = brute_triangles(n, &e);
        let a = matrix(n, n, &e, 1u64);
        for t in TILES {
            let ga = gpu
                .convert(&gpu.upload_matrix(&a).unwrap(), Format::B2sr(t))
                .unwrap();
            // L = tril(A, -1) selected on the device
            let mut gl = gpu.upload_matrix(&Matrix::<u64>::empty(n, n)).unwrap();
            gpu.select_matrix(
                &mut gl,
                None,
                NoAccum,
                IndexOp::Tril(-1),
                &ga,
                Flags::default(),
            )
            .unwrap();
            let l = gpu.download_matrix(&gl).unwrap();
            let mut lc = Matrix::<u64>::empty(n, n);
            cpu.select_matrix(
                &mut lc,
                None,
                NoAccum,
                IndexOp::Tril(-1),
                &a.to_format(Format::B2sr(t)).unwrap(),
                Flags::default(),
            )
            .unwrap();
            assert_eq!(l.to_sprs(), lc.to_sprs(), "select tril k={t}");
            let flags = Flags {
                transpose_b: true,
                ..Flags::default()
            };
            let got = gpu
                .mxm_reduce(
                    CudaBackend::matrix_mask(&gl).structure(),
                    PlusPair::<u64>::new(),
                    &gl,
                    &gl,
                    flags,
                )
                .unwrap();
            let cpu_count = cpu
                .mxm_reduce(
                    l.as_mask().structure(),
                    PlusPair::<u64>::new(),
                    &l,
                    &l,
                    flags,
                )
                .unwrap();
            assert_eq!(got, want, "n={n} k={t}: gpu {got}, brute force {want}");
            assert_eq!(cpu_count, want, "cpu");
            let got32 = gpu
                .mxm_reduce(
                    CudaBackend::matrix_mask(&gl),
                    PlusPair::<u64>::new(),
                    &gl,
                    &gl,
                    flags,
                )
                .unwrap();
            assert_eq!(got32, want, "valued mask");
        }
    }
}

#[test]
fn mxm_dense_gnn_aggregation() {
    let Some(gpu) = cuda_or_skip("mxm_dense_gnn_aggregation") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for &(n, m, f) in &[(45usize, 38usize, 1usize), (300, 260, 33), (130, 140, 300)] {
        let e = pattern(&mut rng, n, m, 0.05, true);
        let host = matrix(n, m, &e, 0.5f32);
        let b = DenseMatrix::from_vec(
            m,
            f,
            (0..m * f).map(|_| rng.gen_range(-1.0f32..1.0)).collect(),
        )
        .unwrap();
        let gb = gpu.upload_dense(&b).unwrap();
        for t in TILES {
            let a = host.to_format(Format::B2sr(t)).unwrap();
            let ga = gpu.upload_matrix(&a).unwrap();
            let mut cc = DenseMatrix::filled(n, f, 7.0f32);
            let mut gc = gpu.upload_dense(&cc).unwrap();
            cpu.mxm_dense(
                &mut cc,
                NoAccum,
                PlusTimes::<f32>::new(),
                &a,
                &b,
                Flags::default(),
            )
            .unwrap();
            gpu.mxm_dense(
                &mut gc,
                NoAccum,
                PlusTimes::<f32>::new(),
                &ga,
                &gb,
                Flags::default(),
            )
            .unwrap();
            let got = gpu.download_dense(&gc).unwrap();
            for (x, y) in cc.as_slice().iter().zip(got.as_slice()) {
                assert!(close(*x, *y), "mxm_dense {n}x{m}x{f} k={t}: {x} vs {y}");
            }
            // with an accumulator, and MAX.TIMES
            let mut cc2 = DenseMatrix::filled(n, f, 0.25f32);
            let mut gc2 = gpu.upload_dense(&cc2).unwrap();
            cpu.mxm_dense(
                &mut cc2,
                Accum(Plus),
                MaxTimes::<f32>::new(),
                &a,
                &b,
                Flags::default(),
            )
            .unwrap();
            gpu.mxm_dense(
                &mut gc2,
                Accum(Plus),
                MaxTimes::<f32>::new(),
                &ga,
                &gb,
                Flags::default(),
            )
            .unwrap();
            let got2 = gpu.download_dense(&gc2).unwrap();
            for (x, y) in cc2.as_slice().iter().zip(got2.as_slice()) {
                assert!(close(*x, *y), "mxm_dense max_times accum k={t}: {x} vs {y}");
            }
        }
    }
}

fn vector_ops_for<T: Scalar>(gpu: &CudaBackend, rng: &mut StdRng)
where
    Plus: bitgraphblas::algebra::Monoid<T>,
    Min: bitgraphblas::algebra::Monoid<T>,
    Max: bitgraphblas::algebra::Monoid<T>,
    Times: bitgraphblas::algebra::Monoid<T>,
{
    let cpu = Cpu::new();
    let n = 1000 + rng.gen_range(0..100);
    for fu in [VectorFormat::Dense, VectorFormat::Sparse] {
        let u = vector::<T>(rng, n, 0.6, fu);
        let v = vector::<T>(rng, n, 0.5, VectorFormat::Dense);
        let w0 = vector::<T>(rng, n, 0.5, VectorFormat::Dense);
        let mv = vector::<T>(rng, n, 0.5, VectorFormat::Dense);
        let (gu, gv, gm) = (
            gpu.upload_vector(&u).unwrap(),
            gpu.upload_vector(&v).unwrap(),
            gpu.upload_vector(&mv).unwrap(),
        );
        let ctx = format!("{:?} u={fu:?}", T::TYPE);
        for kind in [
            EwiseKind::Add,
            EwiseKind::Mult,
            EwiseKind::Union {
                alpha: T::one(),
                beta: T::zero(),
            },
        ] {
            for replace in [false, true] {
                let flags = Flags {
                    replace,
                    ..Flags::default()
                };
                let mut cw = w0.clone();
                let mut gw = gpu.upload_vector(&w0).unwrap();
                cpu.ewise_vector(
                    &mut cw,
                    Some(mv.as_mask()),
                    Accum(Min),
                    kind,
                    Plus,
                    &u,
                    &v,
                    flags,
                )
                .unwrap();
                gpu.ewise_vector(
                    &mut gw,
                    Some(CudaBackend::mask(&gm)),
                    Accum(Min),
                    kind,
                    Plus,
                    &gu,
                    &gv,
                    flags,
                )
                .unwrap();
                same_vector(
                    &cw,
                    &gpu.download_vector(&gw).unwrap(),
                    &format!("{ctx} ewise {kind:?}"),
                );
                let mut cw = w0.clone();
                let mut gw = gpu.upload_vector(&w0).unwrap();
                cpu.ewise_vector(
                    &mut cw,
                    Some(mv.as_mask().complement()),
                    NoAccum,
                    kind,
                    Times,
                    &u,
                    &v,
                    flags,
                )
                .unwrap();
                gpu.ewise_vector(
                    &mut gw,
                    Some(CudaBackend::mask(&gm).complement()),
                    NoAccum,
                    kind,
                    Times,
                    &gu,
                    &gv,
                    flags,
                )
                .unwrap();
                same_vector(
                    &cw,
                    &gpu.download_vector(&gw).unwrap(),
                    &format!("{ctx} ewise times {kind:?}"),
                );
            }
        }
        // apply
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.apply_vector(
            &mut cw,
            None,
            NoAccum,
            BindSecond(Times, T::from_f64(3.0)),
            &u,
            Flags::default(),
        )
        .unwrap();
        gpu.apply_vector(
            &mut gw,
            None,
            NoAccum,
            BindSecond(Times, T::from_f64(3.0)),
            &gu,
            Flags::default(),
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} apply"),
        );
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.apply_vector(
            &mut cw,
            Some(mv.as_mask().structure()),
            Accum(Plus),
            Abs,
            &u,
            Flags::default(),
        )
        .unwrap();
        gpu.apply_vector(
            &mut gw,
            Some(CudaBackend::mask(&gm).structure()),
            Accum(Plus),
            Abs,
            &gu,
            Flags::default(),
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} apply abs"),
        );
        // select
        for p in [
            IndexOp::ValueGt(T::from_f64(10.0)),
            IndexOp::RowLe(500),
            IndexOp::ValueEq(T::from_f64(3.0)),
        ] {
            let mut cw = w0.clone();
            let mut gw = gpu.upload_vector(&w0).unwrap();
            cpu.select_vector(
                &mut cw,
                Some(mv.as_mask()),
                NoAccum,
                p,
                &u,
                Flags {
                    replace: true,
                    ..Flags::default()
                },
            )
            .unwrap();
            gpu.select_vector(
                &mut gw,
                Some(CudaBackend::mask(&gm)),
                NoAccum,
                p,
                &gu,
                Flags {
                    replace: true,
                    ..Flags::default()
                },
            )
            .unwrap();
            same_vector(
                &cw,
                &gpu.download_vector(&gw).unwrap(),
                &format!("{ctx} select {p:?}"),
            );
        }
        // reduce
        assert!(
            close(
                cpu.reduce_vector(Plus, &u).unwrap(),
                gpu.reduce_vector(Plus, &gu).unwrap()
            ),
            "{ctx} reduce plus"
        );
        assert!(
            close(
                cpu.reduce_vector(Min, &u).unwrap(),
                gpu.reduce_vector(Min, &gu).unwrap()
            ),
            "{ctx} reduce min"
        );
        assert!(
            close(
                cpu.reduce_vector(Max, &u).unwrap(),
                gpu.reduce_vector(Max, &gu).unwrap()
            ),
            "{ctx} reduce max"
        );
        assert_eq!(
            cpu.vector_nvals(&u).unwrap(),
            gpu.vector_nvals(&gu).unwrap()
        );
        // extract / assign
        let idx: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.3)).collect();
        let mut cw = Vector::<T>::empty(idx.len());
        let mut gw = gpu.upload_vector(&cw).unwrap();
        cpu.extract_vector(&mut cw, None, NoAccum, &u, &idx, Flags::default())
            .unwrap();
        gpu.extract_vector(&mut gw, None, NoAccum, &gu, &idx, Flags::default())
            .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} extract"),
        );
        let part = vector::<T>(rng, idx.len(), 0.7, VectorFormat::Dense);
        let gpart = gpu.upload_vector(&part).unwrap();
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.assign_vector(
            &mut cw,
            Some(mv.as_mask()),
            Accum(Plus),
            &part,
            &idx,
            Flags::default(),
        )
        .unwrap();
        gpu.assign_vector(
            &mut gw,
            Some(CudaBackend::mask(&gm)),
            Accum(Plus),
            &gpart,
            &idx,
            Flags::default(),
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} assign"),
        );
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.assign_vector_scalar(
            &mut cw,
            Some(mv.as_mask().complement()),
            NoAccum,
            T::from_f64(5.0),
            None,
            Flags {
                replace: true,
                ..Flags::default()
            },
        )
        .unwrap();
        gpu.assign_vector_scalar(
            &mut gw,
            Some(CudaBackend::mask(&gm).complement()),
            NoAccum,
            T::from_f64(5.0),
            None,
            Flags {
                replace: true,
                ..Flags::default()
            },
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} assign scalar"),
        );
        // formats round trip on the device
        for f in [VectorFormat::Dense, VectorFormat::Sparse] {
            let g2 = gpu.convert_vector(&gu, f).unwrap();
            same_vector(
                &u,
                &gpu.download_vector(&g2).unwrap(),
                &format!("{ctx} convert {f:?}"),
            );
        }
        let _ = Identity;
    }
}

#[test]
fn vector_ewise_apply_select_reduce_assign() {
    let Some(gpu) = cuda_or_skip("vector_ewise_apply_select_reduce_assign") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    vector_ops_for::<f32>(gpu, &mut rng);
    vector_ops_for::<i32>(gpu, &mut rng);
    vector_ops_for::<u64>(gpu, &mut rng);
    vector_ops_for::<f64>(gpu, &mut rng);
}

#[test]
fn bits_pack_unpack_and_reduce_rows() {
    let Some(gpu) = cuda_or_skip("bits_pack_unpack_and_reduce_rows") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for n in [1usize, 63, 64, 65, 1000, 4097] {
        // bool and f32 vectors of ones into bits and back
        let b = vector::<f32>(&mut rng, n, 0.4, VectorFormat::Bits);
        let d = b.to_format(VectorFormat::Dense).unwrap();
        let gd = gpu.upload_vector(&d).unwrap();
        let gb = gpu.convert_vector(&gd, VectorFormat::Bits).unwrap();
        same_vector(&b, &gpu.download_vector(&gb).unwrap(), "dense->bits");
        let back = gpu.convert_vector(&gb, VectorFormat::Dense).unwrap();
        same_vector(&d, &gpu.download_vector(&back).unwrap(), "bits->dense");
        let sp = gpu.convert_vector(&gb, VectorFormat::Sparse).unwrap();
        same_vector(&d, &gpu.download_vector(&sp).unwrap(), "bits->sparse");
        assert_eq!(gpu.vector_nvals(&gb).unwrap(), b.nvals());
        let nb = vector::<bool>(&mut rng, n, 0.5, VectorFormat::Dense);
        let gnb = gpu.upload_vector(&nb).unwrap();
        // a false entry cannot be packed into bits (present bits mean one)
        let has_false = nb.entries().iter().any(|e| !e.1);
        assert_eq!(
            gpu.convert_vector(&gnb, VectorFormat::Bits).is_err(),
            has_false
        );
        for fill in [None, Some(1.0f32)] {
            for f in [
                VectorFormat::Dense,
                VectorFormat::Bits,
                VectorFormat::Sparse,
            ] {
                let g = gpu.vector_new(n, fill, f).unwrap();
                let c = cpu.vector_new(n, fill, f).unwrap();
                same_vector(&c, &gpu.download_vector(&g).unwrap(), "vector_new");
            }
        }
    }
    for &(n, m) in &[(77usize, 50usize), (600, 900)] {
        let e = pattern(&mut rng, n, m, 0.05, true);
        for t in TILES {
            let a = matrix(n, m, &e, 2i64).to_format(Format::B2sr(t)).unwrap();
            let ga = gpu.upload_matrix(&a).unwrap();
            let w0 = vector::<i64>(&mut rng, n, 0.5, VectorFormat::Dense);
            let mut cw = w0.clone();
            let mut gw = gpu.upload_vector(&w0).unwrap();
            cpu.reduce_rows(&mut cw, None, NoAccum, Plus, &a, Flags::default())
                .unwrap();
            gpu.reduce_rows(&mut gw, None, NoAccum, Plus, &ga, Flags::default())
                .unwrap();
            same_vector(&cw, &gpu.download_vector(&gw).unwrap(), "reduce_rows b2sr");
            assert_eq!(
                cpu.reduce_matrix(Plus, &a).unwrap(),
                gpu.reduce_matrix(Plus, &ga).unwrap()
            );
        }
        let c = Matrix::from_triplets(
            n,
            m,
            e.iter()
                .map(|&(i, j)| (i, j, rand_val::<f32>(&mut rng)))
                .collect(),
        )
        .unwrap();
        let gc = gpu.upload_matrix(&c).unwrap();
        let mut cw = Vector::<f32>::empty(n);
        let mut gw = gpu.upload_vector(&cw).unwrap();
        cpu.reduce_rows(&mut cw, None, NoAccum, Max, &c, Flags::default())
            .unwrap();
        gpu.reduce_rows(&mut gw, None, NoAccum, Max, &gc, Flags::default())
            .unwrap();
        same_vector(&cw, &gpu.download_vector(&gw).unwrap(), "reduce_rows csr");
        assert!(close(
            cpu.reduce_matrix(Plus, &c).unwrap(),
            gpu.reduce_matrix(Plus, &gc).unwrap()
        ));
    }
}

#[test]
fn real_graphs_bfs_step_spmv_and_triangles() {
    let Some(gpu) = cuda_or_skip("real_graphs_bfs_step_spmv_and_triangles") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for name in [
        "karate.mtx",
        "ash292.mtx",
        "delaunay_n14.mtx",
        "curtis54.mtx",
    ] {
        let path = bitgraphblas::io::data_path(name);
        let g = bitgraphblas::io::read_matrix_market::<f32>(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let g = g.to_pattern(Format::Csr, 1.0f32).unwrap();
        let n = g.nrows();
        let csr = g.as_csr();
        let edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| {
                csr.row(i)
                    .0
                    .iter()
                    .map(move |&j| (i, j as usize))
                    .collect::<Vec<_>>()
            })
            .collect();
        for t in TILES {
            let a = g.to_format(Format::B2sr(t)).unwrap();
            let ga = gpu
                .convert(&gpu.upload_matrix(&g).unwrap(), Format::B2sr(t))
                .unwrap();
            assert_eq!(gpu.download_matrix(&ga).unwrap(), a, "{name} packing k={t}");
            // SpMV
            let u = vector::<f32>(&mut rng, g.ncols(), 1.0, VectorFormat::Dense);
            let w0 = Vector::<f32>::empty(n);
            mxv_case(
                gpu,
                PlusTimes::<f32>::new(),
                NoAccum,
                &a,
                &ga,
                &u,
                &w0,
                &w0,
                0,
                Flags::default(),
                &format!("{name} spmv k={t}"),
            );
            // one BFS step: next<!visited> = A' frontier (bits)
            let ab = matrix(n, g.ncols(), &edges, true)
                .to_format(Format::B2sr(t))
                .unwrap();
            let gab = gpu.upload_matrix(&ab).unwrap();
            let frontier = vector::<bool>(&mut rng, n, 0.05, VectorFormat::Bits);
            let visited = vector::<bool>(&mut rng, n, 0.3, VectorFormat::Bits);
            let w0b = Vector::from_bits(bitgraphblas::storage::BitVec::zeros(n));
            mxv_case(
                gpu,
                LorLand,
                NoAccum,
                &ab,
                &gab,
                &frontier,
                &w0b,
                &visited,
                4,
                Flags {
                    replace: true,
                    transpose_a: true,
                    transpose_b: false,
                },
                &format!("{name} bfs k={t}"),
            );
            // triangles (symmetric graphs only)
            if name != "curtis54.mtx" {
                let gu = gpu
                    .convert(
                        &gpu.upload_matrix(&matrix(n, n, &edges, 1u64)).unwrap(),
                        Format::B2sr(t),
                    )
                    .unwrap();
                let mut gl = gpu.upload_matrix(&Matrix::<u64>::empty(n, n)).unwrap();
                gpu.select_matrix(
                    &mut gl,
                    None,
                    NoAccum,
                    IndexOp::Tril(-1),
                    &gu,
                    Flags::default(),
                )
                .unwrap();
                let flags = Flags {
                    transpose_b: true,
                    ..Flags::default()
                };
                let got = gpu
                    .mxm_reduce(
                        CudaBackend::matrix_mask(&gl).structure(),
                        PlusPair::<u64>::new(),
                        &gl,
                        &gl,
                        flags,
                    )
                    .unwrap();
                let l = gpu.download_matrix(&gl).unwrap();
                let want = cpu
                    .mxm_reduce(
                        l.as_mask().structure(),
                        PlusPair::<u64>::new(),
                        &l,
                        &l,
                        flags,
                    )
                    .unwrap();
                assert_eq!(got, want, "{name} triangles k={t}");
                if t == TileSize::T4 {
                    eprintln!("{name}: {got} triangles");
                }
            }
        }
    }
}

#[test]
fn unsupported_operations_say_so() {
    let Some(gpu) = cuda_or_skip("unsupported_operations_say_so") else {
        return;
    };
    let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0f32), (1, 2, 1.0)]).unwrap();
    let ga = gpu.upload_matrix(&a).unwrap();
    let user = bitgraphblas::algebra::SemiringFrom::<f32, _, _>::new(Plus, Times);
    let u = gpu
        .upload_vector(&Vector::from_dense(vec![1.0f32; 3]))
        .unwrap();
    let mut w = gpu.upload_vector(&Vector::<f32>::empty(3)).unwrap();
    let e = gpu
        .mxv(&mut w, None, NoAccum, user, &ga, &u, Flags::default())
        .unwrap_err();
    assert!(matches!(e, bitgraphblas::Error::NoKernel { .. }), "{e}");
    assert!(gpu.convert(&ga, Format::Auto).is_err());
}
