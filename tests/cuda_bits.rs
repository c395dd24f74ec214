//! The dense-bit operations (issue 17) on the CUDA backend against the CPU
//! backend, on the same random inputs: conversions, BMM (bits and f32
//! activations, every semiring, every output kind, each kernel path forced in
//! turn), BSpMM (CSR and B2SR at every device tile size) and the bit-plane
//! products (b, c = 1..8). Shapes are awkward on purpose (0, 1, 63, 64, 65,
//! 255, 257, ...), lines all zero and all one appear, and the device outputs
//! are poisoned before every launch (NaN / a sentinel for dense outputs, every
//! bit including the padding set for bit outputs: a word left unwritten shows).
//!
//! Integers and bits must match exactly. f32 must match within 1e-5 relative;
//! the generators use dyadic values (multiples of 1/8, scales of 1/4...) so
//! every sum is exact whatever its order, and the results are in fact equal.
//!
//! Without a GPU every test prints SKIPPED (and fails with
//! `BITGRAPHBLAS_REQUIRE_GPU=1`).
#![cfg(feature = "cuda")]

use std::sync::{Mutex, MutexGuard};

use bitgraphblas::algebra::{BitDomain, BitSemiring};
use bitgraphblas::backend::cuda::{cuda_or_skip, BmmPath, CudaBackend, CudaBits};
use bitgraphblas::{
    ext, ops, Backend, BackendExt, BitInput, BitLayout, BitMatrix, BitOutput, BitPlanes, Cpu,
    DenseMatrix, Error, Format, Matrix, Scales, Threshold, TileSize,
};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

/// The tests share one device and its BMM path setting: one at a time.
static LOCK: Mutex<()> = Mutex::new(());

fn gpu(test: &str) -> Option<(&'static CudaBackend, MutexGuard<'static, ()>)> {
    let g = cuda_or_skip(test)?;
    let lock = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    g.set_bmm_path(BmmPath::Auto);
    Some((g, lock))
}

fn qc(tests: u64) -> QuickCheck {
    QuickCheck::new()
        .tests(tests)
        .max_tests(tests * 4)
        .rng(Gen::new(100))
}

type R<T> = bitgraphblas::Result<T>;

// ---- inputs ---------------------------------------------------------------------------

/// xorshift64*: the inputs of a case from its seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    /// A multiple of 1/8 in [-8, 8).
    fn dyadic(&mut self) -> f32 {
        (self.below(128) as f32 - 64.0) / 8.0
    }
}

/// Sizes around word and tile edges, or anything up to `max`.
fn dim(g: &mut Gen, edges: &[usize], max: usize) -> usize {
    if u8::arbitrary(g) % 3 == 0 {
        1 + (u32::arbitrary(g) as usize) % max
    } else {
        *g.choose(edges).expect("not empty")
    }
}

const EDGES: [usize; 18] = [
    0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257,
];
const K_EDGES: [usize; 18] = [
    0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025,
];

/// A case: a seed for the values, the shapes, and a selector for the options.
#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    m: usize,
    k: usize,
    n: usize,
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Case {
        Case {
            seed: u64::arbitrary(g),
            m: dim(g, &EDGES, 300),
            k: dim(g, &K_EDGES, 1100),
            n: dim(g, &EDGES, 300),
        }
    }
}

/// Random bits with some all-zero and all-one lines and lines of every density.
fn random_bits(r: &mut Rng, nrows: usize, ncols: usize, layout: BitLayout) -> BitMatrix {
    let lines = if layout == BitLayout::RowMajor {
        nrows
    } else {
        ncols
    };
    let dens: Vec<f64> = (0..lines)
        .map(|_| match r.below(8) {
            0 => 0.0,
            1 => 1.0,
            2 => 0.02,
            3 => 0.98,
            _ => r.unit(),
        })
        .collect();
    BitMatrix::from_fn(nrows, ncols, layout, |i, j| {
        let l = if layout == BitLayout::RowMajor { i } else { j };
        r.unit() < dens[l]
    })
    .expect("sizes fit")
}

fn dense(r: &mut Rng, nrows: usize, ncols: usize, f: impl Fn(&mut Rng) -> f32) -> DenseMatrix<f32> {
    let v = (0..nrows * ncols).map(|_| f(r)).collect();
    DenseMatrix::from_vec(nrows, ncols, v).expect("sizes fit")
}

/// A sparse m x k pattern: density u², with some empty and some full rows.
fn pattern(r: &mut Rng, m: usize, k: usize) -> Matrix<bool> {
    let p = r.unit().powi(2) * 0.5;
    let mut t = Vec::new();
    for i in 0..m {
        let row_p = match r.below(10) {
            0 => 0.0,
            1 => 1.0,
            _ => p,
        };
        for j in 0..k {
            if r.unit() < row_p {
                t.push((i, j, true));
            }
        }
    }
    Matrix::from_triplets(m, k, t).expect("valid triplets")
}

// ---- outputs ----------------------------------------------------------------------------

/// What a product writes, with which factors.
#[derive(Clone, Copy, Debug)]
struct OutSpec {
    /// 0 counts, 1 scaled, 2 bits.
    kind: u8,
    row: bool,
    col: bool,
    bias: bool,
    /// 0 sign, 1 a value, 2 per column.
    thr: u8,
}

impl OutSpec {
    fn random(r: &mut Rng, counts: bool) -> OutSpec {
        OutSpec {
            kind: if counts {
                r.below(3) as u8
            } else {
                1 + r.below(2) as u8
            },
            row: r.below(2) == 0,
            col: r.below(2) == 0,
            bias: r.below(2) == 0,
            thr: r.below(3) as u8,
        }
    }
}

/// Host factors of an m x n output (dyadic).
struct Factors {
    m: usize,
    n: usize,
    row: DenseMatrix<f32>,
    col: DenseMatrix<f32>,
    bias: DenseMatrix<f32>,
    tval: f32,
    tcol: DenseMatrix<f32>,
}

