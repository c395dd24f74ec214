//! The dense-bit operations (issue 17) on the CPU backend against a plain
//! reference (bits unpacked to numbers, multiplied in `f64`): BMM with bit
//! and `f32` left operands, BSpMM on CSR and B2SR at every tile size, the
//! bit-plane products, the conversions; every semiring, domain and output
//! kind; shapes around word edges (0, 1, 63..65, 127..129, 255..257), lines
//! all zero or all one; and bad input (an `Err` naming the operation,
//! outputs unchanged).

#[path = "common/bits.rs"]
mod bits;

use bitgraphblas::algebra::{BitDomain, BitSemiring};
use bitgraphblas::storage::{BitLayout, BitMatrix};
use bitgraphblas::{
    ext, ops, Backend, BitInput, BitOutput, BitPlanes, Cpu, DenseMatrix, Error, Format, Matrix,
    Scales, Threshold, TileSize,
};
use bits::*;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

const TESTS: u64 = 200;

fn qc() -> QuickCheck {
    QuickCheck::new()
        .tests(TESTS)
        .max_tests(TESTS * 10)
        .rng(Gen::new(100))
}

fn verdict(r: Result<(), String>) -> TestResult {
    match r {
        Ok(()) => TestResult::passed(),
        Err(e) => TestResult::error(e),
    }
}

const FORMATS: [Format; 6] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T16),
    Format::B2sr(TileSize::T32),
    Format::B2sr(TileSize::T64),
];

// ---------------------------------------------------------------- BMM

#[derive(Clone, Debug)]
struct BmmCase {
    a: BitMatrix,
    x: DenseMatrix<f32>,
    w: BitMatrix,
    s: BitSemiring,
    out: OutSpec,
    f32_left: bool,
}

impl Arbitrary for BmmCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (dim(g, 70), dim(g, 300), dim(g, 70));
        let f32_left = below(g, 3) == 0;
        let s = if f32_left {
            *g.choose(&BitSemiring::ALL[..4]).unwrap()
        } else {
            *g.choose(&BitSemiring::ALL).unwrap()
        };
        BmmCase {
            a: bits(g, m, k, BitLayout::RowMajor),
            x: f32mat(g, m, k),
            w: bits(g, k, n, BitLayout::ColMajor),
            s,
            out: OutSpec::gen(g, m, n, !f32_left),
            f32_left,
        }
    }
}

fn prop_bmm(c: &BmmCase) -> Result<(), String> {
    let cpu = Cpu::new();
    let (m, k, n) = (c.a.nrows(), c.a.ncols(), c.w.ncols());
    let left = |i: usize, p: usize| {
        if c.f32_left {
            c.x.get(i, p) as f64
        } else {
            num(c.s.left(), c.a.get(i, p).unwrap())
        }
    };
    let v = product(c.s, m, k, n, left, |p, j| c.w.get(p, j).unwrap());
    let got = run_output(&cpu, &c.out, m, n, |out| {
        let a = if c.f32_left {
            BitInput::F32(&c.x)
        } else {
            BitInput::Bits(&c.a)
        };
        ops::bmm(&cpu, out, c.s, a, &c.w)
    })
    .map_err(|e| e.to_string())?;
    check(&c.out, m, n, &v, true, &[], &got).map_err(|e| format!("{}: {e}", c.s))
}

#[test]
fn bmm_matches_the_reference() {
    fn p(c: BmmCase) -> TestResult {
        verdict(prop_bmm(&c))
    }
    qc().quickcheck(p as fn(BmmCase) -> TestResult);
}

/// Shapes past the kernels' register tiles and column blocks: many words
/// per line and more than one L2 block of columns.
#[test]
fn bmm_large_shapes() {
    let mut g = Gen::new(100);
    for (m, k, n) in [(9, 4100, 1100), (37, 602, 128), (5, 65, 513)] {
        for s in [BitSemiring::PLUS_XNOR, BitSemiring::PLUS_LAND_SIGNED] {
            let c = BmmCase {
                a: bits(&mut g, m, k, BitLayout::RowMajor),
                x: f32mat(&mut g, m, k),
                w: bits(&mut g, k, n, BitLayout::ColMajor),
                s,
                out: OutSpec {
                    kind: 0,
                    row: None,
                    col: None,
                    bias: None,
                    threshold: None,
                },
                f32_left: false,
            };
            prop_bmm(&c).unwrap();
            prop_bmm(&BmmCase {
                out: OutSpec {
                    kind: 2,
                    ..c.out.clone()
                },
                ..c.clone()
            })
            .unwrap();
        }
    }
}

