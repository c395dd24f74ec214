//! Independent plain references (no bitgraphblas operation is used) and test graphs.
#![allow(dead_code, clippy::needless_range_loop)]

use std::collections::{BinaryHeap, VecDeque};
use std::path::PathBuf;

use rand::{Rng, SeedableRng};

/// A graph as adjacency lists with weights: `adj[i]` = `(j, w)` for each edge i -> j.
#[derive(Clone, Debug)]
pub struct Plain {
    pub n: usize,
    pub adj: Vec<Vec<(usize, f64)>>,
}

impl Plain {
    pub fn edges(&self) -> Vec<(usize, usize, f64)> {
        let mut e = vec![];
        for (i, row) in self.adj.iter().enumerate() {
            for &(j, w) in row {
                e.push((i, j, w));
            }
        }
        e
    }
    pub fn matrix(&self) -> bitgraphblas::Matrix<f64> {
        bitgraphblas::Matrix::from_triplets(self.n, self.n, self.edges()).unwrap()
    }
    pub fn pattern(&self) -> bitgraphblas::Matrix<bool> {
        let e = self
            .edges()
            .into_iter()
            .map(|(i, j, _)| (i, j, true))
            .collect();
        bitgraphblas::Matrix::from_triplets(self.n, self.n, e).unwrap()
    }
    pub fn from_matrix(m: &bitgraphblas::Matrix<f64>) -> Plain {
        let c = m.as_csr();
        let adj = (0..c.nrows())
            .map(|i| {
                let (cols, vals) = c.row(i);
                cols.iter()
                    .zip(vals)
                    .map(|(&j, &w)| (j as usize, w))
                    .collect()
            })
            .collect();
        Plain { n: c.nrows(), adj }
    }
}

/// A random graph: `n` vertices, about `avg_deg * n` edges, optionally symmetric,
/// with self loops and weights in [0.5, 10).
pub fn random_graph(seed: u64, n: usize, avg_deg: f64, symmetric: bool) -> Plain {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut set = std::collections::BTreeMap::new();
    let m = (avg_deg * n as f64) as usize;
    for _ in 0..m {
        if n == 0 {
            break;
        }
        // Mix local (banded, tile-friendly) and random edges.
        let i = rng.gen_range(0..n);
        let j = if rng.gen_bool(0.6) {
            (i + rng.gen_range(0..8)).min(n - 1)
        } else {
            rng.gen_range(0..n)
        };
        let w: f64 = rng.gen_range(0.5..10.0);
        set.insert((i, j), w);
        if symmetric {
            set.insert((j, i), w);
        }
    }
    let mut adj = vec![vec![]; n];
    for ((i, j), w) in set {
        adj[i].push((j, w));
    }
    Plain { n, adj }
}

/// Queue BFS levels (-1 unreachable).
pub fn bfs_levels(g: &Plain, s: usize) -> Vec<i64> {
    let mut lv = vec![-1i64; g.n];
    lv[s] = 0;
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        for &(v, _) in &g.adj[u] {
            if lv[v] < 0 {
                lv[v] = lv[u] + 1;
                q.push_back(v);
            }
        }
    }
    lv
}

/// The smallest-numbered parent at the previous level, from the levels.
pub fn bfs_min_parents(g: &Plain, s: usize, lv: &[i64]) -> Vec<i64> {
    let mut p = vec![-1i64; g.n];
    p[s] = s as i64;
    for u in 0..g.n {
        for &(v, _) in &g.adj[u] {
            if v != s && lv[u] >= 0 && lv[v] == lv[u] + 1 && (p[v] < 0 || (u as i64) < p[v]) {
                p[v] = u as i64;
            }
        }
    }
    p
}

#[derive(PartialEq)]
struct Item(f64, usize);
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

/// Dijkstra with a binary heap.
pub fn dijkstra(g: &Plain, s: usize) -> Vec<f64> {
    let mut d = vec![f64::INFINITY; g.n];
    d[s] = 0.0;
    let mut h = BinaryHeap::from([Item(0.0, s)]);
    while let Some(Item(du, u)) = h.pop() {
        if du > d[u] {
            continue;
        }
        for &(v, w) in &g.adj[u] {
            if du + w < d[v] {
                d[v] = du + w;
                h.push(Item(d[v], v));
            }
        }
    }
    d
}

/// Power iteration in f64, NetworkX's definition; returns (ranks, iterations).
pub fn pagerank(g: &Plain, alpha: f64, tol: f64, max_iter: usize) -> (Vec<f64>, usize) {
    let n = g.n;
    if n == 0 {
        return (vec![], 0);
    }
    let nf = n as f64;
    let mut x = vec![1.0 / nf; n];
    for it in 1..=max_iter {
        let mut y = vec![0.0; n];
        let mut dangle = 0.0;
        for u in 0..n {
            let d = g.adj[u].len();
            if d == 0 {
                dangle += x[u];
            } else {
                for &(v, _) in &g.adj[u] {
                    y[v] += alpha * x[u] / d as f64;
                }
            }
        }
        let c = (1.0 - alpha) / nf + alpha * dangle / nf;
        let mut err = 0.0;
        for v in 0..n {
            y[v] += c;
            err += (y[v] - x[v]).abs();
        }
        x = y;
        if err < nf * tol {
            return (x, it);
        }
    }
    (x, max_iter)
}

