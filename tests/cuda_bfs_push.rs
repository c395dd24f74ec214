//! `ext::bfs_push` (fused breadth-first push levels) and `ext::bfs_pull` (one
//! pulled level on `A'`) against a plain host reference of their documented
//! semantics, on the CPU backend and (with the
//! `cuda` feature and a GPU) the CUDA backend, every device format: random
//! directed graphs with hub rows and vertices without out-edges (absent
//! degrees), a long path (many levels per call), sizes off the tile grid.
//! Each search runs call after call (limits: measure only, one level, three
//! levels, unlimited; Beamer's α stop on and off; a small edge cap; every
//! third call a pulled level instead), and
//! every call's levels, frontier and counts must match the reference run
//! from the state the backend had before the call.
//!
//! On the CUDA backend the searches run again with small limits of the
//! one-block levels (`CudaBackend::set_bfs_block_limits`), so that they hand
//! over between the one-block and the whole-device kernels both ways, and a
//! large graph (a hub of 40 000 out-edges between paths) crosses the default
//! limits. Sources include vertices without out-edges.
//!
//! Without a GPU the CUDA test prints a SKIPPED line (`BITGRAPHBLAS_REQUIRE_GPU=1`
//! fails instead). The seed is printed and can be fixed with `BITGRAPHBLAS_SEED`.

mod common;

use bitgraphblas::ext::{PushLimits, Pushed};
use bitgraphblas::storage::BitVec;
use bitgraphblas::{ext, BackendExt, Cpu, Format, Matrix, Result, TileSize, Vector};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The reference: levels (`None` = unvisited), frontier, out-lists, degrees.
fn reference(
    level: &mut [Option<i64>],
    frontier: &mut Vec<bool>,
    out: &[Vec<usize>],
    deg: &[u64],
    depth: i64,
    limits: PushLimits,
) -> Pushed {
    let edges_of = |f: &[bool]| (0..f.len()).filter(|&i| f[i]).map(|i| deg[i]).sum::<u64>();
    let mut r = Pushed {
        levels: 0,
        nvals: frontier.iter().filter(|&&x| x).count(),
        edges: edges_of(frontier),
        unvisited_edges: (0..level.len())
            .filter(|&i| level[i].is_none())
            .map(|i| deg[i])
            .sum(),
    };
    while r.levels < limits.max_levels {
        r.levels += 1;
        let mut next = vec![false; frontier.len()];
        for i in (0..frontier.len()).filter(|&i| frontier[i]) {
            for &j in &out[i] {
                if level[j].is_none() {
                    level[j] = Some(depth + r.levels as i64);
                    next[j] = true;
                }
            }
        }
        *frontier = next;
        r.nvals = frontier.iter().filter(|&&x| x).count();
        r.edges = edges_of(frontier);
        r.unvisited_edges = r.unvisited_edges.saturating_sub(r.edges);
        if r.nvals == 0
            || r.edges.saturating_mul(limits.alpha) > r.unvisited_edges
            || r.edges > limits.max_edges
        {
            break;
        }
    }
    r
}

/// A random directed graph: rows `0..hubs` full, every 11th row empty, a
/// path 0 -> 1 -> .. through every vertex when `path`.
fn graph(rng: &mut StdRng, n: usize, p: f64, hubs: usize, path: bool) -> Vec<(usize, usize)> {
    let mut e = vec![];
    for i in 0..n {
        for j in 0..n {
            let random = i % 11 != 5 && rng.gen_bool(p);
            if i < hubs || random || (path && j == i + 1) {
                e.push((i, j));
            }
        }
    }
    e
}

/// One level, whatever it finds: the reference of a pulled level.
const ONE_LEVEL: PushLimits = PushLimits {
    max_levels: 1,
    alpha: 0,
    max_edges: u64::MAX,
    unvisited_edges: None,
};

const LIMITS: [PushLimits; 6] = [
    PushLimits {
        max_levels: 0,
        alpha: 14,
        max_edges: u64::MAX,
        unvisited_edges: None,
    },
    PushLimits {
        max_levels: 1,
        alpha: 14,
        max_edges: u64::MAX,
        unvisited_edges: None,
    },
    PushLimits {
        max_levels: 3,
        alpha: 0,
        max_edges: u64::MAX,
        unvisited_edges: None,
    },
    PushLimits {
        max_levels: usize::MAX,
        alpha: 14,
        max_edges: u64::MAX,
        unvisited_edges: None,
    },
    PushLimits {
        max_levels: usize::MAX,
        alpha: 0,
        max_edges: 40,
        unvisited_edges: None,
    },
    PushLimits {
        max_levels: usize::MAX,
        alpha: 0,
        max_edges: u64::MAX,
        unvisited_edges: None,
    },
];