// ---------------------------------------------------------------- BSpMM

#[derive(Clone, Debug)]
struct BspmmCase {
    m: usize,
    k: usize,
    entries: Vec<(usize, usize)>,
    x: BitMatrix,
    s: BitSemiring,
    out: OutSpec,
}

/// A random pattern: density u², with at random a dense block, an empty
/// matrix or some full rows.
fn pattern(g: &mut Gen, m: usize, k: usize) -> Vec<(usize, usize)> {
    let d = {
        let u = below(g, 1000) as f64 / 1000.0;
        u * u
    };
    let style = below(g, 6);
    let mut e = Vec::new();
    for i in 0..m {
        for j in 0..k {
            let on = match style {
                0 => false,
                1 => i % 5 == 0 || below(g, 1000) < (d * 1000.0) as usize,
                2 => i / 8 == j / 8,
                _ => below(g, 1000) < (d * 1000.0) as usize,
            };
            if on {
                e.push((i, j));
            }
        }
    }
    e
}

impl Arbitrary for BspmmCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (dim(g, 140), dim(g, 140), dim(g, 300));
        BspmmCase {
            m,
            k,
            entries: pattern(g, m, k),
            x: bits(g, k, n, BitLayout::RowMajor),
            s: *g
                .choose(&[
                    BitSemiring::PLUS_LAND,
                    BitSemiring::PLUS_LAND_SIGNED,
                    BitSemiring::LorLand,
                ])
                .unwrap(),
            out: OutSpec::gen(g, m, n, true),
        }
    }
}

fn prop_bspmm(c: &BspmmCase) -> Result<(), String> {
    let cpu = Cpu::new();
    let n = c.x.ncols();
    let mut dense = vec![0f64; c.m * c.k];
    for &(i, j) in &c.entries {
        dense[i * c.k + j] = 1.0;
    }
    let v = product(
        c.s,
        c.m,
        c.k,
        n,
        |i, p| dense[i * c.k + p],
        |p, j| c.x.get(p, j).unwrap(),
    );
    let csr = Matrix::from_triplets(
        c.m,
        c.k,
        c.entries.iter().map(|&(i, j)| (i, j, true)).collect(),
    )
    .map_err(|e| e.to_string())?;
    for f in FORMATS {
        let a = csr.to_format(f).map_err(|e| e.to_string())?;
        let got = run_output(&cpu, &c.out, c.m, n, |out| {
            ops::bspmm(&cpu, out, c.s, &a, &c.x)
        })
        .map_err(|e| e.to_string())?;
        check(&c.out, c.m, n, &v, true, &[], &got).map_err(|e| format!("{} {f:?}: {e}", c.s))?;
    }
    Ok(())
}

#[test]
fn bspmm_matches_the_reference_on_every_format() {
    fn p(c: BspmmCase) -> TestResult {
        verdict(prop_bspmm(&c))
    }
    qc().tests(120).quickcheck(p as fn(BspmmCase) -> TestResult);
}

// ---------------------------------------------------------------- bit planes

/// `m x n` codes of `b` bits.
fn codes(g: &mut Gen, m: usize, n: usize, b: u32) -> Vec<u32> {
    let max = (1u32 << b) - 1;
    let style = below(g, 4);
    (0..m * n)
        .map(|_| match style {
            0 => 0,
            1 => max,
            _ => below(g, max as usize + 1) as u32,
        })
        .collect()
}

/// Planes of `codes` (`m x n`) in `layout`, with the given parameters.
fn planes_of(
    c: &[u32],
    m: usize,
    n: usize,
    b: u32,
    layout: BitLayout,
    scale: Vec<f32>,
    zero: Vec<f32>,
) -> BitPlanes<Cpu> {
    let p = (0..b)
        .map(|q| BitMatrix::from_fn(m, n, layout, |i, j| c[i * n + j] >> q & 1 == 1).unwrap())
        .collect();
    let w = scale.len();
    BitPlanes::new(
        p,
        DenseMatrix::from_vec(1, w, scale).unwrap(),
        DenseMatrix::from_vec(1, w, zero).unwrap(),
    )
    .unwrap()
}

#[derive(Clone, Debug)]
struct PlanesCase {
    m: usize,
    k: usize,
    n: usize,
    b: u32,
    c: u32,
    a: Vec<u32>,
    w: Vec<u32>,
    /// scale, zero of a (per tensor)
    pa: (f32, f32),
    /// per-column scale, zero of w (or one pair)
    pw: (Vec<f32>, Vec<f32>),
    entries: Vec<(usize, usize)>,
    out: OutSpec,
}

