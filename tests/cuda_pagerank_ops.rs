//! The CUDA paths PageRank leans on, against the CPU backend: the CSR `mxv`
//! on iso-valued matrices (values not read) and non-iso ones, accumulating in
//! place into a full vector or through the general write-back; the built-in
//! `AbsDiff` operator; the sparse ⊙ full intersection gathered in `O(nnz)`;
//! reductions over many blocks.
//!
//! Every device buffer starts poisoned (0xFF bytes), so an element no kernel
//! wrote shows up as a difference. Without a GPU each test prints a SKIPPED
//! line; with `BITGRAPHBLAS_REQUIRE_GPU=1` a missing GPU fails instead.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{AbsDiff, Max, Min, MinPlus, Plus, PlusTimes, Semiring, Times};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::backend::EwiseKind;
use bitgraphblas::container::{Accum, Accumulate, Flags, NoAccum};
use bitgraphblas::{Backend, Cpu, Format, Matrix, Scalar, TileSize, Vector, VectorFormat};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn close<T: Scalar>(a: T, b: T) -> bool {
    if !T::IS_FLOAT {
        return a == b;
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
}

#[track_caller]
fn same<T: Scalar>(cpu: &Vector<T>, gpu: &Vector<T>, ctx: &str) {
    assert_eq!(cpu.len(), gpu.len(), "{ctx}: length");
    let (a, b) = (cpu.entries(), gpu.entries());
    assert_eq!(
        a.iter().map(|e| e.0).collect::<Vec<_>>(),
        b.iter().map(|e| e.0).collect::<Vec<_>>(),
        "{ctx}: patterns differ"
    );
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

fn val<T: Scalar>(rng: &mut StdRng) -> T {
    if T::IS_FLOAT {
        T::from_f64(rng.gen_range(-4.0..8.0))
    } else {
        T::from_f64(rng.gen_range(0..50) as f64)
    }
}

/// A vector of length `n` with about `p` of its entries present (`p = 1`: a
/// full vector without presence bits), in `format`.
fn vector<T: Scalar>(rng: &mut StdRng, n: usize, p: f64, format: VectorFormat) -> Vector<T> {
    if p >= 1.0 {
        return Vector::from_dense((0..n).map(|_| val(rng)).collect());
    }
    let mut e = vec![];
    for i in 0..n {
        if rng.gen_bool(p) {
            e.push((
                i,
                if format == VectorFormat::Bits {
                    T::one()
                } else {
                    val(rng)
                },
            ));
        }
    }
    Vector::from_entries(n, e)
        .unwrap()
        .to_format(format)
        .unwrap()
}

/// A pattern with empty rows, random entries and hub rows long enough to be
/// cut into chunks (two adjacent, the last row long too).
fn hub_pattern(rng: &mut StdRng, n: usize, m: usize) -> Vec<(usize, usize)> {
    let mut e = std::collections::BTreeSet::new();
    for i in 0..n {
        if i % 13 == 4 {
            continue;
        }
        for _ in 0..rng.gen_range(0..6) {
            e.insert((i, rng.gen_range(0..m)));
        }
    }
    for (row, from, len) in [(2, 100, 2500), (3, 0, 2600), (n - 1, 7, m - 7)] {
        e.extend((from..from + len).map(|j| (row, j)));
    }
    e.into_iter().collect()
}

/// `w<mask> = accum(w, A u)` on both backends.
#[allow(clippy::too_many_arguments)]
fn mxv_case<S: Semiring, A: Accumulate<S::T>>(
    gpu: &CudaBackend,
    s: S,
    accum: A,
    a: &Matrix<S::T>,
    ga: &<CudaBackend as Backend>::Matrix<S::T>,
    u: &Vector<S::T>,
    w0: &Vector<S::T>,
    mask: Option<&Vector<S::T>>,
    ctx: &str,
) {
    let (gu, mut gw) = (
        gpu.upload_vector(u).unwrap(),
        gpu.upload_vector(w0).unwrap(),
    );
    let gm = mask.map(|m| gpu.upload_vector(m).unwrap());
    let mut cw = w0.clone();
    let f = Flags::default();
    Cpu::new()
        .mxv(&mut cw, mask.map(|m| m.as_mask()), accum, s, a, u, f)
        .unwrap();
    gpu.mxv(
        &mut gw,
        gm.as_ref().map(CudaBackend::mask),
        accum,
        s,
        ga,
        &gu,
        f,
    )
    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    same(&cw, &gpu.download_vector(&gw).unwrap(), ctx);
}

/// CSR `mxv` with iso values (ones, and 2.5: the values are not read) and
/// random values, hub rows, full and partial `w`, with and without an
/// accumulator and a mask, dense, sparse and bit inputs; also a CSR made on
/// the device from B2SR (iso by construction).
#[test]
fn csr_mxv_iso_and_accumulate_in_place_match_cpu() {
    let Some(gpu) = cuda_or_skip("csr_mxv_iso_and_accumulate_in_place_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let (n, m) = (3000, 2900);
    let e = hub_pattern(&mut rng, n, m);
    let trip = |v: &mut dyn FnMut() -> f64| -> Matrix<f64> {
        Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, v())).collect()).unwrap()
    };
    let ones = trip(&mut || 1.0);
    let iso = trip(&mut || 2.5);
    let mut r2 = StdRng::seed_from_u64(rng.gen());
    let valued = trip(&mut || r2.gen_range(-2.0..3.0));
    assert_eq!(ones.as_csr().iso_value(), Some(1.0));
    assert_eq!(valued.as_csr().iso_value(), None);
    let from_b2sr = gpu
        .convert(
            &gpu.upload_matrix(&ones.to_format(Format::B2sr(TileSize::T8)).unwrap())
                .unwrap(),
            Format::Csr,
        )
        .unwrap();
    let mats: Vec<(&str, &Matrix<f64>, <CudaBackend as Backend>::Matrix<f64>)> = vec![
        ("ones", &ones, gpu.upload_matrix(&ones).unwrap()),
        ("iso 2.5", &iso, gpu.upload_matrix(&iso).unwrap()),
        ("valued", &valued, gpu.upload_matrix(&valued).unwrap()),
        ("ones from B2SR", &ones, from_b2sr),
        // B2SR at k <= 8: `w += A u` into a full `w` folds in the fused kernel
        (
            "ones B2SR 8x8",
            &ones,
            gpu.upload_matrix(&ones.to_format(Format::B2sr(TileSize::T8)).unwrap())
                .unwrap(),
        ),
        (
            "iso 2.5 B2SR 4x4",
            &iso,
            gpu.upload_matrix(&iso.to_format(Format::B2sr(TileSize::T4)).unwrap())
                .unwrap(),
        ),
    ];
    for (name, a, ga) in &mats {
        for uf in [
            VectorFormat::Dense,
            VectorFormat::Sparse,
            VectorFormat::Bits,
        ] {
            let u = if uf == VectorFormat::Dense {
                vector::<f64>(&mut rng, m, 1.0, uf)
            } else {
                vector::<f64>(&mut rng, m, 0.6, uf)
            };
            for wp in [1.0, 0.5] {
                let w0 = vector::<f64>(&mut rng, n, wp, VectorFormat::Dense);
                let mv = vector::<f64>(&mut rng, n, 0.5, VectorFormat::Dense);
                let ctx = format!("{name} u={uf:?} w present {wp}");
                let s = PlusTimes::<f64>::new();
                mxv_case(gpu, s, NoAccum, a, ga, &u, &w0, None, &ctx);
                mxv_case(
                    gpu,
                    s,
                    Accum(Plus),
                    a,
                    ga,
                    &u,
                    &w0,
                    None,
                    &format!("{ctx} +="),
                );
                mxv_case(
                    gpu,
                    s,
                    Accum(Max),
                    a,
                    ga,
                    &u,
                    &w0,
                    None,
                    &format!("{ctx} max="),
                );
                mxv_case(
                    gpu,
                    s,
                    Accum(Plus),
                    a,
                    ga,
                    &u,
                    &w0,
                    Some(&mv),
                    &format!("{ctx} mask +="),
                );
                let s = MinPlus::<f64>::new();
                mxv_case(
                    gpu,
                    s,
                    Accum(Min),
                    a,
                    ga,
                    &u,
                    &w0,
                    None,
                    &format!("{ctx} min.plus min="),
                );
            }
        }
    }
    // integers, exact: an iso `u32` matrix of threes
    let a3 = Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, 3u32)).collect()).unwrap();
    let ga3 = gpu.upload_matrix(&a3).unwrap();
    let u = vector::<u32>(&mut rng, m, 1.0, VectorFormat::Dense);
    let w0 = vector::<u32>(&mut rng, n, 1.0, VectorFormat::Dense);
    let s = PlusTimes::<u32>::new();
    mxv_case(gpu, s, NoAccum, &a3, &ga3, &u, &w0, None, "u32 iso 3");
    mxv_case(
        gpu,
        s,
        Accum(Plus),
        &a3,
        &ga3,
        &u,
        &w0,
        None,
        "u32 iso 3 +=",
    );
}

