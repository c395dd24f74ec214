//! `ext::delta_stepping` (shortest paths by buckets of width `Δ` over the
//! split edges `ext::DeltaEdges`) against Dijkstra on the host, on the CPU
//! backend (its own search, also against the generic default) and (with the
//! `cuda` feature and a GPU) the CUDA backend, whose distances must also
//! equal the CPU's bit for bit.
//!
//! Inputs: random directed graphs with integer weights (zeros among them)
//! and with fractional ones, symmetric weights (no transposes kept), hub
//! rows of more light edges than one warp takes on the GPU (4,096), long
//! paths (many buckets), vertices no source reaches, several sources; each
//! at a `Δ` below every weight (every edge heavy), around the mean, and
//! above every weight (no heavy edge). Bad input: no source, a source out of
//! range, a negative or NaN weight, a `Δ` that is not positive: an `Err`.
//!
//! Without a GPU the CUDA test prints a SKIPPED line (`BITGRAPHBLAS_REQUIRE_GPU=1`
//! fails instead). The seed is printed and can be fixed with `BITGRAPHBLAS_SEED`.

mod common;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use bitgraphblas::ext::{self, DeltaEdges};
use bitgraphblas::{Backend, BackendExt, Cpu, Matrix, Result};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Dijkstra from every source at 0: each distance the sum of its path's
/// weights in path order (as the backends add them).
fn dijkstra(n: usize, edges: &[(usize, usize, f64)], sources: &[usize]) -> Vec<f64> {
    #[derive(PartialEq)]
    struct Item(f64, usize);
    impl Eq for Item {}
    impl Ord for Item {
        fn cmp(&self, o: &Self) -> Ordering {
            o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
        }
    }
    impl PartialOrd for Item {
        fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
            Some(self.cmp(o))
        }
    }
    let mut out = vec![vec![]; n];
    for &(i, j, w) in edges {
        out[i].push((j, w));
    }
    let mut d = vec![f64::INFINITY; n];
    let mut heap = BinaryHeap::new();
    for &s in sources {
        d[s] = 0.0;
        heap.push(Item(0.0, s));
    }
    while let Some(Item(x, v)) = heap.pop() {
        if x > d[v] {
            continue;
        }
        for &(u, w) in &out[v] {
            let nd = x + w;
            if nd < d[u] {
                d[u] = nd;
                heap.push(Item(nd, u));
            }
        }
    }
    d
}

/// A weighted graph: `n` vertices, edge probability `p`, rows `0..hubs`
/// full, a path through every vertex when `path`, the last tenth of the
/// vertices without in-edges from the rest; weights from `weight`.
fn graph(
    rng: &mut StdRng,
    n: usize,
    p: f64,
    hubs: usize,
    path: bool,
    weight: &mut dyn FnMut(&mut StdRng) -> f64,
) -> Vec<(usize, usize, f64)> {
    let cut = n - n / 10;
    let mut e = vec![];
    for i in 0..n {
        for j in 0..n {
            let reach = j < cut || i >= cut;
            let random = rng.gen_bool(p);
            if i != j && reach && (i < hubs || random || (path && j == i + 1 && j < cut)) {
                e.push((i, j, weight(rng)));
            }
        }
    }
    e
}

/// The same graph with `w(j, i) = w(i, j)` (an undirected graph).
fn symmetric(e: &[(usize, usize, f64)]) -> Vec<(usize, usize, f64)> {
    let mut s: Vec<(usize, usize, f64)> = e.iter().filter(|&&(i, j, _)| i < j).copied().collect();
    let back: Vec<_> = s.iter().map(|&(i, j, w)| (j, i, w)).collect();
    s.extend(back);
    s
}

