//! Generators and the plain reference of the dense-bit operations (issue 17),
//! shared by `tests/bits.rs` (CPU) and the CUDA comparison: awkward shapes,
//! bit matrices with all-zero and all-one lines, every semiring and output
//! kind, scales and thresholds. The reference unpacks the bits to numbers
//! and multiplies in `f64`; it never uses popcounts.
#![allow(dead_code)]

use bitgraphblas::algebra::{BitDomain, BitSemiring};
use bitgraphblas::storage::{BitLayout, BitMatrix};
use bitgraphblas::{Backend, BitOutput, DenseMatrix, Error, Scales, Threshold};
use quickcheck::{Arbitrary, Gen};

/// A uniform draw in `0..n` (`n > 0`).
pub fn below(g: &mut Gen, n: usize) -> usize {
    (u64::arbitrary(g) % n as u64) as usize
}

/// A dimension: 0, 1, around a word or register edge (63..65, 127..129,
/// 255..257), or anything up to `max`.
pub fn dim(g: &mut Gen, max: usize) -> usize {
    match below(g, 8) {
        0 => below(g, 2),
        1 | 2 => {
            let e = *g.choose(&[32usize, 64, 128, 256]).unwrap();
            (e - 1 + below(g, 3)).min(max)
        }
        _ => 1 + below(g, max),
    }
}

/// Random bits: each line all zero, all one, or random at a random density.
pub fn bits(g: &mut Gen, m: usize, n: usize, layout: BitLayout) -> BitMatrix {
    let lines = if layout == BitLayout::RowMajor { m } else { n };
    let styles: Vec<(usize, u32)> = (0..lines)
        .map(|_| (below(g, 6), below(g, 101) as u32))
        .collect();
    let mut draws = vec![0u32; m * n];
    for d in &mut draws {
        *d = below(g, 100) as u32;
    }
    BitMatrix::from_fn(m, n, layout, |i, j| {
        let l = if layout == BitLayout::RowMajor { i } else { j };
        match styles[l].0 {
            0 => false,
            1 => true,
            _ => draws[i * n + j] < styles[l].1,
        }
    })
    .unwrap()
}

/// Quarter-integers in [-8, 8] (often 0): their sums of up to 2^14 terms
/// are exact in `f32`, so `f32` products are exact whatever the order.
pub fn quarter(g: &mut Gen) -> f32 {
    if below(g, 5) == 0 {
        0.0
    } else {
        (below(g, 65) as f32 - 32.0) / 4.0
    }
}

/// An `m x n` matrix of [`quarter`] values.
pub fn f32mat(g: &mut Gen, m: usize, n: usize) -> DenseMatrix<f32> {
    DenseMatrix::from_vec(m, n, (0..m * n).map(|_| quarter(g)).collect()).unwrap()
}

/// What a product writes, with its scales and threshold (host values).
#[derive(Clone, Debug)]
pub struct OutSpec {
    /// 0: counts, 1: scaled, 2: bits.
    pub kind: u8,
    pub row: Option<Vec<f32>>,
    pub col: Option<Vec<f32>>,
    pub bias: Option<Vec<f32>>,
    /// `None`: `Sign`; `Some(Err(t))`: `Value(t)`; `Some(Ok(v))`: per column.
    pub threshold: Option<Result<Vec<f32>, f32>>,
}

/// Factors: powers of two and their negatives (products stay exact).
fn factor(g: &mut Gen) -> f32 {
    *g.choose(&[0.5f32, 1.0, 2.0, 0.25, -1.0, -0.5, 4.0])
        .unwrap()
}

impl OutSpec {
    /// A random output for an `m x n` product (`counts`: whether counts may be asked).
    pub fn gen(g: &mut Gen, m: usize, n: usize, counts: bool) -> Self {
        let kind = if counts {
            below(g, 3) as u8
        } else {
            1 + below(g, 2) as u8
        };
        let opt = |len: usize, g: &mut Gen, f: fn(&mut Gen) -> f32| {
            (kind > 0 && below(g, 2) == 0).then(|| (0..len).map(|_| f(g)).collect::<Vec<_>>())
        };
        let row = opt(m, g, factor);
        let col = opt(n, g, factor);
        let bias = opt(n, g, quarter);
        let threshold = match below(g, 3) {
            0 => None,
            1 => Some(Err(quarter(g))),
            _ => Some(Ok((0..n).map(|_| quarter(g)).collect())),
        };
        OutSpec {
            kind,
            row,
            col,
            bias,
            threshold,
        }
    }

    /// The spec's `s` from the value `v`, in `f32`, in the documented order.
    pub fn scaled(&self, i: usize, j: usize, v: f32) -> f32 {
        let mut s = v;
        if let Some(r) = &self.row {
            s *= r[i];
        }
        if let Some(c) = &self.col {
            s *= c[j];
        }
        if let Some(b) = &self.bias {
            s += b[j];
        }
        s
    }

    /// Column `j`'s threshold.
    pub fn t(&self, j: usize) -> f32 {
        match &self.threshold {
            None => 0.0,
            Some(Err(t)) => *t,
            Some(Ok(v)) => v[j],
        }
    }
}

/// What a product wrote, back on the host.
#[derive(Clone, Debug, PartialEq)]
pub enum Got {
    Counts(Vec<i32>),
    Scaled(Vec<f32>),
    Bits(BitMatrix),
}

