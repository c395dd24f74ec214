//! Bit-plane products (QGTC): `b`-bit codes times `c`-bit codes as `b * c`
//! AND-popcount products summed with shifts, and a sparse pattern times
//! `b`-bit codes as `b` gathers; integer counts or the dequantised product.

use std::ops::Range;

use super::bspmm::{for_entries, ROWS as SP_ROWS};
use super::epilogue::produce;
use super::popcount::{add_bits, and_counts, line_popcounts};
use crate::backend::Cpu;
use crate::container::{BitOutput, BitPlanes, Matrix};
use crate::error::Result;

/// Output rows per parallel task of `bmm_planes`.
const ROWS: usize = 32;

/// Runs `kernel(rows, v)` (the integer values of a block of rows) and
/// writes `v` as counts, or `dequant(i, j, v)` through the scales.
fn produce_codes(
    out: BitOutput<'_, Cpu>,
    op: &'static str,
    rows_per_task: usize,
    kernel: impl Fn(Range<usize>, &mut [i64]) + Sync,
    dequant: impl Fn(usize, usize, i64) -> f32 + Sync,
) -> Result<()> {
    let n = out.shape().1;
    if matches!(out, BitOutput::Counts(_)) {
        // The checked entry point refused shapes whose values could overflow i32.
        produce::<i32>(out, op, rows_per_task, |rows, vals| {
            let mut v = vec![0i64; vals.len()];
            kernel(rows, &mut v);
            for (o, x) in vals.iter_mut().zip(v) {
                *o = x as i32;
            }
        })
    } else {
        produce::<f32>(out, op, rows_per_task, |rows, vals| {
            let mut v = vec![0i64; vals.len()];
            kernel(rows.clone(), &mut v);
            for (i, (o, x)) in rows.zip(vals.chunks_mut(n).zip(v.chunks(n))) {
                for (j, (o, &x)) in o.iter_mut().zip(x).enumerate() {
                    *o = dequant(i, j, x);
                }
            }
        })
    }
}

/// `(scale, zero)` of column `j` (or of the tensor).
fn params(p: &BitPlanes<Cpu>, j: usize) -> (f64, f64) {
    let j = if p.per_column() { j } else { 0 };
    (
        p.scale().as_slice()[j] as f64,
        p.zero().as_slice()[j] as f64,
    )
}

/// `Σ_p 2^p popc(plane_p line l)` for every line: the codes' sums.
fn code_sums(p: &BitPlanes<Cpu>) -> Vec<i64> {
    let mut s = vec![0i64; p.planes()[0].lines()];
    for (q, plane) in p.planes().iter().enumerate() {
        for (x, c) in s.iter_mut().zip(line_popcounts(plane)) {
            *x += (c as i64) << q;
        }
    }
    s
}

/// `Σ_{p,q} 2^{p+q} popc(a_p & w_q)`, dequantised where asked.
pub(crate) fn bmm_planes(
    out: BitOutput<'_, Cpu>,
    a: &BitPlanes<Cpu>,
    w: &BitPlanes<Cpu>,
) -> Result<()> {
    let k = a.ncols();
    let (rs, cs) = (code_sums(a), code_sums(w));
    let (sa, za) = params(a, 0);
    let kernel = |rows: Range<usize>, v: &mut [i64]| {
        let mut c = vec![0i32; v.len()];
        for (p, ap) in a.planes().iter().enumerate() {
            for (q, wq) in w.planes().iter().enumerate() {
                and_counts(ap, rows.clone(), wq, &mut c);
                for (x, &y) in v.iter_mut().zip(&c) {
                    *x += (y as i64) << (p + q);
                }
            }
        }
    };
    let dequant = |i: usize, j: usize, v: i64| {
        let (sw, zw) = params(w, j);
        let t = v as f64 - zw * rs[i] as f64 - za * cs[j] as f64 + k as f64 * za * zw;
        (sa * sw * t) as f32
    };
    produce_codes(out, "bmm_planes", ROWS, kernel, dequant)
}

/// `Σ_p 2^p (A x_p)`, dequantised where asked: `sx_j (v - zx_j deg_i)`.
pub(crate) fn bspmm_planes(
    out: BitOutput<'_, Cpu>,
    a: &Matrix<bool>,
    x: &BitPlanes<Cpu>,
) -> Result<()> {
    let n = x.ncols();
    let m = a.nrows();
    let mut deg = vec![0i64; m];
    for_entries(a, 0..m, |i, _| deg[i] += 1);
    let kernel = |rows: Range<usize>, v: &mut [i64]| {
        let r0 = rows.start;
        let mut c = vec![0i32; v.len()];
        for (p, xp) in x.planes().iter().enumerate() {
            c.fill(0);
            for_entries(a, rows.clone(), |i, k| {
                add_bits(&mut c[(i - r0) * n..(i - r0 + 1) * n], xp.line(k), 1)
            });
            for (y, &z) in v.iter_mut().zip(&c) {
                *y += (z as i64) << p;
            }
        }
    };
    let dequant = |i: usize, j: usize, v: i64| {
        let (s, z) = params(x, j);
        (s * (v as f64 - z * deg[i] as f64)) as f32
    };
    produce_codes(out, "bspmm_planes", SP_ROWS, kernel, dequant)
}