impl Arbitrary for PlanesCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (dim(g, 40), dim(g, 200), dim(g, 70));
        let (b, c) = (1 + below(g, 8) as u32, 1 + below(g, 8) as u32);
        let sc = |g: &mut Gen| *g.choose(&[0.5f32, 0.25, 1.0, 0.125, 2.0]).unwrap();
        let zp = |g: &mut Gen| *g.choose(&[0.0f32, 1.0, 3.0, 7.5, 128.0]).unwrap();
        let per_col = below(g, 2) == 0;
        let nw = if per_col { n } else { 1 };
        PlanesCase {
            m,
            k,
            n,
            b,
            c,
            a: codes(g, m, k, b),
            w: codes(g, k, n, c),
            pa: (sc(g), zp(g)),
            pw: (
                (0..nw).map(|_| sc(g)).collect(),
                (0..nw).map(|_| zp(g)).collect(),
            ),
            entries: pattern(g, m, k),
            out: OutSpec::gen(g, m, n, true),
        }
    }
}

/// The reference values and error bounds of a dequantised product:
/// `Σ_k l(i, k) xw(k, j)` with `xw = sw_j (w - zw_j)`.
fn dequantised(c: &PlanesCase, l: impl Fn(usize, usize) -> f64) -> (Vec<f64>, Vec<f64>) {
    let (m, k, n) = (c.m, c.k, c.n);
    let pw = |j: usize| {
        if c.pw.0.len() == 1 {
            (c.pw.0[0], c.pw.1[0])
        } else {
            (c.pw.0[j], c.pw.1[j])
        }
    };
    let (mut v, mut tol) = (vec![0f64; m * n], vec![0f64; m * n]);
    for i in 0..m {
        for j in 0..n {
            let (sw, zw) = pw(j);
            let (mut s, mut mag) = (0f64, 0f64);
            for p in 0..k {
                let t = l(i, p) * sw as f64 * (c.w[p * n + j] as f64 - zw as f64);
                s += t;
                mag += t.abs();
            }
            v[i * n + j] = s;
            let r = c.out.row.as_ref().map_or(1.0, |r| r[i].abs() as f64);
            let cf = c.out.col.as_ref().map_or(1.0, |x| x[j].abs() as f64);
            let b = c.out.bias.as_ref().map_or(0.0, |x| x[j].abs() as f64);
            tol[i * n + j] = 1e-5 * (mag * r * cf + b + 1.0);
        }
    }
    (v, tol)
}

fn prop_bmm_planes(c: &PlanesCase) -> Result<(), String> {
    let cpu = Cpu::new();
    let (m, k, n) = (c.m, c.k, c.n);
    let a = planes_of(
        &c.a,
        m,
        k,
        c.b,
        BitLayout::RowMajor,
        vec![c.pa.0],
        vec![c.pa.1],
    );
    let w = planes_of(
        &c.w,
        k,
        n,
        c.c,
        BitLayout::ColMajor,
        c.pw.0.clone(),
        c.pw.1.clone(),
    );
    let got = run_output(&cpu, &c.out, m, n, |out| ops::bmm_planes(&cpu, out, &a, &w))
        .map_err(|e| e.to_string())?;
    if c.out.kind == 0 {
        let mut v = vec![0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                v[i * n + j] = (0..k)
                    .map(|p| c.a[i * k + p] as f64 * c.w[p * n + j] as f64)
                    .sum();
            }
        }
        return check(&c.out, m, n, &v, true, &[], &got);
    }
    let (v, tol) = dequantised(c, |i, p| {
        c.pa.0 as f64 * (c.a[i * k + p] as f64 - c.pa.1 as f64)
    });
    check(&c.out, m, n, &v, false, &tol, &got)
}

#[test]
fn bmm_planes_matches_the_reference() {
    fn p(c: PlanesCase) -> TestResult {
        verdict(prop_bmm_planes(&c))
    }
    qc().quickcheck(p as fn(PlanesCase) -> TestResult);
}

