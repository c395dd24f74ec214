//! BMM: dense bits (or `f32`) times column-major bits, over a
//! [`BitSemiring`], into any [`BitOutput`].

use super::convert::row_major;
use super::epilogue::produce;
use super::popcount::{add_scaled_bits, and_counts, line_popcounts, DotRhs, Isa};
use super::Linear;
use crate::algebra::{BitDomain, BitSemiring};
use crate::backend::Cpu;
use crate::container::{BitInput, BitOutput};
use crate::error::{Error, Result};
use crate::storage::{BitMatrix, DenseMatrix};

/// Output rows per parallel task: the left rows a task reads stay in L2
/// while the column blocks of `w` pass.
const ROWS: usize = 64;

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
    let rhs = DotRhs::new(w, Isa::detect());
    produce::<i32>(out, "bmm", ROWS, |rows, vals| {
        and_counts(a, rows.clone(), &rhs, vals);
        for (i, row) in rows.zip(vals.chunks_mut(n)) {
            lin.apply_row(row, pa.get(i).copied().unwrap_or(0), &pw);
        }
    })
}

/// `Σ_k x_ik dr(w_kj)`, row by row: for each `k`, `x_ik` (or `-x_ik` where
/// the bit is 0 and the domain `Signed`) added into the columns of row `k`
/// of `w` (made row-major once), summed in the order of `k`.
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
    let wr = row_major(w)?;
    let (n, isa) = (w.ncols(), Isa::detect());
    produce::<f32>(out, "bmm", ROWS, |rows, vals| {
        for (i, row) in rows.zip(vals.chunks_mut(n)) {
            row.fill(0.0);
            for (k, &xk) in x.row(i).iter().enumerate() {
                if xk != 0.0 {
                    add_scaled_bits(isa, row, wr.line(k), xk, signed);
                }
            }
        }
    })
}
