//! BSpMM: a sparse pattern (B2SR at every tile size, or CSR) times
//! row-major bits, over a [`BitSemiring`], into any [`BitOutput`]: each
//! output row adds up the bit rows of its neighbours in per-column counters.

use super::epilogue::produce;
use super::popcount::{add_bits, Isa};
use super::Linear;
use crate::algebra::{BitDomain, BitSemiring};
use crate::backend::Cpu;
use crate::container::{BitOutput, Matrix, MatrixRepr};
use crate::error::{Error, Result};
use crate::storage::b2sr::{with_blocks, B2srBlocks, TileBits};
use crate::storage::BitMatrix;

/// Output rows per parallel task (a multiple of every tile size).
pub(super) const ROWS: usize = 64;

/// Calls `f(i, k)` for every stored entry `(i, k)` of `a` with `i` in
/// `rows` (row by row on CSR, tile by tile on B2SR; `rows` starts and ends
/// on tile-row boundaries, or at `a.nrows()`).
pub(super) fn for_entries(
    a: &Matrix<bool>,
    rows: std::ops::Range<usize>,
    mut f: impl FnMut(usize, usize),
) {
    match a.repr() {
        MatrixRepr::Csr(c) => {
            for i in rows {
                for &k in c.row(i).0 {
                    f(i, k as usize);
                }
            }
        }
        MatrixRepr::B2sr { pattern, .. } => {
            with_blocks!(pattern.tiles(), blk => tile_entries(blk, rows, &mut f))
        }
    }
}

fn tile_entries<L: TileBits>(
    blk: &B2srBlocks<L>,
    rows: std::ops::Range<usize>,
    f: &mut impl FnMut(usize, usize),
) {
    let k = L::K;
    for tr in rows.start / k..rows.end.div_ceil(k) {
        for (t, tc) in blk.tile_range(tr).zip(blk.row_columns(tr).iter()) {
            let (tile, tc) = (&blk.tiles()[t], tc as usize);
            for r in 0..k {
                let mut bits = tile.row(r);
                while bits != 0 {
                    f(tr * k + r, tc * k + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                }
            }
        }
    }
}

/// The error for a `Signed` left domain on a sparse pattern.
pub(super) fn check_left(semiring: BitSemiring) -> Result<()> {
    if semiring.left() == BitDomain::Signed {
        return Err(Error::invalid(
            "bspmm",
            "the left operand is a sparse pattern: its domain must be Binary \
             (absent entries are 0), not Signed",
        ));
    }
    Ok(())
}

/// `A ⊕.⊗ x` into `out`.
pub(crate) fn bspmm(
    out: BitOutput<'_, Cpu>,
    semiring: BitSemiring,
    a: &Matrix<bool>,
    x: &BitMatrix,
) -> Result<()> {
    check_left(semiring)?;
    // A Binary left domain: the value never reads the columns' popcounts.
    let lin = Linear::of(semiring, a.ncols());
    debug_assert_eq!(lin.gamma, 0);
    let (n, isa) = (x.ncols(), Isa::detect());
    produce::<i32>(out, "bspmm", ROWS, |rows, vals| {
        vals.fill(0);
        let mut deg = vec![0i32; rows.len()];
        let r0 = rows.start;
        for_entries(a, rows.clone(), |i, k| {
            add_bits(isa, &mut vals[(i - r0) * n..(i - r0 + 1) * n], x.line(k), 1);
            deg[i - r0] += 1;
        });
        for (row, d) in vals.chunks_mut(n).zip(deg) {
            lin.apply_row(row, d, &[]);
        }
    })
}
