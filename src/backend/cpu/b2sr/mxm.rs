//! Matrix-matrix products on B2SR (Bit-GraphBLAS Table III and the GNN
//! aggregation): the masked count `bmm_bin_bin_sum`, the boolean product with
//! a B2SR result, and B2SR times a dense row-major matrix.

use std::borrow::Cow;

use rayon::prelude::*;

use super::plan::{balanced_ranges, split_mut};
use super::tiles::TileOps;
use super::{add_class, count_specialised, generic, repeat_add, AddClass};
use crate::algebra::{Semiring, SemiringKind};
use crate::backend::cpu::{Cpu, MatrixMask};
use crate::container::{Flags, Matrix, MatrixRepr};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::b2sr::{B2srBlocks, B2srTiles};
use crate::storage::{B2sr, BitVec, DenseMatrix};

/// Sum over tile rows of `m` of `Σ_{(i,j) ∈ M} popcount(A_i AND Bt_j)`, where
/// `a`, `bt` and `m` share the tile size: for each mask tile `(I, J)` the tiles
/// of tile rows `I` of `A` and `J` of `Bt` are merged on their tile column.
fn masked_count<L: TileOps>(m: &B2srBlocks<L>, a: &B2srBlocks<L>, bt: &B2srBlocks<L>) -> u64 {
    let (m_cols, a_cols, bt_cols) = (m.tile_col_idx(), a.tile_col_idx(), bt.tile_col_idx());
    balanced_ranges(&m.tile_row_ptr, 1)
        .into_par_iter()
        .map(|range| {
            let mut total = 0u64;
            for ti in range {
                let (ac, at) = (a.tile_range(ti), &a.tiles);
                if ac.is_empty() {
                    continue;
                }
                for mt in m.tile_range(ti) {
                    let tj = m_cols[mt] as usize;
                    let mask = &m.tiles[mt];
                    // The mask tile's non-empty rows: only these need a dot product.
                    let mrows = mask.any_rows(u64::MAX >> (64 - L::K));
                    let bc = bt.tile_range(tj);
                    let (mut p, mut q) = (ac.start, bc.start);
                    while p < ac.end && q < bc.end {
                        let (x, y) = (a_cols[p], bt_cols[q]);
                        if x < y {
                            p += 1;
                        } else if x > y {
                            q += 1;
                        } else {
                            let (ta, tb) = (&at[p], &bt.tiles[q]);
                            let mut rows = mrows;
                            while rows != 0 {
                                let r = rows.trailing_zeros() as usize;
                                rows &= rows - 1;
                                let ar = ta.row(r);
                                if ar != 0 {
                                    total += tb.dot_rows(ar, mask.row(r)) as u64;
                                }
                            }
                            p += 1;
                            q += 1;
                        }
                    }
                }
            }
            total
        })
        .sum()
}

/// The B2SR pattern of a mask, at tile size `like` (packed from its CSR
/// pattern when it is not already B2SR of that size).
fn mask_b2sr<'a>(mask: &MatrixMask<'a, Cpu>, like: &B2sr) -> Result<Cow<'a, B2sr>> {
    if let Some(p) = mask.source.mask_b2sr(mask.structural) {
        if p.tile_size() == like.tile_size() {
            return Ok(Cow::Borrowed(p));
        }
    }
    let csr = mask.source.mask_pattern(mask.structural);
    Ok(Cow::Owned(B2sr::from_csr(&csr, like.tile_size())?))
}

/// `op(A)` as B2SR: borrowed, or transposed into a temporary.
fn oriented(a: &B2sr, transpose: bool) -> Cow<'_, B2sr> {
    if transpose {
        Cow::Owned(a.transpose())
    } else {
        Cow::Borrowed(a)
    }
}

/// A B2SR pattern and its iso value.
type IsoPattern<'m, T> = (&'m B2sr, &'m T);

