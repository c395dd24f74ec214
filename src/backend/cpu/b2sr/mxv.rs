//! Matrix-vector products on B2SR (Bit-GraphBLAS Table II), masks applied inside:
//!
//! - `bin_bin_bin`: packed-bit `u`, idempotent `⊕` (LOR, ANY, MIN, MAX): one
//!   AND per tile row per tile, OR-reduced into the output word ([`bits_pull`]);
//!   transposed, the same product pushes the set bits of `u` ([`bits_push`]).
//! - `bin_bin_full`: packed-bit `u`, `⊕ = PLUS`: popcount of each tile row AND
//!   the `k`-bit slice of `u` ([`count_pull`]).
//! - `bin_full_full`: valued `u`: walk the set bits of each tile row restricted
//!   to the present entries of `u` ([`value_pull`]).
//!
//! Every kernel skips tile rows the mask rules out and writes disjoint output
//! words per thread (ranges from [`super::plan`]).

use rayon::prelude::*;

use super::plan::{balanced_ranges, split_mut};
use super::tiles::TileOps;
use super::{add_class, repeat_add, slice, AddClass};
use crate::algebra::Semiring;
use crate::container::{Vector, VectorRepr};
use crate::scalar::Scalar;
use crate::storage::b2sr::{with_blocks, B2srBlocks};
use crate::storage::{B2sr, BitVec};

/// The `k` mask bits of tile row `tr` (all ones without a mask).
#[inline]
fn row_mask<L: TileOps>(allowed: Option<&[u64]>, tr: usize) -> u64 {
    match allowed {
        Some(w) => slice::<L>(w, tr),
        None => slice::<L>(&[u64::MAX], 0),
    }
}

/// The word range `[w0, w1)` and row range `[r0, r1)` a tile-row range owns.
#[inline]
fn extent<L: TileOps>(range: &std::ops::Range<usize>, nrows: usize) -> (usize, usize, usize) {
    let r0 = range.start * L::K;
    let r1 = (range.end * L::K).min(nrows);
    (r0, r1, r1.div_ceil(64) - r0 / 64)
}

/// Bit `i` of the result set iff row `i` of `A` meets `x` (and the mask allows `i`).
fn bits_pull<L: TileOps>(
    b: &B2srBlocks<L>,
    nrows: usize,
    x: &[u64],
    allowed: Option<&[u64]>,
) -> BitVec {
    let ranges = balanced_ranges(&b.tile_row_ptr, (64 / L::K).max(1));
    let lens: Vec<usize> = ranges.iter().map(|r| extent::<L>(r, nrows).2).collect();
    let mut out = BitVec::zeros(nrows);
    let pieces = split_mut(out.words_mut(), &lens);
    ranges
        .into_par_iter()
        .zip(pieces)
        .for_each(|(range, words)| {
            let w0 = range.start * L::K / 64;
            for tr in range {
                let m = row_mask::<L>(allowed, tr);
                if m == 0 {
                    continue;
                }
                let mut acc = 0u64;
                let range = b.tile_range(tr);
                for (&tc, tile) in b.tile_col_idx[range.clone()].iter().zip(&b.tiles[range]) {
                    acc |= tile.any_rows(slice::<L>(x, tc as usize));
                }
                let bit = tr * L::K;
                words[bit / 64 - w0] |= (acc & m) << (bit % 64);
            }
        });
    out
}

