//! Reverse Cuthill-McKee.

use super::graph::SymGraph;

/// Breadth-first levels from `root` over unvisited-in-`done` vertices:
/// returns the vertices of its component in BFS order and the index where
/// the last level starts. `mark` holds `stamp` for vertices seen in this search.
fn bfs_levels(
    g: &SymGraph,
    root: usize,
    mark: &mut [u32],
    stamp: u32,
    queue: &mut Vec<u32>,
) -> (usize, usize) {
    queue.clear();
    queue.push(root as u32);
    mark[root] = stamp;
    let (mut head, mut level_start, mut depth) = (0, 0, 0);
    while head < queue.len() {
        let level_end = queue.len();
        level_start = head;
        while head < level_end {
            let v = queue[head] as usize;
            head += 1;
            for &w in g.neighbours(v) {
                if mark[w as usize] != stamp {
                    mark[w as usize] = stamp;
                    queue.push(w);
                }
            }
        }
        if queue.len() > level_end {
            depth += 1;
        }
    }
    (level_start, depth)
}

/// A pseudo-peripheral vertex of `start`'s component (George and Liu): BFS
/// from the current vertex, move to a least-degree vertex of the last level
/// while that deepens the level structure (at most a few rounds).
fn pseudo_peripheral(g: &SymGraph, start: usize, mark: &mut [u32], stamp: &mut u32) -> usize {
    let mut queue = Vec::new();
    if *stamp > u32::MAX - 16 {
        mark.fill(0);
        *stamp = 0;
    }
    let mut root = start;
    *stamp += 1;
    let (mut last, mut depth) = bfs_levels(g, root, mark, *stamp, &mut queue);
    for _ in 0..8 {
        let cand = queue[last..]
            .iter()
            .map(|&v| v as usize)
            .min_by_key(|&v| (g.degree(v), v))
            .expect("the last level is not empty");
        *stamp += 1;
        let (l2, d2) = bfs_levels(g, cand, mark, *stamp, &mut queue);
        if d2 <= depth {
            break;
        }
        root = cand;
        last = l2;
        depth = d2;
    }
    root
}

/// Reverse Cuthill-McKee: each component (in order of its least-degree vertex,
/// ties by id) from a pseudo-peripheral vertex, neighbours by increasing
/// degree (ties by id); the whole order reversed at the end.
pub(crate) fn rcm(g: &SymGraph) -> Vec<u32> {
    let n = g.n();
    // Starting candidates: all vertices by degree, then id.
    let mut by_deg: Vec<u32> = (0..n as u32).collect();
    by_deg.sort_by_key(|&v| (g.degree(v as usize), v));
    let mut placed = vec![false; n];
    // Stamps for the pseudo-peripheral searches (never `placed` vertices' component twice).
    let mut mark = vec![0u32; n];
    let mut stamp = 0u32;
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut nbrs: Vec<u32> = Vec::new();
    for &s in &by_deg {
        let s = s as usize;
        if placed[s] {
            continue;
        }
        let root = if g.degree(s) == 0 {
            s
        } else {
            pseudo_peripheral(g, s, &mut mark, &mut stamp)
        };
        let mut head = order.len();
        order.push(root as u32);
        placed[root] = true;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            nbrs.clear();
            nbrs.extend(g.neighbours(v).iter().filter(|&&w| !placed[w as usize]));
            nbrs.sort_unstable_by_key(|&w| (g.degree(w as usize), w));
            for &w in &nbrs {
                placed[w as usize] = true;
            }
            order.extend_from_slice(&nbrs);
        }
    }
    order.reverse();
    order
}
