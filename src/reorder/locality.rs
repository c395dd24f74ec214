//! The locality order: hierarchical pairing, a tile-aligned cousin of Rabbit
//! order's community agglomeration.
//!
//! A `k x k` tile is non-empty exactly when some edge joins the `k` vertices
//! of its row block to the `k` vertices of its column block. Contracting each
//! aligned block of `k` consecutive vertices into one cluster, the number of
//! tiles is the number of distinct (cluster, cluster) edges of the contracted
//! graph. So the order is built bottom up, as a multilevel coarsening: at
//! each level every cluster is paired with the unpaired cluster it shares the
//! most with (one point per common neighbour, counted through neighbours of
//! degree at most [`CAP`] and at most [`BUDGET`] visits per cluster, plus one
//! for a direct edge): merging two clusters with `c` common neighbours
//! merges `c` pairs of contracted edges, i.e. saves `c` tiles at the next
//! level. Clusters are visited by decreasing degree; clusters left
//! without a partner are paired by their highest-degree neighbour (so the
//! leaves of one hub pair up). Every pair merges into a cluster of the next
//! level, and the contracted graph (edge weights summed) is the next level's
//! graph. After [`LEVELS`] levels (clusters of 128 vertices, beyond the
//! largest tile), the top clusters are laid out breadth first over the
//! contracted graph (heaviest first, neighbours by edge weight) and expanded
//! down the pairing tree, so that every cluster of level `l` is an aligned
//! block of `2^l` consecutive ids: each merge that saves a distinct
//! contracted edge saves a tile at every tile size from `2^l` up.
//!
//! Work: each level costs `O(m_l + n_l * BUDGET)` for a contracted graph of
//! `n_l` clusters and `m_l` edges, and the levels shrink geometrically. With
//! [`PARALLEL_THREADS`] threads or more, the candidates of every cluster are
//! scored in parallel before the (serial, cheap) greedy pass picks from
//! them; the order is the same either way.

use rayon::prelude::*;

use super::graph::SymGraph;

const NONE: u32 = u32::MAX;
/// Intermediate vertices of higher degree are not walked through when
/// counting common neighbours (the hubs: walking them costs `deg^2`).
const CAP: usize = 256;
/// Most second-hop visits per cluster and level.
const BUDGET: usize = 16384;
/// Levels of pairing: clusters of up to `2^LEVELS` vertices.
const LEVELS: usize = 7;
/// Candidates kept per cluster by the parallel scoring.
const TOP: usize = 8;
/// Threads from which the candidates are scored in parallel first.
const PARALLEL_THREADS: usize = 4;

