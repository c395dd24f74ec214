//! Times every algorithm of bitgraphblas-algorithms on the CPU backend on the
//! real graphs of ../shared/data; the SuiteSparse:GraphBLAS counterpart is
//! scripts/suitesparse_algorithms.py (same graphs, same sources, same check
//! values). Results: benches/results/cpu-algorithms.md.
//!
//! ```text
//! cargo run --release -p bitgraphblas-algorithms --example bench_cpu -- [--reps 5] [--tile auto] [GRAPH ...]
//! ```
//!
//! The graph is loaded and its derived matrices built ([`Graph::prepare`])
//! before timing; each algorithm runs once to warm up, then `--reps` times;
//! the best and the median wall times are printed. `sssp_weighted` is
//! delta-stepping with random integer weights 1..=100 (no SuiteSparse row).

use std::path::PathBuf;
use std::time::Instant;

use bitgraphblas::{Cpu, Format, Matrix, TileSize};
use bitgraphblas_algorithms as alg;
use bitgraphblas_algorithms::{Algorithm, Graph};

const GRAPHS: [&str; 4] = [
    "suitesparse/delaunay_n14.mtx",
    "large/USA-road-d.NY.mtx.gz",
    "large/ego-Twitter.mtx.gz",
    "large/cnr-2000.mtx.gz",
];
const BC_SOURCES: usize = 16;
/// Betweenness on the high-diameter road graph and the large web crawl takes
/// minutes on both sides; it runs on these.
const BC_GRAPHS: [&str; 2] = ["delaunay_n14", "ego-Twitter"];

fn timed<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let mut out = f();
    let mut ts = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        out = f();
        ts.push(t.elapsed().as_secs_f64());
    }
    ts.sort_by(f64::total_cmp);
    (ts[0], ts[ts.len() / 2], out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut reps = 5;
    let mut tile = Some(TileSize::Auto);
    let mut only: Option<String> = None;
    let mut graphs: Vec<String> = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().ok_or("--reps N")?.parse()?,
            "--tile" => {
                let t = args.next().ok_or("--tile T")?;
                tile = if t == "csr" { None } else { Some(t.parse()?) };
            }
            "--only" => only = Some(args.next().ok_or("--only ALGORITHM")?),
            _ => graphs.push(a),
        }
    }
    if graphs.is_empty() {
        graphs = GRAPHS.iter().map(|s| s.to_string()).collect();
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    println!(
        "# bitgraphblas-algorithms, CPU backend, {} rayon threads, best and median of {reps}",
        rayon_threads()
    );
    println!(
        "{:<16} {:<10} {:>9} {:>10}  check",
        "graph", "algorithm", "best ms", "median ms"
    );
    for rel in &graphs {
        let name = rel
            .rsplit('/')
            .next()
            .unwrap_or(rel)
            .split('.')
            .next()
            .unwrap_or(rel);
        let loaded = alg::load::read_graph(&data.join(rel))?;
        let pattern = Matrix::from_csr(loaded.matrix.as_csr().map(|_| true));
        let format = match tile {
            None => Format::Csr,
            Some(TileSize::Auto) => Format::Auto,
            Some(t) => Format::B2sr(t),
        };
        let cpu = Cpu::new();
        let g = Graph::new(&cpu, pattern.clone(), None, format)?;
        for a in [
            Algorithm::Bfs,
            Algorithm::Sssp,
            Algorithm::PageRank,
            Algorithm::Cc,
            Algorithm::Tc,
            Algorithm::Bc,
        ] {
            g.prepare(a)?;
        }
        let n = g.nvertices();
        let fmt = match g.format() {
            Format::B2sr(t) => format!("B2SR {t}x{t}"),
            _ => "CSR".into(),
        };
        println!("# {name}: {n} vertices, {} entries, {fmt}", g.nedges());
        let want = |alg: &str| only.as_deref().is_none_or(|o| alg.starts_with(o));
        let row = |alg: &str, best: f64, med: f64, check: String| {
            println!(
                "{name:<16} {alg:<10} {:>9.2} {:>10.2}  {check}",
                best * 1e3,
                med * 1e3
            );
        };
        if want("bfs") {
            let (b, m, r) = timed(reps, || alg::bfs(&g, 0, false));
            let lv = r?.levels;
            row(
                "bfs",
                b,
                m,
                format!(
                    "reached={} max_level={}",
                    lv.iter().filter(|&&l| l >= 0).count(),
                    lv.iter().max().unwrap_or(&0)
                ),
            );
        }
        if want("sssp") {
            let (b, m, r) = timed(reps, || alg::sssp(&g, 0, None));
            let d = r?;
            let fin: Vec<f64> = d.into_iter().filter(|x| x.is_finite()).collect();
            row(
                "sssp",
                b,
                m,
                format!(
                    "reached={} max_dist={:?}",
                    fin.len(),
                    fin.iter().cloned().fold(0.0, f64::max)
                ),
            );
        }
        if want("sssp_weighted") {
            // delta-stepping with random integer weights 1..=100 (those of
            // bench_gpu), the light and heavy edges split before timing
            let weights = bitgraphblas::generate::integer_weights(&pattern, 100, 0)?;
            let gw = Graph::new(&cpu, pattern.clone(), Some(weights), format)?;
            gw.prepare(Algorithm::Sssp)?;
            let (b, m, r) = timed(reps, || alg::sssp(&gw, 0, None));
            let fin: Vec<f64> = r?.into_iter().filter(|x| x.is_finite()).collect();
            row(
                "sssp_weighted",
                b,
                m,
                format!(
                    "weights 1..=100, reached={} max_dist={:?}",
                    fin.len(),
                    fin.iter().cloned().fold(0.0, f64::max)
                ),
            );
        }
        if want("pagerank") {
            let opts = alg::PageRankOptions {
                tol: 0.0,
                max_iters: 20,
                ..Default::default()
            };
            let (b, m, r) = timed(reps, || alg::pagerank(&g, &opts));
            let pr = r?;
            row(
                "pagerank20",
                b,
                m,
                format!(
                    "sum={:.12} r0={:.12e}",
                    pr.ranks.iter().sum::<f64>(),
                    pr.ranks[0]
                ),
            );
        }
        if want("cc") {
            let (b, m, r) = timed(reps, || alg::connected_components(&g));
            let cc = r?;
            row(
                "cc",
                b,
                m,
                format!(
                    "components={}",
                    cc.iter()
                        .enumerate()
                        .filter(|&(i, &l)| l == i as u64)
                        .count()
                ),
            );
        }
        if want("tc") {
            let (b, m, r) = timed(reps, || alg::triangle_count(&g));
            row("tc", b, m, format!("triangles={}", r?));
        }
        if want("bc") && BC_GRAPHS.contains(&name) {
            let src = alg::even_sources(n, BC_SOURCES);
            let (b, m, r) = timed((reps / 2).max(1), || alg::betweenness(&g, &src));
            row(
                &format!("bc{}", src.len()),
                b,
                m,
                format!("sum={:.6}", r?.iter().sum::<f64>()),
            );
        }
    }
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
