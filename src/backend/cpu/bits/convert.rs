//! Conversions between `f32` dense matrices and bits, and between layouts:
//! `binarize`, `mean_abs`, `unpack_bits`, `bit_transpose`, `quantize`,
//! `dequantize`. Row-major work runs in parallel over rows; a column-major
//! operand goes through the 64 x 64 block transpose.

use std::borrow::Cow;

use rayon::prelude::*;

use super::epilogue::threshold_of;
use crate::algebra::BitDomain;
use crate::backend::Cpu;
use crate::container::{BitPlanes, Threshold};
use crate::error::Result;
use crate::storage::bits::tail_mask;
use crate::storage::{BitLayout, BitMatrix, DenseMatrix};

/// Rows per parallel task of the row-wise conversions.
const ROWS: usize = 64;

/// Transposes the 64 x 64 bit block `a` in place (bit `c` of word `r` goes
/// to bit `r` of word `c`): the swap of ever smaller off-diagonal blocks.
pub(super) fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// `out` = `b` in `out`'s layout (the other one): 64 x 64 blocks, in
/// parallel over blocks of 64 output lines.
pub(crate) fn bit_transpose(out: &mut BitMatrix, b: &BitMatrix) {
    let (in_lines, in_stride) = (b.lines(), b.stride());
    let out_lines = out.lines();
    let out_stride = out.stride();
    if out_stride == 0 || out_lines == 0 {
        return;
    }
    out.words_mut()
        .par_chunks_mut(64 * out_stride)
        .enumerate()
        .for_each(|(s, block)| {
            let mut t = [0u64; 64];
            for lb in 0..out_stride {
                for (r, x) in t.iter_mut().enumerate() {
                    let l = lb * 64 + r;
                    *x = if l < in_lines {
                        b.words()[l * in_stride + s]
                    } else {
                        0
                    };
                }
                transpose64(&mut t);
                for (c, line) in block.chunks_mut(out_stride).enumerate() {
                    line[lb] = t[c];
                }
            }
        });
    debug_assert!(padding_clean(out));
}

/// True when every line's padding bits are 0.
fn padding_clean(m: &BitMatrix) -> bool {
    let (stride, mask) = (m.stride(), tail_mask(m.line_len()));
    stride == 0 || (0..m.lines()).all(|l| m.line(l)[stride - 1] & !mask == 0)
}

/// `b` row-major (borrowed when it is).
pub(super) fn row_major(b: &BitMatrix) -> Result<Cow<'_, BitMatrix>> {
    if b.layout() == BitLayout::RowMajor {
        return Ok(Cow::Borrowed(b));
    }
    let mut t = BitMatrix::zeros(b.nrows(), b.ncols(), BitLayout::RowMajor)?;
    bit_transpose(&mut t, b);
    Ok(Cow::Owned(t))
}

/// Fills row-major `out` line by line: `f(i, line)` writes row `i`'s words.
fn fill_rows(out: &mut BitMatrix, f: impl Fn(usize, &mut [u64]) + Sync) {
    let stride = out.stride();
    if stride == 0 {
        return;
    }
    out.words_mut()
        .par_chunks_mut(ROWS * stride)
        .enumerate()
        .for_each(|(t, block)| {
            for (k, line) in block.chunks_mut(stride).enumerate() {
                f(t * ROWS + k, line);
            }
        });
}

/// Packs `n` predicates into `line` (bit `j` = `f(j)`).
#[inline]
fn pack(line: &mut [u64], n: usize, f: impl Fn(usize) -> bool) {
    for (w, word) in line.iter_mut().enumerate() {
        let mut x = 0u64;
        for b in 0..(n - w * 64).min(64) {
            x |= (f(w * 64 + b) as u64) << b;
        }
        *word = x;
    }
}

/// `out_ij = (x_ij >= t_j)`, NaN gives 0.
pub(crate) fn binarize(
    out: &mut BitMatrix,
    x: &DenseMatrix<f32>,
    threshold: Threshold<'_, Cpu>,
) -> Result<()> {
    let (t, per_col) = threshold_of(&threshold);
    let n = x.ncols();
    let fill = |rm: &mut BitMatrix| {
        fill_rows(rm, |i, line| {
            let row = x.row(i);
            pack(line, n, |j| row[j] >= per_col.map_or(t, |p| p[j]))
        })
    };
    if out.layout() == BitLayout::RowMajor {
        fill(out);
    } else {
        let mut rm = BitMatrix::zeros(x.nrows(), n, BitLayout::RowMajor)?;
        fill(&mut rm);
        bit_transpose(out, &rm);
    }
    Ok(())
}