impl Factors {
    fn new(r: &mut Rng, m: usize, n: usize) -> Factors {
        let quarter = |r: &mut Rng| (r.below(17) as f32 - 8.0) / 4.0;
        let half = |r: &mut Rng| (r.below(41) as f32 - 20.0) / 2.0;
        Factors {
            m,
            n,
            row: dense(r, m, 1, quarter),
            col: dense(r, 1, n, quarter),
            bias: dense(r, 1, n, half),
            tval: half(r) + 0.25,
            tcol: dense(r, 1, n, half),
        }
    }
}

/// A product's downloaded output.
#[derive(Debug)]
enum Got {
    I(Vec<i32>),
    F(Vec<f32>),
    B(BitMatrix),
}

/// Backends whose bit outputs can be poisoned before a product.
trait Poison: Backend {
    fn poison(&self, b: &mut Self::Bits);
}
impl Poison for Cpu {
    fn poison(&self, _: &mut BitMatrix) {}
}
impl Poison for CudaBackend {
    fn poison(&self, b: &mut CudaBits) {
        self.poison_bits(b).expect("memset");
    }
}

const POISON_I32: i32 = -0x5a5a_5a5b;

/// Runs `run` into a poisoned output of `spec` on `be` and downloads it.
fn product<B: Poison>(
    be: &B,
    spec: OutSpec,
    f: &Factors,
    run: impl FnOnce(BitOutput<'_, B>) -> R<()>,
) -> R<Got> {
    let (m, n) = (f.m, f.n);
    let row = be.upload_dense(&f.row)?;
    let col = be.upload_dense(&f.col)?;
    let bias = be.upload_dense(&f.bias)?;
    let tcol = be.upload_dense(&f.tcol)?;
    let scales = Scales {
        row: spec.row.then_some(&row),
        col: spec.col.then_some(&col),
        bias: spec.bias.then_some(&bias),
    };
    Ok(match spec.kind {
        0 => {
            let mut c = be.upload_dense(&DenseMatrix::filled(m, n, POISON_I32))?;
            run(BitOutput::Counts(&mut c))?;
            Got::I(be.download_dense(&c)?.into_vec())
        }
        1 => {
            let mut c = be.upload_dense(&DenseMatrix::filled(m, n, f32::NAN))?;
            run(BitOutput::Scaled {
                out: &mut c,
                scales,
            })?;
            Got::F(be.download_dense(&c)?.into_vec())
        }
        _ => {
            let mut o = be.bits_new(m, n, BitLayout::RowMajor)?;
            be.poison(&mut o);
            let threshold = match spec.thr {
                0 => Threshold::Sign,
                1 => Threshold::Value(f.tval),
                _ => Threshold::PerColumn(&tcol),
            };
            run(BitOutput::Bits {
                out: &mut o,
                scales,
                threshold,
            })?;
            Got::B(be.download_bits(&o)?)
        }
    })
}

fn close(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0)
}

/// `Ok` where the outputs agree (integers and bits exactly, f32 within 1e-5).
fn same(want: &Got, got: &Got, what: &str) -> Result<(), String> {
    match (want, got) {
        (Got::I(a), Got::I(b)) => match a.iter().zip(b).position(|(x, y)| x != y) {
            None if a.len() == b.len() => Ok(()),
            None => Err(format!("{what}: {} values, {} expected", b.len(), a.len())),
            Some(p) => Err(format!("{what}: value {p}: cuda {} cpu {}", b[p], a[p])),
        },
        (Got::F(a), Got::F(b)) => match a.iter().zip(b).position(|(x, y)| !close(*x, *y)) {
            None if a.len() == b.len() => Ok(()),
            None => Err(format!("{what}: {} values, {} expected", b.len(), a.len())),
            Some(p) => Err(format!("{what}: value {p}: cuda {} cpu {}", b[p], a[p])),
        },
        (Got::B(a), Got::B(b)) => {
            if a == b {
                return Ok(());
            }
            let (m, n) = (a.nrows(), a.ncols());
            let first = (0..m)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .find(|&(i, j)| a.get(i, j) != b.get(i, j));
            Err(format!("{what}: bits differ, first at {first:?}"))
        }
        _ => Err(format!("{what}: different output kinds")),
    }
}

fn verdict(r: Result<(), String>) -> TestResult {
    match r {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

fn err(e: Error) -> String {
    e.to_string()
}

const SEMIRINGS: [BitSemiring; 5] = BitSemiring::ALL;
const SPARSE_SEMIRINGS: [BitSemiring; 3] = [
    BitSemiring::PLUS_LAND,
    BitSemiring::PLUS_LAND_SIGNED,
    BitSemiring::LorLand,
];
const PATHS: [BmmPath; 6] = [
    BmmPath::Auto,
    BmmPath::Tc2,
    BmmPath::Tc4,
    BmmPath::Thin,
    BmmPath::Popcount,
    BmmPath::Wg,
];
/// The tensor-core paths (the thin-k kernel falls back to `Tc2` where w does
/// not fit its shared memory, or bit planes have more than 1024 bits of k;
/// the warpgroup kernel to `Tc2` for bit planes).
const TC_PATHS: [BmmPath; 5] = [
    BmmPath::Auto,
    BmmPath::Tc2,
    BmmPath::Tc4,
    BmmPath::Thin,
    BmmPath::Wg,
];
const DEVICE_FORMATS: [Format; 5] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T16),
    Format::B2sr(TileSize::T32),
];

// ---- BMM ---------------------------------------------------------------------------------

/// `a ⊕.⊗ w` on both backends, the device on every kernel path.
fn check_bmm(
    gpu: &CudaBackend,
    a: &BitMatrix,
    w: &BitMatrix,
    s: BitSemiring,
    spec: OutSpec,
    f: &Factors,
    paths: &[BmmPath],
) -> Result<(), String> {
    let cpu = Cpu::new();
    let want = product(&cpu, spec, f, |o| {
        ops::bmm(&cpu, o, s, BitInput::Bits(a), w)
    })
    .map_err(err)?;
    let (da, dw) = (
        gpu.upload_bits(a).map_err(err)?,
        gpu.upload_bits(w).map_err(err)?,
    );
    for &p in paths {
        gpu.set_bmm_path(p);
        let got = product(gpu, spec, f, |o| {
            ops::bmm(gpu, o, s, BitInput::Bits(&da), &dw)
        })
        .map_err(err)?;
        same(
            &want,
            &got,
            &format!(
                "bmm {s} {spec:?} {p:?} {}x{}x{}",
                a.nrows(),
                a.ncols(),
                w.ncols()
            ),
        )?;
    }
    gpu.set_bmm_path(BmmPath::Auto);
    Ok(())
}