fn prop_bspmm_planes(c: &PlanesCase) -> Result<(), String> {
    let cpu = Cpu::new();
    let (m, k, n) = (c.m, c.k, c.n);
    let x = planes_of(
        &c.w,
        k,
        n,
        c.c,
        BitLayout::RowMajor,
        c.pw.0.clone(),
        c.pw.1.clone(),
    );
    let mut dense = vec![0f64; m * k];
    for &(i, j) in &c.entries {
        dense[i * k + j] = 1.0;
    }
    let csr = Matrix::from_triplets(m, k, c.entries.iter().map(|&(i, j)| (i, j, true)).collect())
        .map_err(|e| e.to_string())?;
    let (v, tol) = if c.out.kind == 0 {
        let mut v = vec![0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                v[i * n + j] = (0..k)
                    .map(|p| dense[i * k + p] * c.w[p * n + j] as f64)
                    .sum();
            }
        }
        (v, Vec::new())
    } else {
        dequantised(c, |i, p| dense[i * k + p])
    };
    for f in FORMATS {
        let a = csr.to_format(f).map_err(|e| e.to_string())?;
        let got = run_output(&cpu, &c.out, m, n, |out| {
            ops::bspmm_planes(&cpu, out, &a, &x)
        })
        .map_err(|e| e.to_string())?;
        check(&c.out, m, n, &v, c.out.kind == 0, &tol, &got).map_err(|e| format!("{f:?}: {e}"))?;
    }
    Ok(())
}

#[test]
fn bspmm_planes_matches_the_reference_on_every_format() {
    fn p(c: PlanesCase) -> TestResult {
        verdict(prop_bspmm_planes(&c))
    }
    qc().tests(100)
        .quickcheck(p as fn(PlanesCase) -> TestResult);
}

// ---------------------------------------------------------------- conversions

#[derive(Clone, Debug)]
struct ConvCase {
    x: DenseMatrix<f32>,
    b: BitMatrix,
    t: OutSpec,
    layout: BitLayout,
    bits: u32,
    per_col: bool,
    nan_at: Option<usize>,
}

impl Arbitrary for ConvCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = (dim(g, 140), dim(g, 140));
        let layout = *g
            .choose(&[BitLayout::RowMajor, BitLayout::ColMajor])
            .unwrap();
        let mut x = f32mat(g, m, n);
        let nan_at = (m * n > 0 && below(g, 3) == 0).then(|| below(g, m * n));
        if let Some(p) = nan_at {
            x.as_mut_slice()[p] = f32::NAN;
        }
        ConvCase {
            x,
            b: bits(g, m, n, layout),
            t: OutSpec::gen(g, m, n, false),
            layout,
            bits: 1 + below(g, 8) as u32,
            per_col: below(g, 2) == 0,
            nan_at,
        }
    }
}