/// Patterns that put the CSR row-block product's edges (`cuda/csr_blocks.cu`:
/// blocks of at most 128 rows and 512 entries, hub rows of more than 512
/// entries in pieces of 2048, rows of more than 16 x G entries in a block
/// left to a warp) in awkward places: long runs of empty rows, rows of 511,
/// 512, 513, 2047, 2048, 2049 entries and of several pieces, a block whose
/// rows are short but one, one hub row between short rows, a last row that
/// is empty or long; against the CPU, and the same product twice on the
/// device gives the same bits (the hub rows' counters are left zeroed).
#[test]
fn csr_mxv_blocks_edges_match_cpu() {
    let Some(gpu) = cuda_or_skip("csr_mxv_blocks_edges_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    // coprime with the column stride 7 below, so a row holds up to m distinct columns
    let m = 7001;
    let mut shapes: Vec<(&str, Vec<usize>)> = vec![];
    // runs of empty rows between short rows
    shapes.push((
        "empty runs",
        (0..6000)
            .map(|i| if (i / 700) % 2 == 0 { 0 } else { i % 4 })
            .collect(),
    ));
    // lengths around a block's entries and a hub's piece
    shapes.push((
        "near 512 and 2048",
        (0..80)
            .map(|i| [511, 512, 513, 1, 0, 2047, 2048, 2049, 255, 256, 257][i % 11])
            .collect(),
    ));
    // hub rows of several pieces, offset by short rows
    shapes.push((
        "pieces",
        (0..44)
            .map(|i| [4095, 4096, 4097, 6143, 6144, 6145, 2, 5, 0, 40, 3][i % 11])
            .collect(),
    ));
    // blocks of short rows with one longer row each (left to a warp)
    shapes.push((
        "one long row a block",
        (0..2000)
            .map(|i| if i % 97 == 0 { 60 + i % 200 } else { i % 3 })
            .collect(),
    ));
    // one row over many chunks between short rows, an empty last row
    let mut hub: Vec<usize> = (0..400).map(|i| i % 3).collect();
    hub[150] = m;
    hub.push(0);
    shapes.push(("hub", hub));
    // power-law lengths, a long last row
    let mut pl: Vec<usize> = (0..4000)
        .map(|_| {
            let x: f64 = rng.gen_range(0.0..1.0);
            ((1.0 / (x + 1e-3)).powf(1.2) as usize).min(m) / 4
        })
        .collect();
    pl.push(m - 1);
    shapes.push(("power law", pl));
    for (name, lens) in &shapes {
        let n = lens.len();
        let mut e = vec![];
        for (i, &len) in lens.iter().enumerate() {
            let start = rng.gen_range(0..m);
            let mut cols: Vec<usize> = (0..len).map(|q| (start + q * 7) % m).collect();
            cols.sort_unstable();
            cols.dedup();
            assert_eq!(
                cols.len(),
                len,
                "{name}: row {i} has the length it was meant to"
            );
            e.extend(cols.into_iter().map(|j| (i, j)));
        }
        let ones =
            Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, 1.0)).collect()).unwrap();
        let mut r2 = StdRng::seed_from_u64(rng.gen());
        let valued = Matrix::from_triplets(
            n,
            m,
            e.iter()
                .map(|&(i, j)| (i, j, r2.gen_range(-2.0..3.0)))
                .collect(),
        )
        .unwrap();
        for (what, a) in [("ones", &ones), ("valued", &valued)] {
            let ga = gpu.upload_matrix(a).unwrap();
            let u = vector::<f64>(&mut rng, m, 1.0, VectorFormat::Dense);
            let us = vector::<f64>(&mut rng, m, 0.3, VectorFormat::Sparse);
            let w0 = vector::<f64>(&mut rng, n, 1.0, VectorFormat::Dense);
            let mv = vector::<f64>(&mut rng, n, 0.5, VectorFormat::Dense);
            let ctx = format!("{name} {what}");
            let s = PlusTimes::<f64>::new();
            mxv_case(gpu, s, NoAccum, a, &ga, &u, &w0, None, &ctx);
            mxv_case(
                gpu,
                s,
                Accum(Plus),
                a,
                &ga,
                &u,
                &w0,
                None,
                &format!("{ctx} +="),
            );
            mxv_case(
                gpu,
                s,
                NoAccum,
                a,
                &ga,
                &us,
                &w0,
                None,
                &format!("{ctx} sparse u"),
            );
            // into a vector with presence bits, first from the sparse input
            // (presence zeroed, then set by the kernel), then over that
            // result from the full one (presence copied from the matrix's
            // rows with entries, the kernel writing values only)
            let mut gw = gpu.vector_new::<f64>(n, None, VectorFormat::Dense).unwrap();
            for (input, how) in [(&us, "sparse u"), (&u, "full u"), (&us, "sparse u again")] {
                let mut cw = Vector::from_entries(n, vec![]).unwrap();
                let f = Flags::default();
                Cpu::new()
                    .mxv(&mut cw, None, NoAccum, s, a, input, f)
                    .unwrap();
                let gu = gpu.upload_vector(input).unwrap();
                gpu.mxv(&mut gw, None, NoAccum, s, &ga, &gu, f).unwrap();
                let got = gpu.download_vector(&gw).unwrap();
                same(&cw, &got, &format!("{ctx} into presence, {how}"));
            }
            mxv_case(
                gpu,
                s,
                Accum(Plus),
                a,
                &ga,
                &u,
                &w0,
                Some(&mv),
                &format!("{ctx} mask +="),
            );
            let s = MinPlus::<f64>::new();
            mxv_case(
                gpu,
                s,
                Accum(Min),
                a,
                &ga,
                &u,
                &w0,
                None,
                &format!("{ctx} min.plus"),
            );
            // the same product twice: the same bits
            let gu = gpu.upload_vector(&u).unwrap();
            let run = || {
                let mut gw = gpu.upload_vector(&w0).unwrap();
                gpu.mxv(
                    &mut gw,
                    None,
                    Accum(Plus),
                    PlusTimes::<f64>::new(),
                    &ga,
                    &gu,
                    Flags::default(),
                )
                .unwrap();
                gpu.download_vector(&gw)
                    .unwrap()
                    .into_vec(0.0)
                    .into_iter()
                    .map(f64::to_bits)
                    .collect::<Vec<_>>()
            };
            assert_eq!(run(), run(), "{ctx}: two runs differ");
        }
        let a3 =
            Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, 3u32)).collect()).unwrap();
        let ga3 = gpu.upload_matrix(&a3).unwrap();
        let u = vector::<u32>(&mut rng, m, 1.0, VectorFormat::Dense);
        let w0 = vector::<u32>(&mut rng, n, 0.5, VectorFormat::Dense);
        let s = PlusTimes::<u32>::new();
        mxv_case(
            gpu,
            s,
            NoAccum,
            &a3,
            &ga3,
            &u,
            &w0,
            None,
            &format!("{name} u32"),
        );
        mxv_case(
            gpu,
            s,
            Accum(Plus),
            &a3,
            &ga3,
            &u,
            &w0,
            None,
            &format!("{name} u32 +="),
        );
    }
}