/// Searches from `source` on `b` call after call, each checked against the reference.
fn check<B: BackendExt>(
    b: &B,
    n: usize,
    e: &[(usize, usize)],
    format: Format,
    source: usize,
    what: &str,
) -> Result<()> {
    let a = Matrix::from_triplets(n, n, e.iter().map(|&(i, j)| (i, j, true)).collect())?
        .to_format(format)?;
    let mut out = vec![vec![]; n];
    for &(i, j) in e {
        out[i].push(j);
    }
    let deg: Vec<u64> = out.iter().map(|r| r.len() as u64).collect();
    // absent where 0 (the kernels read presence bits)
    let degree = Vector::from_entries(
        n,
        (0..n)
            .filter(|&i| deg[i] > 0)
            .map(|i| (i, deg[i] as f64))
            .collect(),
    )?;
    // A' for the pulled levels, in the same format
    let at = Matrix::from_triplets(n, n, e.iter().map(|&(i, j)| (j, i, true)).collect())?
        .to_format(format)?;
    let (da, dat, ddeg) = (
        b.upload_matrix(&a)?,
        b.upload_matrix(&at)?,
        b.upload_vector(&degree)?,
    );
    let mut level = b.upload_vector(&Vector::from_entries(n, vec![(source, 0i64)])?)?;
    let mut frontier = b.upload_vector(&Vector::from_bits(BitVec::from_indices(n, [source])))?;
    let (mut depth, mut calls) = (0i64, 0usize);
    loop {
        // every third call (from the second) one pulled level instead
        let pull = calls % 3 == 1;
        let limits = if pull {
            ONE_LEVEL
        } else {
            LIMITS[calls % LIMITS.len()]
        };
        calls += 1;
        let mut want_level: Vec<Option<i64>> = {
            let l = b.download_vector(&level)?;
            (0..n).map(|i| l.get(i)).collect()
        };
        let f = b.download_vector(&frontier)?.pattern();
        let mut want_frontier: Vec<bool> = (0..n).map(|i| f.get(i)).collect();
        let want = reference(
            &mut want_level,
            &mut want_frontier,
            &out,
            &deg,
            depth,
            limits,
        );
        let got = if pull {
            ext::bfs_pull(b, &mut level, &mut frontier, &dat, &ddeg, depth)?
        } else {
            ext::bfs_push(b, &mut level, &mut frontier, &da, &ddeg, depth, limits)?
        };
        let op = if pull { "bfs_pull" } else { "bfs_push" };
        let ctx = format!("{what} {format:?} call {calls} {op} {limits:?}");
        assert_eq!(got, want, "{ctx}: counts");
        let l = b.download_vector(&level)?;
        assert_eq!(
            (0..n).map(|i| l.get(i)).collect::<Vec<_>>(),
            want_level,
            "{ctx}: levels"
        );
        let f = b.download_vector(&frontier)?.pattern();
        let f: Vec<bool> = (0..n).map(|i| f.get(i)).collect();
        assert_eq!(f, want_frontier, "{ctx}: frontier");
        depth += got.levels as i64;
        if got.nvals == 0 || calls > 4 * n + 20 {
            break;
        }
    }
    Ok(())
}

const FORMATS: [Format; 5] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T16),
    Format::B2sr(TileSize::T32),
];

/// A graph's edges.
type Edges = Vec<(usize, usize)>;

/// A `k x k` grid, edges both ways between neighbours.
fn grid(k: usize) -> Vec<(usize, usize)> {
    let mut e = vec![];
    for r in 0..k {
        for c in 0..k {
            let v = r * k + c;
            if c + 1 < k {
                e.extend([(v, v + 1), (v + 1, v)]);
            }
            if r + 1 < k {
                e.extend([(v, v + k), (v + k, v)]);
            }
        }
    }
    e
}

/// A path of `tail` vertices into a hub with `leaves` out-edges, every leaf
/// into one of 20 vertices that start a second path of `tail` vertices, and
/// 7 isolated vertices at the end: small frontiers, one huge one (the
/// leaves), small ones again.
fn star(tail: usize, leaves: usize) -> (usize, Vec<(usize, usize)>) {
    let hub = tail;
    let fan = hub + 1 + leaves;
    let end = fan + 20 + tail;
    let mut e: Vec<(usize, usize)> = (0..tail).map(|i| (i, i + 1)).collect();
    for l in hub + 1..fan {
        e.extend([(hub, l), (l, fan + l % 20)]);
    }
    e.extend((fan..end - 1).map(|i| (i, i + 1)));
    (end + 7, e)
}

