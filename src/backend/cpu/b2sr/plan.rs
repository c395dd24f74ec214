//! Load balance: split the tile rows into ranges of about equal work (tiles,
//! not rows, so one heavy tile row of a power-law graph does not serialise a
//! whole thread's share), aligned so every range owns whole output words.

use std::ops::Range;

/// Work below this many units (tiles plus tile rows, or CSR entries plus rows)
/// runs on one thread: spawning costs more than it saves.
const SEQUENTIAL_BELOW: usize = 1 << 14;
/// For [`weighted_ranges`] in the boolean pull (`bin_bin_bin`): estimated
/// single-thread work (ns) below which a product runs on the calling thread. Handing work to
/// rayon's pool from outside it costs a wake-up of a sleeping worker and of
/// the caller (on the 2-core benchmark machine under load, a 25 us `mxv` took
/// 34-39 us on 2 threads), so two threads pay only well above twice that.
pub(crate) const PULL_SEQUENTIAL_BELOW_NS: usize = 32_000;
/// The same for the other kernels, whose work per tile is several times the
/// boolean pull's that the estimate measures (a set-bit walk with a semiring
/// operation per entry, popcounts, atomic ORs): 4 us of estimate is 20-40 us
/// or more of theirs. (This keeps their split as before the cost model was
/// refitted for the faster pull.)
pub(crate) const SEQUENTIAL_BELOW_NS: usize = 4_000;
/// Ranges per rayon thread, so stealing can even out what the tile count misses.
const RANGES_PER_THREAD: usize = 8;

/// Tile-row ranges with about equal `tiles + tile rows`, each starting at a
/// multiple of `align` tile rows. `tile_row_ptr` has `tile_rows + 1` entries.
pub(crate) fn balanced_ranges(tile_row_ptr: &[u32], align: usize) -> Vec<Range<usize>> {
    balanced_by(tile_row_ptr.len() - 1, align, |tr| {
        tile_row_ptr[tr] as usize + tr
    })
}

/// Like [`balanced_ranges`], with work measured by the sampling profile's cost
/// model ([`crate::storage::b2sr::profile::tile_work`]): a `k x k` tile weighs
/// more than a small one, so a few big tiles still get split across threads.
/// One range (the calling thread) below `sequential_below_ns` of estimated work.
pub(crate) fn weighted_ranges(
    tile_row_ptr: &[u32],
    align: usize,
    k: usize,
    sequential_below_ns: usize,
) -> Vec<Range<usize>> {
    use crate::storage::b2sr::profile::{tile_work, TILE_ROW_WORK, WORK_PER_NS};
    let w = tile_work(k);
    balanced_by_below(tile_row_ptr.len() - 1, align, sequential_below_ns, |tr| {
        (tile_row_ptr[tr] as usize * w + tr * TILE_ROW_WORK) / WORK_PER_NS
    })
}

/// Ranges of `0..units` with about equal work, where `cost(u)` is the work
/// of units `0..u` (non-decreasing, `cost(0) == 0`); each range starts at a
/// multiple of `align`.
pub(crate) fn balanced_by(
    units: usize,
    align: usize,
    cost: impl Fn(usize) -> usize,
) -> Vec<Range<usize>> {
    balanced_by_below(units, align, SEQUENTIAL_BELOW, cost)
}

/// [`balanced_by`] with one range (the calling thread) when the total work is
/// below `sequential_below`, and ranges of at least a quarter of it otherwise.
pub(crate) fn balanced_by_below(
    units: usize,
    align: usize,
    sequential_below: usize,
    cost: impl Fn(usize) -> usize,
) -> Vec<Range<usize>> {
    let total = cost(units);
    let parts = if total < sequential_below {
        1
    } else {
        (rayon::current_num_threads() * RANGES_PER_THREAD)
            .min(total / (sequential_below / 4))
            .max(1)
    };
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 1..=parts {
        let end = if p == parts {
            units
        } else {
            // First unit whose cost reaches the p-th share, rounded to `align`.
            let target = total * p / parts;
            let (mut lo, mut hi) = (start, units);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if cost(mid) < target {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            (lo.div_ceil(align) * align).min(units)
        };
        if end > start {
            out.push(start..end);
            start = end;
        }
    }
    if out.is_empty() {
        out.push(0..units);
    }
    out
}

/// Runs `f` on every piece of work: on rayon's pool when there are several,
/// on the calling thread when there is one (handing a single piece to the
/// pool costs a wake-up and a wait, several microseconds on a busy machine).
pub(crate) fn for_each_piece<W: Send>(work: Vec<W>, f: impl Fn(W) + Sync + Send) {
    use rayon::prelude::*;
    if work.len() <= 1 {
        work.into_iter().for_each(f);
    } else {
        work.into_par_iter().for_each(f);
    }
}

/// Splits `data` into consecutive pieces of the given lengths.
pub(crate) fn split_mut<'a, T>(mut data: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(lens.len());
    for &l in lens {
        let all = std::mem::take(&mut data);
        let at = l.min(all.len());
        let (head, tail) = all.split_at_mut(at);
        out.push(head);
        data = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_and_align() {
        // A skewed matrix: one tile row holds most tiles.
        let mut ptr = vec![0u32];
        for tr in 0..100_000u32 {
            let add = if tr == 5000 { 200_000 } else { 1 };
            ptr.push(ptr.last().unwrap() + add);
        }
        let r = balanced_ranges(&ptr, 16);
        assert!(r.len() > 1);
        assert_eq!(r.first().unwrap().start, 0);
        assert_eq!(r.last().unwrap().end, 100_000);
        for w in r.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert_eq!(w[1].start % 16, 0);
        }
        let small = balanced_ranges(&[0, 1, 2], 1);
        assert_eq!(small, vec![0..2]);
    }
}