#[test]
fn bmm_bits_matches_cpu() {
    if cuda_or_skip("bmm_bits_matches_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("bmm_bits_matches_cpu").expect("checked");
        let mut r = Rng::new(c.seed);
        let a = random_bits(&mut r, c.m, c.k, BitLayout::RowMajor);
        let w = random_bits(&mut r, c.k, c.n, BitLayout::ColMajor);
        let s = r.pick(&SEMIRINGS);
        let spec = OutSpec::random(&mut r, true);
        let f = Factors::new(&mut r, c.m, c.n);
        verdict(check_bmm(g, &a, &w, s, spec, &f, &PATHS))
    }
    qc(120).quickcheck(p as fn(Case) -> TestResult);
}

#[test]
fn bmm_f32_matches_cpu() {
    if cuda_or_skip("bmm_f32_matches_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("bmm_f32_matches_cpu").expect("checked");
        let mut r = Rng::new(c.seed);
        let x = dense(&mut r, c.m, c.k, Rng::dyadic);
        let w = random_bits(&mut r, c.k, c.n, BitLayout::ColMajor);
        let s = r.pick(&SEMIRINGS[..4]);
        let spec = OutSpec::random(&mut r, false);
        let f = Factors::new(&mut r, c.m, c.n);
        let cpu = Cpu::new();
        let run = || -> Result<(), String> {
            let want = product(&cpu, spec, &f, |o| {
                ops::bmm(&cpu, o, s, BitInput::F32(&x), &w)
            })
            .map_err(err)?;
            let (dx, dw) = (
                g.upload_dense(&x).map_err(err)?,
                g.upload_bits(&w).map_err(err)?,
            );
            let got = product(g, spec, &f, |o| ops::bmm(g, o, s, BitInput::F32(&dx), &dw))
                .map_err(err)?;
            same(&want, &got, &format!("bmm f32 {s} {spec:?} {c:?}"))
        };
        verdict(run())
    }
    qc(80).quickcheck(p as fn(Case) -> TestResult);
}

/// Larger products on the tensor cores: several pipeline stages, odd and even
/// strides (3000 bits: 47 words; 2900: 46), partial block tiles at every edge,
/// a GNN-like shape (602 features in, 128 out), and more tiles than the
/// persistent grid has blocks (70,000 x 300 and 40,000 x 256: each block runs
/// several tiles through one pipeline, odd and even strides). The thin-k
/// kernel at its edges: k of 1024 bits (16 words, one k block) and 1025 (two
/// blocks, the second of one word), Cora's and CiteSeer's first layers (1,433
/// and 3,703 bits: 2 and 4 blocks, the last partial), 2049 bits into two
/// chunks of columns, 8191 bits (8 blocks: w's 64 KB exactly), 64 output
/// columns (one chunk), 600 (its w past 64 KB: `Tc2`), and more strips than
/// its grid has warps. The warpgroup kernel (`BmmPath::Wg`, and by shape
/// where n passes 128 and w does not fit the thin kernel) on every shape,
/// 5000 x 3000 x 1500 with more 128 x 256 tiles than its grid has blocks;
/// where n is a multiple of 4 its tiles inside the output store without
/// bounds (counts, clamped counts and f32 among the cases).
#[test]
fn bmm_large_tensor_core_shapes() {
    let Some((g, _l)) = gpu("bmm_large_tensor_core_shapes") else {
        return;
    };
    let mut r = Rng::new(17);
    for (m, k, n) in [
        (1000, 3000, 300),
        (700, 2900, 260),
        (20_000, 602, 128),
        (513, 4096, 1000),
        (70_000, 130, 300),
        (40_000, 200, 256),
        (5000, 1024, 200),
        (3000, 1025, 64),
        (2708, 1433, 64),
        (3327, 3703, 64),
        (3000, 2049, 100),
        (600, 8191, 40),
        (2000, 700, 600),
        (5000, 3000, 1500),
    ] {
        let a = random_bits(&mut r, m, k, BitLayout::RowMajor);
        let w = random_bits(&mut r, k, n, BitLayout::ColMajor);
        let f = Factors::new(&mut r, m, n);
        let cases = [
            (BitSemiring::PLUS_XNOR, 0, 0),
            (BitSemiring::PLUS_LAND, 2, 2),
            (
                BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Binary),
                1,
                0,
            ),
            (BitSemiring::LorLand, 2, 1),
            // clamped counts: the warpgroup kernel's stores without bounds
            // on the clamping epilogue too
            (BitSemiring::LorLand, 0, 0),
        ];
        for (s, kind, thr) in cases {
            let spec = OutSpec {
                kind,
                row: true,
                col: kind == 1,
                bias: true,
                thr,
            };
            check_bmm(g, &a, &w, s, spec, &f, &TC_PATHS).unwrap();
        }
    }
}

/// `t` one step of the float order up or down (itself where infinite or NaN).
fn float_step(t: f32, up: bool) -> f32 {
    if !t.is_finite() {
        return t;
    }
    if t == 0.0 {
        let least = f32::from_bits(1);
        return if up { least } else { -least };
    }
    let b = t.to_bits();
    f32::from_bits(if (t > 0.0) == up { b + 1 } else { b - 1 })
}

