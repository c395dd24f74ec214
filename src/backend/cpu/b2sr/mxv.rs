//! Matrix-vector products on B2SR (Bit-GraphBLAS Table II), masks applied inside:
//!
//! - `bin_bin_bin`: packed-bit `u`, idempotent `⊕` (LOR, ANY, MIN, MAX): every
//!   tile ANDed with its `k`-bit slice of `u` broadcast to all rows and ORed
//!   into per-row hits kept in the tile's own layout (one 256-bit AND and OR
//!   per 16x16 tile with AVX2), reduced to output bits once per tile row
//!   ([`bits_pull`]);
//!   transposed, the same product pushes the set bits of `u` ([`bits_push`]).
//! - `bin_bin_full`: packed-bit `u`, `⊕ = PLUS`: popcount of each tile row AND
//!   the `k`-bit slice of `u` ([`count_pull`]).
//! - `bin_full_full`: valued `u`: walk the set bits of each tile row restricted
//!   to the present entries of `u` ([`value_pull`]); transposed, with an
//!   idempotent `⊕`, the present entries of `u` push along their rows
//!   ([`value_push`]).
//!
//! Every kernel skips tile rows the mask rules out and writes disjoint output
//! words per thread (ranges from [`super::plan`]).

use super::plan::{
    balanced_by, for_each_piece, split_mut, weighted_ranges, PULL_SEQUENTIAL_BELOW_NS,
    SEQUENTIAL_BELOW_NS,
};
use super::tiles::TileOps;
use super::{add_class, repeat_add, slice, AddClass};
use crate::algebra::Semiring;
use crate::container::{Vector, VectorRepr};
use crate::scalar::Scalar;
use crate::storage::b2sr::{with_blocks, B2srBlocks, ColumnsAt, RowColumns};
use crate::storage::{B2sr, BitVec, Csr};

/// Average tiles per tile row from which [`bits_pull`] stops a tile row early.
const EARLY_EXIT_TILES_PER_ROW: usize = 16;
/// How many tiles [`pull_rows`] adds between two "every row hit" checks.
const EXIT_CHECK_EVERY: usize = 8;

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
    let align = (64 / L::K).max(1);
    let ranges = weighted_ranges(&b.tile_row_ptr, align, L::K, PULL_SEQUENTIAL_BELOW_NS);
    let lens: Vec<usize> = ranges.iter().map(|r| extent::<L>(r, nrows).2).collect();
    let mut out = BitVec::zeros(nrows);
    // Checking for "every row hit" costs a check and a hard-to-predict branch;
    // it pays only where tile rows hold many tiles (measured on single-thread
    // times with a check after every tile: ego-Twitter yes, 1.2-1.4x at
    // 8x8/16x16; delaunay_n14 and cnr-2000 no, 6-70% slower).
    let early_exit = b.tiles.len() >= EARLY_EXIT_TILES_PER_ROW * (b.tile_row_ptr.len() - 1);
    let pieces = split_mut(out.words_mut(), &lens);
    let work: Vec<_> = ranges.into_iter().zip(pieces).collect();
    for_each_piece(work, |(range, words)| {
        pull_rows_dispatch(b, range, words, x, allowed, early_exit)
    });
    out
}

/// The hits of one tile row as the tiles are added: the tile layout's own
/// [`TileOps::Hits`] ([`Wide`]), or the per-tile row bits of
/// [`TileOps::any_rows`] ([`Narrow`]: cheaper for 16x16..64x64 tiles without
/// 256-bit vectors, where the wide form spills).
trait RowHits<L: TileOps> {
    fn new(done: u64) -> Self;
    fn add(&mut self, tile: &L, x: u64);
    fn all(&self) -> bool;
    fn rows(&self) -> u64;
}

struct Wide<L: TileOps>(L::Hits);

impl<L: TileOps> RowHits<L> for Wide<L> {
    #[inline(always)]
    fn new(done: u64) -> Self {
        Wide(L::hits_new(done))
    }
    #[inline(always)]
    fn add(&mut self, tile: &L, x: u64) {
        tile.hits_add(&mut self.0, x)
    }
    #[inline(always)]
    fn all(&self) -> bool {
        L::hits_all(&self.0)
    }
    #[inline(always)]
    fn rows(&self) -> u64 {
        L::hits_rows(&self.0)
    }
}

struct Narrow<L>(u64, std::marker::PhantomData<L>);