/// Weak components by union-find, labelled by their smallest vertex.
pub fn components(g: &Plain) -> Vec<u64> {
    let mut p: Vec<usize> = (0..g.n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for u in 0..g.n {
        for &(v, _) in &g.adj[u] {
            let (a, b) = (find(&mut p, u), find(&mut p, v));
            if a != b {
                p[a.max(b)] = a.min(b);
            }
        }
    }
    (0..g.n).map(|u| find(&mut p, u) as u64).collect()
}

/// Undirected simple neighbour sets (symmetrised, no self loops), sorted.
pub fn undirected(g: &Plain) -> Vec<Vec<usize>> {
    let mut s = vec![std::collections::BTreeSet::new(); g.n];
    for u in 0..g.n {
        for &(v, _) in &g.adj[u] {
            if u != v {
                s[u].insert(v);
                s[v].insert(u);
            }
        }
    }
    s.into_iter().map(|x| x.into_iter().collect()).collect()
}

/// Brute force over all vertex triples (small graphs only).
pub fn triangles_brute(g: &Plain) -> u64 {
    let u = undirected(g);
    let has = |a: usize, b: usize| u[a].binary_search(&b).is_ok();
    let mut c = 0;
    for i in 0..g.n {
        for j in i + 1..g.n {
            if !has(i, j) {
                continue;
            }
            for k in j + 1..g.n {
                if has(i, k) && has(j, k) {
                    c += 1;
                }
            }
        }
    }
    c
}

/// Node iterator with sorted-list intersection (for graphs too large for triples).
pub fn triangles_lists(g: &Plain) -> u64 {
    let u = undirected(g);
    let mut c = 0u64;
    for i in 0..g.n {
        for &j in u[i].iter().filter(|&&j| j > i) {
            let (a, b) = (&u[i], &u[j]);
            let (mut p, mut q) = (0, 0);
            while p < a.len() && q < b.len() {
                if a[p] < b[q] {
                    p += 1;
                } else if a[p] > b[q] {
                    q += 1;
                } else {
                    if a[p] > j {
                        c += 1;
                    }
                    p += 1;
                    q += 1;
                }
            }
        }
    }
    c
}

/// Textbook Brandes (unweighted), summed over `sources`, not normalised.
pub fn brandes(g: &Plain, sources: &[usize]) -> Vec<f64> {
    let n = g.n;
    let mut bc = vec![0.0; n];
    for &s in sources {
        let mut stack = vec![];
        let mut pred: Vec<Vec<usize>> = vec![vec![]; n];
        let mut sigma = vec![0.0f64; n];
        let mut dist = vec![-1i64; n];
        sigma[s] = 1.0;
        dist[s] = 0;
        let mut q = VecDeque::from([s]);
        while let Some(v) = q.pop_front() {
            stack.push(v);
            for &(w, _) in &g.adj[v] {
                if dist[w] < 0 {
                    dist[w] = dist[v] + 1;
                    q.push_back(w);
                }
                if dist[w] == dist[v] + 1 {
                    sigma[w] += sigma[v];
                    pred[w].push(v);
                }
            }
        }
        let mut delta = vec![0.0; n];
        while let Some(w) = stack.pop() {
            for &v in &pred[w] {
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
            }
            if w != s {
                bc[w] += delta[w];
            }
        }
    }
    bc
}

/// Where the real graph `rel` (a path under `shared/data`) is: under
/// `$BITGRAPHBLAS_SHARED_DATA`, under `../shared/data` beside the repository,
/// or, for the graphs bundled in the project's `data/`, there.
pub fn find_data(rel: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let name = std::path::Path::new(rel).file_name()?;
    let candidates = [
        std::env::var_os("BITGRAPHBLAS_SHARED_DATA").map(|d| PathBuf::from(d).join(rel)),
        Some(root.join("../shared/data").join(rel)),
        Some(PathBuf::from("data").join(name)),
        Some(root.join("data").join(name)),
    ];
    candidates.into_iter().flatten().find(|p| p.exists())
}

/// The path of a graph that must exist (the bundled ones always do).
pub fn data(rel: &str) -> PathBuf {
    find_data(rel)
        .unwrap_or_else(|| panic!("test graph {rel} is missing from data/ and ../shared/data"))
}

/// Loads a real graph that must exist.
pub fn load(rel: &str) -> (bitgraphblas::Matrix<f64>, Plain) {
    try_load(rel).unwrap_or_else(|| panic!("test graph {rel} is missing"))
}

/// Loads a real graph, or prints a SKIPPED line and gives `None` where it is absent
/// (a fresh clone has only the bundled graphs).
pub fn try_load(rel: &str) -> Option<(bitgraphblas::Matrix<f64>, Plain)> {
    let Some(path) = find_data(rel) else {
        eprintln!("SKIPPED {rel}: not in data/ and no ../shared/data");
        return None;
    };
    let l = bitgraphblas_algorithms::load::read_graph(&path).unwrap();
    let p = Plain::from_matrix(&l.matrix);
    Some((l.matrix, p))
}