/// Bits out against per-column thresholds that the scaled value reaches
/// exactly (a tie: the bit is set), and one float step above and below it,
/// on the thin-k kernel, which compares (f32)v rs against one bound a column
/// where every column scale is positive and finite (the bound found on the
/// device): with and without row scales and bias, row scales of 0, negative,
/// NaN and infinite; and blocks that fall back to the full test (a column
/// scale of zero, one negative, a bias of infinity).
#[test]
fn bmm_bits_thresholds_at_ties() {
    let Some((g, _l)) = gpu("bmm_bits_thresholds_at_ties") else {
        return;
    };
    let mut r = Rng::new(29);
    for (m, k, n) in [
        (3000, 602, 128),
        (1000, 500, 256),
        (517, 1024, 70),
        (517, 1433, 70),
        (40, 65, 3),
    ] {
        let a = random_bits(&mut r, m, k, BitLayout::RowMajor);
        let w = random_bits(&mut r, k, n, BitLayout::ColMajor);
        for variant in 0..8 {
            let mut f = Factors::new(&mut r, m, n);
            let positive = |r: &mut Rng| (1 + r.below(12)) as f32 / 4.0;
            f.col = dense(&mut r, 1, n, positive);
            let rows = f.row.as_mut_slice();
            match variant {
                4 => {
                    rows[0] = f32::NAN;
                    rows[m / 2] = f32::INFINITY;
                    rows[m - 1] = f32::NEG_INFINITY;
                }
                5 => f.col.as_mut_slice()[n / 2] = 0.0,
                6 => f.col.as_mut_slice()[n - 1] = -0.75,
                7 => f.bias.as_mut_slice()[0] = f32::INFINITY,
                _ => {}
            }
            let spec = OutSpec {
                kind: 1,
                row: variant != 1 && variant != 3,
                col: true,
                bias: variant != 2 && variant != 3,
                thr: 2,
            };
            for s in [
                BitSemiring::PLUS_XNOR,
                BitSemiring::PLUS_LAND,
                BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Binary),
            ] {
                let cpu = Cpu::new();
                let Got::F(scaled) = product(&cpu, spec, &f, |o| {
                    ops::bmm(&cpu, o, s, BitInput::Bits(&a), &w)
                })
                .unwrap() else {
                    unreachable!("scaled output")
                };
                let t = f.tcol.as_mut_slice();
                for (j, t) in t.iter_mut().enumerate() {
                    let tie = scaled[r.below(m) * n + j];
                    *t = match j % 3 {
                        0 => tie,
                        1 => float_step(tie, true),
                        _ => float_step(tie, false),
                    };
                }
                let bits = OutSpec { kind: 2, ..spec };
                check_bmm(g, &a, &w, s, bits, &f, &[BmmPath::Thin, BmmPath::Auto]).unwrap();
            }
        }
    }
}

// ---- BSpMM -------------------------------------------------------------------------------

fn check_bspmm(
    gpu: &CudaBackend,
    a: &Matrix<bool>,
    x: &BitMatrix,
    s: BitSemiring,
    spec: OutSpec,
    f: &Factors,
) -> Result<(), String> {
    let cpu = Cpu::new();
    let want = product(&cpu, spec, f, |o| ops::bspmm(&cpu, o, s, a, x)).map_err(err)?;
    let dx = gpu.upload_bits(x).map_err(err)?;
    for format in DEVICE_FORMATS {
        let da = gpu
            .upload_matrix(&a.to_format(format).map_err(err)?)
            .map_err(err)?;
        let got = product(gpu, spec, f, |o| ops::bspmm(gpu, o, s, &da, &dx)).map_err(err)?;
        same(
            &want,
            &got,
            &format!(
                "bspmm {s} {spec:?} {format:?} {}x{}x{}",
                a.nrows(),
                a.ncols(),
                x.ncols()
            ),
        )?;
    }
    Ok(())
}

#[test]
fn bspmm_matches_cpu() {
    if cuda_or_skip("bspmm_matches_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("bspmm_matches_cpu").expect("checked");
        let mut r = Rng::new(c.seed);
        // A is m x kk, x kk x n: keep the pattern's columns to a few hundred
        let kk = c.k.min(300);
        let a = pattern(&mut r, c.m, kk);
        let x = random_bits(&mut r, kk, c.n, BitLayout::RowMajor);
        let s = r.pick(&SPARSE_SEMIRINGS);
        let spec = OutSpec::random(&mut r, true);
        let f = Factors::new(&mut r, c.m, c.n);
        verdict(check_bspmm(g, &a, &x, s, spec, &f))
    }
    qc(80).quickcheck(p as fn(Case) -> TestResult);
}

/// A larger graph (hub rows longer than a warp's 32 columns, many tiles per
/// tile row) with 64, 128 and 256 feature bits.
#[test]
fn bspmm_large() {
    let Some((g, _l)) = gpu("bspmm_large") else {
        return;
    };
    let mut r = Rng::new(5);
    let nv = 4000;
    let mut t = Vec::new();
    for i in 0..nv {
        let deg = if i % 97 == 0 { 300 } else { r.below(12) };
        for _ in 0..deg {
            // community structure: most neighbours nearby
            let j = if r.below(4) == 0 {
                r.below(nv)
            } else {
                (i + r.below(64)) % nv
            };
            t.push((i, j, true));
        }
    }
    t.sort_unstable();
    t.dedup();
    let a = Matrix::from_triplets(nv, nv, t).unwrap();
    let cases = [
        (BitSemiring::PLUS_LAND, 0),
        (BitSemiring::PLUS_LAND_SIGNED, 2),
        (BitSemiring::PLUS_LAND, 1),
    ];
    check_bspmm_widths(g, &mut r, &a, &[64, 128, 256], &cases, false);
}

/// `a` by random bits of each width in `widths`, for each (semiring, output
/// kind) of `cases`, with row scales, a bias, per-column thresholds and,
/// where `col`, column scales.
fn check_bspmm_widths(
    g: &CudaBackend,
    r: &mut Rng,
    a: &Matrix<bool>,
    widths: &[usize],
    cases: &[(BitSemiring, u8)],
    col: bool,
) {
    for &n in widths {
        let x = random_bits(r, a.ncols(), n, BitLayout::RowMajor);
        let f = Factors::new(r, a.nrows(), n);
        for &(s, kind) in cases {
            let spec = OutSpec {
                kind,
                row: true,
                col,
                bias: true,
                thr: 2,
            };
            check_bspmm(g, a, &x, s, spec, &f).unwrap();
        }
    }
}

