//! The generic CPU path: every operation for any semiring or operator, on CSR
//! (a B2SR input is unpacked, or walked bit by bit for `mxv`). This is the
//! fallback tier for user-defined semirings and valued matrices, and the
//! reference the specialised B2SR kernels must agree with.

use rayon::prelude::*;

use super::dense_view::{
    self, dense_from_fn, dense_view, for_chunks_mut, vector_from_options, DenseView,
};
use super::short_rows::{same_type_mut, ShortRows};
use super::writeback::RowMask;
use crate::algebra::{BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::backend::EwiseKind;
use crate::container::{Accumulate, Vector, VectorRepr};
use crate::scalar::Scalar;
use crate::storage::b2sr::{with_blocks, B2srBlocks, TileBits};
use crate::storage::{B2sr, BitVec, Csr, DenseMatrix};

#[inline]
fn fold<S: Semiring>(s: &S, acc: Option<S::T>, x: S::T) -> Option<S::T> {
    Some(match acc {
        Some(a) => s.add(a, x),
        None => x,
    })
}

/// `⊕_j a_ij ⊗ u_j` over row `i` of `a` (`None` when no term is present).
/// The first term starts the sum (never `zero ⊕ x`: ANY has no identity); a
/// full `u` skips the presence tests.
#[inline]
fn row_dot<S: Semiring>(s: &S, a: &Csr<S::T>, uv: &DenseView<'_, S::T>, i: usize) -> Option<S::T> {
    let (cols, vals) = a.row(i);
    let term = s.terminal();
    if uv.present.is_none() {
        let u = &uv.values[..];
        let (&j0, &a0) = (cols.first()?, vals.first()?);
        let mut acc = s.mul(a0, u[j0 as usize]);
        for (&j, &aij) in cols[1..].iter().zip(&vals[1..]) {
            if term.is_some() && Some(acc) == term {
                break;
            }
            acc = s.add(acc, s.mul(aij, u[j as usize]));
        }
        return Some(acc);
    }
    let mut acc = None;
    for (&j, &aij) in cols.iter().zip(vals) {
        if let Some(uj) = uv.get(j as usize) {
            acc = fold(s, acc, s.mul(aij, uj));
            if term.is_some() && acc == term {
                break;
            }
        }
    }
    acc
}

/// `t = A ⊕.⊗ u` on CSR (row-parallel pull), only rows in `allowed`.
pub(crate) fn mxv_csr<S: Semiring>(
    s: S,
    a: &Csr<S::T>,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Vector<S::T> {
    let uv = dense_view(u);
    dense_from_fn(a.nrows(), |i| {
        if allowed.is_some_and(|m| !m.get(i)) {
            return None;
        }
        row_dot(&s, a, &uv, i)
    })
}

/// Rows per parallel task of the full-vector CSR product (rayon steals whole
/// chunks, so hub rows still balance).
pub(crate) const FULL_ROWS: usize = 512;

/// Rows at least this long are summed in four interleaved lanes.
pub(crate) const LANE_ROW: usize = 16;

/// `⊕_j a_ij ⊗ u_j` over the non-empty `cols` of one row against a full
/// `u`, without presence tests; `val(p)` is the value of the row's `p`-th
/// entry (a constant for an iso-valued matrix: the value array is not read).
/// [`row_dot_by`] with `x(j) = u_j`.
#[inline]
pub(crate) fn row_dot_full<S: Semiring>(
    s: &S,
    cols: &[u32],
    val: impl Fn(usize) -> S::T,
    u: &[S::T],
) -> S::T {
    row_dot_by(s, cols, val, |j| u[j])
}

/// `⊕_j a_ij ⊗ x(j)` over the non-empty `cols` of one row, `x(j)` the
/// vector's entry at column `j` (read, or computed: the affine product's
/// `d_j ⊗ u_j`). With a terminal value the row stops there; without one,
/// long rows are summed in four lanes (no chain of dependent additions; `⊕`
/// is associative and commutative, floats differ from a left-to-right sum
/// by rounding only).
#[inline]
pub(crate) fn row_dot_by<S: Semiring>(
    s: &S,
    cols: &[u32],
    val: impl Fn(usize) -> S::T,
    x: impl Fn(usize) -> S::T,
) -> S::T {
    let term = |p: usize| s.mul(val(p), x(cols[p] as usize));
    if let Some(stop) = s.terminal() {
        // Left to right, stopping at the absorbing value.
        let mut acc = term(0);
        for p in 1..cols.len() {
            if acc == stop {
                break;
            }
            acc = s.add(acc, term(p));
        }
        return acc;
    }
    if cols.len() < LANE_ROW {
        let mut acc = term(0);
        for p in 1..cols.len() {
            acc = s.add(acc, term(p));
        }
        return acc;
    }
    let mut lanes = [term(0), term(1), term(2), term(3)];
    let body = 4 + (cols.len() - 4) / 4 * 4;
    for p in (4..body).step_by(4) {
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane = s.add(*lane, term(p + l));
        }
    }
    let mut acc = s.add(s.add(lanes[0], lanes[1]), s.add(lanes[2], lanes[3]));
    for p in body..cols.len() {
        acc = s.add(acc, term(p));
    }
    acc
}

/// `w = accum(w, A ⊕.⊗ u)` in place, for a `w` with every entry present and
/// no mask (the accumulated product of PageRank): one pass, no temporary.
/// With a full `u`, rows are walked straight off the CSR arrays in chunks of
/// [`FULL_ROWS`]; `PLUS.TIMES` over `f64` on short rows takes the
/// branch-free [`ShortRows`].
pub(crate) fn mxv_csr_accum_into<S: Semiring, A: Accumulate<S::T>>(
    s: S,
    a: &Csr<S::T>,
    u: &Vector<S::T>,
    accum: A,
    w: &mut [S::T],
) {
    let uv = dense_view(u);
    // Work in entries and rows (a row costs about an entry).
    let work = a.nnz() + a.nrows();
    if uv.present.is_none() {
        let (rp, ci, va, u) = (a.row_ptr(), a.col_idx(), a.values(), &uv.values[..]);
        // An iso-valued matrix (a pattern of ones) is read without its values:
        // 4 bytes an entry instead of 12 for f64.
        let iso = a.iso_value();
        // PLUS.TIMES over f64 on short rows: branch-free rows.
        let short = ShortRows::new::<S>(a, u);
        for_chunks_mut(w, FULL_ROWS, work, |c, wc| {
            let rp = &rp[c * FULL_ROWS..=c * FULL_ROWS + wc.len()];
            if let (Some(k), Some(out)) = (&short, same_type_mut::<S::T, f64>(wc)) {
                // `ShortRows` exists for `f64` alone: `out` is `wc`.
                k.rows_into(rp, out, |old, t, has| match has {
                    true => accum
                        .combine(S::T::from_f64(old), S::T::from_f64(t))
                        .to_f64(),
                    false => old,
                });
                return;
            }
            for (wi, r) in wc.iter_mut().zip(rp.windows(2)) {
                if r[0] < r[1] {
                    let cols = &ci[r[0]..r[1]];
                    let t = match iso {
                        Some(v) => row_dot_full(&s, cols, |_| v, u),
                        None => {
                            let vals = &va[r[0]..r[1]];
                            row_dot_full(&s, cols, |p| vals[p], u)
                        }
                    };
                    *wi = accum.combine(*wi, t);
                }
            }
        });
        return;
    }
    for_chunks_mut(w, FULL_ROWS, work, |c, wc| {
        for (k, wi) in wc.iter_mut().enumerate() {
            if let Some(t) = row_dot(&s, a, &uv, c * FULL_ROWS + k) {
                *wi = accum.combine(*wi, t);
            }
        }
    });
}

fn mxv_b2sr_blocks<S: Semiring, L: TileBits>(
    s: S,
    b: &B2srBlocks<L>,
    nrows: usize,
    value: S::T,
    uv: &DenseView<'_, S::T>,
    allowed: Option<&BitVec>,
) -> Vec<Option<S::T>> {
    let k = L::K;
    let tile_rows = nrows.div_ceil(k);
    let rows: Vec<Vec<Option<S::T>>> = (0..tile_rows)
        .into_par_iter()
        .map(|tr| {
            let nr = (nrows - tr * k).min(k);
            let mut acc: Vec<Option<S::T>> = vec![None; nr];
            for (t, tc) in b.tile_range(tr).zip(b.row_columns(tr).iter()) {
                let base = tc as usize * k;
                let tile = &b.tiles()[t];
                for (r, a) in acc.iter_mut().enumerate() {
                    if allowed.is_some_and(|m| !m.get(tr * k + r)) {
                        continue;
                    }
                    let mut w = tile.row(r);
                    while w != 0 {
                        let j = base + w.trailing_zeros() as usize;
                        w &= w - 1;
                        if let Some(uj) = uv.get(j) {
                            *a = fold(&s, *a, s.mul(value, uj));
                        }
                    }
                }
            }
            acc
        })
        .collect();
    rows.into_iter().flatten().collect()
}

/// `t = A ⊕.⊗ u` on B2SR for any semiring, walking set bits.
pub(crate) fn mxv_b2sr<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Vector<S::T> {
    let uv = dense_view(u);
    let out = with_blocks!(a.tiles(), b => mxv_b2sr_blocks(s, b, a.nrows(), value, &uv, allowed));
    vector_from_options(out)
}

/// `t = A' ⊕.⊗ u` by pushing the present entries of `u` along their rows of
/// `A` (a sequential scatter straight into dense values and presence words;
/// the transpose is never built).
pub(crate) fn vxm_push<S: Semiring>(
    s: S,
    a: &Csr<S::T>,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Vector<S::T> {
    let n = a.ncols();
    let mut vals = vec![S::T::default(); n];
    let mut words = vec![0u64; n.div_ceil(64)];
    if let (
        None,
        VectorRepr::Dense {
            values,
            present: None,
        },
    ) = (allowed, u.repr())
    {
        // A full `u` and no mask: every row in order, straight off the CSR
        // arrays (connected components' hooking pushes one entry a row).
        let (rp, ci, va) = (a.row_ptr(), a.col_idx(), a.values());
        for (r, &ui) in rp.windows(2).zip(values) {
            for (&j, &aij) in ci[r[0]..r[1]].iter().zip(&va[r[0]..r[1]]) {
                let j = j as usize;
                let x = s.mul(aij, ui);
                let (w, bit) = (&mut words[j / 64], 1u64 << (j % 64));
                vals[j] = if *w & bit != 0 { s.add(vals[j], x) } else { x };
                *w |= bit;
            }
        }
        return dense_view::dense_from_parts(vals, words);
    }
    let mut push = |i: usize, ui: S::T| {
        let (cols, avals) = a.row(i);
        for (&j, &aij) in cols.iter().zip(avals) {
            let j = j as usize;
            if allowed.is_some_and(|m| !m.get(j)) {
                continue;
            }
            let (w, bit) = (&mut words[j / 64], 1u64 << (j % 64));
            let x = s.mul(aij, ui);
            // The first term starts the sum (never `zero ⊕ x`: ANY has no identity).
            vals[j] = if *w & bit != 0 { s.add(vals[j], x) } else { x };
            *w |= bit;
        }
    };
    match u.repr() {
        VectorRepr::Sparse { indices, values } => {
            for (&i, &x) in indices.iter().zip(values) {
                push(i as usize, x);
            }
        }
        _ => {
            let uv = dense_view(u);
            match &uv.present {
                None => {
                    for (i, &x) in uv.values.iter().enumerate() {
                        push(i, x);
                    }
                }
                Some(p) => {
                    for (wi, &word) in p.words().iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let i = wi * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            push(i, uv.values[i]);
                        }
                    }
                }
            }
        }
    }
    dense_view::dense_from_parts(vals, words)
}