/// Runs `f` with the output `spec` asks for on `b` (outputs poisoned first:
/// counts `i32::MIN`, `f32` NaN, bits all one), and brings it back.
pub fn run_output<B: Backend>(
    b: &B,
    spec: &OutSpec,
    m: usize,
    n: usize,
    f: impl FnOnce(BitOutput<'_, B>) -> Result<(), Error>,
) -> Result<Got, Error> {
    let up = |v: &Option<Vec<f32>>, r: usize, c: usize| -> Result<Option<B::Dense<f32>>, Error> {
        v.as_ref()
            .map(|v| b.upload_dense(&DenseMatrix::from_vec(r, c, v.clone())?))
            .transpose()
    };
    let (row, col, bias) = (
        up(&spec.row, m, 1)?,
        up(&spec.col, 1, n)?,
        up(&spec.bias, 1, n)?,
    );
    let per_col = match &spec.threshold {
        Some(Ok(v)) => Some(b.upload_dense(&DenseMatrix::from_vec(1, n, v.clone())?)?),
        _ => None,
    };
    let scales = Scales {
        row: row.as_ref(),
        col: col.as_ref(),
        bias: bias.as_ref(),
    };
    match spec.kind {
        0 => {
            let mut c = b.upload_dense(&DenseMatrix::filled(m, n, i32::MIN))?;
            f(BitOutput::Counts(&mut c))?;
            Ok(Got::Counts(b.download_dense(&c)?.into_vec()))
        }
        1 => {
            let mut c = b.upload_dense(&DenseMatrix::filled(m, n, f32::NAN))?;
            f(BitOutput::Scaled {
                out: &mut c,
                scales,
            })?;
            Ok(Got::Scaled(b.download_dense(&c)?.into_vec()))
        }
        _ => {
            let threshold = match (&spec.threshold, &per_col) {
                (None, _) => Threshold::Sign,
                (Some(Err(t)), _) => Threshold::Value(*t),
                (Some(Ok(_)), Some(d)) => Threshold::PerColumn(d),
                (Some(Ok(_)), None) => unreachable!("uploaded above"),
            };
            let ones = BitMatrix::from_fn(m, n, BitLayout::RowMajor, |_, _| true)?;
            let mut c = b.upload_bits(&ones)?;
            f(BitOutput::Bits {
                out: &mut c,
                scales,
                threshold,
            })?;
            Ok(Got::Bits(b.download_bits(&c)?))
        }
    }
}

/// Checks `got` against the reference values `v` (row-major `m x n`, before
/// the scales). `exact`: `v` is exact in `f32` and the spec's `f32` formula
/// gives the expected output bit for bit; else `tol[i * n + j]` bounds the
/// error of `s`, and bits within it of the threshold are not checked.
pub fn check(
    spec: &OutSpec,
    m: usize,
    n: usize,
    v: &[f64],
    exact: bool,
    tol: &[f64],
    got: &Got,
) -> Result<(), String> {
    for i in 0..m {
        for j in 0..n {
            let x = v[i * n + j];
            let e = |what: &str, g: String| {
                Err(format!("({i}, {j}): {what}: expected from {x}, got {g}"))
            };
            match got {
                Got::Counts(c) => {
                    if c[i * n + j] as f64 != x {
                        return e("count", c[i * n + j].to_string());
                    }
                }
                Got::Scaled(c) => {
                    let want = if exact {
                        spec.scaled(i, j, x as f32) as f64
                    } else {
                        sref(spec, i, j, x)
                    };
                    let t = if exact {
                        1e-6 * want.abs().max(1.0)
                    } else {
                        tol[i * n + j]
                    };
                    if (c[i * n + j] as f64 - want).abs() > t || c[i * n + j].is_nan() {
                        return e("scaled", c[i * n + j].to_string());
                    }
                }
                Got::Bits(b) => {
                    let bit = b.get(i, j).unwrap();
                    let t = spec.t(j);
                    if exact {
                        if bit != (spec.scaled(i, j, x as f32) >= t) {
                            return e("bit", bit.to_string());
                        }
                    } else {
                        let s = sref(spec, i, j, x);
                        if (s - t as f64).abs() > tol[i * n + j] && bit != (s >= t as f64) {
                            return e("bit", bit.to_string());
                        }
                    }
                }
            }
        }
    }
    if let Got::Bits(b) = got {
        // padding bits stay zero (from_words would have refused them, but check the shape)
        if (b.nrows(), b.ncols(), b.layout()) != (m, n, BitLayout::RowMajor) {
            return Err(format!(
                "bit output {}x{} {:?}",
                b.nrows(),
                b.ncols(),
                b.layout()
            ));
        }
    }
    Ok(())
}

/// `s` in `f64`.
fn sref(spec: &OutSpec, i: usize, j: usize, v: f64) -> f64 {
    let mut s = v;
    if let Some(r) = &spec.row {
        s *= r[i] as f64;
    }
    if let Some(c) = &spec.col {
        s *= c[j] as f64;
    }
    if let Some(b) = &spec.bias {
        s += b[j] as f64;
    }
    s
}

/// The numbers bits stand for in `d`.
pub fn num(d: BitDomain, bit: bool) -> f64 {
    match (d, bit) {
        (_, true) => 1.0,
        (BitDomain::Binary, false) => 0.0,
        (BitDomain::Signed, false) => -1.0,
    }
}

/// The reference product of `a` (`m x k`, numbers `a(i, k)`) and `w`
/// (`k x n`, bits) over `s`: `Σ_k a_ik dr(w_kj)`, or for `LorLand` 1 where
/// some `k` has both 1.
pub fn product(
    s: BitSemiring,
    m: usize,
    k: usize,
    n: usize,
    a: impl Fn(usize, usize) -> f64,
    w: impl Fn(usize, usize) -> bool,
) -> Vec<f64> {
    let mut v = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            v[i * n + j] = match s {
                BitSemiring::LorLand => (0..k).any(|p| a(i, p) == 1.0 && w(p, j)) as u8 as f64,
                _ => (0..k).map(|p| a(i, p) * num(s.right(), w(p, j))).sum(),
            };
        }
    }
    v
}