/// Both operands' B2SR patterns and iso values, when both are B2SR of one tile
/// size (the condition every B2SR `mxm` kernel needs); `None` otherwise.
fn b2sr_pair<'m, T: Scalar>(
    a: &'m Matrix<T>,
    b: &'m Matrix<T>,
) -> Option<(IsoPattern<'m, T>, IsoPattern<'m, T>)> {
    match (a.repr(), b.repr()) {
        (
            MatrixRepr::B2sr {
                pattern: pa,
                value: va,
            },
            MatrixRepr::B2sr {
                pattern: pb,
                value: vb,
            },
        ) if pa.tile_size() == pb.tile_size() => Some(((pa, va), (pb, vb))),
        _ => None,
    }
}

/// `⊕` over `(A ⊕.⊗ B)<M>` for `PLUS.PAIR` / `PLUS.TIMES`, B2SR operands of one
/// tile size and a non-complemented mask: integer counts, converted to the
/// result type exactly (floats only while the count is exact; else `None`).
pub(crate) fn mxm_reduce<S: Semiring>(
    s: S,
    mask: MatrixMask<'_, Cpu>,
    a: &Matrix<S::T>,
    b: &Matrix<S::T>,
    flags: Flags,
) -> Option<Result<S::T>> {
    if add_class::<S>()? != AddClass::Plus || mask.complemented {
        return None;
    }
    let ((pa, va), (pb, vb)) = b2sr_pair(a, b)?;
    let x = match S::KERNEL?.kind() {
        SemiringKind::PlusPair => S::T::one(),
        _ => s.mul(*va, *vb),
    };
    if S::T::IS_FLOAT && x != S::T::one() {
        return None;
    }
    let m = match mask_b2sr(&mask, pa) {
        Ok(m) => m,
        Err(e) => return Some(Err(e)),
    };
    let a_op = oriented(pa, flags.transpose_a);
    // Rows of Bt are the columns of op(B).
    let bt = oriented(pb, !flags.transpose_b);
    let n = match (m.tiles(), a_op.tiles(), bt.tiles()) {
        (B2srTiles::T4(m), B2srTiles::T4(a), B2srTiles::T4(b)) => masked_count(m, a, b),
        (B2srTiles::T8(m), B2srTiles::T8(a), B2srTiles::T8(b)) => masked_count(m, a, b),
        (B2srTiles::T16(m), B2srTiles::T16(a), B2srTiles::T16(b)) => masked_count(m, a, b),
        (B2srTiles::T32(m), B2srTiles::T32(a), B2srTiles::T32(b)) => masked_count(m, a, b),
        (B2srTiles::T64(m), B2srTiles::T64(a), B2srTiles::T64(b)) => masked_count(m, a, b),
        _ => unreachable!("tile sizes checked above"),
    };
    if n == 0 {
        count_specialised();
        return Some(Ok(s.zero()));
    }
    if S::T::IS_FLOAT && n > 1 << 24 {
        return None;
    }
    count_specialised();
    Some(Ok(repeat_add(&s, x, n as usize)))
}

