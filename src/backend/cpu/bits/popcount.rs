//! The popcount kernels every bit product is made of: `popc(a_i & w_j)`
//! for a block of rows against every column (the BMM dot product), and
//! adding rows of bits into per-column counters (the BSpMM gather).
//!
//! Each has a path for AVX-512 (detected at run time: `VPOPCNTDQ` for the
//! dot product, eight columns' words in one register; `AVX-512F` masked
//! adds for the gather, sixteen counters in one register) and a portable
//! path (scalar `u64` popcounts, compiled for the `popcnt` instruction where
//! the CPU has it). Both give the same integers. The environment variable
//! `BITGRAPHBLAS_CPU_BITS=portable` (read once) forces the portable path, for
//! tests and benchmarks of it.

use std::ops::Range;

use crate::storage::BitMatrix;

/// Columns per group of the AVX-512 dot product (`u64` lanes of a register).
const LANES: usize = 8;

/// Which implementation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Isa {
    /// AVX-512F and VPOPCNTDQ.
    Avx512,
    /// Scalar, with the `popcnt` instruction.
    Popcnt,
    /// Scalar, portable.
    Plain,
}

impl Isa {
    /// The best this CPU runs (the portable path under
    /// `BITGRAPHBLAS_CPU_BITS=portable`).
    pub fn detect() -> Isa {
        static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *ISA.get_or_init(|| {
            let portable = std::env::var("BITGRAPHBLAS_CPU_BITS").is_ok_and(|v| v == "portable");
            #[cfg(target_arch = "x86_64")]
            {
                if !portable
                    && std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512vpopcntdq")
                {
                    return Isa::Avx512;
                }
                if std::is_x86_feature_detected!("popcnt") {
                    return Isa::Popcnt;
                }
            }
            let _ = portable;
            Isa::Plain
        })
    }

    /// `"avx512-vpopcntdq"`, `"popcnt"` or `"portable"`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Avx512 => "avx512-vpopcntdq",
            Isa::Popcnt => "popcnt",
            Isa::Plain => "portable",
        }
    }
}

/// Which kernels the CPU bit products run on this machine:
/// `"avx512-vpopcntdq"`, `"popcnt"` (scalar) or `"portable"` (for benchmark
/// reports).
pub(crate) fn isa_name() -> &'static str {
    Isa::detect().name()
}

/// `popc` of every line of `b`.
pub(super) fn line_popcounts(b: &BitMatrix) -> Vec<i32> {
    (0..b.lines())
        .map(|l| b.line(l).iter().map(|w| w.count_ones() as i32).sum())
        .collect()
}

/// The right operand of the dot product (`w`, column-major), laid out for
/// the kernel that runs: on AVX-512 the columns in groups of [`LANES`],
/// group `g`'s word `s` of column `8 g + l` at `(g * stride + s) * 8 + l`
/// (zero columns pad the last group); elsewhere the lines as they are.
pub(super) struct DotRhs<'a> {
    isa: Isa,
    w: &'a BitMatrix,
    packed: Vec<u64>,
}

impl<'a> DotRhs<'a> {
    /// `w` prepared for `isa`.
    pub fn new(w: &'a BitMatrix, isa: Isa) -> Self {
        let packed = if isa == Isa::Avx512 {
            let (n, s) = (w.lines(), w.stride());
            let mut p = vec![0u64; n.div_ceil(LANES) * s * LANES];
            for j in 0..n {
                let (g, l) = (j / LANES, j % LANES);
                for (k, &x) in w.line(j).iter().enumerate() {
                    p[(g * s + k) * LANES + l] = x;
                }
            }
            p
        } else {
            Vec::new()
        };
        DotRhs { isa, w, packed }
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.w.lines()
    }
}