/// Hub rows far longer than the rest: a CSR row split over a block, with
/// more than 8 x 255 entries a group of lanes (its byte counters read and
/// reset on the way), and feature widths of one u64 word (by lanes: 1 and
/// 33 bits) and of 32 and 35 u32 words (vertical counters; 35, past a
/// warp's lanes, in chunks of the line).
#[test]
fn bspmm_hub_rows() {
    let Some((g, _l)) = gpu("bspmm_hub_rows") else {
        return;
    };
    let mut r = Rng::new(11);
    let (m, k) = (200, 20_000);
    let mut t: Vec<(usize, usize, bool)> = (0..k).map(|j| (0, j, true)).collect();
    t.extend((0..5000).map(|_| (1, r.below(k), true)));
    for i in 2..m {
        t.extend((0..r.below(40)).map(|_| (i, r.below(k), true)));
    }
    t.sort_unstable();
    t.dedup();
    let a = Matrix::from_triplets(m, k, t).unwrap();
    let cases = [
        (BitSemiring::PLUS_LAND, 0),
        (BitSemiring::PLUS_LAND_SIGNED, 1),
        (BitSemiring::PLUS_LAND_SIGNED, 2),
    ];
    check_bspmm_widths(g, &mut r, &a, &[1, 33, 1000, 1100], &cases, true);
}

// ---- BSpMM then BMM (ext::bspmm_bmm) -----------------------------------------------------

/// `ext::bspmm_bmm` on `be` into poisoned outputs: the aggregation's bits
/// (`spec1`, a bits output) and the second product (`spec2`).
#[allow(clippy::too_many_arguments)]
fn fused<B: Poison + BackendExt>(
    be: &B,
    a: &B::Matrix<bool>,
    x: &B::Bits,
    w: &B::Bits,
    (s1, spec1, f1): (BitSemiring, OutSpec, &Factors),
    (s2, spec2, f2): (BitSemiring, OutSpec, &Factors),
) -> R<(Got, Got)> {
    let mut h = None;
    let y = product(be, spec2, f2, |y| {
        let run = |ho: BitOutput<'_, B>| ext::bspmm_bmm(be, ho, s1, a, x, y, s2, w);
        h = Some(product(be, spec1, f1, run)?);
        Ok(())
    })?;
    Ok((h.expect("ran"), y))
}

/// `ext::bspmm_bmm` on both backends, the device on every format (CSR: the
/// fused kernel where the shapes allow it; B2SR: the two products).
#[allow(clippy::too_many_arguments)]
fn check_bspmm_bmm(
    gpu: &CudaBackend,
    a: &Matrix<bool>,
    x: &BitMatrix,
    w: &BitMatrix,
    first: (BitSemiring, OutSpec, &Factors),
    second: (BitSemiring, OutSpec, &Factors),
) -> Result<(), String> {
    let cpu = Cpu::new();
    let (want_h, want_y) = fused(&cpu, a, x, w, first, second).map_err(err)?;
    let (dx, dw) = (
        gpu.upload_bits(x).map_err(err)?,
        gpu.upload_bits(w).map_err(err)?,
    );
    for format in DEVICE_FORMATS {
        let da = gpu
            .upload_matrix(&a.to_format(format).map_err(err)?)
            .map_err(err)?;
        let (h, y) = fused(gpu, &da, &dx, &dw, first, second).map_err(err)?;
        let what = format!(
            "bspmm_bmm {} {:?} then {} {:?}, {format:?} {}x{}x{} then {} columns",
            first.0,
            first.1,
            second.0,
            second.1,
            a.nrows(),
            a.ncols(),
            x.ncols(),
            w.ncols()
        );
        same(&want_h, &h, &format!("{what}: h"))?;
        same(&want_y, &y, &format!("{what}: y"))?;
    }
    Ok(())
}

/// A random aggregation output (bits, any threshold and factors).
fn bits_spec(r: &mut Rng) -> OutSpec {
    OutSpec {
        kind: 2,
        ..OutSpec::random(r, true)
    }
}

#[test]
fn bspmm_bmm_matches_cpu() {
    if cuda_or_skip("bspmm_bmm_matches_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("bspmm_bmm_matches_cpu").expect("checked");
        let mut r = Rng::new(c.seed);
        let kk = c.k.min(300);
        let a = pattern(&mut r, c.m, kk);
        let x = random_bits(&mut r, kk, c.n, BitLayout::RowMajor);
        // w's columns: around the fused kernel's bound of 16
        let n2 = r.pick(&[1, 2, 7, 15, 16, 17, 33]);
        let w = random_bits(&mut r, c.n, n2, BitLayout::ColMajor);
        let (f1, f2) = (
            Factors::new(&mut r, c.m, c.n),
            Factors::new(&mut r, c.m, n2),
        );
        let first = (r.pick(&SPARSE_SEMIRINGS), bits_spec(&mut r), &f1);
        let second = (r.pick(&SEMIRINGS), OutSpec::random(&mut r, true), &f2);
        verdict(check_bspmm_bmm(g, &a, &x, &w, first, second))
    }
    qc(60).quickcheck(p as fn(Case) -> TestResult);
}

/// Hub rows (a block each on CSR) and every group width of the fused kernels
/// (by lanes: lines of one word; by vertical counters: 4 to 32 u32 words of
/// h a row), past it (33 words: the two products), with
/// GNN-like second products (7 and 16 columns, f32 and counts; 41 columns:
/// the two products).
#[test]
fn bspmm_bmm_hub_rows_and_widths() {
    let Some((g, _l)) = gpu("bspmm_bmm_hub_rows_and_widths") else {
        return;
    };
    let mut r = Rng::new(17);
    let m = 3000;
    let mut t: Vec<(usize, usize, bool)> = (0..m).map(|i| (i, i, true)).collect();
    for i in 0..m {
        let deg = match i % 500 {
            0 => 2500,
            1 => 300,
            _ => r.below(8),
        };
        t.extend((0..deg).map(|_| (i, r.below(m), true)));
    }
    t.sort_unstable();
    t.dedup();
    let a = Matrix::from_triplets(m, m, t).unwrap();
    for n in [1, 32, 64, 100, 256, 1000, 1024, 1025] {
        let x = random_bits(&mut r, m, n, BitLayout::RowMajor);
        let f1 = Factors::new(&mut r, m, n);
        for (n2, s2, kind) in [
            (7, BitSemiring::PLUS_XNOR, 1),
            (16, BitSemiring::PLUS_LAND, 0),
            (41, BitSemiring::PLUS_XNOR, 1),
        ] {
            let w = random_bits(&mut r, n, n2, BitLayout::ColMajor);
            let f2 = Factors::new(&mut r, m, n2);
            let spec1 = OutSpec {
                kind: 2,
                row: false,
                col: false,
                bias: false,
                thr: 2,
            };
            let spec2 = OutSpec {
                kind,
                row: true,
                col: true,
                bias: true,
                thr: 0,
            };
            let first = (BitSemiring::PLUS_LAND_SIGNED, spec1, &f1);
            check_bspmm_bmm(g, &a, &x, &w, first, (s2, spec2, &f2)).unwrap();
        }
    }
}

