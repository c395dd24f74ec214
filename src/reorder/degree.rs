//! Degree order: hubs first.

use super::graph::SymGraph;

/// The vertices by decreasing degree in the symmetrised graph, ties by id
/// (a stable counting sort: `O(n)`).
pub(crate) fn by_degree(g: &SymGraph) -> Vec<u32> {
    let n = g.n();
    let maxd = (0..n).map(|v| g.degree(v)).max().unwrap_or(0);
    // count[d]: vertices of degree > d come first
    let mut start = vec![0usize; maxd + 2];
    for v in 0..n {
        start[maxd - g.degree(v) + 1] += 1;
    }
    for d in 0..=maxd {
        start[d + 1] += start[d];
    }
    let mut out = vec![0u32; n];
    for v in 0..n {
        let s = &mut start[maxd - g.degree(v)];
        out[*s] = v as u32;
        *s += 1;
    }
    out
}