/// `out[(i - rows.start) * n + j] = popc(a_i & w_j)` for `i` in `rows` and
/// every column `j` of `w` (`a` row-major with `w`'s stride).
pub(super) fn and_counts(a: &BitMatrix, rows: Range<usize>, w: &DotRhs<'_>, out: &mut [i32]) {
    debug_assert_eq!(a.stride(), w.w.stride());
    debug_assert_eq!(out.len(), rows.len() * w.ncols());
    match w.isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx512 is chosen only where the CPU has both features.
        Isa::Avx512 => unsafe { avx512::and_counts(a, rows, w, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Popcnt is chosen only where the CPU has it.
        Isa::Popcnt => unsafe { and_counts_popcnt(a, rows, w.w, out) },
        _ => and_counts_portable(a, rows, w.w, out),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn and_counts_popcnt(a: &BitMatrix, rows: Range<usize>, w: &BitMatrix, out: &mut [i32]) {
    and_counts_portable(a, rows, w, out)
}

/// Rows and columns of the portable kernel's register tile.
const PR: usize = 2;
const PC: usize = 4;

/// The portable dot product: `PR x PC` tiles of scalar popcounts.
#[inline(always)]
fn and_counts_portable(a: &BitMatrix, rows: Range<usize>, w: &BitMatrix, out: &mut [i32]) {
    let n = w.lines();
    let r0 = rows.start;
    let mut i = r0;
    while i < rows.end {
        let nr = (rows.end - i).min(PR);
        let mut j = 0;
        while j < n {
            let nc = (n - j).min(PC);
            let mut acc = [[0u32; PC]; PR];
            for s in 0..a.stride() {
                let aw: [u64; PR] =
                    std::array::from_fn(|r| if r < nr { a.line(i + r)[s] } else { 0 });
                let ww: [u64; PC] =
                    std::array::from_fn(|c| if c < nc { w.line(j + c)[s] } else { 0 });
                for r in 0..PR {
                    for c in 0..PC {
                        acc[r][c] += (aw[r] & ww[c]).count_ones();
                    }
                }
            }
            for (r, row) in acc.iter().enumerate().take(nr) {
                let o = (i + r - r0) * n + j;
                for (c, &x) in row.iter().enumerate().take(nc) {
                    out[o + c] = x as i32;
                }
            }
            j += nc;
        }
        i += nr;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;
    use std::ops::Range;

    use super::{DotRhs, LANES};
    use crate::storage::BitMatrix;

    /// Rows of the register tile (see [`tile_rows`]).
    const R: usize = 4;
    /// Column groups (of eight) of the register tile.
    const G: usize = 4;
    /// Bytes of `w` a column block keeps in the L2 cache.
    const BLOCK_BYTES: usize = 256 << 10;

    /// The AVX-512 dot product: column blocks of `w` that stay in L2,
    /// `R x 8G` register tiles over them.
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    pub(super) unsafe fn and_counts(
        a: &BitMatrix,
        rows: Range<usize>,
        w: &DotRhs<'_>,
        out: &mut [i32],
    ) {
        let (n, s) = (w.ncols(), a.stride());
        let groups = n.div_ceil(LANES);
        let block = (BLOCK_BYTES / (s.max(1) * LANES * 8)).max(G) / G * G;
        let r0 = rows.start;
        for g0 in (0..groups).step_by(block) {
            let g1 = (g0 + block).min(groups);
            let mut i = r0;
            while i < rows.end {
                let nr = (rows.end - i).min(R);
                let mut g = g0;
                while g < g1 {
                    let ng = (g1 - g).min(G);
                    let cols = (n - g * LANES).min(ng * LANES);
                    let t = Tile {
                        a: &a.words()[i * s..],
                        a_stride: s,
                        w: &w.packed[g * s * LANES..],
                        s,
                        out: &mut out[(i - r0) * n + g * LANES..],
                        out_stride: n,
                        cols,
                    };
                    // SAFETY: same features as this function.
                    unsafe {
                        match ng {
                            4 => tile_rows::<4>(nr, t),
                            3 => tile_rows::<3>(nr, t),
                            2 => tile_rows::<2>(nr, t),
                            _ => tile_rows::<1>(nr, t),
                        }
                    }
                    g += ng;
                }
                i += nr;
            }
        }
    }

    /// [`tile`] with `nr` (1 to [`R`]) rows.
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    unsafe fn tile_rows<const GG: usize>(nr: usize, t: Tile<'_>) {
        // SAFETY: same features as this function.
        unsafe {
            match nr {
                4 => tile::<4, GG>(t),
                3 => tile::<3, GG>(t),
                2 => tile::<2, GG>(t),
                _ => tile::<1, GG>(t),
            }
        }
    }

    /// One register tile's operands: rows of `a` from its first word, groups
    /// of packed `w` from the tile's first group, the output from the tile's
    /// first entry.
    struct Tile<'a> {
        a: &'a [u64],
        a_stride: usize,
        w: &'a [u64],
        s: usize,
        out: &'a mut [i32],
        out_stride: usize,
        /// Columns to write (fewer than the groups hold only at the last one).
        cols: usize,
    }

    /// `RR x 8 GG` dot products: per word, `GG` loads of eight columns'
    /// words, `RR` broadcasts, and `RR * GG` AND + VPOPCNTQ + add.
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    unsafe fn tile<const RR: usize, const GG: usize>(t: Tile<'_>) {
        let mut acc = [[_mm512_setzero_si512(); GG]; RR];
        let wp = t.w.as_ptr();
        for k in 0..t.s {
            let wv: [__m512i; GG] = std::array::from_fn(|q| {
                _mm512_loadu_si512(wp.add((q * t.s + k) * LANES) as *const _)
            });
            for (r, accr) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_epi64(*t.a.get_unchecked(r * t.a_stride + k) as i64);
                for (x, &wq) in accr.iter_mut().zip(&wv) {
                    *x = _mm512_add_epi64(*x, _mm512_popcnt_epi64(_mm512_and_si512(av, wq)));
                }
            }
        }
        for (r, accr) in acc.iter().enumerate() {
            for (q, &x) in accr.iter().enumerate() {
                let c = q * LANES;
                let nc = t.cols.saturating_sub(c).min(LANES);
                let v = _mm512_cvtepi64_epi32(x);
                let dst = t.out.as_mut_ptr().add(r * t.out_stride + c);
                if nc == LANES {
                    _mm256_storeu_si256(dst as *mut __m256i, v);
                } else if nc > 0 {
                    let mut tmp = [0i32; LANES];
                    _mm256_storeu_si256(tmp.as_mut_ptr() as *mut __m256i, v);
                    std::ptr::copy_nonoverlapping(tmp.as_ptr(), dst, nc);
                }
            }
        }
    }
}

/// `counts[j] += weight` for every set bit `j` of `words` (the BSpMM
/// gather of one neighbour's row of bits; `counts` has one entry per bit).
#[inline]
pub(super) fn add_bits(isa: Isa, counts: &mut [i32], words: &[u64], weight: i32) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx512 is chosen only where the CPU has AVX-512F.
        Isa::Avx512 => unsafe { gather::add_bits(counts, words, weight) },
        _ => add_bits_portable(counts, words, weight),
    }
}