/// Lines of one u64 word (the CSR kernels by lanes where rows are few):
/// patterns whose size and mean row give each group width on a GPU of 132
/// multiprocessors (32, 16, 8 and 4 lanes a row; the largest, vertical
/// counters), each with rows past the long-row bound (a block each) and
/// empty rows, at widths around the word's halves, every output kind, then
/// the fused product.
#[test]
fn bspmm_lanes_group_widths() {
    let Some((g, _l)) = gpu("bspmm_lanes_group_widths") else {
        return;
    };
    let mut r = Rng::new(23);
    for (m, mean) in [
        (1500, 40),
        (20_000, 12),
        (40_000, 6),
        (80_000, 2),
        (120_000, 6),
    ] {
        let mut t = Vec::new();
        for i in 0..m {
            let deg = match i % 300 {
                0 => 40 * mean + 50,
                1 => 0,
                _ => r.below(2 * mean + 1),
            };
            t.extend((0..deg).map(|_| (i, r.below(m), true)));
        }
        t.sort_unstable();
        t.dedup();
        let a = Matrix::from_triplets(m, m, t).unwrap();
        let cases = [
            (BitSemiring::PLUS_LAND, 0),
            (BitSemiring::PLUS_LAND_SIGNED, 1),
            (BitSemiring::PLUS_LAND_SIGNED, 2),
        ];
        check_bspmm_widths(g, &mut r, &a, &[1, 31, 32, 33, 63, 64], &cases, true);
        for (n, n2, s2, kind) in [
            (17, 7, BitSemiring::PLUS_XNOR, 1),
            (64, 16, BitSemiring::PLUS_LAND, 0),
        ] {
            let x = random_bits(&mut r, m, n, BitLayout::RowMajor);
            let w = random_bits(&mut r, n, n2, BitLayout::ColMajor);
            let (f1, f2) = (Factors::new(&mut r, m, n), Factors::new(&mut r, m, n2));
            let spec1 = bits_spec(&mut r);
            let spec2 = OutSpec {
                kind,
                ..OutSpec::random(&mut r, true)
            };
            let first = (BitSemiring::PLUS_LAND_SIGNED, spec1, &f1);
            check_bspmm_bmm(g, &a, &x, &w, first, (s2, spec2, &f2)).unwrap();
        }
    }
}

// ---- bit planes ----------------------------------------------------------------------------

/// Random b-bit planes with dyadic quantisation parameters (per column where asked).
fn random_planes(
    r: &mut Rng,
    nrows: usize,
    ncols: usize,
    layout: BitLayout,
    b: usize,
    per_col: bool,
) -> (Vec<BitMatrix>, DenseMatrix<f32>, DenseMatrix<f32>) {
    let planes = (0..b)
        .map(|_| random_bits(r, nrows, ncols, layout))
        .collect();
    let w = if per_col { ncols } else { 1 };
    let scale = dense(r, 1, w, |r| (1 + r.below(8)) as f32 / 4.0);
    let zero = dense(r, 1, w, |r| r.below(16) as f32 / 2.0);
    (planes, scale, zero)
}

type HostPlanes = (Vec<BitMatrix>, DenseMatrix<f32>, DenseMatrix<f32>);

fn cpu_planes(p: &HostPlanes) -> BitPlanes<Cpu> {
    BitPlanes::new(p.0.clone(), p.1.clone(), p.2.clone()).expect("valid planes")
}

fn gpu_planes(g: &CudaBackend, p: &HostPlanes) -> R<BitPlanes<CudaBackend>> {
    let planes =
        p.0.iter()
            .map(|b| g.upload_bits(b))
            .collect::<R<Vec<_>>>()?;
    BitPlanes::new(planes, g.upload_dense(&p.1)?, g.upload_dense(&p.2)?)
}

#[test]
fn bmm_planes_matches_cpu() {
    if cuda_or_skip("bmm_planes_matches_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("bmm_planes_matches_cpu").expect("checked");
        let mut r = Rng::new(c.seed);
        let (b, cc) = (1 + r.below(8), 1 + r.below(8));
        let ha = random_planes(&mut r, c.m, c.k, BitLayout::RowMajor, b, false);
        let per_col = r.below(2) == 0;
        let hw = random_planes(&mut r, c.k, c.n, BitLayout::ColMajor, cc, per_col);
        let spec = OutSpec::random(&mut r, true);
        let f = Factors::new(&mut r, c.m, c.n);
        let cpu = Cpu::new();
        let run = || -> Result<(), String> {
            let (ca, cw) = (cpu_planes(&ha), cpu_planes(&hw));
            let want =
                product(&cpu, spec, &f, |o| ops::bmm_planes(&cpu, o, &ca, &cw)).map_err(err)?;
            let (da, dw) = (
                gpu_planes(g, &ha).map_err(err)?,
                gpu_planes(g, &hw).map_err(err)?,
            );
            for path in PATHS {
                g.set_bmm_path(path);
                let got = product(g, spec, &f, |o| ops::bmm_planes(g, o, &da, &dw)).map_err(err)?;
                same(
                    &want,
                    &got,
                    &format!("bmm_planes b={b} c={cc} {spec:?} {path:?} {c:?}"),
                )?;
            }
            g.set_bmm_path(BmmPath::Auto);
            Ok(())
        };
        verdict(run())
    }
    qc(60).quickcheck(p as fn(Case) -> TestResult);
}