/// Every `Δ` of the module doc on `edges` from `sources`: the backend's
/// distances against Dijkstra (and returned, for the CUDA test).
fn check<B: BackendExt>(
    b: &B,
    what: &str,
    n: usize,
    edges: &[(usize, usize, f64)],
    sources: &[usize],
) -> Result<Vec<Vec<f64>>>
where
    B::MaskSource: bitgraphblas::backend::VectorShape,
{
    let w = Matrix::from_triplets(n, n, edges.to_vec())?;
    let want = dijkstra(n, edges, sources);
    let (lo, hi, mean) = edges.iter().fold((f64::MAX, 0.0f64, 0.0), |(l, h, m), e| {
        (l.min(e.2), h.max(e.2), m + e.2 / edges.len() as f64)
    });
    let mut got = vec![];
    for delta in [lo * 0.5, mean, hi * 2.0 + 1.0]
        .into_iter()
        .filter(|&d| d > 0.0)
    {
        let e = DeltaEdges::new(b, &w, delta)?;
        let d = b.download_vector(&ext::delta_stepping(b, &e, sources)?)?;
        let d = d.to_vec(f64::NAN);
        for v in 0..n {
            assert!(
                d[v].to_bits() == want[v].to_bits(),
                "{what} (n {n}, delta {delta}, sources {sources:?}): vertex {v}: {} against Dijkstra's {}",
                d[v],
                want[v]
            );
        }
        got.push(d);
    }
    Ok(got)
}

/// Every case on `b`; the distances in order.
fn run_all<B: BackendExt>(b: &B, seed: u64) -> Result<Vec<Vec<f64>>>
where
    B::MaskSource: bitgraphblas::backend::VectorShape,
{
    let mut rng = StdRng::seed_from_u64(seed);
    let mut all = vec![];
    let mut integer = |r: &mut StdRng| r.gen_range(0..=100) as f64;
    let mut fraction = |r: &mut StdRng| r.gen_range(0.0..3.0f64);
    for (n, p, hubs, path) in [
        (1, 0.0, 0, false),
        (2, 0.5, 0, true),
        (37, 0.08, 0, false),
        (130, 0.03, 2, true),
        (300, 0.01, 0, true),
    ] {
        for integers in [true, false] {
            let weight: &mut dyn FnMut(&mut StdRng) -> f64 = if integers {
                &mut integer
            } else {
                &mut fraction
            };
            let e = graph(&mut rng, n, p, hubs, path, weight);
            let many: Vec<usize> = (0..n).step_by(7).collect();
            for sources in [vec![0], vec![n - 1], many] {
                all.extend(check(b, "directed", n, &e, &sources)?);
                all.extend(check(b, "symmetric", n, &symmetric(&e), &sources)?);
            }
        }
    }
    // Hub rows of more than 4,096 light edges (the GPU's wide rows), a
    // path behind them, zero weights among them.
    let n = 9000;
    let mut e = vec![];
    for j in 1..n {
        e.push((0, j, rng.gen_range(0..=3) as f64));
        if j % 2 == 0 {
            e.push((1, j, rng.gen_range(0..=2) as f64));
        }
    }
    for j in 2..400 {
        e.push((j, j + 1, rng.gen_range(1..=9) as f64));
    }
    all.extend(check(b, "hubs", n, &e, &[0])?);
    all.extend(check(b, "hubs", n, &e, &[1, n - 1])?);
    Ok(all)
}

#[test]
fn delta_stepping_cpu_matches_dijkstra() -> Result<()> {
    run_all(&Cpu::new(), seed()).map(|_| ())
}

#[cfg(feature = "cuda")]
#[test]
fn delta_stepping_cuda_matches_cpu_and_dijkstra() -> Result<()> {
    let Some(gpu) =
        bitgraphblas::backend::cuda::cuda_or_skip("delta_stepping_cuda_matches_cpu_and_dijkstra")
    else {
        return Ok(());
    };
    let s = seed();
    let (ours, cpu) = (run_all(gpu, s)?, run_all(&Cpu::new(), s)?);
    assert_eq!(ours.len(), cpu.len());
    for (k, (g, c)) in ours.iter().zip(&cpu).enumerate() {
        let same = g.iter().zip(c).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(
            same,
            "case {k}: CUDA distances differ from the CPU backend's"
        );
    }
    Ok(())
}

