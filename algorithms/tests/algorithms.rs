//! Every algorithm against its plain reference, on random graphs and on real
//! graphs from ../shared/data, for several storage formats.
#![allow(clippy::needless_range_loop)]

mod common;

use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::{BackendExt, Cpu, Format, TileSize};
use bitgraphblas_algorithms as alg;
use common::Plain;

const FORMATS: [Format; 5] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T32),
    Format::B2sr(TileSize::T64),
];

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a == b) || (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Which algorithms to check (BC is the slow one).
#[derive(Clone, Copy)]
struct Checks {
    bc_sources: usize,
    brute_tc: bool,
}

fn check_graph<B>(b: &B, p: &Plain, format: Format, checks: Checks, what: &str)
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let g = alg::Graph::new(b, p.pattern(), None, format).unwrap();
    let gw = alg::Graph::from_weighted(b, p.matrix(), format).unwrap();
    let n = p.n;
    let sources: Vec<usize> = if n == 0 {
        vec![]
    } else {
        vec![0, n / 2, n - 1]
    };
    for &s in &sources {
        let want = common::bfs_levels(p, s);
        let r = alg::bfs(&g, s, true).unwrap();
        assert_eq!(r.levels, want, "{what} {format:?}: bfs levels from {s}");
        assert_eq!(
            r.parents.unwrap(),
            common::bfs_min_parents(p, s, &want),
            "{what} {format:?}: bfs parents from {s}"
        );
        assert_eq!(
            alg::bfs(&g, s, false).unwrap().levels,
            want,
            "{what} {format:?}: bfs (bits) from {s}"
        );
        check_levels_on_backend(&g, &want, s, &format!("{what} {format:?}"));

        let unweighted = Plain {
            n,
            adj: p
                .adj
                .iter()
                .map(|r| r.iter().map(|&(j, _)| (j, 1.0)).collect())
                .collect(),
        };
        let d = alg::sssp(&g, s, None).unwrap();
        assert_eq!(
            d,
            common::dijkstra(&unweighted, s),
            "{what} {format:?}: unweighted sssp from {s}"
        );
        let want = common::dijkstra(p, s);
        for delta in [None, Some(0.7), Some(100.0)] {
            let d = alg::sssp(&gw, s, delta).unwrap();
            for v in 0..n {
                assert!(
                    close(d[v], want[v], 1e-12),
                    "{what} {format:?}: sssp from {s} (delta {delta:?}) at {v}: {} vs {}",
                    d[v],
                    want[v]
                );
            }
        }
    }
    let (want, iters) = common::pagerank(p, 0.85, 1e-6, 100);
    let pr = alg::pagerank(&g, &alg::PageRankOptions::default()).unwrap();
    assert_eq!(
        pr.iterations, iters,
        "{what} {format:?}: pagerank iterations"
    );
    for v in 0..n {
        assert!(
            (pr.ranks[v] - want[v]).abs() < 1e-9,
            "{what} {format:?}: pagerank at {v}: {} vs {}",
            pr.ranks[v],
            want[v]
        );
    }
    assert!(n == 0 || (pr.ranks.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert_eq!(
        alg::connected_components(&g).unwrap(),
        common::components(p),
        "{what} {format:?}: components"
    );
    let tri = if checks.brute_tc {
        common::triangles_brute(p)
    } else {
        common::triangles_lists(p)
    };
    assert_eq!(
        alg::triangle_count(&g).unwrap(),
        tri,
        "{what} {format:?}: triangles"
    );
    if checks.bc_sources > 0 {
        let src = alg::even_sources(n, checks.bc_sources);
        let got = alg::betweenness(&g, &src).unwrap();
        let want = common::brandes(p, &src);
        for v in 0..n {
            assert!(
                close(got[v], want[v], 1e-9),
                "{what} {format:?}: bc at {v}: {} vs {}",
                got[v],
                want[v]
            );
        }
    }
}

#[test]
fn random_graphs_all_algorithms() {
    let cpu = Cpu::new();
    let checks = Checks {
        bc_sources: usize::MAX,
        brute_tc: true,
    };
    for (seed, n, deg, sym) in [
        (1, 1, 1.0, false),
        (2, 7, 2.0, true),
        (3, 70, 3.0, false),
        (4, 130, 4.0, true),
        (5, 200, 1.2, false),
        (6, 97, 8.0, true),
    ] {
        let p = common::random_graph(seed, n, deg, sym);
        for f in FORMATS {
            check_graph(&cpu, &p, f, checks, &format!("random(seed {seed}, n {n})"));
        }
    }
}

#[test]
fn empty_and_edgeless_graphs() {
    let cpu = Cpu::new();
    let checks = Checks {
        bc_sources: usize::MAX,
        brute_tc: true,
    };
    for n in [0, 5] {
        let p = Plain {
            n,
            adj: vec![vec![]; n],
        };
        check_graph(&cpu, &p, Format::B2sr(TileSize::T8), checks, "edgeless");
    }
}

#[test]
fn small_real_graphs() {
    let cpu = Cpu::new();
    let checks = Checks {
        bc_sources: 64,
        brute_tc: false,
    };
    for rel in [
        "suitesparse/extra/karate.mtx",
        "suitesparse/extra/curtis54.mtx",
        "suitesparse/ash292.mtx",
        "suitesparse/extra/jagmesh7.mtx",
        "suitesparse/extra/dwt_1242.mtx",
        "suitesparse/extra/delaunay_n10.mtx",
    ] {
        let Some((_, p)) = common::try_load(rel) else {
            continue;
        };
        for f in [
            Format::B2sr(TileSize::T4),
            Format::B2sr(TileSize::T32),
            Format::Auto,
        ] {
            check_graph(&cpu, &p, f, checks, rel);
        }
    }
}

#[test]
fn larger_real_graphs() {
    let cpu = Cpu::new();
    let checks = Checks {
        bc_sources: 8,
        brute_tc: false,
    };
    for rel in ["suitesparse/delaunay_n14.mtx", "large/cit-HepPh.mtx.gz"] {
        let Some((_, p)) = common::try_load(rel) else {
            continue;
        };
        check_graph(&cpu, &p, Format::Auto, checks, rel);
    }
}

#[test]
fn bad_arguments_are_errors() {
    let cpu = Cpu::new();
    let p = common::random_graph(9, 10, 2.0, false);
    let g = alg::Graph::new(&cpu, p.pattern(), None, Format::B2sr(TileSize::T4)).unwrap();
    assert!(alg::bfs(&g, 10, false).is_err());
    assert!(alg::sssp(&g, 11, None).is_err());
    assert!(alg::betweenness(&g, &[3, 10]).is_err());
    let opts = alg::PageRankOptions {
        damping: 1.5,
        ..Default::default()
    };
    assert!(alg::pagerank(&g, &opts).is_err());
    let neg = bitgraphblas::Matrix::from_triplets(2, 2, vec![(0, 1, -1.0)]).unwrap();
    let gn = alg::Graph::from_weighted(&cpu, neg, Format::Csr).unwrap();
    assert!(alg::sssp(&gn, 0, None).is_err());
    let rect = bitgraphblas::Matrix::<bool>::empty(2, 3);
    assert!(alg::Graph::new(&cpu, rect, None, Format::Csr).is_err());
}

/// BFS alone (levels and parents) from the first, middle and last vertex.
fn check_bfs<B>(b: &B, p: &Plain, format: Format, what: &str)
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let g = alg::Graph::new(b, p.pattern(), None, format).unwrap();
    for s in [0, p.n / 2, p.n - 1] {
        let want = common::bfs_levels(p, s);
        let r = alg::bfs(&g, s, true).unwrap();
        assert_eq!(r.levels, want, "{what} {format:?}: bfs levels from {s}");
        assert_eq!(
            r.parents.unwrap(),
            common::bfs_min_parents(p, s, &want),
            "{what} {format:?}: bfs parents from {s}"
        );
        assert_eq!(
            alg::bfs(&g, s, false).unwrap().levels,
            want,
            "{what} {format:?}: bfs (bits) from {s}"
        );
        check_levels_on_backend(&g, &want, s, &format!("{what} {format:?}"));
    }
}

/// `bfs_on_backend` in every direction (all pushed, all pulled, and
/// direction-optimising): the levels left on the backend, downloaded, and
/// the depth, against the reference levels `want` from `s`.
fn check_levels_on_backend<B>(g: &alg::Graph<'_, B>, want: &[i64], s: usize, what: &str)
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let depth = want.iter().copied().max().unwrap_or(0);
    for dir in [
        alg::Direction::Auto,
        alg::Direction::Push,
        alg::Direction::Pull,
    ] {
        let d = alg::bfs_on_backend(g, s, dir).unwrap();
        let got = g.backend().download_vector(&d.levels).unwrap();
        assert_eq!(
            got.to_vec(-1),
            want,
            "{what}: bfs_on_backend {dir:?} from {s}"
        );
        assert_eq!(
            d.depth, depth,
            "{what}: bfs_on_backend {dir:?} depth from {s}"
        );
    }
}

/// High-diameter graphs: a grid (118 levels from a corner) and a directed
/// path with a dead end, where the search runs many push levels in a row.
fn high_diameter_graphs() -> Vec<(String, Plain)> {
    let grid = Plain::from_matrix(&bitgraphblas::generate::grid_2d::<f64>(60));
    let n = 300;
    let mut adj: Vec<Vec<(usize, f64)>> = (0..n)
        .map(|i| {
            if i + 1 < n {
                vec![(i + 1, 1.0)]
            } else {
                vec![]
            }
        })
        .collect();
    adj[7].push((n - 1, 1.0));
    adj[n - 2].clear();
    // A path into a hub of 800 leaves, the leaves into the 20 first vertices
    // of a second path, then 11 isolated vertices (the last vertex, a source
    // of `check_bfs`, has no out-edge).
    let hub = 100;
    let fan = hub + 801;
    let end = fan + 100;
    let mut star: Vec<Vec<(usize, f64)>> = vec![vec![]; end + 11];
    for (i, row) in star.iter_mut().enumerate().take(end - 1) {
        if i < hub || i >= fan {
            row.push((i + 1, 1.0));
        } else if i > hub {
            row.push((fan + i % 20, 1.0));
        }
    }
    star[hub] = (hub + 1..fan).map(|l| (l, 1.0)).collect();
    vec![
        ("grid 60x60".into(), grid),
        ("directed path".into(), Plain { n, adj }),
        (
            "star between paths".into(),
            Plain {
                n: end + 11,
                adj: star,
            },
        ),
    ]
}

/// A small Graph500 R-MAT graph (skewed degrees, hubs at low ids, isolated
/// vertices): the searches pull their large middle levels.
fn rmat_graph(scale: u32) -> Plain {
    Plain::from_matrix(&bitgraphblas::generate::rmat::<f64>(scale, 16, 3))
}

#[test]
fn rmat_bfs_push_and_pull() {
    let p = rmat_graph(11);
    for f in [Format::Csr, Format::B2sr(TileSize::T8), Format::Auto] {
        check_bfs(&Cpu::new(), &p, f, "rmat 11");
    }
}

#[test]
fn high_diameter_bfs() {
    for (what, p) in high_diameter_graphs() {
        for f in [
            Format::Csr,
            Format::B2sr(TileSize::T4),
            Format::B2sr(TileSize::T32),
        ] {
            check_bfs(&Cpu::new(), &p, f, &what);
        }
    }
}

/// Unweighted shortest paths (the levels of a direction-optimising BFS)
/// against Dijkstra where the search both pushes and pulls: a hub reaching a third of the
/// graph (a large frontier: pull), long directed paths out of it (small
/// frontiers: push), a part the source cannot reach, vertices without
/// out-edges, and sizes that are not multiples of the tile size.
#[test]
fn unweighted_sssp_push_and_pull() {
    let cpu = Cpu::new();
    for n in [301, 1000, 1027] {
        let mut adj: Vec<Vec<(usize, f64)>> = vec![vec![]; n];
        let third = n / 3;
        adj[0] = (1..third).map(|j| (j, 1.0)).collect();
        for i in 1..third {
            if i % 5 == 0 {
                // a path out of every fifth spoke into the middle third
                let j = third + (i * 7) % third;
                adj[i].push((j, 1.0));
            }
        }
        for i in third..2 * third - 1 {
            if i % 3 != 0 {
                adj[i].push((i + 1, 1.0));
            }
        }
        // the last third: reachable only from itself (a cycle)
        for i in 2 * third..n {
            adj[i].push((if i + 1 < n { i + 1 } else { 2 * third }, 1.0));
        }
        let p = Plain { n, adj };
        let mut graphs = vec![(format!("hub and paths (n {n})"), p)];
        graphs.extend(high_diameter_graphs());
        for (seed, deg) in [(11, 0.8), (12, 6.0)] {
            graphs.push((
                format!("random(seed {seed}, n {n})"),
                common::random_graph(seed, n, deg, seed == 12),
            ));
        }
        for (what, p) in &graphs {
            let unit = Plain {
                n: p.n,
                adj: p
                    .adj
                    .iter()
                    .map(|r| r.iter().map(|&(j, _)| (j, 1.0)).collect())
                    .collect(),
            };
            let p = &unit;
            let want: Vec<Vec<f64>> = [0, p.n / 2]
                .iter()
                .map(|&s| common::dijkstra(p, s))
                .collect();
            for f in [
                Format::Csr,
                Format::B2sr(TileSize::T4),
                Format::B2sr(TileSize::T8),
                Format::B2sr(TileSize::T16),
                Format::B2sr(TileSize::T32),
                Format::B2sr(TileSize::T64),
                Format::Auto,
            ] {
                let g = alg::Graph::new(&cpu, p.pattern(), None, f).unwrap();
                for (s, want) in [0, p.n / 2].iter().zip(&want) {
                    let d = alg::sssp(&g, *s, None).unwrap();
                    assert_eq!(&d, want, "{what} {f:?}: unweighted sssp from {s}");
                }
            }
        }
    }
}

/// The same checks on the CUDA backend (B2SR formats the device packs; no
/// 64x64 tiles there). Without a GPU the test prints SKIPPED and passes,
/// unless BITGRAPHBLAS_REQUIRE_GPU=1.
#[cfg(feature = "cuda")]
#[test]
fn gpu_backend_all_algorithms() {
    let Some(gpu) = bitgraphblas::backend::cuda::own_cuda_or_skip("gpu_backend_all_algorithms")
    else {
        return;
    };
    let formats = [
        Format::B2sr(TileSize::T4),
        Format::B2sr(TileSize::T8),
        Format::B2sr(TileSize::T32),
        Format::Auto,
    ];
    let checks = Checks {
        bc_sources: usize::MAX,
        brute_tc: true,
    };
    for (seed, n, deg, sym) in [
        (2, 7, 2.0, true),
        (3, 70, 3.0, false),
        (4, 130, 4.0, true),
        (6, 97, 8.0, true),
    ] {
        let p = common::random_graph(seed, n, deg, sym);
        for f in formats {
            check_graph(
                &gpu,
                &p,
                f,
                checks,
                &format!("gpu random(seed {seed}, n {n})"),
            );
        }
    }
    // With the default one-block limits of the fused push levels, and with
    // small ones (the levels hand over between the one-block and the
    // whole-device kernels both ways).
    let default = gpu.bfs_block_limits();
    for (edges, vertices) in [default, (64, 40), (8, 1000)] {
        gpu.set_bfs_block_limits(edges, vertices);
        for (what, p) in high_diameter_graphs() {
            for f in [
                Format::Csr,
                Format::B2sr(TileSize::T4),
                Format::B2sr(TileSize::T32),
                Format::Auto,
            ] {
                check_bfs(
                    &gpu,
                    &p,
                    f,
                    &format!("gpu {what} block limits {edges} {vertices}"),
                );
            }
        }
    }
    gpu.set_bfs_block_limits(default.0, default.1);
    // Skewed degrees: hub rows longer than a warp's share in the pulled
    // levels, which Auto chooses for the large middle frontiers.
    let p = rmat_graph(15);
    for f in [
        Format::Csr,
        Format::B2sr(TileSize::T8),
        Format::B2sr(TileSize::T32),
        Format::Auto,
    ] {
        check_bfs(&gpu, &p, f, "gpu rmat 15");
    }
    let checks = Checks {
        bc_sources: 8,
        brute_tc: false,
    };
    for rel in [
        "suitesparse/extra/karate.mtx",
        "suitesparse/extra/curtis54.mtx",
        "suitesparse/delaunay_n14.mtx",
        "large/cit-HepPh.mtx.gz",
    ] {
        let Some((_, p)) = common::try_load(rel) else {
            continue;
        };
        check_graph(
            &gpu,
            &p,
            Format::B2sr(TileSize::T8),
            checks,
            &format!("gpu {rel}"),
        );
    }
}

/// PageRank with its ranks left on the backend, against power iteration in
/// `f64` within 1e-6 per vertex (NetworkX's tolerance test, and a fixed 20
/// iterations with `tol = 0`, which never converge), on graphs with and
/// without dangling vertices, in CSR (iso-valued on the device) and B2SR.
fn check_pagerank_on_backend<B>(b: &B, formats: &[Format], what: &str)
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    for (seed, n, deg, sym) in [
        (11, 300, 3.0, false),
        (12, 257, 5.0, true),
        (13, 1000, 1.5, false),
    ] {
        let p = common::random_graph(seed, n, deg, sym);
        for &format in formats {
            let g = alg::Graph::new(b, p.pattern(), None, format).unwrap();
            // The graph keeps the scale of the first damping (0.85): 0.6
            // builds its own, and 0.85 again must find the kept one intact.
            for (tol, iters, damping) in [
                (1e-6, 100, 0.85),
                (0.0, 20, 0.85),
                (1e-6, 100, 0.6),
                (0.0, 20, 0.85),
            ] {
                let opts = alg::PageRankOptions {
                    tol,
                    max_iters: iters,
                    damping,
                };
                let (want, want_iters) = common::pagerank(&p, damping, tol, iters);
                let d = alg::pagerank_on_backend(&g, &opts).unwrap();
                let ctx = format!("{what} seed {seed} {format:?} tol {tol} damping {damping}");
                assert_eq!(d.iterations, want_iters, "{ctx}: iterations");
                assert_eq!(
                    d.converged,
                    tol > 0.0 && want_iters < iters,
                    "{ctx}: converged"
                );
                let ranks = b.download_vector(&d.ranks).unwrap();
                assert_eq!(ranks.nvals(), n, "{ctx}: every vertex has a rank");
                let ranks = ranks.to_vec(f64::NAN);
                for v in 0..n {
                    assert!(
                        (ranks[v] - want[v]).abs() < 1e-6,
                        "{ctx}: at {v}: {} vs {}",
                        ranks[v],
                        want[v]
                    );
                }
                assert_eq!(
                    alg::pagerank(&g, &opts).unwrap().ranks,
                    ranks,
                    "{ctx}: pagerank = on backend + download"
                );
            }
        }
    }
}