/// Gustavson `T = A ⊕.⊗ B` on CSR, row-parallel; only mask-allowed entries are kept.
pub(crate) fn mxm_csr<S: Semiring>(
    s: S,
    a: &Csr<S::T>,
    b: &Csr<S::T>,
    mask: Option<&RowMask>,
) -> Csr<S::T> {
    let n = b.ncols();
    let rows: Vec<(Vec<u32>, Vec<S::T>)> = (0..a.nrows())
        .into_par_iter()
        .map_init(
            || (vec![None::<S::T>; n], Vec::<u32>::new()),
            |(acc, touched), i| {
                let (ac, av) = a.row(i);
                for (&k, &aik) in ac.iter().zip(av) {
                    let (bc, bv) = b.row(k as usize);
                    for (&j, &bkj) in bc.iter().zip(bv) {
                        let slot = &mut acc[j as usize];
                        if slot.is_none() {
                            touched.push(j);
                        }
                        *slot = fold(&s, *slot, s.mul(aik, bkj));
                    }
                }
                touched.sort_unstable();
                let mut cols = Vec::with_capacity(touched.len());
                let mut vals = Vec::with_capacity(touched.len());
                for &j in touched.iter() {
                    let v = acc[j as usize].take().expect("touched");
                    if mask.is_none_or(|m| m.allows(i, j)) {
                        cols.push(j);
                        vals.push(v);
                    }
                }
                touched.clear();
                (cols, vals)
            },
        )
        .collect();
    csr_from_rows(a.nrows(), n, rows)
}

