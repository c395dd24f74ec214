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
//! `n_l` clusters and `m_l` edges, and the levels shrink geometrically.

use super::graph::SymGraph;

const NONE: u32 = u32::MAX;
/// Intermediate vertices of higher degree are not walked through when
/// counting common neighbours (the hubs: walking them costs `deg^2`).
const CAP: usize = 256;
/// Most second-hop visits per cluster and level.
const BUDGET: usize = 16384;
/// Levels of pairing: clusters of up to `2^LEVELS` vertices.
const LEVELS: usize = 7;

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
        let mut mate = vec![NONE; nc];
        for &c in &visit {
            let ci = c as usize;
            if mate[ci] != NONE {
                continue;
            }
            touched.clear();
            let mut visits = 0usize;
            // One point for a direct edge, one per common neighbour.
            for &x in &adj[ptr[ci]..ptr[ci + 1]] {
                let x = x as usize;
                if mate[x] == NONE {
                    if score[x] == 0 {
                        touched.push(x as u32);
                    }
                    score[x] += 1;
                }
                if deg(x) <= CAP && visits < BUDGET {
                    visits += deg(x);
                    for &d in &adj[ptr[x]..ptr[x + 1]] {
                        let d = d as usize;
                        if d != ci && mate[d] == NONE {
                            if score[d] == 0 {
                                touched.push(d as u32);
                            }
                            score[d] += 1;
                        }
                    }
                }
            }
            let mut best = NONE;
            let mut bs = 0;
            for &d in &touched {
                let s = score[d as usize];
                if s > bs || (s == bs && d < best) {
                    bs = s;
                    best = d;
                }
                score[d as usize] = 0;
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
                        acc[t as usize] += wt[k];
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