/// Tile-level Gustavson for the boolean product: per tile row of `A`, OR the
/// tile products into a per-thread row of accumulator tiles.
fn bool_product<L: TileOps>(
    a: &B2srBlocks<L>,
    b: &B2srBlocks<L>,
    tile_cols: usize,
) -> B2srBlocks<L> {
    let ranges = balanced_ranges(&a.tile_row_ptr, 1);
    let (a_cols, b_cols) = (a.tile_col_idx(), b.tile_col_idx());
    let parts: Vec<(Vec<u32>, Vec<u32>, Vec<L>)> = ranges
        .into_par_iter()
        .map(|range| {
            let mut acc = vec![L::default(); tile_cols];
            let mut touched: Vec<u32> = Vec::new();
            let (mut lens, mut cols, mut tiles) = (Vec::new(), Vec::new(), Vec::new());
            for ti in range {
                for p in a.tile_range(ti) {
                    let ta = &a.tiles[p];
                    let tk = a_cols[p] as usize;
                    for q in b.tile_range(tk) {
                        let tj = b_cols[q];
                        let prod = ta.bool_mul(&b.tiles[q]);
                        if prod.is_zero() {
                            continue;
                        }
                        let slot = &mut acc[tj as usize];
                        if slot.is_zero() {
                            touched.push(tj);
                        }
                        for r in 0..L::K {
                            slot.or_row(r, prod.row(r));
                        }
                    }
                }
                touched.sort_unstable();
                lens.push(touched.len() as u32);
                for &tj in &touched {
                    cols.push(tj);
                    tiles.push(std::mem::take(&mut acc[tj as usize]));
                }
                touched.clear();
            }
            (lens, cols, tiles)
        })
        .collect();
    let mut tile_row_ptr = vec![0u32];
    let (mut tile_col_idx, mut tiles) = (Vec::new(), Vec::new());
    for (lens, cols, ts) in parts {
        for l in lens {
            tile_row_ptr.push(tile_row_ptr.last().expect("non-empty") + l);
        }
        tile_col_idx.extend_from_slice(&cols);
        tiles.extend_from_slice(&ts);
    }
    B2srBlocks::from_raw(tile_row_ptr, tile_col_idx, tiles)
}

/// `op(A) ⊕.⊗ op(B)` with a B2SR result for an idempotent `⊕` (every entry of
/// the product is `a ⊗ b`); `None` unless both operands are B2SR of one size.
pub(crate) fn mxm_pattern<S: Semiring>(
    s: S,
    a: &Matrix<S::T>,
    b: &Matrix<S::T>,
    flags: Flags,
) -> Option<Result<Matrix<S::T>>> {
    if add_class::<S>()? != AddClass::Idempotent {
        return None;
    }
    let ((pa, va), (pb, vb)) = b2sr_pair(a, b)?;
    let (a_op, b_op) = (
        oriented(pa, flags.transpose_a),
        oriented(pb, flags.transpose_b),
    );
    let tc = b_op.tile_cols();
    let tiles = match (a_op.tiles(), b_op.tiles()) {
        (B2srTiles::T4(a), B2srTiles::T4(b)) => B2srTiles::T4(bool_product(a, b, tc)),
        (B2srTiles::T8(a), B2srTiles::T8(b)) => B2srTiles::T8(bool_product(a, b, tc)),
        (B2srTiles::T16(a), B2srTiles::T16(b)) => B2srTiles::T16(bool_product(a, b, tc)),
        (B2srTiles::T32(a), B2srTiles::T32(b)) => B2srTiles::T32(bool_product(a, b, tc)),
        (B2srTiles::T64(a), B2srTiles::T64(b)) => B2srTiles::T64(bool_product(a, b, tc)),
        _ => unreachable!("tile sizes checked above"),
    };
    count_specialised();
    let product = B2sr {
        nrows: a_op.nrows(),
        ncols: b_op.ncols(),
        tiles,
    };
    debug_assert!(product.validate().is_ok());
    Some(Ok(Matrix::from_b2sr(product, s.mul(*va, *vb))))
}

/// The rows of `b` that hold something other than `zero`, as bits, when
/// skipping the others cannot change a product: `value ⊗ zero = zero` and
/// `zero` is the identity of `⊕` ([`generic::live_rows`]). `None` when that
/// does not hold or nothing would be skipped.
fn live_rows<S: Semiring>(s: &S, value: S::T, b: &DenseMatrix<S::T>) -> Option<BitVec> {
    if s.mul(value, s.zero()) != s.zero() {
        return None;
    }
    generic::live_rows(s, b)
}