/// Joins per-row `(cols, vals)` into a CSR matrix.
pub(crate) fn csr_from_rows<T: Scalar>(
    nrows: usize,
    ncols: usize,
    rows: Vec<(Vec<u32>, Vec<T>)>,
) -> Csr<T> {
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0);
    let nnz = rows.iter().map(|r| r.0.len()).sum();
    let mut cols = Vec::with_capacity(nnz);
    let mut vals = Vec::with_capacity(nnz);
    for (c, v) in rows {
        cols.extend_from_slice(&c);
        vals.extend_from_slice(&v);
        row_ptr.push(cols.len());
    }
    Csr::from_parts_unchecked(nrows, ncols, row_ptr, cols, vals)
}

/// `⊕` of `(A ⊕.⊗ Bt')<mask>` by dot products of rows of `A` and rows of `Bt`
/// (non-complemented mask) or by the full product (complemented mask).
pub(crate) fn mxm_reduce_csr<S: Semiring>(
    s: S,
    mask: &RowMask,
    a: &Csr<S::T>,
    bt: &Csr<S::T>,
) -> S::T {
    // Present values are only ever combined with each other, never with the
    // identity (ANY has none: `any(zero, x)` may be `zero`).
    if mask.complemented {
        let t = mxm_csr(s, a, &bt.transpose(), Some(mask));
        return t
            .values()
            .iter()
            .copied()
            .reduce(|x, y| s.add(x, y))
            .unwrap_or_else(|| s.zero());
    }
    let p = &mask.pattern;
    mxm_reduce_masked(s, p.row_ptr(), p.col_idx(), a, bt)
}

