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
        let (rp, cols, w) = (edges.row_ptr(), edges.col_idx(), edges.values());
        let (dist, mark) = (&self.dist, &self.mark);
        let work: usize = from
            .iter()
            .map(|&u| rp[u as usize + 1] - rp[u as usize])
            .sum();
        if work < PAR_EDGES {
            let mut out = Vec::new();
            for &u in from {
                let du = f64::from_bits(dist[u as usize].load(Relaxed));
                for p in rp[u as usize]..rp[u as usize + 1] {
                    let (v, cand) = (cols[p] as usize, (du + w[p]).to_bits());
                    if cand < dist[v].load(Relaxed) {
                        dist[v].store(cand, Relaxed);
                        if mark[v].load(Relaxed) != id {
                            mark[v].store(id, Relaxed);
                            out.push(v as u32);
                        }
                    }
                }
            }
            return out;
        }
        from.par_chunks(PIECE)
            .flat_map_iter(|piece| {
                let mut out = Vec::new();
                for &u in piece {
                    let du = f64::from_bits(dist[u as usize].load(Relaxed));
                    for p in rp[u as usize]..rp[u as usize + 1] {
                        let (v, cand) = (cols[p] as usize, (du + w[p]).to_bits());
                        if cand < dist[v].load(Relaxed)
                            && cand < dist[v].fetch_min(cand, Relaxed)
                            && mark[v].swap(id, Relaxed) != id
                        {
                            out.push(v as u32);
                        }
                    }
                }
                out
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{Matrix, MatrixRepr};
    use crate::ext::{sssp::delta_stepping_generic, DeltaEdges};
    use crate::{Backend, Cpu};
    use rand::{Rng, SeedableRng};

    /// Dijkstra with a binary heap on the whole weight matrix.
    fn dijkstra(w: &Csr<f64>, sources: &[usize]) -> Vec<f64> {
        use std::cmp::Reverse;
        let mut d = vec![f64::INFINITY; w.nrows()];
        let mut heap = std::collections::BinaryHeap::new();
        for &s in sources {
            d[s] = 0.0;
            heap.push(Reverse((0u64, s)));
        }
        while let Some(Reverse((bits, u))) = heap.pop() {
            if bits != d[u].to_bits() {
                continue;
            }
            for p in w.row_ptr()[u]..w.row_ptr()[u + 1] {
                let v = w.col_idx()[p] as usize;
                let c = d[u] + w.values()[p];
                if c < d[v] {
                    d[v] = c;
                    heap.push(Reverse((c.to_bits(), v)));
                }
            }
        }
        d
    }

    fn csr(m: &Matrix<f64>) -> &Csr<f64> {
        match m.repr() {
            MatrixRepr::Csr(c) => c,
            MatrixRepr::B2sr { .. } => unreachable!("the split edges are CSR"),
        }
    }

    /// On random directed graphs (self loops, zero weights, integer and
    /// fractional weights, unreached vertices), from one or several
    /// sources, with widths from below the least weight to above the
    /// greatest, and graphs large enough for the parallel passes: the same
    /// bits as the generic default and as Dijkstra.
    #[test]
    fn host_search_matches_the_generic_default_and_dijkstra() {
        let cpu = Cpu::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for case in 0..40 {
            let n = [1, 2, 7, 64, 300, 3000][case % 6];
            let m = rng.gen_range(0..6 * n + 1);
            let fractional = case % 3 == 0;
            let pairs: std::collections::BTreeSet<(usize, usize)> = (0..m)
                .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n)))
                .collect();
            let t = pairs
                .into_iter()
                .map(|(i, j)| {
                    let x = if fractional {
                        rng.gen_range(0.0..10.0) * rng.gen_range(0.0..1.0f64)
                    } else {
                        rng.gen_range(0..=100) as f64
                    };
                    (i, j, x)
                })
                .collect();
            let w = Matrix::from_triplets(n, n, t).unwrap();
            let delta = [0.01, 0.5, 7.0, 25.0, 1e9][case % 5];
            let edges = DeltaEdges::new(&cpu, &w, delta).unwrap();
            let sources: Vec<usize> = (0..1 + case % 3).map(|_| rng.gen_range(0..n)).collect();
            let got = delta_stepping(csr(edges.light()), csr(edges.heavy()), delta, &sources);
            let generic = delta_stepping_generic(&cpu, &edges, &sources).unwrap();
            let generic = cpu.download_vector(&generic).unwrap().to_vec(f64::NAN);
            let bits = |d: &[f64]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&got),
                bits(&generic),
                "case {case}: against the generic default"
            );
            assert_eq!(
                bits(&got),
                bits(&dijkstra(&w.as_csr(), &sources)),
                "case {case}: against Dijkstra"
            );
        }
    }

    /// A long path whose light passes are each one vertex, and a star whose
    /// one pass has enough edges for rayon's threads.
    #[test]
    fn paths_and_stars() {
        let cpu = Cpu::new();
        let n = 40_000;
        let path: Vec<_> = (0..n - 1)
            .map(|i| (i, i + 1, 1.0 + (i % 3) as f64))
            .collect();
        let star: Vec<_> = (1..n).map(|i| (0, i, (i % 5) as f64)).collect();
        for t in [path, star] {
            let w = Matrix::from_triplets(n, n, t).unwrap();
            let edges = DeltaEdges::new(&cpu, &w, 2.0).unwrap();
            let got = delta_stepping(csr(edges.light()), csr(edges.heavy()), 2.0, &[0]);
            assert_eq!(got, dijkstra(&w.as_csr(), &[0]));
        }
    }
}