/// The built-in `AbsDiff` on every kind of element-wise operation and type,
/// against the CPU; and its values by hand (no wrap-around for unsigned).
#[test]
fn absdiff_ewise_matches_cpu() {
    let Some(gpu) = cuda_or_skip("absdiff_ewise_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    fn run<T: Scalar>(gpu: &CudaBackend, rng: &mut StdRng) {
        let n = 5000 + rng.gen_range(0..100);
        for (pu, pv) in [(1.0, 1.0), (0.6, 1.0), (0.5, 0.7)] {
            let u = vector::<T>(rng, n, pu, VectorFormat::Dense);
            let v = vector::<T>(rng, n, pv, VectorFormat::Dense);
            let (gu, gv) = (
                gpu.upload_vector(&u).unwrap(),
                gpu.upload_vector(&v).unwrap(),
            );
            for kind in [EwiseKind::Add, EwiseKind::Mult] {
                let ctx = format!("{:?} {pu}/{pv} {kind:?}", T::TYPE);
                let mut cw = Vector::empty(n);
                let mut gw = gpu.vector_new(n, None, VectorFormat::Dense).unwrap();
                let f = Flags::default();
                Cpu::new()
                    .ewise_vector(&mut cw, None, NoAccum, kind, AbsDiff, &u, &v, f)
                    .unwrap();
                gpu.ewise_vector(&mut gw, None, NoAccum, kind, AbsDiff, &gu, &gv, f)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                same(&cw, &gpu.download_vector(&gw).unwrap(), &ctx);
            }
        }
    }
    run::<f64>(gpu, &mut rng);
    run::<f32>(gpu, &mut rng);
    run::<u32>(gpu, &mut rng);
    run::<i64>(gpu, &mut rng);
    let u = gpu
        .upload_vector(&Vector::from_dense(vec![2u32, 9, 5]))
        .unwrap();
    let v = gpu
        .upload_vector(&Vector::from_dense(vec![7u32, 1, 5]))
        .unwrap();
    let mut w = gpu.vector_new(3, None, VectorFormat::Dense).unwrap();
    gpu.ewise_vector(
        &mut w,
        None,
        NoAccum,
        EwiseKind::Add,
        AbsDiff,
        &u,
        &v,
        Flags::default(),
    )
    .unwrap();
    assert_eq!(gpu.download_vector(&w).unwrap().to_vec(0), vec![5, 8, 0]);
}