/// Rows per parallel task of [`mxm_reduce_masked`].
const REDUCE_ROWS: usize = 1024;

/// `⊕` of `(A ⊕.⊗ Bt')<M>` for a non-complemented mask `M` given by its CSR
/// structure (`row_ptr`, `col_idx`): row `i` of `A` is marked in a per-thread
/// array, then each `(i, j)` of `M` walks row `j` of `Bt` once and looks every
/// column up (`O(deg(j))` per entry instead of the `O(deg(i) + deg(j))` of a
/// merge). For `PLUS.PAIR` the terms are all one and only their number
/// matters: the marks are bits (`ncols / 8` bytes a thread, in cache) and the
/// count becomes the sum at the end ([`super::b2sr::repeat_add`], as the fold
/// would give it).
pub(crate) fn mxm_reduce_masked<S: Semiring>(
    s: S,
    row_ptr: &[usize],
    col_idx: &[u32],
    a: &Csr<S::T>,
    bt: &Csr<S::T>,
) -> S::T {
    let mrow = |i: usize| &col_idx[row_ptr[i]..row_ptr[i + 1]];
    let nrows = a.nrows();
    if S::KERNEL.is_some_and(|k| k.kind() == crate::algebra::SemiringKind::PlusPair) {
        let words = a.ncols().div_ceil(64);
        let count: u64 = (0..nrows.div_ceil(REDUCE_ROWS))
            .into_par_iter()
            .map_init(
                || vec![0u64; words],
                |marks, blk| {
                    let mut c = 0u64;
                    for i in blk * REDUCE_ROWS..((blk + 1) * REDUCE_ROWS).min(nrows) {
                        let (ac, mr) = (a.row(i).0, mrow(i));
                        if ac.is_empty() || mr.is_empty() {
                            continue;
                        }
                        for &k in ac {
                            marks[k as usize / 64] |= 1 << (k % 64);
                        }
                        for &j in mr {
                            for &k in bt.row(j as usize).0 {
                                c += marks[k as usize / 64] >> (k % 64) & 1;
                            }
                        }
                        for &k in ac {
                            marks[k as usize / 64] = 0;
                        }
                    }
                    c
                },
            )
            .sum();
        return if count == 0 {
            s.zero()
        } else {
            super::b2sr::repeat_add(&s, S::T::one(), count as usize)
        };
    }
    const UNSET: u32 = u32::MAX;
    (0..nrows)
        .into_par_iter()
        .with_min_len(64)
        .map_init(
            || vec![UNSET; a.ncols()],
            |pos, i| {
                let (ac, av) = a.row(i);
                let mrow = mrow(i);
                if ac.is_empty() || mrow.is_empty() {
                    return None;
                }
                for (p, &k) in ac.iter().enumerate() {
                    pos[k as usize] = p as u32;
                }
                let mut total = None;
                for &j in mrow {
                    let (bc, bv) = bt.row(j as usize);
                    let mut acc = None;
                    for (&k, &bkj) in bc.iter().zip(bv) {
                        let p = pos[k as usize];
                        if p != UNSET {
                            acc = fold(&s, acc, s.mul(av[p as usize], bkj));
                        }
                    }
                    if let Some(x) = acc {
                        total = fold(&s, total, x);
                    }
                }
                for &k in ac {
                    pos[k as usize] = UNSET;
                }
                total
            },
        )
        .flatten()
        .reduce_with(|x, y| s.add(x, y))
        .unwrap_or_else(|| s.zero())
}