fn prop_conversions(c: &ConvCase) -> Result<(), String> {
    let cpu = Cpu::new();
    let (m, n) = (c.x.nrows(), c.x.ncols());
    // binarize, into either layout
    let per_col = match &c.t.threshold {
        Some(Ok(v)) => Some(DenseMatrix::from_vec(1, n, v.clone()).unwrap()),
        _ => None,
    };
    let th = match (&c.t.threshold, &per_col) {
        (None, _) => Threshold::Sign,
        (Some(Err(t)), _) => Threshold::Value(*t),
        (_, Some(d)) => Threshold::PerColumn(d),
        _ => unreachable!(),
    };
    let mut b = BitMatrix::from_fn(m, n, c.layout, |_, _| true).unwrap();
    ops::binarize(&cpu, &mut b, &c.x, th).map_err(|e| e.to_string())?;
    let want = BitMatrix::from_fn(m, n, c.layout, |i, j| c.x.get(i, j) >= c.t.t(j)).unwrap();
    if b != want {
        return Err("binarize".into());
    }
    // unpack, both domains
    for d in [BitDomain::Binary, BitDomain::Signed] {
        let mut u = DenseMatrix::filled(m, n, f32::NAN);
        ops::unpack_bits(&cpu, &mut u, &c.b, d).map_err(|e| e.to_string())?;
        for i in 0..m {
            for j in 0..n {
                if u.get(i, j) as f64 != num(d, c.b.get(i, j).unwrap()) {
                    return Err(format!("unpack {d:?} ({i}, {j})"));
                }
            }
        }
    }
    // transpose there and back
    let mut t = cpu.bits_new(m, n, c.layout.other()).unwrap();
    ops::bit_transpose(&cpu, &mut t, &c.b).map_err(|e| e.to_string())?;
    if t != BitMatrix::from_fn(m, n, c.layout.other(), |i, j| c.b.get(i, j).unwrap()).unwrap() {
        return Err("bit_transpose".into());
    }
    // mean_abs both ways (NaN-free rows only: compare where finite)
    for rows in [true, false] {
        let (r, k) = if rows { (m, 1) } else { (1, n) };
        let mut o = DenseMatrix::filled(r, k, f32::NAN);
        ops::mean_abs(&cpu, &mut o, &c.x, rows).map_err(|e| e.to_string())?;
        for p in 0..r * k {
            let vals: Vec<f64> = if rows {
                c.x.row(p).iter().map(|v| v.abs() as f64).collect()
            } else {
                (0..m).map(|i| c.x.get(i, p).abs() as f64).collect()
            };
            let want = if vals.is_empty() {
                0.0
            } else {
                vals.iter().sum::<f64>() / vals.len() as f64
            };
            let got = o.as_slice()[p] as f64;
            if !(want.is_nan() && got.is_nan()) && (got - want).abs() > 1e-6 * want.abs().max(1.0) {
                return Err(format!("mean_abs rows={rows} {p}: {got} vs {want}"));
            }
        }
    }
    // quantize and dequantize
    let np = if c.per_col { n } else { 1 };
    let scale: Vec<f32> = (0..np).map(|j| [0.5f32, 0.25, 1.0, 3.0][j % 4]).collect();
    let zero: Vec<f32> = (0..np)
        .map(|j| [0.0f32, 2.0, 8.5, 100.0][(j + 1) % 4])
        .collect();
    let planes = (0..c.bits)
        .map(|_| cpu.bits_new(m, n, c.layout))
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let mut q = BitPlanes::<Cpu>::new(
        planes,
        DenseMatrix::from_vec(1, np, scale.clone()).unwrap(),
        DenseMatrix::from_vec(1, np, zero.clone()).unwrap(),
    )
    .map_err(|e| e.to_string())?;
    ops::quantize(&cpu, &mut q, &c.x).map_err(|e| e.to_string())?;
    let max = ((1u32 << c.bits) - 1) as f32;
    let mut d = DenseMatrix::filled(m, n, f32::NAN);
    ops::dequantize(&cpu, &mut d, &q).map_err(|e| e.to_string())?;
    for i in 0..m {
        for j in 0..n {
            let (s, z) = (scale[j % np], zero[j % np]);
            let r = (c.x.get(i, j) / s + z).round();
            let code = if r.is_nan() { z.round() } else { r }.clamp(0.0, max) as u32;
            let got = (0..c.bits).fold(0u32, |a, p| {
                a | (q.planes()[p as usize].get(i, j).unwrap() as u32) << p
            });
            if got != code {
                return Err(format!(
                    "quantize ({i}, {j}) {}: code {got}, want {code}",
                    c.x.get(i, j)
                ));
            }
            if d.get(i, j) != s * (code as f32 - z) {
                return Err(format!("dequantize ({i}, {j})"));
            }
            if q.layout() != c.layout {
                return Err("quantize changed the layout".into());
            }
        }
    }
    let _ = c.nan_at;
    Ok(())
}

#[test]
fn conversions_match_the_reference() {
    fn p(c: ConvCase) -> TestResult {
        verdict(prop_conversions(&c))
    }
    qc().quickcheck(p as fn(ConvCase) -> TestResult);
}

// ---------------------------------------------------------------- bad input

/// `r` is an error whose message starts with `op`.
fn names(op: &str, r: Result<(), Error>) {
    let e = r.expect_err(op).to_string();
    assert!(e.starts_with(&format!("{op}:")), "{e}");
}