thread_local! {
    /// Per-thread scores (all zero between uses) and touched list.
    static SCRATCH: std::cell::RefCell<(Vec<u32>, Vec<u32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The [`TOP`] best scored candidates (score down, id up; [`NONE`] padded),
/// and whether there were more; resets their scores.
fn top_candidates(score: &mut [u32], touched: &[u32]) -> ([u32; TOP], bool) {
    let mut best = [NONE; TOP];
    let mut best_s = [0u32; TOP];
    for &d in touched {
        let sd = std::mem::take(&mut score[d as usize]);
        if best[TOP - 1] != NONE
            && (sd < best_s[TOP - 1] || (sd == best_s[TOP - 1] && d > best[TOP - 1]))
        {
            continue;
        }
        let mut at = TOP - 1;
        while at > 0
            && (best[at - 1] == NONE
                || sd > best_s[at - 1]
                || (sd == best_s[at - 1] && d < best[at - 1]))
        {
            at -= 1;
        }
        best.copy_within(at..TOP - 1, at + 1);
        best_s.copy_within(at..TOP - 1, at + 1);
        best[at] = d;
        best_s[at] = sd;
    }
    (best, touched.len() > TOP)
}

/// Scores cluster `c`'s candidates `d` with `keep(d)`: one point for a direct
/// edge, one per common neighbour (through neighbours of degree at most
/// [`CAP`], at most [`BUDGET`] visits). The scored candidates are left in
/// `touched`, their scores in `score` (to be reset by the caller).
fn score_candidates(
    ptr: &[usize],
    adj: &[u32],
    c: usize,
    keep: impl Fn(usize) -> bool,
    score: &mut [u32],
    touched: &mut Vec<u32>,
) {
    touched.clear();
    let mut visits = 0usize;
    for &x in &adj[ptr[c]..ptr[c + 1]] {
        let x = x as usize;
        if keep(x) {
            if score[x] == 0 {
                touched.push(x as u32);
            }
            score[x] += 1;
        }
        let dx = ptr[x + 1] - ptr[x];
        if dx <= CAP && visits < BUDGET {
            visits += dx;
            for &d in &adj[ptr[x]..ptr[x + 1]] {
                let d = d as usize;
                if d != c && keep(d) {
                    if score[d] == 0 {
                        touched.push(d as u32);
                    }
                    score[d] += 1;
                }
            }
        }
    }
}

/// The locality order (`order[new] = old`).
pub(crate) fn locality(g: &SymGraph) -> Vec<u32> {
    let n = g.n();
    // Level graph: ptr/adj/w.
    let mut ptr = g.ptr.clone();
    let mut adj = g.adj.clone();
    let mut wt = vec![1u32; adj.len()];
    // children of each cluster at each level
    let mut tree: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut nc = n;
    let mut score = vec![0u32; n];
    let mut touched: Vec<u32> = Vec::new();
    for _level in 0..LEVELS {
        if nc <= 1 {
            break;
        }
        let deg = |c: usize| ptr[c + 1] - ptr[c];
        let mut visit: Vec<u32> = (0..nc as u32).collect();
        visit.sort_by_key(|&c| (std::cmp::Reverse(deg(c as usize)), c));
        // With several threads, each cluster's best candidates are scored in
        // parallel first (the scores do not depend on which clusters are
        // paired already; about twice the work of the serial pass, since
        // clusters paired before their turn are scored too) ...
        let tops: Option<Vec<([u32; TOP], bool)>> =
            (rayon::current_num_threads() >= PARALLEL_THREADS).then(|| {
                visit
                    .par_iter()
                    .with_min_len(1024)
                    .map(|&c| {
                        SCRATCH.with(|cell| {
                            let (score, touched) = &mut *cell.borrow_mut();
                            if score.len() < nc {
                                score.resize(nc, 0);
                            }
                            score_candidates(&ptr, &adj, c as usize, |_| true, score, touched);
                            top_candidates(score, touched)
                        })
                    })
                    .collect()
            });
        // ... then the greedy pairing in visiting order: the first unpaired
        // of a list is the best unpaired candidate; a full list whose
        // candidates are all paired (or no list) is scored among the
        // unpaired. Both ways give the same pairs.
        let mut mate = vec![NONE; nc];
        for (i, &c) in visit.iter().enumerate() {
            let ci = c as usize;
            if mate[ci] != NONE {
                continue;
            }
            let (mut best, rescore) = match &tops {
                Some(t) => {
                    let (list, more) = &t[i];
                    let b = list
                        .iter()
                        .copied()
                        .take_while(|&d| d != NONE)
                        .find(|&d| mate[d as usize] == NONE)
                        .unwrap_or(NONE);
                    (b, b == NONE && *more)
                }
                None => (NONE, true),
            };
            if rescore {
                score_candidates(
                    &ptr,
                    &adj,
                    ci,
                    |d| mate[d] == NONE,
                    &mut score,
                    &mut touched,
                );
                let mut bs = 0;
                for &d in &touched {
                    let s = std::mem::take(&mut score[d as usize]);
                    if s > bs || (s == bs && d < best) {
                        bs = s;
                        best = d;
                    }
                }
            }
            if best != NONE {
                mate[ci] = best;
                mate[best as usize] = c;
            }
        }
        // Leftovers: by their heaviest-degree neighbour (then id), paired in turn.
        let mut left: Vec<(u32, u32)> = (0..nc as u32)
            .filter(|&c| mate[c as usize] == NONE)
            .map(|c| {
                let ci = c as usize;
                let key = adj[ptr[ci]..ptr[ci + 1]]
                    .iter()
                    .copied()
                    .max_by_key(|&x| (deg(x as usize), std::cmp::Reverse(x)))
                    .unwrap_or(NONE);
                (key, c)
            })
            .collect();
        left.sort_unstable();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(nc.div_ceil(2));
        for c in 0..nc as u32 {
            let m = mate[c as usize];
            if m != NONE && c < m {
                pairs.push((c, m));
            }
        }
        for ch in left.chunks(2) {
            pairs.push((ch[0].1, ch.get(1).map_or(NONE, |x| x.1)));
        }
        // Coarse graph.
        let mut id = vec![0u32; nc];
        for (p, &(a, b)) in pairs.iter().enumerate() {
            id[a as usize] = p as u32;
            if b != NONE {
                id[b as usize] = p as u32;
            }
        }
        let np = pairs.len();
        let mut nptr = vec![0usize; np + 1];
        let mut nadj: Vec<u32> = Vec::with_capacity(adj.len() / 2);
        let mut nwt: Vec<u32> = Vec::with_capacity(adj.len() / 2);
        let mut acc = vec![0u32; np];
        let mut tch: Vec<u32> = Vec::new();
        for (p, &(a, b)) in pairs.iter().enumerate() {
            tch.clear();
            for c in [a, b] {
                if c == NONE {
                    continue;
                }
                let ci = c as usize;
                for k in ptr[ci]..ptr[ci + 1] {
                    let t = id[adj[k] as usize];
                    if t as usize != p {
                        if acc[t as usize] == 0 {
                            tch.push(t);
                        }
                        acc[t as usize] = acc[t as usize].saturating_add(wt[k]);
                    }
                }
            }
            tch.sort_unstable();
            for &t in &tch {
                nadj.push(t);
                nwt.push(acc[t as usize]);
                acc[t as usize] = 0;
            }
            nptr[p + 1] = nadj.len();
        }
        ptr = nptr;
        adj = nadj;
        wt = nwt;
        nc = np;
        tree.push(pairs);
    }
    // Top clusters: breadth first over the last coarse graph, heaviest first.
    let deg = |c: usize| ptr[c + 1] - ptr[c];
    let mut tops: Vec<u32> = (0..nc as u32).collect();
    tops.sort_by_key(|&c| (std::cmp::Reverse(deg(c as usize)), c));
    let mut seen = vec![false; nc];
    let mut top_order: Vec<u32> = Vec::with_capacity(nc);
    let mut nb: Vec<(u32, u32)> = Vec::new();
    for &t in &tops {
        if seen[t as usize] {
            continue;
        }
        seen[t as usize] = true;
        let mut head = top_order.len();
        top_order.push(t);
        while head < top_order.len() {
            let c = top_order[head] as usize;
            head += 1;
            nb.clear();
            for k in ptr[c]..ptr[c + 1] {
                if !seen[adj[k] as usize] {
                    nb.push((adj[k], wt[k]));
                }
            }
            nb.sort_unstable_by_key(|&(r, w)| (std::cmp::Reverse(w), r));
            for &(r, _) in &nb {
                if !seen[r as usize] {
                    seen[r as usize] = true;
                    top_order.push(r);
                }
            }
        }
    }
    // Expand level by level.
    let mut order = top_order;
    for pairs in tree.iter().rev() {
        let mut next = Vec::with_capacity(order.len() * 2);
        for &c in &order {
            let (a, b) = pairs[c as usize];
            next.push(a);
            if b != NONE {
                next.push(b);
            }
        }
        order = next;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reorder::graph::symmetrised_pattern;

    fn with_threads(t: usize, g: &SymGraph) -> Vec<u32> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
            .install(|| locality(g))
    }

    #[test]
    fn parallel_scoring_gives_the_serial_order() {
        for (scale, seed) in [(9, 1), (11, 2)] {
            let a = crate::generate::rmat::<bool>(scale, 8, seed);
            let g = symmetrised_pattern(&a.as_csr());
            let serial = with_threads(1, &g);
            assert_eq!(serial, with_threads(PARALLEL_THREADS, &g));
            let mut sorted = serial.clone();
            sorted.sort_unstable();
            assert!(sorted.iter().enumerate().all(|(i, &v)| i == v as usize));
        }
    }
}