/// The transposed boolean product `A' u` for packed-bit `u`: every set bit
/// `i` of `u` ORs row `i` of `A` into the result (tile by tile, atomically).
fn bits_push<L: TileOps>(
    b: &B2srBlocks<L>,
    ncols: usize,
    x: &[u64],
    allowed: Option<&[u64]>,
) -> BitVec {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let out: Vec<AtomicU64> = (0..ncols.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let ranges = balanced_ranges(&b.tile_row_ptr, 1);
    ranges.into_par_iter().for_each(|range| {
        for tr in range {
            let xs = slice::<L>(x, tr);
            if xs == 0 {
                continue;
            }
            for t in b.tile_range(tr) {
                let bit = b.tile_col_idx[t] as usize * L::K;
                let (w, sh) = (bit / 64, bit % 64);
                let mut bits = b.tiles[t].or_rows(xs) << sh;
                if let Some(m) = allowed {
                    bits &= m[w];
                }
                if bits != 0 && out[w].load(Relaxed) & bits != bits {
                    out[w].fetch_or(bits, Relaxed);
                }
            }
        }
    });
    let words = out.into_iter().map(AtomicU64::into_inner).collect();
    BitVec::from_words(ncols, words).expect("one word per 64 columns")
}

/// Per-row `popcount(A_i AND x)`, finished into a value by `finish` where nonzero.
fn count_pull<L: TileOps, T: Scalar>(
    b: &B2srBlocks<L>,
    nrows: usize,
    x: &[u64],
    allowed: Option<&[u64]>,
    finish: impl Fn(u32) -> T + Sync,
) -> (Vec<T>, BitVec) {
    let ranges = balanced_ranges(&b.tile_row_ptr, (64 / L::K).max(1));
    let ext: Vec<_> = ranges.iter().map(|r| extent::<L>(r, nrows)).collect();
    let mut present = BitVec::zeros(nrows);
    let mut values = vec![T::default(); nrows];
    let wl: Vec<usize> = ext.iter().map(|e| e.2).collect();
    let vl: Vec<usize> = ext.iter().map(|e| e.1 - e.0).collect();
    let wp = split_mut(present.words_mut(), &wl);
    let vp = split_mut(&mut values, &vl);
    ranges
        .into_par_iter()
        .zip(wp)
        .zip(vp)
        .for_each(|((range, words), vals)| {
            let (r0, w0) = (range.start * L::K, range.start * L::K / 64);
            let mut cnt = [0u32; 64];
            for tr in range {
                let m = row_mask::<L>(allowed, tr);
                if m == 0 {
                    continue;
                }
                cnt[..L::K].fill(0);
                for t in b.tile_range(tr) {
                    let xs = slice::<L>(x, b.tile_col_idx[t] as usize);
                    if xs != 0 {
                        b.tiles[t].count_rows(xs, &mut cnt);
                    }
                }
                let base = tr * L::K;
                let mut got = 0u64;
                for (r, &c) in cnt.iter().enumerate().take(L::K) {
                    if c != 0 && m >> r & 1 == 1 {
                        got |= 1 << r;
                        vals[base + r - r0] = finish(c);
                    }
                }
                words[base / 64 - w0] |= got << (base % 64);
            }
        });
    (values, present)
}

/// `t_i = ⊕_j a ⊗ u_j` over the set bits `j` of row `i` with `u_j` present.
/// Row-major inside a tile row: each row's accumulator stays in a register
/// across the tile row's tiles (the tiles and `u`-slices are in L1 by then).
fn value_pull<S: Semiring, L: TileOps>(
    s: S,
    b: &B2srBlocks<L>,
    nrows: usize,
    value: S::T,
    u: &[S::T],
    upresent: Option<&[u64]>,
    allowed: Option<&[u64]>,
) -> (Vec<S::T>, BitVec) {
    let ranges = balanced_ranges(&b.tile_row_ptr, (64 / L::K).max(1));
    let ext: Vec<_> = ranges.iter().map(|r| extent::<L>(r, nrows)).collect();
    let mut present = BitVec::zeros(nrows);
    let mut values = vec![S::T::default(); nrows];
    let wl: Vec<usize> = ext.iter().map(|e| e.2).collect();
    let vl: Vec<usize> = ext.iter().map(|e| e.1 - e.0).collect();
    let wp = split_mut(present.words_mut(), &wl);
    let vp = split_mut(&mut values, &vl);
    let full = slice::<L>(&[u64::MAX], 0);
    ranges
        .into_par_iter()
        .zip(wp)
        .zip(vp)
        .for_each(|((range, words), vals)| {
            let (r0, w0) = (range.start * L::K, range.start * L::K / 64);
            // (first column, present bits of u) per tile of the current tile row.
            let mut cols: Vec<(usize, u64)> = Vec::new();
            for tr in range {
                let m = row_mask::<L>(allowed, tr);
                if m == 0 {
                    continue;
                }
                let tr_range = b.tile_range(tr);
                let tiles = &b.tiles[tr_range.clone()];
                cols.clear();
                cols.extend(b.tile_col_idx[tr_range].iter().map(|&tc| {
                    let tc = tc as usize;
                    (tc * L::K, upresent.map_or(full, |p| slice::<L>(p, tc)))
                }));
                let base = tr * L::K;
                let mut have = 0u64;
                let mut rows = m;
                while rows != 0 {
                    let r = rows.trailing_zeros() as usize;
                    rows &= rows - 1;
                    let mut acc: Option<S::T> = None;
                    for (tile, &(c0, xs)) in tiles.iter().zip(&cols) {
                        let mut w = tile.row(r) & xs;
                        while w != 0 {
                            let y = s.mul(value, u[c0 + w.trailing_zeros() as usize]);
                            w &= w - 1;
                            acc = Some(match acc {
                                Some(a) => s.add(a, y),
                                None => y,
                            });
                        }
                    }
                    if let Some(a) = acc {
                        vals[base + r - r0] = a;
                        have |= 1 << r;
                    }
                }
                words[base / 64 - w0] |= have << (base % 64);
            }
        });
    (values, present)
}

/// A vector with `values` where `present` (all present: no bitmap).
fn dense_result<T: Scalar>(values: Vec<T>, present: BitVec) -> Vector<T> {
    let all = present.count_ones() == present.len();
    Vector::from_repr(
        values.len(),
        VectorRepr::Dense {
            values,
            present: (!all).then_some(present),
        },
    )
    .expect("lengths agree by construction")
}

/// Every present entry equal to `x`: packed bits when `x` is one.
fn iso_result<T: Scalar>(present: BitVec, x: T) -> Vector<T> {
    if x == T::one() {
        return Vector::from_bits(present);
    }
    let values = (0..present.len())
        .map(|i| if present.get(i) { x } else { T::default() })
        .collect();
    dense_result(values, present)
}

/// `t = A ⊕.⊗ u` (or `A' ⊕.⊗ u` with `transposed`, only for packed-bit `u` and
/// an idempotent `⊕`) for a built-in semiring; `None` where no kernel applies.
pub(crate) fn mxv<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
    transposed: bool,
) -> Option<Vector<S::T>> {
    let class = add_class::<S>()?;
    let mask = allowed.map(BitVec::words);
    let nrows = if transposed { a.ncols() } else { a.nrows() };
    match (u.repr(), class) {
        (VectorRepr::Bits(bits), AddClass::Idempotent) => {
            let x = bits.words();
            let present = if transposed {
                with_blocks!(a.tiles(), b => bits_push(b, nrows, x, mask))
            } else {
                with_blocks!(a.tiles(), b => bits_pull(b, nrows, x, mask))
            };
            Some(iso_result(present, s.mul(value, S::T::one())))
        }
        _ if transposed => None,
        (VectorRepr::Bits(bits), AddClass::Plus) => {
            let x = s.mul(value, S::T::one());
            let finish = |c: u32| repeat_add(&s, x, c as usize);
            let (v, p) =
                with_blocks!(a.tiles(), b => count_pull(b, nrows, bits.words(), mask, finish));
            Some(dense_result(v, p))
        }
        (VectorRepr::Dense { values, present }, _) => {
            let up = present.as_ref().map(BitVec::words);
            let (v, p) =
                with_blocks!(a.tiles(), b => value_pull(s, b, nrows, value, values, up, mask));
            Some(dense_result(v, p))
        }
        (VectorRepr::Sparse { .. }, _) => {
            let d = u
                .to_format(crate::container::VectorFormat::Dense)
                .expect("dense always converts");
            mxv(s, a, value, &d, allowed, false)
        }
    }
}