#[test]
fn bmm_bad_input_is_an_error_and_outputs_stay() {
    let cpu = Cpu::new();
    let a = BitMatrix::from_fn(3, 5, BitLayout::RowMajor, |i, j| i < j).unwrap();
    let w = BitMatrix::from_fn(5, 2, BitLayout::ColMajor, |i, j| i > j).unwrap();
    let x = DenseMatrix::filled(3, 5, 1.0f32);
    let s = BitSemiring::PLUS_XNOR;
    let mut c = DenseMatrix::filled(3, 2, 7i32);
    let mut f = DenseMatrix::filled(3, 2, 7.0f32);
    let mut h = BitMatrix::from_fn(3, 2, BitLayout::RowMajor, |i, _| i == 1).unwrap();
    let (c0, f0, h0) = (c.clone(), f.clone(), h.clone());
    // shape mismatch: w has 4 rows
    let w4 = BitMatrix::zeros(4, 2, BitLayout::ColMajor).unwrap();
    names(
        "bmm",
        ops::bmm(&cpu, BitOutput::Counts(&mut c), s, BitInput::Bits(&a), &w4),
    );
    // output of the wrong shape
    let mut c23 = DenseMatrix::filled(2, 3, 7i32);
    names(
        "bmm",
        ops::bmm(&cpu, BitOutput::Counts(&mut c23), s, BitInput::Bits(&a), &w),
    );
    // layouts
    let wr = BitMatrix::from_fn(5, 2, BitLayout::RowMajor, |i, j| i > j).unwrap();
    names(
        "bmm",
        ops::bmm(&cpu, BitOutput::Counts(&mut c), s, BitInput::Bits(&a), &wr),
    );
    let ac = BitMatrix::from_fn(3, 5, BitLayout::ColMajor, |i, j| i < j).unwrap();
    names(
        "bmm",
        ops::bmm(&cpu, BitOutput::Counts(&mut c), s, BitInput::Bits(&ac), &w),
    );
    let mut hc = BitMatrix::zeros(3, 2, BitLayout::ColMajor).unwrap();
    let out = BitOutput::Bits {
        out: &mut hc,
        scales: Scales::default(),
        threshold: Threshold::Sign,
    };
    names("bmm", ops::bmm(&cpu, out, s, BitInput::Bits(&a), &w));
    // f32 left: no LorLand, no counts
    let out = BitOutput::Scaled {
        out: &mut f,
        scales: Scales::default(),
    };
    names(
        "bmm",
        ops::bmm(&cpu, out, BitSemiring::LorLand, BitInput::F32(&x), &w),
    );
    names(
        "bmm",
        ops::bmm(&cpu, BitOutput::Counts(&mut c), s, BitInput::F32(&x), &w),
    );
    // scales and thresholds of the wrong length
    let d = |r, c| DenseMatrix::filled(r, c, 1.0f32);
    let (r2, c3, b3, t3) = (d(2, 1), d(1, 3), d(1, 3), d(1, 3));
    for sc in [
        Scales {
            row: Some(&r2),
            ..Scales::default()
        },
        Scales {
            col: Some(&c3),
            ..Scales::default()
        },
        Scales {
            bias: Some(&b3),
            ..Scales::default()
        },
    ] {
        names(
            "bmm",
            ops::bmm(
                &cpu,
                BitOutput::Scaled {
                    out: &mut f,
                    scales: sc,
                },
                s,
                BitInput::Bits(&a),
                &w,
            ),
        );
        let out = BitOutput::Bits {
            out: &mut h,
            scales: sc,
            threshold: Threshold::Sign,
        };
        names("bmm", ops::bmm(&cpu, out, s, BitInput::Bits(&a), &w));
    }
    let out = BitOutput::Bits {
        out: &mut h,
        scales: Scales::default(),
        threshold: Threshold::PerColumn(&t3),
    };
    names("bmm", ops::bmm(&cpu, out, s, BitInput::Bits(&a), &w));
    assert_eq!((c, f, h), (c0, f0, h0));
}

#[test]
fn bspmm_bad_input_is_an_error_and_outputs_stay() {
    let cpu = Cpu::new();
    let a = Matrix::from_triplets(3, 4, vec![(0, 1, true), (2, 3, true)]).unwrap();
    let x = BitMatrix::from_fn(4, 2, BitLayout::RowMajor, |i, j| i == j).unwrap();
    let mut c = DenseMatrix::filled(3, 2, 7i32);
    let c0 = c.clone();
    for f in FORMATS {
        let a = a.to_format(f).unwrap();
        // a Signed left domain on a sparse pattern
        for s in [
            BitSemiring::PLUS_XNOR,
            BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Binary),
        ] {
            names(
                "bspmm",
                ops::bspmm(&cpu, BitOutput::Counts(&mut c), s, &a, &x),
            );
        }
        let s = BitSemiring::PLUS_LAND;
        let xc = BitMatrix::from_fn(4, 2, BitLayout::ColMajor, |i, j| i == j).unwrap();
        names(
            "bspmm",
            ops::bspmm(&cpu, BitOutput::Counts(&mut c), s, &a, &xc),
        );
        let x5 = BitMatrix::zeros(5, 2, BitLayout::RowMajor).unwrap();
        names(
            "bspmm",
            ops::bspmm(&cpu, BitOutput::Counts(&mut c), s, &a, &x5),
        );
        let mut c2 = DenseMatrix::filled(3, 3, 7i32);
        names(
            "bspmm",
            ops::bspmm(&cpu, BitOutput::Counts(&mut c2), s, &a, &x),
        );
    }
    assert_eq!(c, c0);
}