/// `A ⊕.⊗ B` into `out` (`nrows x n`, every entry written), `B` dense
/// row-major with `n` columns: each set bit `(r, c)` of a tile adds row `c` of
/// the tile's `K` dense rows into output row `r`, so the `K` rows of `B` under
/// a tile are reused by all its rows while in cache. Rows of `B` that are all
/// `zero` are skipped where that cannot change the result ([`live_rows`]): a
/// frontier-shaped `B` (betweenness centrality) costs the tiles over its live
/// rows only.
fn dense_product<S: Semiring, L: TileOps>(
    s: S,
    a: &B2srBlocks<L>,
    value: S::T,
    b: &DenseMatrix<S::T>,
    out: &mut DenseMatrix<S::T>,
) {
    let (nrows, n) = (out.nrows(), b.ncols());
    if n == 0 {
        return;
    }
    let live = live_rows(&s, value, b);
    let live = live.as_ref().map(BitVec::words);
    let bdata = b.as_slice();
    let ranges = balanced_ranges(&a.tile_row_ptr, 1);
    let lens: Vec<usize> = ranges
        .iter()
        .map(|r| ((r.end * L::K).min(nrows) - r.start * L::K) * n)
        .collect();
    let pieces = split_mut(out.as_mut_slice(), &lens);
    ranges
        .into_par_iter()
        .zip(pieces)
        .for_each(|(range, rows)| {
            let r0 = range.start * L::K;
            // The first term of a row initialises it (never `zero ⊕ x`: ANY has no identity).
            let mut seen = vec![false; rows.len() / n];
            for tr in range {
                for (t, tc) in a.tile_range(tr).zip(a.row_columns(tr).iter()) {
                    let tile = &a.tiles[t];
                    let tc = tc as usize;
                    let k0 = tc * L::K;
                    let cols = live.map_or(u64::MAX, |w| super::slice::<L>(w, tc));
                    if cols == 0 {
                        continue;
                    }
                    for r in 0..L::K {
                        let mut w = tile.row(r) & cols;
                        if w == 0 {
                            continue;
                        }
                        let i = tr * L::K + r - r0;
                        let orow = &mut rows[i * n..(i + 1) * n];
                        while w != 0 {
                            let k = k0 + w.trailing_zeros() as usize;
                            w &= w - 1;
                            let brow = &bdata[k * n..(k + 1) * n];
                            if !seen[i] {
                                seen[i] = true;
                                for (o, &x) in orow.iter_mut().zip(brow) {
                                    *o = s.mul(value, x);
                                }
                                continue;
                            }
                            for (o, &x) in orow.iter_mut().zip(brow) {
                                *o = s.add(*o, s.mul(value, x));
                            }
                        }
                    }
                }
            }
            // Rows without a term: the identity.
            for (row, _) in rows.chunks_mut(n).zip(&seen).filter(|(_, &x)| !x) {
                row.fill(s.zero());
            }
        });
}

/// `A ⊕.⊗ B` into `out` with `B` dense row-major (`out` reshaped when its
/// shape differs, every entry written), for a built-in semiring; the generic
/// path (through CSR) otherwise.
pub(crate) fn mxm_dense_into<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    b: &DenseMatrix<S::T>,
    out: &mut DenseMatrix<S::T>,
) {
    if S::KERNEL.is_none() {
        super::count_generic();
        let csr = a.to_csr(value).expect("valid B2SR");
        return generic::mxm_dense_csr_into(s, &csr, b, out);
    }
    count_specialised();
    if (out.nrows(), out.ncols()) != (a.nrows(), b.ncols()) {
        *out = DenseMatrix::filled(a.nrows(), b.ncols(), s.zero());
    }
    crate::storage::b2sr::with_blocks!(a.tiles(), blk => dense_product(s, blk, value, b, out))
}

/// `A ⊕.⊗ B` with `B` dense row-major ([`mxm_dense_into`] into a new matrix).
#[cfg(test)]
pub(crate) fn mxm_dense<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    b: &DenseMatrix<S::T>,
) -> DenseMatrix<S::T> {
    let mut out = DenseMatrix::filled(a.nrows(), b.ncols(), s.zero());
    mxm_dense_into(s, a, value, b, &mut out);
    out
}