#[test]
fn bspmm_planes_matches_cpu() {
    if cuda_or_skip("bspmm_planes_matches_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("bspmm_planes_matches_cpu").expect("checked");
        let mut r = Rng::new(c.seed);
        let kk = c.k.min(300);
        let a = pattern(&mut r, c.m, kk);
        let b = 1 + r.below(8);
        let per_col = r.below(2) == 0;
        let hx = random_planes(&mut r, kk, c.n, BitLayout::RowMajor, b, per_col);
        let spec = OutSpec::random(&mut r, true);
        let f = Factors::new(&mut r, c.m, c.n);
        let cpu = Cpu::new();
        let run = || -> Result<(), String> {
            let cx = cpu_planes(&hx);
            let want =
                product(&cpu, spec, &f, |o| ops::bspmm_planes(&cpu, o, &a, &cx)).map_err(err)?;
            let dx = gpu_planes(g, &hx).map_err(err)?;
            for format in DEVICE_FORMATS {
                let da = g
                    .upload_matrix(&a.to_format(format).map_err(err)?)
                    .map_err(err)?;
                let got =
                    product(g, spec, &f, |o| ops::bspmm_planes(g, o, &da, &dx)).map_err(err)?;
                same(
                    &want,
                    &got,
                    &format!("bspmm_planes b={b} {spec:?} {format:?} {c:?}"),
                )?;
            }
            Ok(())
        };
        verdict(run())
    }
    qc(60).quickcheck(p as fn(Case) -> TestResult);
}

/// Bit-plane products with more tiles than the persistent grid has blocks
/// (every block runs several tiles, each b x c plane pairs deep); the first
/// on the thin-k kernel too (two planes of w, 48 KB of shared memory), the
/// second past its k (`Tc2`).
#[test]
fn bmm_planes_large() {
    let Some((g, _l)) = gpu("bmm_planes_large") else {
        return;
    };
    let mut r = Rng::new(23);
    let cpu = Cpu::new();
    for (m, k, n, b, c) in [(30_000, 200, 130, 3, 2), (9000, 1100, 70, 2, 5)] {
        let ha = random_planes(&mut r, m, k, BitLayout::RowMajor, b, false);
        let hw = random_planes(&mut r, k, n, BitLayout::ColMajor, c, true);
        let f = Factors::new(&mut r, m, n);
        let (ca, cw) = (cpu_planes(&ha), cpu_planes(&hw));
        let (da, dw) = (gpu_planes(g, &ha).unwrap(), gpu_planes(g, &hw).unwrap());
        for kind in 0..3 {
            let spec = OutSpec {
                kind,
                row: true,
                col: true,
                bias: true,
                thr: 2,
            };
            let want = product(&cpu, spec, &f, |o| ops::bmm_planes(&cpu, o, &ca, &cw)).unwrap();
            for path in [BmmPath::Auto, BmmPath::Tc4, BmmPath::Thin] {
                g.set_bmm_path(path);
                let got = product(g, spec, &f, |o| ops::bmm_planes(g, o, &da, &dw)).unwrap();
                let what = format!("bmm_planes {m}x{k}x{n} b={b} c={c} {spec:?} {path:?}");
                same(&want, &got, &what).unwrap();
            }
            g.set_bmm_path(BmmPath::Auto);
        }
    }
}

/// Values that could pass 2^32 have no device kernel: an `Err`, never a wrong result.
#[test]
fn bmm_planes_past_u32_is_no_kernel() {
    let Some((g, _l)) = gpu("bmm_planes_past_u32_is_no_kernel") else {
        return;
    };
    let k = 70_000; // 70000 * 255 * 255 > 2^32
    let mut r = Rng::new(3);
    let ha = random_planes(&mut r, 1, k, BitLayout::RowMajor, 8, false);
    let hw = random_planes(&mut r, k, 1, BitLayout::ColMajor, 8, false);
    let (da, dw) = (gpu_planes(g, &ha).unwrap(), gpu_planes(g, &hw).unwrap());
    let mut out = g.dense_new(1, 1, 0.0f32).unwrap();
    let e = ops::bmm_planes(
        g,
        BitOutput::Scaled {
            out: &mut out,
            scales: Scales::default(),
        },
        &da,
        &dw,
    )
    .unwrap_err();
    assert!(matches!(e, Error::NoKernel { .. }), "{e}");
}

/// The device's own checks, reached without `ops`: f32 activations give no
/// counts and have no LorLand.
#[test]
fn bmm_f32_refuses_counts_and_lor_land() {
    let Some((g, _l)) = gpu("bmm_f32_refuses_counts_and_lor_land") else {
        return;
    };
    let x = g.upload_dense(&DenseMatrix::filled(2, 3, 1.0f32)).unwrap();
    let w = g.bits_new(3, 2, BitLayout::ColMajor).unwrap();
    let mut c = g.dense_new(2, 2, 0i32).unwrap();
    let e = Backend::bmm(
        g,
        BitOutput::Counts(&mut c),
        BitSemiring::PLUS_LAND,
        BitInput::F32(&x),
        &w,
    );
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    let mut s = g.dense_new(2, 2, 0.0f32).unwrap();
    let e = Backend::bmm(
        g,
        BitOutput::Scaled {
            out: &mut s,
            scales: Scales::default(),
        },
        BitSemiring::LorLand,
        BitInput::F32(&x),
        &w,
    );
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
}

// ---- conversions ---------------------------------------------------------------------------

/// f32 values with NaN, infinities, signed zeros and exact ties sprinkled in.
fn awkward_f32(r: &mut Rng) -> f32 {
    match r.below(20) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        5 => 0.5,
        6 => -2.5,
        _ => (r.unit() as f32 - 0.5) * 20.0,
    }
}

fn dense_same(want: &DenseMatrix<f32>, got: &DenseMatrix<f32>, what: &str) -> Result<(), String> {
    same(
        &Got::F(want.as_slice().to_vec()),
        &Got::F(got.as_slice().to_vec()),
        what,
    )
}