/// The rows of a dense `b` that hold something other than the semiring's
/// `zero`, as bits, when a product may leave the others out: `zero` is the
/// identity of `⊕` (the built-in semirings other than `ANY`, which may pick
/// either term). `None` when that does not hold or every row is live.
pub(crate) fn live_rows<S: Semiring>(s: &S, b: &DenseMatrix<S::T>) -> Option<BitVec> {
    let kind = S::KERNEL?.kind();
    if kind == crate::algebra::SemiringKind::AnyPair {
        return None;
    }
    let (zero, n) = (s.zero(), b.ncols().max(1));
    // 64 rows to a word; each row tested without an early exit (vectorises).
    let words: Vec<u64> = b
        .as_slice()
        .par_chunks(64 * n)
        .map(|rows| {
            rows.chunks(n).enumerate().fold(0u64, |w, (r, row)| {
                let any = row.iter().fold(false, |acc, &x| acc | (x != zero));
                w | (any as u64) << r
            })
        })
        .collect();
    let bits = BitVec::from_words(b.nrows(), words)?;
    (bits.count_ones() < b.nrows()).then_some(bits)
}

/// `T = A ⊕.⊗ B` with `B` dense row-major; rows of `A` with no entry give the identity.
#[cfg(test)]
pub(crate) fn mxm_dense_csr<S: Semiring>(
    s: S,
    a: &Csr<S::T>,
    b: &DenseMatrix<S::T>,
) -> DenseMatrix<S::T> {
    let mut out = DenseMatrix::filled(a.nrows(), b.ncols(), s.zero());
    mxm_dense_csr_into(s, a, b, &mut out);
    out
}