/// The mean of `|x|` along rows (`m x 1`) or columns (`1 x n`), summed in `f64`.
pub(crate) fn mean_abs(out: &mut DenseMatrix<f32>, x: &DenseMatrix<f32>, rows: bool) {
    let (m, n) = (x.nrows(), x.ncols());
    let mean = |sum: f64, len: usize| {
        if len == 0 {
            0.0
        } else {
            (sum / len as f64) as f32
        }
    };
    if rows {
        out.as_mut_slice()
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, o)| {
                *o = mean(x.row(i).iter().map(|v| v.abs() as f64).sum(), n);
            });
    } else {
        let sums = (0..m)
            .into_par_iter()
            .fold(
                || vec![0f64; n],
                |mut acc, i| {
                    for (a, v) in acc.iter_mut().zip(x.row(i)) {
                        *a += v.abs() as f64;
                    }
                    acc
                },
            )
            .reduce(
                || vec![0f64; n],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        for (o, s) in out.as_mut_slice().iter_mut().zip(sums) {
            *o = mean(s, m);
        }
    }
}

/// `out` = the bits of `b` as 0/1 or -1/+1.
pub(crate) fn unpack_bits(
    out: &mut DenseMatrix<f32>,
    b: &BitMatrix,
    domain: BitDomain,
) -> Result<()> {
    let rm = row_major(b)?;
    let n = b.ncols();
    if n == 0 {
        return Ok(());
    }
    let (zero, one) = (domain.of(false) as f32, domain.of(true) as f32);
    out.as_mut_slice()
        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, row)| {
            let line = rm.line(i);
            for (j, o) in row.iter_mut().enumerate() {
                *o = if line[j / 64] >> (j % 64) & 1 == 1 {
                    one
                } else {
                    zero
                };
            }
        });
    Ok(())
}

/// The code of `x` at column `j`: `round(x / scale + zero)` clamped to
/// `[0, max]` (half away from zero; NaN gives the zero point rounded).
#[inline]
fn code_of(x: f32, scale: f32, zero: f32, max: u8) -> u8 {
    let q = (x / scale + zero).round();
    let q = if q.is_nan() { zero.round() } else { q };
    q.clamp(0.0, max as f32) as u8
}

/// The quantisation parameters of column `j`.
fn params(p: &BitPlanes<Cpu>, j: usize) -> (f32, f32) {
    let (s, z) = (p.scale().as_slice(), p.zero().as_slice());
    if p.per_column() {
        (s[j], z[j])
    } else {
        (s[0], z[0])
    }
}

/// Fills `out`'s planes with the codes of `x`.
pub(crate) fn quantize(out: &mut BitPlanes<Cpu>, x: &DenseMatrix<f32>) -> Result<()> {
    let (m, n) = (x.nrows(), x.ncols());
    let max = ((1u32 << out.bits()) - 1) as u8;
    let cols: Vec<(f32, f32)> = (0..n).map(|j| params(out, j)).collect();
    let layout = out.layout();
    let mut planes = Vec::with_capacity(out.bits() as usize);
    for p in 0..out.bits() {
        let mut rm = BitMatrix::zeros(m, n, BitLayout::RowMajor)?;
        fill_rows(&mut rm, |i, line| {
            let row = x.row(i);
            pack(line, n, |j| {
                let (s, z) = cols[j];
                code_of(row[j], s, z, max) >> p & 1 == 1
            })
        });
        planes.push(rm);
    }
    for (dst, rm) in out.planes_mut().iter_mut().zip(planes) {
        if layout == BitLayout::RowMajor {
            *dst = rm;
        } else {
            bit_transpose(dst, &rm);
        }
    }
    Ok(())
}

/// `out = scale * (code - zero)`.
pub(crate) fn dequantize(out: &mut DenseMatrix<f32>, p: &BitPlanes<Cpu>) -> Result<()> {
    let n = p.ncols();
    if n == 0 {
        return Ok(());
    }
    let planes = p
        .planes()
        .iter()
        .map(row_major)
        .collect::<Result<Vec<_>>>()?;
    let cols: Vec<(f32, f32)> = (0..n).map(|j| params(p, j)).collect();
    out.as_mut_slice()
        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, row)| {
            for (j, o) in row.iter_mut().enumerate() {
                let code = planes.iter().enumerate().fold(0u32, |c, (q, pl)| {
                    c | ((pl.line(i)[j / 64] >> (j % 64) & 1) as u32) << q
                });
                let (s, z) = cols[j];
                *o = s * (code as f32 - z);
            }
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose64_moves_every_bit() {
        for (r, c) in [(0, 0), (0, 63), (63, 0), (5, 40), (33, 2)] {
            let mut a = [0u64; 64];
            a[r] = 1 << c;
            transpose64(&mut a);
            let expect: [u64; 64] = std::array::from_fn(|k| if k == c { 1 << r } else { 0 });
            assert_eq!(a, expect, "({r}, {c})");
        }
    }
}