/// [`add_bits`] one set bit at a time.
#[inline]
fn add_bits_portable(counts: &mut [i32], words: &[u64], weight: i32) {
    for (w, &word) in words.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            counts[w * 64 + x.trailing_zeros() as usize] += weight;
            x &= x - 1;
        }
    }
}

/// `acc[j] += d(bit j) * x` for the bits of `words`, with `d` the right
/// domain: `Binary` adds `x` where the bit is set, `Signed` adds `x` or
/// `-x` (the `f32` BMM: one row of `x` against one row of `w`'s bits).
#[inline]
pub(super) fn add_scaled_bits(isa: Isa, acc: &mut [f32], words: &[u64], x: f32, signed: bool) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx512 is chosen only where the CPU has AVX-512F.
        Isa::Avx512 => unsafe { gather::add_scaled_bits(acc, words, x, signed) },
        _ => add_scaled_bits_portable(acc, words, x, signed),
    }
}

#[inline]
fn add_scaled_bits_portable(acc: &mut [f32], words: &[u64], x: f32, signed: bool) {
    for (j, a) in acc.iter_mut().enumerate() {
        let bit = words[j / 64] >> (j % 64) & 1 == 1;
        if bit {
            *a += x;
        } else if signed {
            *a -= x;
        }
    }
}