#[test]
fn pagerank_on_backend_cpu() {
    check_pagerank_on_backend(
        &Cpu::new(),
        &[Format::Csr, Format::B2sr(TileSize::T8), Format::Auto],
        "cpu",
    );
}

/// [`check_pagerank_on_backend`] on the CUDA backend (SKIPPED without a GPU
/// unless BITGRAPHBLAS_REQUIRE_GPU=1).
#[cfg(feature = "cuda")]
#[test]
fn pagerank_on_backend_gpu() {
    let Some(gpu) = bitgraphblas::backend::cuda::own_cuda_or_skip("pagerank_on_backend_gpu") else {
        return;
    };
    let formats = [
        Format::Csr,
        Format::B2sr(TileSize::T8),
        Format::B2sr(TileSize::T32),
        Format::Auto,
    ];
    check_pagerank_on_backend(&gpu, &formats, "gpu");
}

/// The fused operations the algorithms call ([`bitgraphblas::ext::brandes`],
/// [`bitgraphblas::ext::bfs_record`]) agree with their generic defaults on
/// the primitives (what a backend without an override, such as CUDA for
/// these, runs), on the CPU.
#[test]
fn fused_operations_match_their_generic_defaults() {
    use bitgraphblas::ext::{self, bc::brandes_generic, bfs::bfs_record_generic};
    use bitgraphblas::Vector;
    let cpu = Cpu::new();
    for (seed, n, deg, sym) in [
        (21, 40, 2.0, false),
        (22, 130, 3.0, true),
        (23, 300, 1.5, false),
    ] {
        let p = common::random_graph(seed, n, deg, sym);
        let g = alg::Graph::new(&cpu, p.pattern(), None, Format::Csr).unwrap();
        let (a, at) = (g.a_f64().unwrap(), g.at_f64().unwrap());
        let sources = alg::even_sources(n, 7);
        let got = ext::brandes(&cpu, a, at, &sources).unwrap().to_vec(-1.0);
        let want = brandes_generic(&cpu, a, at, &sources).unwrap().to_vec(-1.0);
        assert_eq!(got.len(), want.len());
        for (x, y) in got.iter().zip(&want) {
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "seed {seed}: {x} vs {y}"
            );
        }
        // One level recorded: the source's out-neighbours, each with parent s.
        let s = n / 3;
        let ids = Vector::from_dense((0..n as u64).collect());
        let next_e: Vec<(usize, u64)> = p.adj[s]
            .iter()
            .map(|&(j, _)| j)
            .filter(|&j| j != s)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|j| (j, s as u64))
            .collect();
        let next = Vector::from_entries(n, next_e).unwrap();
        let start = |x: i64| Vector::from_entries(n, vec![(s, x)]).unwrap();
        let startu = || Vector::from_entries(n, vec![(s, s as u64)]).unwrap();
        let (mut l1, mut p1, mut f1) = (start(0), startu(), startu());
        let (mut l2, mut p2, mut f2) = (start(0), startu(), startu());
        ext::bfs_record(&cpu, &mut l1, &mut p1, &mut f1, &next, &ids, 1).unwrap();
        bfs_record_generic(&cpu, &mut l2, &mut p2, &mut f2, &next, &ids, 1).unwrap();
        assert_eq!(l1.to_vec(-1), l2.to_vec(-1), "seed {seed}: levels");
        assert_eq!(p1.entries(), p2.entries(), "seed {seed}: parents");
        assert_eq!(f1.entries(), f2.entries(), "seed {seed}: frontier");
    }
}