impl<L: TileOps> RowHits<L> for Narrow<L> {
    #[inline(always)]
    fn new(done: u64) -> Self {
        Narrow(done & slice::<L>(&[u64::MAX], 0), std::marker::PhantomData)
    }
    #[inline(always)]
    fn add(&mut self, tile: &L, x: u64) {
        self.0 |= tile.any_rows(x);
    }
    #[inline(always)]
    fn all(&self) -> bool {
        self.0 == slice::<L>(&[u64::MAX], 0)
    }
    #[inline(always)]
    fn rows(&self) -> u64 {
        self.0
    }
}

/// The tile rows `range` of [`bits_pull`] into `words` (the output words the
/// range owns), accumulating each tile row in `H`. With `early_exit`, a tile
/// row stops once every row has a hit, checked every [`EXIT_CHECK_EVERY`]
/// tiles (checking every tile costs more than it saves on meshes).
#[inline(always)]
fn pull_rows<L: TileOps, H: RowHits<L>>(
    b: &B2srBlocks<L>,
    range: std::ops::Range<usize>,
    words: &mut [u64],
    x: &[u64],
    allowed: Option<&[u64]>,
    early_exit: bool,
) {
    let w0 = range.start * L::K / 64;
    for tr in range {
        let m = row_mask::<L>(allowed, tr);
        if m == 0 {
            continue;
        }
        let tiles = &b.tiles[b.tile_range(tr)];
        let hits = match b.row_columns(tr) {
            RowColumns::Wide(cols) => pull_row::<L, H>(tiles, cols, x, !m, early_exit),
            RowColumns::Offsets(cols) => pull_row::<L, H>(tiles, cols, x, !m, early_exit),
        };
        let bit = tr * L::K;
        words[bit / 64 - w0] |= (hits.rows() & m) << (bit % 64);
    }
}

/// The hits of one tile row with tiles `tiles` at columns `cols`, rows
/// `ruled_out` counting as hit (so "all hit" needs no mask).
#[inline(always)]
fn pull_row<L: TileOps, H: RowHits<L>>(
    tiles: &[L],
    cols: impl ColumnsAt,
    x: &[u64],
    ruled_out: u64,
    early_exit: bool,
) -> H {
    let mut hits = H::new(ruled_out);
    let mut start = 0;
    if early_exit {
        while tiles.len() - start > EXIT_CHECK_EVERY && !hits.all() {
            let end = start + EXIT_CHECK_EVERY;
            for (i, tile) in tiles.iter().enumerate().take(end).skip(start) {
                hits.add(tile, slice::<L>(x, cols.at(i) as usize));
            }
            start = end;
        }
    }
    if !(early_exit && hits.all()) {
        for (i, tile) in tiles.iter().enumerate().skip(start) {
            hits.add(tile, slice::<L>(x, cols.at(i) as usize));
        }
    }
    hits
}

/// [`pull_rows`] compiled for AVX2: a 16x16 tile is one 256-bit register
/// (a 32x32 tile four), so adding a tile to the hits is one AND and one OR.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
fn pull_rows_avx2<L: TileOps>(
    b: &B2srBlocks<L>,
    range: std::ops::Range<usize>,
    words: &mut [u64],
    x: &[u64],
    allowed: Option<&[u64]>,
    early_exit: bool,
) {
    pull_rows::<L, Wide<L>>(b, range, words, x, allowed, early_exit)
}