/// A row of a product's values before the epilogue.
#[derive(Clone, Copy, Debug)]
pub(super) enum Row<'a> {
    /// Integer values (counts, semiring values).
    I32(&'a [i32]),
    /// `f32` values (an `f32` left operand, dequantised codes, `binarize`).
    F32(&'a [f32]),
}

impl Row<'_> {
    fn len(&self) -> usize {
        match self {
            Row::I32(v) => v.len(),
            Row::F32(v) => v.len(),
        }
    }
    #[inline(always)]
    fn get(&self, j: usize) -> f32 {
        match self {
            Row::I32(v) => v[j] as f32,
            Row::F32(v) => v[j],
        }
    }
    fn from(&self, j: usize) -> Self {
        match self {
            Row::I32(v) => Row::I32(&v[j..]),
            Row::F32(v) => Row::F32(&v[j..]),
        }
    }
}

/// `out[j] = v[j] * r * col[j] + bias[j]` (in that order, in `f32`): the
/// scaled output of a product row.
#[inline]
pub(super) fn scale_row(isa: Isa, v: Row<'_>, r: f32, col: &[f32], bias: &[f32], out: &mut [f32]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx512 is chosen only where the CPU has AVX-512F.
        Isa::Avx512 => unsafe { gather::scale_row(v, r, col, bias, out) },
        _ => scale_row_portable(v, r, col, bias, out),
    }
}

#[inline]
fn scale_row_portable(v: Row<'_>, r: f32, col: &[f32], bias: &[f32], out: &mut [f32]) {
    for (j, o) in out.iter_mut().enumerate() {
        *o = v.get(j) * r * col[j] + bias[j];
    }
}

/// `out`'s bit `j` = `v[j] * r * col[j] + bias[j] >= t[j]` (NaN gives 0;
/// `out`'s padding bits 0): a product row re-binarised without an `f32`
/// row in memory, and `binarize` (with identity factors).
#[inline]
pub(super) fn scale_pack(
    isa: Isa,
    v: Row<'_>,
    r: f32,
    col: &[f32],
    bias: &[f32],
    t: &[f32],
    out: &mut [u64],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx512 is chosen only where the CPU has AVX-512F.
        Isa::Avx512 => unsafe { gather::scale_pack(v, r, col, bias, t, out) },
        _ => scale_pack_portable(v, r, col, bias, t, out),
    }
}

#[inline]
fn scale_pack_portable(v: Row<'_>, r: f32, col: &[f32], bias: &[f32], t: &[f32], out: &mut [u64]) {
    let n = v.len();
    for (w, o) in out.iter_mut().enumerate() {
        let mut x = 0u64;
        for b in 0..(n - w * 64).min(64) {
            let j = w * 64 + b;
            x |= ((v.get(j) * r * col[j] + bias[j] >= t[j]) as u64) << b;
        }
        *o = x;
    }
}

/// The AVX-512F gathers: sixteen `i32` or `f32` counters per masked add,
/// the mask being sixteen bits of the row.
#[cfg(target_arch = "x86_64")]
mod gather {
    use std::arch::x86_64::*;

    use super::Row;

