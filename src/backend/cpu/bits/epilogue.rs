//! The one epilogue of every bit product (`bmm`, `bspmm` and the bit-plane
//! products): a kernel computes the values of a block of output rows, and
//! this writes them as the [`BitOutput`] asks: `i32` counts straight into
//! the output, `f32` after the [`Scales`], or bits `s >= t` packed into the
//! output's words (no `f32` row is written to the output).

use std::ops::Range;

use rayon::prelude::*;

use super::popcount::{scale_pack, scale_row, Isa, Row};
use crate::backend::Cpu;
use crate::container::{BitOutput, Scales, Threshold};
use crate::error::{Error, Result};
use crate::storage::DenseMatrix;

/// A product's value before the scales: an integer count or an `f32` sum.
pub(super) trait Value: Copy + Default + Send + Sync + 'static {
    /// A row of these values, for the epilogue's kernels (`i32` becomes
    /// `f32` rounded to nearest, as `as f32` and `cvt.rn` do).
    fn row(v: &[Self]) -> Row<'_>;
    /// The output of [`BitOutput::Counts`] as a slice of values, where this
    /// value type can be written as counts.
    fn as_counts(out: &mut [i32]) -> Option<&mut [Self]>;
}

impl Value for i32 {
    fn row(v: &[i32]) -> Row<'_> {
        Row::I32(v)
    }
    fn as_counts(out: &mut [i32]) -> Option<&mut [i32]> {
        Some(out)
    }
}

impl Value for f32 {
    fn row(v: &[f32]) -> Row<'_> {
        Row::F32(v)
    }
    fn as_counts(_: &mut [i32]) -> Option<&mut [f32]> {
        None
    }
}

/// The scales and threshold of an output, resolved to host slices, the
/// absent ones as their identities (factor 1, bias -0.0: `x + -0.0 == x`
/// bit for bit, so the loops below need no branch and `s` is exactly
/// `v * row_i * col_j + bias_j` with the absent terms left out).
struct Epilogue<'a> {
    row: Option<&'a [f32]>,
    col: Vec<f32>,
    bias: Vec<f32>,
    /// Column `j`'s threshold.
    t: Vec<f32>,
    isa: Isa,
}

impl<'a> Epilogue<'a> {
    fn new(s: &Scales<'a, Cpu>, threshold: Option<&Threshold<'a, Cpu>>, n: usize) -> Self {
        let or = |d: Option<&DenseMatrix<f32>>, x: f32| {
            d.map_or_else(|| vec![x; n], |d| d.as_slice().to_vec())
        };
        Epilogue {
            row: s.row.map(|d| d.as_slice()),
            col: or(s.col, 1.0),
            bias: or(s.bias, -0.0),
            t: threshold.map_or_else(Vec::new, |t| thresholds(t, n)),
            isa: Isa::detect(),
        }
    }

    /// Row `i` as `f32`: `s = v * row_i * col_j + bias_j`, in that order.
    fn write_scaled<V: Value>(&self, i: usize, vals: &[V], out: &mut [f32]) {
        let r = self.row.map_or(1.0, |r| r[i]);
        scale_row(self.isa, V::row(vals), r, &self.col, &self.bias, out);
    }

    /// Row `i` as bits `s >= t` (NaN gives 0), no `f32` row written.
    fn write_bits<V: Value>(&self, i: usize, vals: &[V], out: &mut [u64]) {
        let r = self.row.map_or(1.0, |r| r[i]);
        scale_pack(
            self.isa,
            V::row(vals),
            r,
            &self.col,
            &self.bias,
            &self.t,
            out,
        );
    }
}

/// Column `j`'s threshold, for `n` columns.
pub(super) fn thresholds(t: &Threshold<'_, Cpu>, n: usize) -> Vec<f32> {
    match t {
        Threshold::Sign => vec![0.0; n],
        Threshold::Value(t) => vec![*t; n],
        Threshold::PerColumn(d) => d.as_slice().to_vec(),
    }
}

/// Runs `kernel(rows, values)` over blocks of `rows_per_task` output rows in
/// parallel (the kernel writes every `values[(i - rows.start) * n + j]`, the
/// value at `(i, j)` for `i` in `rows`; `values` holds old data), and writes the values into `out` as it asks: counts go
/// straight into the output, the other kinds through a per-task buffer and
/// the epilogue. `op` names the operation in the error returned when `f32`
/// values are asked for as counts.
pub(super) fn produce<V: Value>(
    out: BitOutput<'_, Cpu>,
    op: &'static str,
    rows_per_task: usize,
    kernel: impl Fn(Range<usize>, &mut [V]) + Sync,
) -> Result<()> {
    let (m, n) = out.shape();
    if m == 0 || n == 0 {
        return match out {
            BitOutput::Counts(_) if V::as_counts(&mut []).is_none() => Err(no_counts(op)),
            _ => Ok(()),
        };
    }
    let r = rows_per_task.clamp(1, m);
    let rows = |t: usize| t * r..((t + 1) * r).min(m);
    match out {
        BitOutput::Counts(c) => {
            let c = V::as_counts(c.as_mut_slice()).ok_or_else(|| no_counts(op))?;
            c.par_chunks_mut(r * n)
                .enumerate()
                .for_each(|(t, block)| kernel(rows(t), block));
        }
        BitOutput::Scaled { out, scales } => {
            let epi = Epilogue::new(&scales, None, n);
            out.as_mut_slice()
                .par_chunks_mut(r * n)
                .enumerate()
                .for_each_init(Vec::new, |buf, (t, block)| {
                    let rs = rows(t);
                    let buf = scratch(buf, rs.len() * n);
                    kernel(rs.clone(), buf);
                    for (k, (o, v)) in block.chunks_mut(n).zip(buf.chunks(n)).enumerate() {
                        epi.write_scaled(rs.start + k, v, o);
                    }
                });
        }
        BitOutput::Bits {
            out,
            scales,
            threshold,
        } => {
            let epi = Epilogue::new(&scales, Some(&threshold), n);
            let stride = out.stride();
            out.words_mut()
                .par_chunks_mut(r * stride)
                .enumerate()
                .for_each_init(Vec::new, |buf, (t, block)| {
                    let rs = rows(t);
                    let buf = scratch(buf, rs.len() * n);
                    kernel(rs.clone(), buf);
                    for (k, (o, v)) in block.chunks_mut(stride).zip(buf.chunks(n)).enumerate() {
                        epi.write_bits(rs.start + k, v, o);
                    }
                });
        }
    }
    Ok(())
}

/// The first `len` values of a task's buffer, grown (once) as needed: the
/// kernel writes every one, so it is not cleared between blocks.
fn scratch<V: Value>(buf: &mut Vec<V>, len: usize) -> &mut [V] {
    if buf.len() < len {
        buf.resize(len, V::default());
    }
    &mut buf[..len]
}

fn no_counts(op: &'static str) -> Error {
    Error::invalid(
        op,
        "an f32 left operand gives f32 values: ask for BitOutput::Scaled or Bits, not Counts",
    )
}
