//! The popcount kernels every bit product is made of: `popc(a_i & w_j)`
//! for a block of rows against every column (the BMM dot product), and
//! adding a row of bits into per-column counters (the BSpMM gather).

use std::ops::Range;

use crate::storage::BitMatrix;

/// `popc` of every line of `b`.
pub(super) fn line_popcounts(b: &BitMatrix) -> Vec<i32> {
    (0..b.lines())
        .map(|l| b.line(l).iter().map(|w| w.count_ones() as i32).sum())
        .collect()
}

/// `out[(i - rows.start) * n + j] = popc(a_i & w_j)` for `i` in `rows` and
/// every line `j` of `w` (`a` row-major, `w` column-major, same stride).
pub(super) fn and_counts(a: &BitMatrix, rows: Range<usize>, w: &BitMatrix, out: &mut [i32]) {
    let n = w.lines();
    for (i, o) in rows.zip(out.chunks_mut(n)) {
        let ai = a.line(i);
        for (j, c) in o.iter_mut().enumerate() {
            *c = ai
                .iter()
                .zip(w.line(j))
                .map(|(x, y)| (x & y).count_ones() as i32)
                .sum();
        }
    }
}

/// `counts[j] += weight` for every set bit `j` of `words`.
#[inline]
pub(super) fn add_bits(counts: &mut [i32], words: &[u64], weight: i32) {
    for (w, &word) in words.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            counts[w * 64 + x.trailing_zeros() as usize] += weight;
            x &= x - 1;
        }
    }
}