fn run_all<B: BackendExt>(b: &B) -> Result<()> {
    let s = seed();
    println!("seed {s}");
    let mut rng = StdRng::seed_from_u64(s);
    let mut graphs: Vec<(String, usize, Edges)> = vec![];
    for (n, p, hubs, path) in [
        (1, 0.0, 0, false),
        (37, 0.05, 1, false),
        (70, 0.0, 0, true),
        (301, 0.01, 2, false),
        (130, 0.002, 0, true),
        // rows of A' longer than a warp's share (the pull's warp-wide rows)
        (203, 0.3, 0, false),
    ] {
        let e = graph(&mut rng, n, p, hubs, path);
        graphs.push((format!("n={n} p={p} hubs={hubs} path={path}"), n, e));
    }
    graphs.push(("grid 13x13".into(), 169, grid(13)));
    let (n, e) = star(40, 150);
    graphs.push(("star 150".into(), n, e));
    for (what, n, e) in &graphs {
        let n = *n;
        for format in FORMATS {
            // a random source, the first vertex, and vertex 5 (no out-edges
            // in the random graphs without a path)
            for source in [rng.gen_range(0..n), 0, 5 % n] {
                check(b, n, e, format, source, &format!("{what} source={source}"))?;
            }
        }
    }
    Ok(())
}

/// The star with a hub above the CUDA backend's default one-block limit.
fn run_large<B: BackendExt>(b: &B) -> Result<()> {
    let (n, e) = star(300, 40_000);
    for format in [Format::Csr, Format::B2sr(TileSize::T8)] {
        for source in [0, 299, n - 1] {
            check(
                b,
                n,
                &e,
                format,
                source,
                &format!("star 40000 source={source}"),
            )?;
        }
    }
    Ok(())
}

#[test]
fn bfs_push_cpu_matches_reference() -> Result<()> {
    run_all(&Cpu::new())
}

#[cfg(feature = "cuda")]
#[test]
fn bfs_push_cuda_matches_reference() -> Result<()> {
    let Some(gpu) = bitgraphblas::backend::cuda::cuda_or_skip("bfs_push_cuda_matches_reference")
    else {
        return Ok(());
    };
    let default = gpu.bfs_block_limits();
    run_all(gpu)?;
    run_large(gpu)?;
    // Tiny one-block limits: the searches cross over between the kernels
    // both ways (on edges, and on the queue length).
    for (edges, vertices) in [(0, 1), (6, 1000), (40, 5), (1000, 1)] {
        gpu.set_bfs_block_limits(edges, vertices);
        let r = run_all(gpu);
        gpu.set_bfs_block_limits(default.0, default.1);
        r?;
    }
    // The one-block kernel claiming in global memory (as where the visited
    // bits do not fit in shared memory), alone and handing over.
    gpu.set_bfs_block_shared(false);
    let r = run_all(gpu).and_then(|_| run_large(gpu)).and_then(|_| {
        gpu.set_bfs_block_limits(6, 1000);
        run_all(gpu)
    });
    gpu.set_bfs_block_limits(default.0, default.1);
    gpu.set_bfs_block_shared(true);
    r?;
    Ok(())
}

#[test]
fn bfs_push_cpu_large_star() -> Result<()> {
    run_large(&Cpu::new())
}

#[test]
fn bfs_push_checks_shapes() {
    let cpu = Cpu::new();
    let a = Matrix::<bool>::from_triplets(3, 3, vec![(0, 1, true)]).unwrap();
    let degree = Vector::from_dense(vec![1.0, 0.0, 0.0]);
    let mut level = Vector::from_entries(4, vec![(0, 0i64)]).unwrap();
    let mut frontier = Vector::from_entries(3, vec![(0, true)]).unwrap();
    let limits = LIMITS[3];
    let r = ext::bfs_push(&cpu, &mut level, &mut frontier, &a, &degree, 0, limits);
    assert!(matches!(
        r,
        Err(bitgraphblas::Error::DimensionMismatch { .. })
    ));
    let r = ext::bfs_pull(&cpu, &mut level, &mut frontier, &a, &degree, 0);
    assert!(matches!(
        r,
        Err(bitgraphblas::Error::DimensionMismatch { .. })
    ));
    let rect = Matrix::<bool>::from_triplets(3, 4, vec![(0, 1, true)]).unwrap();
    let mut level = Vector::from_entries(3, vec![(0, 0i64)]).unwrap();
    let r = ext::bfs_pull(&cpu, &mut level, &mut frontier, &rect, &degree, 0);
    assert!(matches!(
        r,
        Err(bitgraphblas::Error::DimensionMismatch { .. })
    ));
}
