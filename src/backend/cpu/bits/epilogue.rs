//! The one epilogue of every bit product (`bmm`, `bspmm` and the bit-plane
//! products): a kernel computes the values of a block of output rows, and
//! this writes them as the [`BitOutput`] asks: `i32` counts straight into
//! the output, `f32` after the [`Scales`], or bits `s >= t` packed into the
//! output's words (no `f32` row is written to the output).

use std::ops::Range;

use rayon::prelude::*;

use crate::backend::Cpu;
use crate::container::{BitOutput, Scales, Threshold};
use crate::error::{Error, Result};

/// A product's value before the scales: an integer count or an `f32` sum.
pub(super) trait Value: Copy + Default + Send + Sync + 'static {
    /// The value as `f32` (`i32` rounds to nearest above 2^24, as on the GPU).
    fn to_f32(self) -> f32;
    /// The output of [`BitOutput::Counts`] as a slice of values, where this
    /// value type can be written as counts.
    fn as_counts(out: &mut [i32]) -> Option<&mut [Self]>;
}

impl Value for i32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn as_counts(out: &mut [i32]) -> Option<&mut [i32]> {
        Some(out)
    }
}

impl Value for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    fn as_counts(_: &mut [i32]) -> Option<&mut [f32]> {
        None
    }
}

/// The scales and threshold of an output, resolved to host slices.
struct Epilogue<'a> {
    row: Option<&'a [f32]>,
    col: Option<&'a [f32]>,
    bias: Option<&'a [f32]>,
    /// Column `j`'s threshold: `per_col[j]`, or `t` for every column.
    t: f32,
    per_col: Option<&'a [f32]>,
}

impl<'a> Epilogue<'a> {
    fn new(s: &Scales<'a, Cpu>, threshold: Option<&Threshold<'a, Cpu>>) -> Self {
        let (t, per_col) = threshold.map_or((0.0, None), threshold_of);
        Epilogue {
            row: s.row.map(|d| d.as_slice()),
            col: s.col.map(|d| d.as_slice()),
            bias: s.bias.map(|d| d.as_slice()),
            t,
            per_col,
        }
    }

    /// `s = v * row_i * col_j + bias_j`, in that order, in `f32`.
    #[inline(always)]
    fn scaled(&self, i: usize, j: usize, v: f32) -> f32 {
        let mut s = v;
        if let Some(r) = self.row {
            s *= r[i];
        }
        if let Some(c) = self.col {
            s *= c[j];
        }
        if let Some(b) = self.bias {
            s += b[j];
        }
        s
    }

    /// Row `i` as `f32`.
    fn write_scaled<V: Value>(&self, i: usize, vals: &[V], out: &mut [f32]) {
        for (j, (o, v)) in out.iter_mut().zip(vals).enumerate() {
            *o = self.scaled(i, j, v.to_f32());
        }
    }

    /// Row `i` as bits `s >= t` (NaN gives 0), padding bits 0.
    fn write_bits<V: Value>(&self, i: usize, vals: &[V], out: &mut [u64]) {
        for (w, (o, chunk)) in out.iter_mut().zip(vals.chunks(64)).enumerate() {
            let mut word = 0u64;
            for (b, v) in chunk.iter().enumerate() {
                let j = w * 64 + b;
                let t = self.per_col.map_or(self.t, |p| p[j]);
                word |= ((self.scaled(i, j, v.to_f32()) >= t) as u64) << b;
            }
            *o = word;
        }
    }
}

/// Runs `kernel(rows, values)` over blocks of `rows_per_task` output rows in
/// parallel (`values[(i - rows.start) * n + j]` is the value at `(i, j)` for
/// `i` in `rows`), and writes the values into `out` as it asks: counts go
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
            let epi = Epilogue::new(&scales, None);
            out.as_mut_slice()
                .par_chunks_mut(r * n)
                .enumerate()
                .for_each_init(Vec::new, |buf, (t, block)| {
                    let rs = rows(t);
                    buf.clear();
                    buf.resize(rs.len() * n, V::default());
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
            let epi = Epilogue::new(&scales, Some(&threshold));
            let stride = out.stride();
            out.words_mut()
                .par_chunks_mut(r * stride)
                .enumerate()
                .for_each_init(Vec::new, |buf, (t, block)| {
                    let rs = rows(t);
                    buf.clear();
                    buf.resize(rs.len() * n, V::default());
                    kernel(rs.clone(), buf);
                    for (k, (o, v)) in block.chunks_mut(stride).zip(buf.chunks(n)).enumerate() {
                        epi.write_bits(rs.start + k, v, o);
                    }
                });
        }
    }
    Ok(())
}

fn no_counts(op: &'static str) -> Error {
    Error::invalid(
        op,
        "an f32 left operand gives f32 values: ask for BitOutput::Scaled or Bits, not Counts",
    )
}

/// `(t, per-column thresholds)`: column `j`'s threshold is `per_col[j]`
/// where given, else `t`.
pub(super) fn threshold_of<'a>(t: &Threshold<'a, Cpu>) -> (f32, Option<&'a [f32]>) {
    match t {
        Threshold::Sign => (0.0, None),
        Threshold::Value(t) => (*t, None),
        Threshold::PerColumn(d) => (0.0, Some(d.as_slice())),
    }
}
