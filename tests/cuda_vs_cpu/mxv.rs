//! `mxv`/`vxm` on every semiring, tile size, mask and format; CSR row-group
//! and row-block products; skewed tile rows.

#![allow(unused_imports)]
use super::*;

/// One `mxv` case on both backends (mask from `mvec`, kinds 0 none, 1 valued,
/// 2 structural, 3 complemented valued, 4 complemented structural).
#[allow(clippy::too_many_arguments)]
pub(crate) fn mxv_case<S: Semiring, A: Accumulate<S::T>>(
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
    mxv_semiring(gpu, MinFirst::<u64>::new(), &mut rng, 3, &[Dense]);
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