/// [`mxm_dense_csr`] into `out` (reshaped when its shape differs; every entry
/// written). A row of `B` that is all `zero` ([`live_rows`]) contributes
/// `a_ik ⊗ zero` to every entry of its output rows, one product per edge
/// instead of a row: nothing where that is `zero`, the identity. So a
/// frontier-shaped `B` (betweenness centrality) costs one bit test per edge
/// plus the edges into its live rows.
pub(crate) fn mxm_dense_csr_into<S: Semiring>(
    s: S,
    a: &Csr<S::T>,
    b: &DenseMatrix<S::T>,
    out: &mut DenseMatrix<S::T>,
) {
    let (n, zero) = (b.ncols(), s.zero());
    if (out.nrows(), out.ncols()) != (a.nrows(), n) {
        *out = DenseMatrix::filled(a.nrows(), n, zero);
    }
    if n == 0 {
        return;
    }
    let live = live_rows(&s, b);
    let live = live.as_ref().map(BitVec::words);
    out.as_mut_slice()
        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, row)| {
            let (ac, av) = a.row(i);
            // The first term initialises the row (never `zero ⊕ x`: ANY has no identity).
            let mut first = true;
            for (&k, &aik) in ac.iter().zip(av) {
                let k = k as usize;
                if live.is_some_and(|w| w[k / 64] >> (k % 64) & 1 == 0) {
                    let z = s.mul(aik, zero);
                    if z == zero {
                        continue;
                    }
                    if first {
                        row.fill(z);
                        first = false;
                    } else {
                        row.iter_mut().for_each(|o| *o = s.add(*o, z));
                    }
                    continue;
                }
                let brow = b.row(k);
                if first {
                    for (o, &bkj) in row.iter_mut().zip(brow) {
                        *o = s.mul(aik, bkj);
                    }
                    first = false;
                } else {
                    for (o, &bkj) in row.iter_mut().zip(brow) {
                        *o = s.add(*o, s.mul(aik, bkj));
                    }
                }
            }
            if first {
                row.fill(zero);
            }
        });
}

#[inline]
fn ewise_pair<T: Scalar, Op: BinaryOp<T>>(
    kind: EwiseKind<T>,
    op: Op,
    x: Option<T>,
    y: Option<T>,
) -> Option<T> {
    match (kind, x, y) {
        (_, Some(x), Some(y)) => Some(op.apply(x, y)),
        (EwiseKind::Mult, _, _) => None,
        (EwiseKind::Add, x, y) => x.or(y),
        (EwiseKind::Union { beta, .. }, Some(x), None) => Some(op.apply(x, beta)),
        (EwiseKind::Union { alpha, .. }, None, Some(y)) => Some(op.apply(alpha, y)),
        (EwiseKind::Union { .. }, None, None) => None,
    }
}