/// The CPU backend's own search (`src/backend/cpu/sssp.rs`) against the
/// generic default and Dijkstra, bit for bit: random directed graphs (self
/// loops, zero weights, integer and fractional weights, unreached
/// vertices) from one or several sources, widths from below the least
/// weight to above the greatest; then a long path, whose light passes are
/// each one vertex, and a star, whose one pass has enough edges for rayon's
/// threads.
#[test]
fn delta_stepping_cpu_search_matches_the_generic_default() -> Result<()> {
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    let mut cases = vec![];
    for case in 0..40 {
        let n = [1, 2, 7, 64, 300, 3000][case % 6];
        let m = rng.gen_range(0..6 * n + 1);
        let pairs: std::collections::BTreeSet<(usize, usize)> = (0..m)
            .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n)))
            .collect();
        let edges = pairs
            .into_iter()
            .map(|(i, j)| {
                let x = if case % 3 == 0 {
                    rng.gen_range(0.0..10.0) * rng.gen_range(0.0..1.0f64)
                } else {
                    rng.gen_range(0..=100) as f64
                };
                (i, j, x)
            })
            .collect();
        let sources: Vec<usize> = (0..1 + case % 3).map(|_| rng.gen_range(0..n)).collect();
        cases.push((n, edges, sources, [0.01, 0.5, 7.0, 25.0, 1e9][case % 5]));
    }
    let n = 40_000;
    let path: Vec<_> = (0..n - 1)
        .map(|i| (i, i + 1, 1.0 + (i % 3) as f64))
        .collect();
    let star: Vec<_> = (1..n).map(|i| (0, i, (i % 5) as f64)).collect();
    cases.push((n, path, vec![0], 2.0));
    cases.push((n, star, vec![0], 2.0));
    for (case, (n, edges, sources, delta)) in cases.iter().enumerate() {
        let w = Matrix::from_triplets(*n, *n, edges.clone())?;
        let e = DeltaEdges::new(&cpu, &w, *delta)?;
        let bits = |d: Vec<f64>| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let got = cpu.download_vector(&ext::delta_stepping(&cpu, &e, sources)?)?;
        let generic =
            cpu.download_vector(&ext::sssp::delta_stepping_generic(&cpu, &e, sources)?)?;
        let (got, generic) = (bits(got.to_vec(f64::NAN)), bits(generic.to_vec(f64::NAN)));
        let want = bits(dijkstra(*n, edges, sources));
        assert_eq!(got, generic, "case {case}: against the generic default");
        assert_eq!(got, want, "case {case}: against Dijkstra");
    }
    Ok(())
}

#[test]
fn delta_stepping_bad_input_is_an_error() {
    let cpu = Cpu::new();
    let w = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0), (1, 2, 2.0)]).unwrap();
    let e = DeltaEdges::new(&cpu, &w, 1.0).unwrap();
    let msg = |r: Result<()>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg(ext::delta_stepping(&cpu, &e, &[]).map(|_| ())).contains("delta_stepping"));
    assert!(msg(ext::delta_stepping(&cpu, &e, &[3]).map(|_| ())).contains("delta_stepping"));
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let w = Matrix::from_triplets(2, 2, vec![(0, 1, bad)]).unwrap();
        assert!(msg(DeltaEdges::new(&cpu, &w, 1.0).map(|_| ())).contains("non-negative"));
    }
    for delta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(msg(DeltaEdges::new(&cpu, &w, delta).map(|_| ())).contains("delta"));
    }
    let rect = Matrix::from_triplets(2, 3, vec![(0, 1, 1.0)]).unwrap();
    assert!(msg(DeltaEdges::new(&cpu, &rect, 1.0).map(|_| ())).contains("square"));
}