/// Sparse ⊙ full (either order): the gathered intersection, also under a
/// mask and an accumulator, against the CPU; then its sum.
#[test]
fn sparse_times_full_matches_cpu() {
    let Some(gpu) = cuda_or_skip("sparse_times_full_matches_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let n = 70_000;
    for p in [0.0, 0.01, 0.4] {
        let s = vector::<f64>(&mut rng, n, p, VectorFormat::Sparse);
        let f = vector::<f64>(&mut rng, n, 1.0, VectorFormat::Dense);
        let w0 = vector::<f64>(&mut rng, n, 0.5, VectorFormat::Dense);
        let mv = vector::<f64>(&mut rng, n, 0.5, VectorFormat::Dense);
        let (gs, gf, gm) = (
            gpu.upload_vector(&s).unwrap(),
            gpu.upload_vector(&f).unwrap(),
            gpu.upload_vector(&mv).unwrap(),
        );
        for swap in [false, true] {
            let ((u, v), (gu, gv)) = if swap {
                ((&f, &s), (&gf, &gs))
            } else {
                ((&s, &f), (&gs, &gf))
            };
            let ctx = format!("p={p} swap={swap}");
            let fl = Flags::default();
            let mut cw = Vector::empty(n);
            let mut gw = gpu.vector_new(n, None, VectorFormat::Sparse).unwrap();
            Cpu::new()
                .ewise_vector(&mut cw, None, NoAccum, EwiseKind::Mult, Times, u, v, fl)
                .unwrap();
            gpu.ewise_vector(&mut gw, None, NoAccum, EwiseKind::Mult, Times, gu, gv, fl)
                .unwrap();
            same(&cw, &gpu.download_vector(&gw).unwrap(), &ctx);
            let (cs, gsum) = (
                Cpu::new().reduce_vector(Plus, &cw).unwrap(),
                gpu.reduce_vector(Plus, &gw).unwrap(),
            );
            assert!(close(cs, gsum), "{ctx}: sum cpu {cs} gpu {gsum}");
            // a minus order check: Minus is not commutative
            let mut cw = w0.clone();
            let mut gw = gpu.upload_vector(&w0).unwrap();
            Cpu::new()
                .ewise_vector(
                    &mut cw,
                    Some(mv.as_mask()),
                    Accum(Plus),
                    EwiseKind::Mult,
                    AbsDiff,
                    u,
                    v,
                    fl,
                )
                .unwrap();
            gpu.ewise_vector(
                &mut gw,
                Some(CudaBackend::mask(&gm)),
                Accum(Plus),
                EwiseKind::Mult,
                AbsDiff,
                gu,
                gv,
                fl,
            )
            .unwrap();
            same(
                &cw,
                &gpu.download_vector(&gw).unwrap(),
                &format!("{ctx} masked +="),
            );
            let mut cw = Vector::empty(n);
            let mut gw = gpu.vector_new(n, None, VectorFormat::Dense).unwrap();
            let minus = bitgraphblas::algebra::Minus;
            Cpu::new()
                .ewise_vector(&mut cw, None, NoAccum, EwiseKind::Mult, minus, u, v, fl)
                .unwrap();
            gpu.ewise_vector(&mut gw, None, NoAccum, EwiseKind::Mult, minus, gu, gv, fl)
                .unwrap();
            same(
                &cw,
                &gpu.download_vector(&gw).unwrap(),
                &format!("{ctx} minus"),
            );
        }
    }
}

/// Reductions over lengths that take one to many blocks, with and without
/// presence bits: exact for integers, close for floats.
#[test]
fn reductions_over_many_blocks_match_cpu() {
    let Some(gpu) = cuda_or_skip("reductions_over_many_blocks_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    for n in [1, 255, 4097, 100_003, 5_000_011] {
        for p in [1.0, 0.3] {
            let v = vector::<i64>(&mut rng, n, p, VectorFormat::Dense);
            let gv = gpu.upload_vector(&v).unwrap();
            let cpu = Cpu::new();
            assert_eq!(
                cpu.reduce_vector(Plus, &v).unwrap(),
                gpu.reduce_vector(Plus, &gv).unwrap(),
                "i64 n={n} p={p}"
            );
            assert_eq!(
                cpu.reduce_vector(Max, &v).unwrap(),
                gpu.reduce_vector(Max, &gv).unwrap(),
                "i64 max n={n} p={p}"
            );
            let f = vector::<f64>(&mut rng, n, p, VectorFormat::Dense);
            let gf = gpu.upload_vector(&f).unwrap();
            let (a, b) = (
                cpu.reduce_vector(Plus, &f).unwrap(),
                gpu.reduce_vector(Plus, &gf).unwrap(),
            );
            assert!(
                (a - b).abs() <= 1e-9 * (n as f64),
                "f64 n={n} p={p}: cpu {a} gpu {b}"
            );
            assert_eq!(
                cpu.reduce_vector(Min, &f).unwrap(),
                gpu.reduce_vector(Min, &gf).unwrap(),
                "f64 min n={n} p={p}"
            );
        }
    }
}