/// Element-wise on vectors.
pub(crate) fn ewise_vector<T: Scalar, Op: BinaryOp<T>>(
    kind: EwiseKind<T>,
    op: Op,
    u: &Vector<T>,
    v: &Vector<T>,
) -> Vector<T> {
    // An intersection with a sparse operand stays sparse: O(nnz) instead of O(n).
    if let EwiseKind::Mult = kind {
        let sparse = |x: &Vector<T>| matches!(x.repr(), VectorRepr::Sparse { .. });
        if sparse(u) || sparse(v) {
            let (s, d, s_first) = if sparse(u) {
                (u, v, true)
            } else {
                (v, u, false)
            };
            let dv = dense_view(d);
            let e = s
                .entries()
                .into_iter()
                .filter_map(|(i, x)| {
                    let y = dv.get(i)?;
                    Some((
                        i,
                        if s_first {
                            op.apply(x, y)
                        } else {
                            op.apply(y, x)
                        },
                    ))
                })
                .collect();
            return Vector::from_entries(u.len(), e).expect("indices come from a valid vector");
        }
    }
    if let (
        VectorRepr::Dense {
            values: x,
            present: None,
        },
        VectorRepr::Dense {
            values: y,
            present: None,
        },
    ) = (u.repr(), v.repr())
    {
        // Both full: a straight (vectorisable) map.
        let mut z = vec![T::default(); x.len()];
        for_chunks_mut(&mut z, 4096, x.len(), |c, ch| {
            let (x, y) = (&x[c * 4096..], &y[c * 4096..]);
            for ((o, &a), &b) in ch.iter_mut().zip(x).zip(y) {
                *o = op.apply(a, b);
            }
        });
        return Vector::from_dense(z);
    }
    let (uv, vv) = (dense_view(u), dense_view(v));
    dense_from_fn(u.len(), |i| ewise_pair(kind, op, uv.get(i), vv.get(i)))
}

/// Element-wise on CSR matrices (sorted merge per row).
pub(crate) fn ewise_csr<T: Scalar, Op: BinaryOp<T>>(
    kind: EwiseKind<T>,
    op: Op,
    a: &Csr<T>,
    b: &Csr<T>,
) -> Csr<T> {
    let rows = (0..a.nrows())
        .into_par_iter()
        .map(|i| {
            let ((ac, av), (bc, bv)) = (a.row(i), b.row(i));
            let (mut p, mut q) = (0, 0);
            let (mut cols, mut vals) = (Vec::new(), Vec::new());
            while p < ac.len() || q < bc.len() {
                let j = match (ac.get(p), bc.get(q)) {
                    (Some(&x), Some(&y)) => x.min(y),
                    (Some(&x), None) => x,
                    (None, Some(&y)) => y,
                    (None, None) => unreachable!(),
                };
                let x = (ac.get(p) == Some(&j)).then(|| av[p]);
                let y = (bc.get(q) == Some(&j)).then(|| bv[q]);
                p += x.is_some() as usize;
                q += y.is_some() as usize;
                if let Some(z) = ewise_pair(kind, op, x, y) {
                    cols.push(j);
                    vals.push(z);
                }
            }
            (cols, vals)
        })
        .collect();
    csr_from_rows(a.nrows(), a.ncols(), rows)
}

/// `f` over the present entries.
pub(crate) fn apply_vector<T: Scalar, F: UnaryOp<T>>(f: F, u: &Vector<T>) -> Vector<T> {
    match u.repr() {
        VectorRepr::Dense {
            values,
            present: None,
        } => {
            let mut out = vec![T::default(); values.len()];
            for_chunks_mut(&mut out, 4096, values.len(), |c, ch| {
                for (o, &x) in ch.iter_mut().zip(&values[c * 4096..]) {
                    *o = f.apply(x);
                }
            });
            return Vector::from_dense(out);
        }
        VectorRepr::Dense { .. } => {
            // Only present entries go through `f` (an absent slot may hold a
            // value `f` rejects, such as a zero divisor).
            let uv = dense_view(u);
            return dense_from_fn(u.len(), |i| uv.get(i).map(|x| f.apply(x)));
        }
        VectorRepr::Sparse { indices, values } => {
            let values = values.iter().map(|&x| f.apply(x)).collect();
            return Vector::from_repr(
                u.len(),
                VectorRepr::Sparse {
                    indices: indices.clone(),
                    values,
                },
            )
            .expect("same shape");
        }
        VectorRepr::Bits(_) => {}
    }
    let e = u
        .entries()
        .into_iter()
        .map(|(i, x)| (i, f.apply(x)))
        .collect();
    Vector::from_entries(u.len(), e).expect("indices come from a valid vector")
}

