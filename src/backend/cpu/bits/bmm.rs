//! BMM: dense bits (or `f32`) times column-major bits, over a
//! [`BitSemiring`], into any [`BitOutput`].

use super::epilogue::produce;
use super::popcount::{and_counts, line_popcounts};
use super::Linear;
use crate::algebra::{BitDomain, BitSemiring};
use crate::backend::Cpu;
use crate::container::{BitInput, BitOutput};
use crate::error::{Error, Result};
use crate::storage::{BitMatrix, DenseMatrix};

/// Output rows per parallel task.
const ROWS: usize = 32;

/// `a ⊕.⊗ w` into `out`.
pub(crate) fn bmm(
    out: BitOutput<'_, Cpu>,
    semiring: BitSemiring,
    a: BitInput<'_, Cpu>,
    w: &BitMatrix,
) -> Result<()> {
    match a {
        BitInput::Bits(a) => bmm_bits(out, semiring, a, w),
        BitInput::F32(x) => bmm_f32(out, semiring, x, w),
    }
}

fn bmm_bits(
    out: BitOutput<'_, Cpu>,
    semiring: BitSemiring,
    a: &BitMatrix,
    w: &BitMatrix,
) -> Result<()> {
    let lin = Linear::of(semiring, a.ncols());
    let pa = if lin.beta != 0 {
        line_popcounts(a)
    } else {
        Vec::new()
    };
    let pw = if lin.gamma != 0 {
        line_popcounts(w)
    } else {
        Vec::new()
    };
    let n = w.ncols();
    produce::<i32>(out, "bmm", ROWS, |rows, vals| {
        and_counts(a, rows.clone(), w, vals);
        for (i, row) in rows.zip(vals.chunks_mut(n)) {
            lin.apply_row(row, pa.get(i).copied().unwrap_or(0), &pw);
        }
    })
}

/// `Σ_k x_ik dr(w_kj)`: the sum of `x_ik` over the set bits of column `j`
/// (`Binary`), or twice that less the row's sum (`Signed`).
fn bmm_f32(
    out: BitOutput<'_, Cpu>,
    semiring: BitSemiring,
    x: &DenseMatrix<f32>,
    w: &BitMatrix,
) -> Result<()> {
    if semiring == BitSemiring::LorLand {
        return Err(Error::invalid(
            "bmm",
            "lor_land is not defined on an f32 left operand",
        ));
    }
    let signed = semiring.right() == BitDomain::Signed;
    let n = w.ncols();
    produce::<f32>(out, "bmm", ROWS, |rows, vals| {
        for (i, row) in rows.zip(vals.chunks_mut(n)) {
            let xi = x.row(i);
            let total: f32 = if signed { xi.iter().sum() } else { 0.0 };
            for (j, o) in row.iter_mut().enumerate() {
                let mut s = 0f32;
                for (wi, &word) in w.line(j).iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        s += xi[wi * 64 + bits.trailing_zeros() as usize];
                        bits &= bits - 1;
                    }
                }
                *o = if signed { 2.0 * s - total } else { s };
            }
        }
    })
}