fn check_conversions(g: &CudaBackend, c: &Case) -> Result<(), String> {
    let cpu = Cpu::new();
    let mut r = Rng::new(c.seed);
    let (m, n) = (c.m, c.n);
    let x = dense(&mut r, m, n, awkward_f32);
    let dx = g.upload_dense(&x).map_err(err)?;
    let tc = dense(&mut r, 1, n, |r| (r.below(9) as f32 - 4.0) / 2.0);
    let dtc = g.upload_dense(&tc).map_err(err)?;
    for layout in [BitLayout::RowMajor, BitLayout::ColMajor] {
        // binarize
        for thr in 0..3 {
            let (ct, gt) = match thr {
                0 => (Threshold::Sign, Threshold::Sign),
                1 => (Threshold::Value(0.5), Threshold::Value(0.5)),
                _ => (Threshold::PerColumn(&tc), Threshold::PerColumn(&dtc)),
            };
            let mut want = cpu.bits_new(m, n, layout).map_err(err)?;
            ops::binarize(&cpu, &mut want, &x, ct).map_err(err)?;
            let mut got = g.bits_new(m, n, layout).map_err(err)?;
            g.poison_bits(&mut got).map_err(err)?;
            ops::binarize(g, &mut got, &dx, gt).map_err(err)?;
            same(
                &Got::B(want),
                &Got::B(g.download_bits(&got).map_err(err)?),
                &format!("binarize {layout:?} {thr}"),
            )?;
        }
        // unpack and transpose
        let b = random_bits(&mut r, m, n, layout);
        let db = g.upload_bits(&b).map_err(err)?;
        for domain in [BitDomain::Binary, BitDomain::Signed] {
            let mut want = DenseMatrix::filled(m, n, 0.0f32);
            ops::unpack_bits(&cpu, &mut want, &b, domain).map_err(err)?;
            let mut got = g
                .upload_dense(&DenseMatrix::filled(m, n, f32::NAN))
                .map_err(err)?;
            ops::unpack_bits(g, &mut got, &db, domain).map_err(err)?;
            dense_same(&want, &g.download_dense(&got).map_err(err)?, "unpack_bits")?;
        }
        let other = if layout == BitLayout::RowMajor {
            BitLayout::ColMajor
        } else {
            BitLayout::RowMajor
        };
        let mut want = cpu.bits_new(m, n, other).map_err(err)?;
        ops::bit_transpose(&cpu, &mut want, &b).map_err(err)?;
        let mut got = g.bits_new(m, n, other).map_err(err)?;
        g.poison_bits(&mut got).map_err(err)?;
        ops::bit_transpose(g, &mut got, &db).map_err(err)?;
        same(
            &Got::B(want),
            &Got::B(g.download_bits(&got).map_err(err)?),
            &format!("bit_transpose to {other:?}"),
        )?;
        // quantize and dequantize
        let nb = 1 + r.below(8);
        let per_col = r.below(2) == 0;
        let w = if per_col { n } else { 1 };
        let scale = dense(&mut r, 1, w, |r| {
            [0.3f32, 0.5, 1.0, 2.0, 1.0 / 3.0][r.below(5)]
        });
        let zero = dense(&mut r, 1, w, |r| {
            r.below(8) as f32 + [0.0f32, 0.5, 0.25][r.below(3)]
        });
        let cplanes = (0..nb)
            .map(|_| cpu.bits_new(m, n, layout))
            .collect::<R<Vec<_>>>()
            .map_err(err)?;
        let mut want = BitPlanes::new(cplanes, scale.clone(), zero.clone()).map_err(err)?;
        ops::quantize(&cpu, &mut want, &x).map_err(err)?;
        let mut gplanes = (0..nb)
            .map(|_| g.bits_new(m, n, layout))
            .collect::<R<Vec<_>>>()
            .map_err(err)?;
        for p in &mut gplanes {
            g.poison_bits(p).map_err(err)?;
        }
        let (ds, dz) = (
            g.upload_dense(&scale).map_err(err)?,
            g.upload_dense(&zero).map_err(err)?,
        );
        let mut got = BitPlanes::new(gplanes, ds, dz).map_err(err)?;
        ops::quantize(g, &mut got, &dx).map_err(err)?;
        for (p, (cw, gw)) in want.planes().iter().zip(got.planes()).enumerate() {
            same(
                &Got::B(cw.clone()),
                &Got::B(g.download_bits(gw).map_err(err)?),
                &format!("quantize {layout:?} b={nb} plane {p} per_col={per_col}"),
            )?;
        }
        let mut dw = DenseMatrix::filled(m, n, 0.0f32);
        ops::dequantize(&cpu, &mut dw, &want).map_err(err)?;
        let mut dg = g
            .upload_dense(&DenseMatrix::filled(m, n, f32::NAN))
            .map_err(err)?;
        ops::dequantize(g, &mut dg, &got).map_err(err)?;
        dense_same(&dw, &g.download_dense(&dg).map_err(err)?, "dequantize")?;
    }
    // mean_abs (f64 sums in another order: within 1e-5)
    for rows in [true, false] {
        let shape = if rows { (m, 1) } else { (1, n) };
        let mut want = DenseMatrix::filled(shape.0, shape.1, 0.0f32);
        ops::mean_abs(&cpu, &mut want, &x, rows).map_err(err)?;
        let mut got = g
            .upload_dense(&DenseMatrix::filled(shape.0, shape.1, f32::NAN))
            .map_err(err)?;
        ops::mean_abs(g, &mut got, &dx, rows).map_err(err)?;
        dense_same(
            &want,
            &g.download_dense(&got).map_err(err)?,
            &format!("mean_abs rows={rows}"),
        )?;
    }
    Ok(())
}

#[test]
fn conversions_match_cpu() {
    if cuda_or_skip("conversions_match_cpu").is_none() {
        return;
    }
    fn p(c: Case) -> TestResult {
        let (g, _l) = gpu("conversions_match_cpu").expect("checked");
        verdict(check_conversions(g, &c))
    }
    qc(60).quickcheck(p as fn(Case) -> TestResult);
}

/// Tall and wide conversions (many blocks of rows for the column means, long lines).
#[test]
fn conversions_large() {
    let Some((g, _l)) = gpu("conversions_large") else {
        return;
    };
    for (m, n) in [(5000, 37), (33, 4100), (1025, 1025)] {
        check_conversions(
            g,
            &Case {
                seed: (m * n) as u64,
                m,
                k: 0,
                n,
            },
        )
        .unwrap();
    }
}