/// The entries the predicate keeps.
pub(crate) fn select_vector<T: Scalar, P: IndexUnaryOp<T>>(pred: P, u: &Vector<T>) -> Vector<T> {
    if let VectorRepr::Dense { .. } = u.repr() {
        let uv = dense_view(u);
        return dense_from_fn(u.len(), |i| uv.get(i).filter(|&x| pred.keep(x, i, 0)));
    }
    let e = u
        .entries()
        .into_iter()
        .filter(|&(i, x)| pred.keep(x, i, 0))
        .collect();
    Vector::from_entries(u.len(), e).expect("indices come from a valid vector")
}

/// The entries of a CSR matrix the predicate keeps.
pub(crate) fn select_csr<T: Scalar, P: IndexUnaryOp<T>>(pred: P, a: &Csr<T>) -> Csr<T> {
    let rows = (0..a.nrows())
        .into_par_iter()
        .map(|i| {
            let (c, v) = a.row(i);
            c.iter()
                .zip(v)
                .filter(|&(&j, &x)| pred.keep(x, i, j as usize))
                .map(|(&j, &x)| (j, x))
                .unzip()
        })
        .collect();
    csr_from_rows(a.nrows(), a.ncols(), rows)
}

/// `⊕` of each row; empty rows are absent.
pub(crate) fn reduce_rows_csr<T: Scalar, M: Monoid<T>>(monoid: M, a: &Csr<T>) -> Vector<T> {
    dense_from_fn(a.nrows(), |i| {
        a.row(i).1.iter().copied().reduce(|x, y| monoid.apply(x, y))
    })
}

/// `u(indices)`.
pub(crate) fn extract_vector<T: Scalar>(u: &Vector<T>, indices: &[usize]) -> Vector<T> {
    let uv = dense_view(u);
    dense_from_fn(indices.len(), |k| uv.get(indices[k]))
}

/// `A(rows, cols)`.
pub(crate) fn extract_csr<T: Scalar>(a: &Csr<T>, rows: &[usize], cols: &[usize]) -> Csr<T> {
    // Position(s) of each source column in the output, sorted by output index.
    let mut where_col: Vec<Vec<u32>> = vec![Vec::new(); a.ncols()];
    for (k, &j) in cols.iter().enumerate() {
        where_col[j].push(k as u32);
    }
    let out_rows = rows
        .par_iter()
        .map(|&i| {
            let (c, v) = a.row(i);
            let mut e: Vec<(u32, T)> = Vec::new();
            for (&j, &x) in c.iter().zip(v) {
                e.extend(where_col[j as usize].iter().map(|&k| (k, x)));
            }
            e.sort_unstable_by_key(|p| p.0);
            e.into_iter().unzip()
        })
        .collect();
    csr_from_rows(rows.len(), cols.len(), out_rows)
}

/// `diag(d) A` or `A diag(d)` with `op`.
pub(crate) fn scale_csr<T: Scalar, Op: BinaryOp<T>>(
    op: Op,
    d: &Vector<T>,
    a: &Csr<T>,
    rows: bool,
) -> Csr<T> {
    let dv = dense_view(d);
    let out = (0..a.nrows())
        .into_par_iter()
        .map(|i| {
            let (c, v) = a.row(i);
            let mut cols = Vec::with_capacity(c.len());
            let mut vals = Vec::with_capacity(c.len());
            for (&j, &x) in c.iter().zip(v) {
                let s = if rows {
                    dv.get(i).map(|di| op.apply(di, x))
                } else {
                    dv.get(j as usize).map(|dj| op.apply(x, dj))
                };
                if let Some(y) = s {
                    cols.push(j);
                    vals.push(y);
                }
            }
            (cols, vals)
        })
        .collect();
    csr_from_rows(a.nrows(), a.ncols(), out)
}