#[test]
fn bspmm_bmm_bad_input_is_an_error_and_outputs_stay() {
    let cpu = Cpu::new();
    let a = Matrix::from_triplets(3, 4, vec![(0, 1, true), (2, 3, true)]).unwrap();
    let x = BitMatrix::from_fn(4, 2, BitLayout::RowMajor, |i, j| i == j).unwrap();
    let w = BitMatrix::from_fn(2, 3, BitLayout::ColMajor, |i, j| i != j).unwrap();
    let mut h = BitMatrix::from_fn(3, 2, BitLayout::RowMajor, |i, _| i == 1).unwrap();
    let mut y = DenseMatrix::filled(3, 3, 7i32);
    let mut c = DenseMatrix::filled(3, 2, 7i32);
    let mut y2 = DenseMatrix::filled(3, 2, 7i32);
    let (h0, y0, c0, y20) = (h.clone(), y.clone(), c.clone(), y2.clone());
    let (s1, s2) = (BitSemiring::PLUS_LAND_SIGNED, BitSemiring::PLUS_XNOR);
    let x5 = BitMatrix::zeros(5, 2, BitLayout::RowMajor).unwrap();
    let w3 = BitMatrix::zeros(3, 3, BitLayout::ColMajor).unwrap();
    let wr = BitMatrix::from_fn(2, 3, BitLayout::RowMajor, |i, j| i != j).unwrap();
    // `bspmm_bmm` with h (as bits) into y as counts, over `aggregate` and
    // `s2`, the operands given
    let call = |h: &mut BitMatrix, aggregate, x, y: &mut DenseMatrix<i32>, w| {
        let h_out = BitOutput::Bits {
            out: h,
            scales: Scales::default(),
            threshold: Threshold::Sign,
        };
        ext::bspmm_bmm(&cpu, h_out, aggregate, &a, x, BitOutput::Counts(y), s2, w)
    };
    let op = "bspmm_bmm";
    // the aggregation's output is not bits
    let counts = BitOutput::Counts(&mut c);
    names(
        op,
        ext::bspmm_bmm(&cpu, counts, s1, &a, &x, BitOutput::Counts(&mut y), s2, &w),
    );
    // the aggregation's operands: a Signed left domain, x of the wrong height
    names(op, call(&mut h, s2, &x, &mut y, &w));
    names(op, call(&mut h, s1, &x5, &mut y, &w));
    // the second product's: w of the wrong height or layout, y of the wrong
    // shape (h, which the first product would write, stays too)
    names(op, call(&mut h, s1, &x, &mut y, &w3));
    names(op, call(&mut h, s1, &x, &mut y, &wr));
    names(op, call(&mut h, s1, &x, &mut y2, &w));
    assert_eq!((h, y, c, y2), (h0, y0, c0, y20));
}