    /// The `k`-th group of sixteen bits of `words`.
    #[inline(always)]
    fn mask16(words: &[u64], q: usize) -> u16 {
        (words[q / 4] >> (16 * (q % 4))) as u16
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn add_bits(counts: &mut [i32], words: &[u64], weight: i32) {
        let n = counts.len();
        let wv = _mm512_set1_epi32(weight);
        let full = n / 16;
        let p = counts.as_mut_ptr();
        for q in 0..full {
            let m = mask16(words, q);
            if m != 0 {
                let c = _mm512_loadu_si512(p.add(16 * q) as *const _);
                _mm512_storeu_si512(p.add(16 * q) as *mut _, _mm512_mask_add_epi32(c, m, c, wv));
            }
        }
        if full * 16 < n {
            super::add_bits_portable(
                &mut counts[full * 16..],
                &[words[full / 4] >> (16 * (full % 4))],
                weight,
            );
        }
    }

    /// Sixteen scaled values from entry `16 q` on.
    #[inline(always)]
    unsafe fn scaled16(v: Row<'_>, q: usize, r: __m512, col: &[f32], bias: &[f32]) -> __m512 {
        let x = match v {
            Row::I32(s) => {
                _mm512_cvtepi32_ps(_mm512_loadu_si512(s.as_ptr().add(16 * q) as *const _))
            }
            Row::F32(s) => _mm512_loadu_ps(s.as_ptr().add(16 * q)),
        };
        let c = _mm512_loadu_ps(col.as_ptr().add(16 * q));
        let b = _mm512_loadu_ps(bias.as_ptr().add(16 * q));
        _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(x, r), c), b)
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn scale_row(v: Row<'_>, r: f32, col: &[f32], bias: &[f32], out: &mut [f32]) {
        let n = out.len();
        let (full, rv) = (n / 16, _mm512_set1_ps(r));
        for q in 0..full {
            _mm512_storeu_ps(out.as_mut_ptr().add(16 * q), scaled16(v, q, rv, col, bias));
        }
        let j = full * 16;
        super::scale_row_portable(v.from(j), r, &col[j..], &bias[j..], &mut out[j..]);
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn scale_pack(
        v: Row<'_>,
        r: f32,
        col: &[f32],
        bias: &[f32],
        t: &[f32],
        out: &mut [u64],
    ) {
        let n = v.len();
        let (full, rv) = (n / 16, _mm512_set1_ps(r));
        for q in 0..full {
            let s = scaled16(v, q, rv, col, bias);
            let m = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(s, _mm512_loadu_ps(t.as_ptr().add(16 * q)));
            let w = &mut out[q / 4];
            let m = (m as u64) << (16 * (q % 4));
            *w = if q.is_multiple_of(4) { m } else { *w | m };
        }
        let j = full * 16;
        if j < n {
            let mut tail = [0u64];
            super::scale_pack_portable(v.from(j), r, &col[j..], &bias[j..], &t[j..], &mut tail);
            let w = &mut out[full / 4];
            let m = tail[0] << (16 * (full % 4));
            *w = if full.is_multiple_of(4) { m } else { *w | m };
        }
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn add_scaled_bits(acc: &mut [f32], words: &[u64], x: f32, signed: bool) {
        let n = acc.len();
        let (xv, nx) = (_mm512_set1_ps(x), _mm512_set1_ps(-x));
        let full = n / 16;
        let p = acc.as_mut_ptr();
        for q in 0..full {
            let m = mask16(words, q);
            let a = _mm512_loadu_ps(p.add(16 * q));
            let r = if signed {
                _mm512_add_ps(a, _mm512_mask_blend_ps(m, nx, xv))
            } else {
                _mm512_mask_add_ps(a, m, a, xv)
            };
            _mm512_storeu_ps(p.add(16 * q), r);
        }
        if full * 16 < n {
            let tail = [words[full / 4] >> (16 * (full % 4))];
            super::add_scaled_bits_portable(&mut acc[full * 16..], &tail, x, signed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::BitLayout;

    /// A pseudo-random bit matrix (xorshift), with some all-zero and all-one lines.
    fn random(m: usize, n: usize, layout: BitLayout, seed: u64) -> BitMatrix {
        let mut x = seed | 1;
        BitMatrix::from_fn(m, n, layout, |i, j| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = if layout == BitLayout::RowMajor { i } else { j };
            match line % 7 {
                3 => false,
                5 => true,
                _ => x & 1 == 1,
            }
        })
        .unwrap()
    }

    #[test]
    fn every_isa_gives_the_same_counts() {
        let isas: Vec<Isa> = [Isa::Plain, Isa::detect()].into();
        for (m, k, n) in [
            (1, 1, 1),
            (5, 63, 9),
            (9, 64, 17),
            (13, 130, 33),
            (4, 700, 70),
            (3, 0, 5),
        ] {
            let a = random(m, k, BitLayout::RowMajor, 7 + m as u64);
            let w = random(k, n, BitLayout::ColMajor, 11 + n as u64);
            let mut want = vec![0; m * n];
            for i in 0..m {
                for j in 0..n {
                    want[i * n + j] = (0..k)
                        .filter(|&p| a.get(i, p) == Some(true) && w.get(p, j) == Some(true))
                        .count() as i32;
                }
            }
            for &isa in &isas {
                let rhs = DotRhs::new(&w, isa);
                let mut got = vec![-1; m * n];
                and_counts(&a, 0..m, &rhs, &mut got);
                assert_eq!(got, want, "{isa:?} {m}x{k}x{n}");
                if m > 2 {
                    let mut part = vec![-1; (m - 2) * n];
                    and_counts(&a, 1..m - 1, &rhs, &mut part);
                    assert_eq!(part, want[n..(m - 1) * n], "{isa:?} rows 1..{}", m - 1);
                }
            }
        }
    }

    #[test]
    fn every_isa_gathers_and_packs_the_same() {
        let isa = Isa::detect();
        for n in [1usize, 15, 16, 17, 63, 64, 65, 130, 257] {
            let b = random(3, n, BitLayout::RowMajor, n as u64);
            for l in 0..3 {
                let (mut c0, mut c1) = (vec![1i32; n], vec![1i32; n]);
                add_bits(Isa::Plain, &mut c0, b.line(l), 3);
                add_bits(isa, &mut c1, b.line(l), 3);
                assert_eq!(c0, c1, "add_bits n={n}");
                for signed in [false, true] {
                    let (mut f0, mut f1) = (vec![0.5f32; n], vec![0.5f32; n]);
                    add_scaled_bits(Isa::Plain, &mut f0, b.line(l), -1.25, signed);
                    add_scaled_bits(isa, &mut f1, b.line(l), -1.25, signed);
                    assert_eq!(f0, f1, "add_scaled_bits n={n}");
                }
                let v: Vec<f32> = (0..n)
                    .map(|j| [0.0, -1.0, f32::NAN, 2.0][(j + l) % 4])
                    .collect();
                let t: Vec<f32> = (0..n).map(|j| [0.0, 1.0, -1.0][j % 3]).collect();
                let c: Vec<f32> = (0..n).map(|j| [1.0, -2.0, 0.5][j % 3]).collect();
                let bias: Vec<f32> = (0..n).map(|j| [-0.0, 0.25][j % 2]).collect();
                let iv: Vec<i32> = (0..n as i32).map(|j| j - 40).collect();
                for row in [Row::F32(&v), Row::I32(&iv)] {
                    let (mut w0, mut w1) = (vec![u64::MAX; b.stride()], vec![u64::MAX; b.stride()]);
                    scale_pack(Isa::Plain, row, -1.5, &c, &bias, &t, &mut w0);
                    scale_pack(isa, row, -1.5, &c, &bias, &t, &mut w1);
                    assert_eq!(w0, w1, "scale_pack n={n}");
                    let s: Vec<f32> = (0..n).map(|j| row.get(j) * -1.5 * c[j] + bias[j]).collect();
                    let want: Vec<bool> = s.iter().zip(&t).map(|(x, y)| x >= y).collect();
                    let got: Vec<bool> = (0..n).map(|j| w0[j / 64] >> (j % 64) & 1 == 1).collect();
                    assert_eq!(got, want);
                    let (mut f0, mut f1) = (vec![0f32; n], vec![0f32; n]);
                    scale_row(Isa::Plain, row, -1.5, &c, &bias, &mut f0);
                    scale_row(isa, row, -1.5, &c, &bias, &mut f1);
                    assert_eq!(
                        f0.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        f1.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    );
                    assert_eq!(
                        f0.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        s.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    );
                }
            }
        }
    }
}