/// [`pull_rows`] with the widest instruction set this CPU has (the check is a
/// cached load).
fn pull_rows_dispatch<L: TileOps>(
    b: &B2srBlocks<L>,
    range: std::ops::Range<usize>,
    words: &mut [u64],
    x: &[u64],
    allowed: Option<&[u64]>,
    early_exit: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU supports every feature `pull_rows_avx2` enables
        // (checked just above); it has no other safety requirement.
        return unsafe { pull_rows_avx2(b, range, words, x, allowed, early_exit) };
    }
    if L::K <= 8 {
        pull_rows::<L, Wide<L>>(b, range, words, x, allowed, early_exit)
    } else {
        pull_rows::<L, Narrow<L>>(b, range, words, x, allowed, early_exit)
    }
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
    let ranges = weighted_ranges(&b.tile_row_ptr, 1, L::K, SEQUENTIAL_BELOW_NS);
    for_each_piece(ranges, |range| {
        for tr in range {
            let xs = slice::<L>(x, tr);
            if xs == 0 {
                continue;
            }
            for (t, tc) in b.tile_range(tr).zip(b.row_columns(tr).iter()) {
                let bit = tc as usize * L::K;
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

/// Rows ahead whose first column index is prefetched. Rows stop at their
/// first hit, so the column array is read at scattered row starts that the
/// hardware prefetcher does not follow: on R-MAT scale 18 (half-full `x`) the
/// hint took the single-thread product from 3.1-3.4 ms to 2.2-2.6 ms
/// (distances 16 to 32 equal; 64 and more, or 8 and less, slower).
const PREFETCH_ROWS: usize = 24;

/// The boolean product on CSR with packed bits in and out: bit `i` of the
/// first result is set iff some column `j` of row `i` has bit `j` of `x`
/// (a hit); of the second, iff some hit at position `p` has `one_at(p)`. Each
/// row stops at its first hit with `one_at(p)`.
fn csr_bits_pull(
    ptr: &[usize],
    cols: &[u32],
    x: &[u64],
    allowed: Option<&[u64]>,
    one_at: impl Fn(usize) -> bool + Sync,
) -> (BitVec, BitVec) {
    let n = ptr.len() - 1;
    let (mut hit, mut truth) = (BitVec::zeros(n), BitVec::zeros(n));
    let Some(last) = cols.len().checked_sub(1) else {
        return (hit, truth);
    };
    let ranges = balanced_by(n, 64, |i| ptr[i] + i);
    let lens: Vec<usize> = ranges
        .iter()
        .map(|r| r.end.div_ceil(64) - r.start / 64)
        .collect();
    let hp = split_mut(hit.words_mut(), &lens);
    let tp = split_mut(truth.words_mut(), &lens);
    let work: Vec<_> = ranges.into_iter().zip(hp).zip(tp).collect();
    for_each_piece(work, |((range, hw), tw)| {
        let w0 = range.start / 64;
        for wi in range.start / 64..range.end.div_ceil(64) {
            let (i0, i1) = (wi * 64, (wi * 64 + 64).min(n));
            let mut m = allowed.map_or(u64::MAX, |m| m[wi]);
            if i1 - i0 < 64 {
                m &= (1u64 << (i1 - i0)) - 1;
            }
            let (mut h, mut t) = (0u64, 0u64);
            while m != 0 {
                let r = m.trailing_zeros() as usize;
                m &= m - 1;
                let i = i0 + r;
                prefetch(cols, ptr[(i + PREFETCH_ROWS).min(n)].min(last));
                let (s, e) = (ptr[i], ptr[i + 1]);
                for (&c, p) in cols[s..e].iter().zip(s..) {
                    let j = c as usize;
                    if x[j / 64] >> (j % 64) & 1 == 1 {
                        h |= 1 << r;
                        if one_at(p) {
                            t |= 1 << r;
                            break;
                        }
                    }
                }
            }
            hw[wi - w0] = h;
            tw[wi - w0] = t;
        }
    });
    (hit, truth)
}

/// A hint to bring `cols[p]` towards the cache (no effect off x86_64).
#[inline(always)]
fn prefetch(cols: &[u32], p: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let addr = cols[p..].as_ptr().cast::<i8>();
        // SAFETY: a prefetch never faults and has no visible effect; `addr`
        // points into `cols` (the slice indexing above checked `p`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(addr) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (cols, p);
}

/// `t = A ⊕.⊗ u` for a CSR `A` and packed-bit `u` where the product is
/// boolean: `ANY.PAIR` (every product is one) or `LOR.LAND` (`t_i` is the OR
/// of `a_ij` over the hits). Packed bits out when every present result is
/// one (always for `ANY.PAIR`).
pub(crate) fn csr_mxv_bits<S: Semiring>(
    a: &Csr<S::T>,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Option<Vector<S::T>> {
    let VectorRepr::Bits(bits) = u.repr() else {
        return None;
    };
    let mask = allowed.map(BitVec::words);
    let (ptr, cols, x) = (a.row_ptr(), a.col_idx(), bits.words());
    // Whether a hit is one: always (ANY.PAIR), or where `a_ij` is one (LOR.LAND;
    // decided once for an iso-valued matrix, whose values are then not read).
    let iso_one = match S::KERNEL?.kind() {
        crate::algebra::SemiringKind::AnyPair => Some(true),
        crate::algebra::SemiringKind::LorLand => a.iso_value().map(|v| v == S::T::one()),
        _ => return None,
    };
    let (hit, truth) = match iso_one {
        Some(true) => {
            return Some(Vector::from_bits(
                csr_bits_pull(ptr, cols, x, mask, |_| true).0,
            ))
        }
        Some(false) => {
            let (hit, _) = csr_bits_pull(ptr, cols, x, mask, |_| true);
            let none = BitVec::zeros(hit.len());
            (hit, none)
        }
        None => {
            let vals = a.values();
            csr_bits_pull(ptr, cols, x, mask, |p| vals[p] == S::T::one())
        }
    };
    if hit == truth {
        return Some(Vector::from_bits(hit));
    }
    let values = (0..hit.len())
        .map(|i| {
            if truth.get(i) {
                S::T::one()
            } else {
                S::T::zero()
            }
        })
        .collect();
    Some(dense_result(values, hit))
}

/// The parallel frame of a pull over the rows of `b`: balanced ranges of
/// tile rows (each starting on a word of the result's bits), each piece run
/// by `piece(range, words, vals)` with its own words of the presence bits and
/// its own values (`vals[0]` is row `range.start * K`, `words[0]` the word
/// holding it). Returns the values (default where absent) and the presence.
fn pull_pieces<L: TileOps, T: Scalar>(
    b: &B2srBlocks<L>,
    nrows: usize,
    piece: impl Fn(std::ops::Range<usize>, &mut [u64], &mut [T]) + Sync + Send,
) -> (Vec<T>, BitVec) {
    let align = (64 / L::K).max(1);
    let ranges = weighted_ranges(&b.tile_row_ptr, align, L::K, SEQUENTIAL_BELOW_NS);
    let ext: Vec<_> = ranges.iter().map(|r| extent::<L>(r, nrows)).collect();
    let mut present = BitVec::zeros(nrows);
    let mut values = vec![T::default(); nrows];
    let wl: Vec<usize> = ext.iter().map(|e| e.2).collect();
    let vl: Vec<usize> = ext.iter().map(|e| e.1 - e.0).collect();
    let wp = split_mut(present.words_mut(), &wl);
    let vp = split_mut(&mut values, &vl);
    let work: Vec<_> = ranges.into_iter().zip(wp).zip(vp).collect();
    for_each_piece(work, |((range, words), vals)| piece(range, words, vals));
    (values, present)
}

/// Per-row `popcount(A_i AND x)`, finished into a value by `finish` where nonzero.
fn count_pull<L: TileOps, T: Scalar>(
    b: &B2srBlocks<L>,
    nrows: usize,
    x: &[u64],
    allowed: Option<&[u64]>,
    finish: impl Fn(u32) -> T + Sync,
) -> (Vec<T>, BitVec) {
    pull_pieces(b, nrows, |range, words, vals| {
        let (r0, w0) = (range.start * L::K, range.start * L::K / 64);
        let mut cnt = [0u32; 64];
        for tr in range {
            let m = row_mask::<L>(allowed, tr);
            if m == 0 {
                continue;
            }
            cnt[..L::K].fill(0);
            for (t, tc) in b.tile_range(tr).zip(b.row_columns(tr).iter()) {
                let xs = slice::<L>(x, tc as usize);
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
    })
}

/// `t_i = ⊕_j a ⊗ u_j` over the set bits `j` of row `i` with `u_j` present.
/// Tile by tile, every selected bit updates its row's accumulator without a
/// data-dependent branch (the first term of a row replaces, later ones add).
/// The walk over a piece's tile rows repeats [`count_pull`]'s on purpose: the
/// inner loops differ (popcounts against per-bit accumulation) and each is
/// kept as one straight loop nest for the compiler, with no callback per row.
fn value_pull<S: Semiring, L: TileOps>(
    s: S,
    b: &B2srBlocks<L>,
    nrows: usize,
    value: S::T,
    u: &[S::T],
    upresent: Option<&[u64]>,
    allowed: Option<&[u64]>,
) -> (Vec<S::T>, BitVec) {
    let full = slice::<L>(&[u64::MAX], 0);
    pull_pieces(b, nrows, |range, words, vals| {
        let (r0, w0) = (range.start * L::K, range.start * L::K / 64);
        let mut acc = [s.zero(); 64];
        for tr in range {
            let m = row_mask::<L>(allowed, tr);
            if m == 0 {
                continue;
            }
            let mut have = 0u64;
            for (tc, tile) in b.row_columns(tr).iter().zip(&b.tiles[b.tile_range(tr)]) {
                let tc = tc as usize;
                let xs = upresent.map_or(full, |p| slice::<L>(p, tc));
                let uj = &u[tc * L::K..];
                tile.for_each_bit(xs, m, |r, c| {
                    let y = s.mul(value, uj[c]);
                    let sum = s.add(acc[r], y);
                    acc[r] = if have >> r & 1 == 1 { sum } else { y };
                    have |= 1 << r;
                });
            }
            let base = tr * L::K;
            let mut h = have;
            while h != 0 {
                let r = h.trailing_zeros() as usize;
                h &= h - 1;
                vals[base + r - r0] = acc[r];
            }
            words[base / 64 - w0] |= have << (base % 64);
        }
    })
}

/// The transposed product `A' u` for a valued `u` and an idempotent `⊕`
/// (MIN.PLUS relaxations, MIN.SECOND ids): every present `u_i` pushes
/// `value ⊗ u_i` along row `i` of `A`, one tile row of `A` (up to `K` entries
/// of `u`) at a time, the mask applied to each tile's columns. Sequential and
/// meant for small frontiers: the products are collected and sorted (a sparse
/// result, no `O(n)` pass) until they number an eighth of the columns; from
/// there on they scatter into a dense result.
fn value_push<S: Semiring, L: TileOps>(
    s: S,
    b: &B2srBlocks<L>,
    ncols: usize,
    value: S::T,
    entries: impl Iterator<Item = (usize, S::T)>,
    allowed: Option<&[u64]>,
) -> Vector<S::T> {
    /// Collected products, or the dense result once they are many.
    enum Out<T> {
        Pairs(Vec<(u32, T)>),
        Dense(Vec<T>, BitVec),
    }
    let limit = ncols / 8;
    let mut out = Out::Pairs(Vec::new());
    let flush = |tr: usize, xs: u64, uv: &[S::T; 64], out: &mut Out<S::T>| {
        for (t, tc) in b.tile_range(tr).zip(b.row_columns(tr).iter()) {
            let tc = tc as usize;
            let cols = row_mask::<L>(allowed, tc);
            match out {
                Out::Pairs(p) => b.tiles[t].for_each_bit(cols, xs, |r, c| {
                    p.push(((tc * L::K + c) as u32, s.mul(value, uv[r])));
                }),
                Out::Dense(v, present) => b.tiles[t].for_each_bit(cols, xs, |r, c| {
                    let (j, y) = (tc * L::K + c, s.mul(value, uv[r]));
                    v[j] = if present.get(j) { s.add(v[j], y) } else { y };
                    present.set(j, true);
                }),
            }
        }
        if let Out::Pairs(p) = out {
            if p.len() > limit {
                let mut v = vec![S::T::default(); ncols];
                let mut present = BitVec::zeros(ncols);
                for &(j, y) in p.iter() {
                    let j = j as usize;
                    v[j] = if present.get(j) { s.add(v[j], y) } else { y };
                    present.set(j, true);
                }
                *out = Out::Dense(v, present);
            }
        }
    };
    let (mut uv, mut cur, mut xs) = ([s.zero(); 64], usize::MAX, 0u64);
    for (i, x) in entries {
        let tr = i / L::K;
        if tr != cur {
            if xs != 0 {
                flush(cur, xs, &uv, &mut out);
            }
            (cur, xs) = (tr, 0);
        }
        xs |= 1 << (i % L::K);
        uv[i % L::K] = x;
    }
    if xs != 0 {
        flush(cur, xs, &uv, &mut out);
    }
    let mut pairs = match out {
        Out::Dense(v, present) => return dense_result(v, present),
        Out::Pairs(p) => p,
    };
    pairs.sort_unstable_by_key(|e| e.0);
    let (mut indices, mut values) = (Vec::<u32>::new(), Vec::<S::T>::new());
    for (j, y) in pairs {
        match (indices.last(), values.last_mut()) {
            (Some(&l), Some(v)) if l == j => *v = s.add(*v, y),
            _ => {
                indices.push(j);
                values.push(y);
            }
        }
    }
    Vector::from_repr(ncols, VectorRepr::Sparse { indices, values })
        .expect("sorted, distinct, in range by construction")
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
    let mut values = vec![T::default(); present.len()];
    for i in present.iter_ones() {
        values[i] = x;
    }
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
        (VectorRepr::Dense { .. } | VectorRepr::Sparse { .. }, AddClass::Idempotent)
            if transposed =>
        {
            let entries: Box<dyn Iterator<Item = (usize, S::T)>> = match u.repr() {
                VectorRepr::Sparse { indices, values } => {
                    Box::new(indices.iter().zip(values).map(|(&i, &x)| (i as usize, x)))
                }
                VectorRepr::Dense {
                    values,
                    present: Some(p),
                } => Box::new(p.iter_ones().map(|i| (i, values[i]))),
                VectorRepr::Dense { values, .. } => Box::new(values.iter().copied().enumerate()),
                VectorRepr::Bits(_) => unreachable!("matched above"),
            };
            Some(with_blocks!(a.tiles(), b => value_push(s, b, nrows, value, entries, mask)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::TileSize;

    /// Row `i` of the product, straight from CSR.
    fn reference(a: &Csr<bool>, x: &BitVec, allowed: Option<&BitVec>) -> Vec<bool> {
        (0..a.nrows())
            .map(|i| {
                allowed.is_none_or(|m| m.get(i)) && a.row(i).0.iter().any(|&j| x.get(j as usize))
            })
            .collect()
    }

    /// Every variant of [`pull_rows`] (wide and narrow hits, early exit on
    /// and off, the dispatched one) on wide matrices whose tile rows hold
    /// many tiles, so the early exit is taken and also missed (rows of
    /// hits-free entries, masked rows).
    #[test]
    fn pull_rows_variants_match_reference() {
        fn run<L: TileOps>(
            b: &B2srBlocks<L>,
            nrows: usize,
            x: &[u64],
            m: Option<&[u64]>,
        ) -> Vec<Vec<u64>> {
            let nt = b.tile_row_ptr.len() - 1;
            let words = nrows.div_ceil(64);
            let mut outs = Vec::new();
            for early_exit in [false, true] {
                for v in 0..3 {
                    let mut w = vec![0u64; words];
                    match v {
                        0 => pull_rows::<L, Wide<L>>(b, 0..nt, &mut w, x, m, early_exit),
                        1 => pull_rows::<L, Narrow<L>>(b, 0..nt, &mut w, x, m, early_exit),
                        _ => pull_rows_dispatch(b, 0..nt, &mut w, x, m, early_exit),
                    }
                    outs.push(w);
                }
            }
            outs
        }
        let mut s = 99u64;
        let mut next = |n: usize| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 17) % n as u64) as usize
        };
        let (m, n) = (150, 5000);
        // Blocks of 16 dense rows (every row hits early: the early exit is
        // taken), then blocks of sparse rows and of rows only on odd columns.
        let t: Vec<(usize, usize, bool)> = (0..m)
            .flat_map(|i| {
                let k = if i / 16 % 2 == 0 {
                    300
                } else {
                    [300, 3, 40][i % 3]
                };
                (0..k).map(move |p| (i, p, true))
            })
            .map(|(i, p, v)| {
                let j = (p * 7919 + i * 31) % n;
                (
                    i,
                    if i / 16 % 2 == 1 && i % 5 == 4 {
                        j | 1
                    } else {
                        j
                    },
                    v,
                )
            })
            .collect();
        let a = Csr::from_triplets(m, n, t, |x, _| x).unwrap();
        // Bits on even columns only: rows with odd columns never hit.
        let x = BitVec::from_indices(n, (0..n).filter(|&j| j % 2 == 0 && next(3) > 0));
        let mask = BitVec::from_indices(m, (0..m).filter(|_| next(4) > 0));
        for allowed in [None, Some(&mask)] {
            let want = reference(&a, &x, allowed);
            for ts in TileSize::FIXED {
                let b = B2sr::from_csr(&a, ts).unwrap();
                let am = allowed.map(BitVec::words);
                let outs = with_blocks!(b.tiles(), blk => run(blk, m, x.words(), am));
                for w in outs {
                    let got = BitVec::from_words(m, w).unwrap();
                    let got: Vec<bool> = (0..m).map(|i| got.get(i)).collect();
                    assert_eq!(got, want, "{ts:?}");
                }
            }
        }
        // Tile rows long enough for the early exit to be checked.
        let b = B2sr::from_csr(&a, TileSize::T8).unwrap();
        if let crate::storage::b2sr::B2srTiles::T8(blk) = b.tiles() {
            let r = blk.tile_range(0);
            assert!(r.len() > 2 * EXIT_CHECK_EVERY);
        }
    }
}
