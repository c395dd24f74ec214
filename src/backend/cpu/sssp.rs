//! `ext::delta_stepping` on the host, over the CSR arrays of the split edges.
//!
//! The buckets are a sorted map from the bucket number `⌊d / Δ⌋` to the
//! vertices filed there (an entry whose distance has since fallen to an
//! earlier bucket is stale and skipped). A bucket's light edges are relaxed
//! pass after pass, each pass from the vertices that the one before improved
//! into the bucket; then its heavy edges once, from every vertex the bucket
//! settled. Distances are kept as the bit patterns of non-negative doubles
//! (whose order as integers is the doubles' order): a pass with enough edges
//! is split over rayon's threads and improves them by atomic minima, a
//! smaller one runs on the calling thread with plain loads and stores.
//!
//! Whatever the order of the relaxations, a search that stops only when no
//! edge improves a distance ends at the least fixed point of
//! `d(v) = min(d(v), d(u) + w)` (addition is monotone), so the distances
//! equal the generic default's bit for bit.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::storage::Csr;

/// Edges a pass must have to be split over rayon's threads.
const PAR_EDGES: usize = 1 << 14;
/// Vertices of a parallel pass taken by one task.
const PIECE: usize = 128;

/// The distances from the nearest of `sources` (in range, at least one)
/// along the edges `light` (`w <= delta`) and `heavy` (`w > delta`), both
/// `n x n` with finite non-negative weights; `∞` where no source reaches.
pub(super) fn delta_stepping(
    light: &Csr<f64>,
    heavy: &Csr<f64>,
    delta: f64,
    sources: &[usize],
) -> Vec<f64> {
    let mut s = Search::new(light.nrows(), delta);
    let mut start: Vec<u32> = sources.iter().map(|&v| v as u32).collect();
    start.sort_unstable();
    start.dedup();
    for &v in &start {
        s.dist[v as usize].store(0f64.to_bits(), Relaxed);
    }
    s.buckets.insert(0, start);
    while let Some(b) = s.buckets.keys().next().copied() {
        let mut settled = Vec::new();
        while let Some(filed) = s.buckets.remove(&b) {
            let mut frontier = s.still_in(filed, b);
            while !frontier.is_empty() {
                settled.extend_from_slice(&frontier);
                let improved = s.relax(light, &frontier);
                frontier.clear();
                s.file(improved, b, &mut frontier);
            }
        }
        if heavy.nnz() > 0 {
            settled.sort_unstable();
            settled.dedup();
            let improved = s.relax(heavy, &settled);
            let mut again = Vec::new();
            s.file(improved, b, &mut again);
            if !again.is_empty() {
                s.buckets.entry(b).or_default().extend(again);
            }
        }
    }
    s.dist
        .into_iter()
        .map(|d| f64::from_bits(d.into_inner()))
        .collect()
}

/// The state of one search.
struct Search {
    delta: f64,
    /// The distances' bits (`∞` until reached).
    dist: Vec<AtomicU64>,
    /// The last list each vertex joined (by [`Search::fresh`]'s numbers), so
    /// that a list holds a vertex once.
    mark: Vec<AtomicU32>,
    marks: u32,
    buckets: BTreeMap<u64, Vec<u32>>,
}

impl Search {
    fn new(n: usize, delta: f64) -> Self {
        Search {
            delta,
            dist: (0..n)
                .map(|_| AtomicU64::new(f64::INFINITY.to_bits()))
                .collect(),
            mark: (0..n).map(|_| AtomicU32::new(0)).collect(),
            marks: 0,
            buckets: BTreeMap::new(),
        }
    }

    /// A number no list has used since the marks were last cleared.
    fn fresh(&mut self) -> u32 {
        if self.marks == u32::MAX {
            self.mark.iter().for_each(|m| m.store(0, Relaxed));
            self.marks = 0;
        }
        self.marks += 1;
        self.marks
    }

    /// The bucket of `v`'s distance now (saturating for distances past
    /// `u64::MAX` widths: they share the last bucket).
    fn bucket_of(&self, v: u32) -> u64 {
        (f64::from_bits(self.dist[v as usize].load(Relaxed)) / self.delta) as u64
    }

    /// The vertices of `filed` (bucket `b`'s list) whose distance is still in
    /// `b`, each once.
    fn still_in(&mut self, mut filed: Vec<u32>, b: u64) -> Vec<u32> {
        let id = self.fresh();
        filed.retain(|&v| {
            let fresh = self.bucket_of(v) == b && self.mark[v as usize].load(Relaxed) != id;
            if fresh {
                self.mark[v as usize].store(id, Relaxed);
            }
            fresh
        });
        filed
    }

    /// Files the vertices of `improved`: those in bucket `b` (or, through
    /// rounding, before it) into `current`, the others into their buckets.
    fn file(&mut self, improved: Vec<u32>, b: u64, current: &mut Vec<u32>) {
        for v in improved {
            match self.bucket_of(v) {
                k if k <= b => current.push(v),
                k => self.buckets.entry(k).or_default().push(v),
            }
        }
    }

    /// Relaxes the out-edges in `edges` of every vertex of `from`, each from
    /// its distance as it is read; returns the vertices whose distance fell,
    /// each once.
    fn relax(&mut self, edges: &Csr<f64>, from: &[u32]) -> Vec<u32> {
        let id = self.fresh();
        let rp = edges.row_ptr();
        let (dist, mark) = (&self.dist, &self.mark);
        let work: usize = from
            .iter()
            .map(|&u| rp[u as usize + 1] - rp[u as usize])
            .sum();
        if work < PAR_EDGES {
            // this thread alone: plain loads and stores
            return relax_from(edges, dist, from, |v, cand| {
                dist[v].store(cand, Relaxed);
                let fresh = mark[v].load(Relaxed) != id;
                mark[v].store(id, Relaxed);
                fresh
            });
        }
        from.par_chunks(PIECE)
            .flat_map_iter(|piece| {
                relax_from(edges, dist, piece, |v, cand| {
                    cand < dist[v].fetch_min(cand, Relaxed) && mark[v].swap(id, Relaxed) != id
                })
            })
            .collect()
    }
}

/// The relaxation loop of [`Search::relax`] over the out-edges of `from`:
/// where an edge's candidate `d(u) + w` (as bits) is below `v`'s distance as
/// read, `lower(v, candidate)` lowers it and says whether `v` is new to the
/// pass's list; the new vertices are returned.
fn relax_from(
    edges: &Csr<f64>,
    dist: &[AtomicU64],
    from: &[u32],
    lower: impl Fn(usize, u64) -> bool,
) -> Vec<u32> {
    let (rp, cols, w) = (edges.row_ptr(), edges.col_idx(), edges.values());
    let mut out = Vec::new();
    for &u in from {
        let du = f64::from_bits(dist[u as usize].load(Relaxed));
        for p in rp[u as usize]..rp[u as usize + 1] {
            let (v, cand) = (cols[p] as usize, (du + w[p]).to_bits());
            if cand < dist[v].load(Relaxed) && lower(v, cand) {
                out.push(v as u32);
            }
        }
    }
    out
}