#[test]
fn planes_bad_input_is_an_error_and_outputs_stay() {
    let cpu = Cpu::new();
    let p = |m, n, l| BitMatrix::zeros(m, n, l).unwrap();
    let one = |n| DenseMatrix::filled(1, n, 1.0f32);
    // bit widths outside 1..=8
    for b in [0, 9] {
        let planes = (0..b).map(|_| p(2, 2, BitLayout::RowMajor)).collect();
        let e = BitPlanes::<Cpu>::new(planes, one(1), one(1))
            .err()
            .expect("width");
        assert!(e.to_string().starts_with("BitPlanes::new:"), "{e}");
    }
    // planes that disagree, parameters of the wrong length
    assert!(BitPlanes::<Cpu>::new(
        vec![p(2, 2, BitLayout::RowMajor), p(2, 3, BitLayout::RowMajor)],
        one(1),
        one(1)
    )
    .is_err());
    assert!(BitPlanes::<Cpu>::new(
        vec![p(2, 2, BitLayout::RowMajor), p(2, 2, BitLayout::ColMajor)],
        one(1),
        one(1)
    )
    .is_err());
    assert!(BitPlanes::<Cpu>::new(vec![p(2, 2, BitLayout::RowMajor)], one(3), one(3)).is_err());
    assert!(BitPlanes::<Cpu>::new(vec![p(2, 2, BitLayout::RowMajor)], one(2), one(1)).is_err());
    let mk = |m, n, b, l, w| {
        BitPlanes::<Cpu>::new((0..b).map(|_| p(m, n, l)).collect(), one(w), one(w)).unwrap()
    };
    let a = mk(3, 4, 2, BitLayout::RowMajor, 1);
    let w = mk(4, 2, 2, BitLayout::ColMajor, 2);
    let mut c = DenseMatrix::filled(3, 2, 7i32);
    let c0 = c.clone();
    // a with per-column parameters
    let apc = mk(3, 4, 2, BitLayout::RowMajor, 4);
    names(
        "bmm_planes",
        ops::bmm_planes(&cpu, BitOutput::Counts(&mut c), &apc, &w),
    );
    // layouts and shapes
    names(
        "bmm_planes",
        ops::bmm_planes(
            &cpu,
            BitOutput::Counts(&mut c),
            &mk(3, 4, 2, BitLayout::ColMajor, 1),
            &w,
        ),
    );
    names(
        "bmm_planes",
        ops::bmm_planes(
            &cpu,
            BitOutput::Counts(&mut c),
            &a,
            &mk(4, 2, 2, BitLayout::RowMajor, 1),
        ),
    );
    names(
        "bmm_planes",
        ops::bmm_planes(
            &cpu,
            BitOutput::Counts(&mut c),
            &a,
            &mk(5, 2, 2, BitLayout::ColMajor, 1),
        ),
    );
    // i32 counts that could overflow: k (2^8 - 1)^2 > i32::MAX
    let k = 40_000;
    let a8 = mk(3, k, 8, BitLayout::RowMajor, 1);
    let w8 = mk(k, 2, 8, BitLayout::ColMajor, 1);
    names(
        "bmm_planes",
        ops::bmm_planes(&cpu, BitOutput::Counts(&mut c), &a8, &w8),
    );
    // ... while scaled output of the same is fine
    let mut f = DenseMatrix::filled(3, 2, 7.0f32);
    ops::bmm_planes(
        &cpu,
        BitOutput::Scaled {
            out: &mut f,
            scales: Scales::default(),
        },
        &a8,
        &w8,
    )
    .unwrap();
    // every code 0, zero points 1, scales 1: Σ_k (0 - 1)(0 - 1) = k
    assert_eq!(f.as_slice(), &[k as f32; 6]);
    // bspmm_planes: layout and shape
    let adj = Matrix::from_triplets(3, 4, vec![(0, 0, true)]).unwrap();
    names(
        "bspmm_planes",
        ops::bspmm_planes(
            &cpu,
            BitOutput::Counts(&mut c),
            &adj,
            &mk(4, 2, 2, BitLayout::ColMajor, 1),
        ),
    );
    names(
        "bspmm_planes",
        ops::bspmm_planes(
            &cpu,
            BitOutput::Counts(&mut c),
            &adj,
            &mk(5, 2, 2, BitLayout::RowMajor, 1),
        ),
    );
    assert_eq!(c, c0);
}

#[test]
fn conversion_bad_input_is_an_error_and_outputs_stay() {
    let cpu = Cpu::new();
    let x = DenseMatrix::filled(3, 4, 1.0f32);
    let mut b = BitMatrix::from_fn(3, 4, BitLayout::RowMajor, |i, j| i == j).unwrap();
    let b0 = b.clone();
    let mut b43 = BitMatrix::zeros(4, 3, BitLayout::RowMajor).unwrap();
    names(
        "binarize",
        ops::binarize(&cpu, &mut b43, &x, Threshold::Sign),
    );
    let t5 = DenseMatrix::filled(1, 5, 0.0f32);
    names(
        "binarize",
        ops::binarize(&cpu, &mut b, &x, Threshold::PerColumn(&t5)),
    );
    let mut m = DenseMatrix::filled(1, 4, 7.0f32);
    let m0 = m.clone();
    names("mean_abs", ops::mean_abs(&cpu, &mut m, &x, true));
    let mut u = DenseMatrix::filled(4, 3, 7.0f32);
    let u0 = u.clone();
    names(
        "unpack_bits",
        ops::unpack_bits(&cpu, &mut u, &b, BitDomain::Signed),
    );
    let mut same = BitMatrix::zeros(3, 4, BitLayout::RowMajor).unwrap();
    names("bit_transpose", ops::bit_transpose(&cpu, &mut same, &b));
    let mut other = BitMatrix::zeros(4, 3, BitLayout::ColMajor).unwrap();
    names("bit_transpose", ops::bit_transpose(&cpu, &mut other, &b));
    let mut q = BitPlanes::<Cpu>::new(
        vec![BitMatrix::zeros(3, 3, BitLayout::RowMajor).unwrap()],
        DenseMatrix::filled(1, 1, 1.0f32),
        DenseMatrix::filled(1, 1, 0.0f32),
    )
    .unwrap();
    names("quantize", ops::quantize(&cpu, &mut q, &x));
    names("dequantize", ops::dequantize(&cpu, &mut u, &q));
    assert_eq!((b, m, u), (b0, m0, u0));
    assert_eq!(q.planes()[0].count_ones(), 0);
}
