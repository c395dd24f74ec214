//! Times the algorithms of bitgraphblas-algorithms on the CUDA backend; the
//! cuSPARSE counterpart (CuPy: level-synchronous BFS on SpMV, PageRank on SpMV,
//! triangle counting on SpGEMM) is scripts/gpu-algorithms-cupy.py, which reads
//! the graphs this program writes. Results: benches/results/gpu-algorithms.md.
//!
//! ```text
//! bench_gpu [--reps 3] [--graphs DIR] [--json FILE] [--only NAME] [--bfs auto|push|pull]
//!           [--affine-prescale auto|always|never] [--reorder rcm|degree|locality] [--unweighted]
//!           [GRAPH ...]
//! ```
//!
//! Graphs: USA-road-d.NY, delaunay_n14, cit-HepPh, ego-Twitter, cnr-2000 (found under
//! `$BITGRAPHBLAS_SHARED_DATA`, `$BITGRAPHBLAS_DATA` or `../shared/data`), the
//! 1024² and 4096² grids and Graph500 R-MAT 18 and 22 (`bitgraphblas::generate`).
//! Every algorithm of the command line runs on every graph, in the format
//! `Format::Auto` picks on this backend (betweenness from the first
//! `BC_SOURCES` vertices); one that fails is reported and the program exits
//! with an error after the others ran. `--reorder ORDER` computes a vertex
//! order (its time is the `reorder` row) and runs every algorithm on the
//! reordered graph (sources mapped in); the CuPy anchor reads the given order.
//! Each graph's pattern is written to `--graphs DIR` as `NAME.csr` (little
//! endian: `n` u64, `nnz` u64, `n + 1` u64 row offsets, `nnz` u32 columns) for
//! the CuPy script. Each algorithm runs once to warm up (kernel compilation),
//! then `--reps` times; best and median wall times, results downloaded
//! (BFS and PageRank: the levels and ranks stay on the device, as CuPy's do;
//! `bfs_download` and `pr20_download` are their downloads, timed on their own).
//! Unweighted SSSP is timed beside `bfs_host` (BFS with its levels on the
//! host: the same span); with SSSP selected, weighted delta-stepping (random
//! weights 1..=100) runs on this backend and on the CPU backend of the same
//! machine, its split edges built once (`sssp_weighted_prepare`) and not in
//! the timed runs; `--unweighted` leaves it out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bitgraphblas::backend::Backend;
use bitgraphblas::reorder::Order;
use bitgraphblas::{generate, CudaBackend, Format, Matrix};
use bitgraphblas_algorithms as alg;
use bitgraphblas_algorithms::{Algorithm, Graph};

/// Real graphs: name and path relative to a data folder.
const REAL: [(&str, &str); 5] = [
    ("USA-road-d.NY", "large/USA-road-d.NY.mtx.gz"),
    ("delaunay_n14", "suitesparse/delaunay_n14.mtx"),
    ("cit-HepPh", "large/cit-HepPh.mtx.gz"),
    ("ego-Twitter", "large/ego-Twitter.mtx.gz"),
    ("cnr-2000", "large/cnr-2000.mtx.gz"),
];
const GENERATED: [&str; 4] = ["grid1024", "grid4096", "rmat18", "rmat22"];

/// Every algorithm of the command line, in the order they run.
const ALL: [Algorithm; 6] = [
    Algorithm::Bfs,
    Algorithm::PageRank,
    Algorithm::Tc,
    Algorithm::Sssp,
    Algorithm::Cc,
    Algorithm::Bc,
];

/// Sources of the betweenness run (the first ones of the graph).
const BC_SOURCES: usize = 4;

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

/// [`timed`] for two functions, run in turn (one warm-up each, then
/// `reps` alternating rounds), so that both see the same machine state.
#[allow(clippy::type_complexity)]
fn timed_pair<T, U>(
    reps: usize,
    mut f: impl FnMut() -> T,
    mut g: impl FnMut() -> U,
) -> ((f64, f64, T), (f64, f64, U)) {
    let (mut x, mut y) = (f(), g());
    let (mut tf, mut tg) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        let t = Instant::now();
        x = f();
        tf.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        y = g();
        tg.push(t.elapsed().as_secs_f64());
    }
    let stats = |mut ts: Vec<f64>| {
        ts.sort_by(f64::total_cmp);
        (ts[0], ts[ts.len() / 2])
    };
    let ((bf, mf), (bg, mg)) = (stats(tf), stats(tg));
    ((bf, mf, x), (bg, mg, y))
}

fn find(rel: &str) -> Option<PathBuf> {
    let base = Path::new(rel).file_name()?;
    let mut cands = vec![];
    for var in ["BITGRAPHBLAS_SHARED_DATA", "BITGRAPHBLAS_DATA"] {
        if let Ok(d) = std::env::var(var) {
            cands.push(Path::new(&d).join(rel));
            cands.push(Path::new(&d).join(base));
        }
    }
    cands.push(Path::new("../shared/data").join(rel));
    cands.into_iter().find(|p| p.exists())
}

fn load(name: &str) -> Result<Matrix<bool>, Box<dyn std::error::Error>> {
    Ok(match name {
        "grid1024" => generate::grid_2d::<bool>(1024),
        "grid4096" => generate::grid_2d::<bool>(4096),
        "rmat18" => generate::rmat::<bool>(18, 16, 18),
        "rmat22" => generate::rmat::<bool>(22, 16, 1),
        _ => {
            let rel = REAL
                .iter()
                .find(|r| r.0 == name)
                .ok_or_else(|| format!("unknown graph {name}"))?
                .1;
            let path = find(rel).ok_or_else(|| format!("{rel} not found"))?;
            let m = alg::load::read_graph(&path)?.matrix;
            Matrix::from_csr(m.as_csr().map(|_| true))
        }
    })
}

/// The name `--only` matches (a prefix of it).
fn alg_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Bfs => "bfs",
        Algorithm::Sssp => "sssp",
        Algorithm::PageRank => "pagerank",
        Algorithm::Cc => "cc",
        Algorithm::Tc => "tc",
        Algorithm::Bc => "bc",
    }
}

/// Reports a failed run and records it.
fn failed(failures: &mut Vec<String>, graph: &str, algorithm: &str, e: impl std::fmt::Display) {
    println!("{graph:<14} {algorithm:<10} FAILED: {e}");
    failures.push(format!("{graph} {algorithm}: {e}"));
}

fn write_csr(path: &Path, m: &Matrix<bool>) -> std::io::Result<()> {
    let c = m.as_csr();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(&(c.nrows() as u64).to_le_bytes())?;
    f.write_all(&(c.nnz() as u64).to_le_bytes())?;
    for &p in c.row_ptr() {
        f.write_all(&(p as u64).to_le_bytes())?;
    }
    for &j in c.col_idx() {
        f.write_all(&j.to_le_bytes())?;
    }
    f.flush()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut reps = 3;
    let mut graphs_dir = PathBuf::from("/tmp/bitgraphblas-graphs");
    let mut json_out: Option<PathBuf> = None;
    let mut only: Option<String> = None;
    let mut reorder = Order::None;
    let mut direction = alg::Direction::Auto;
    // PageRank's affine product: scale d ⊗ u in a pass of its own (CudaBackend::set_affine_prescale)
    let mut prescale = None;
    // `--unweighted`: no weighted delta-stepping (nor its CPU backend run)
    let mut weighted = true;
    let mut names: Vec<String> = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().ok_or("--reps N")?.parse()?,
            "--graphs" => graphs_dir = args.next().ok_or("--graphs DIR")?.into(),
            "--json" => json_out = Some(args.next().ok_or("--json FILE")?.into()),
            "--only" => only = Some(args.next().ok_or("--only ALGORITHM")?),
            "--reorder" => reorder = args.next().ok_or("--reorder ORDER")?.parse()?,
            "--bfs" => {
                direction = match args.next().as_deref() {
                    Some("auto") => alg::Direction::Auto,
                    Some("push") => alg::Direction::Push,
                    Some("pull") => alg::Direction::Pull,
                    _ => return Err("--bfs auto|push|pull".into()),
                }
            }
            "--unweighted" => weighted = false,
            "--affine-prescale" => {
                prescale = match args.next().as_deref() {
                    Some("auto") => None,
                    Some("always") => Some(true),
                    Some("never") => Some(false),
                    _ => return Err("--affine-prescale auto|always|never".into()),
                }
            }
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = REAL
            .iter()
            .map(|r| r.0)
            .chain(GENERATED)
            .map(String::from)
            .collect();
    }
    std::fs::create_dir_all(&graphs_dir)?;
    let gpu = CudaBackend::new(0)?;
    gpu.set_affine_prescale(prescale);
    let commit = std::env::var("BITGRAPHBLAS_COMMIT").unwrap_or_default();
    println!(
        "# bitgraphblas-algorithms, CUDA backend on {}, commit {commit}, best and median of {reps}, BFS direction {direction:?}",
        gpu.device_name()
    );
    println!(
        "{:<14} {:<10} {:>10} {:>10}  check",
        "graph", "algorithm", "best ms", "median ms"
    );
    let mut rows = vec![];
    // algorithms that returned an error: the run goes on, the program fails at the end
    let mut failures: Vec<String> = vec![];
    for name in &names {
        let t0 = Instant::now();
        let pattern = load(name)?;
        // the CuPy anchor reads the given order
        write_csr(&graphs_dir.join(format!("{name}.csr")), &pattern)?;
        // `--reorder`: the vertex order computed (timed on its own) and
        // applied before the graph is built; sources are mapped in
        let (pattern, perm, reorder_s) = match reorder {
            Order::None => (pattern, None, 0.0),
            order => {
                let t = Instant::now();
                let p = order.compute(&pattern.as_csr())?;
                let s = t.elapsed().as_secs_f64();
                (p.permute_symmetric(&pattern)?, Some(p), s)
            }
        };
        let vertex = |v: usize| perm.as_ref().map_or(Ok(v), |p| p.vertex_to_new(v));
        let source = vertex(0)?;
        let g = Graph::new(&gpu, pattern, None, Format::Auto)?;
        let big = g.nvertices() > 4_000_000;
        let want = |a: &str| only.as_deref().is_none_or(|o| a.starts_with(o));
        let algs: Vec<Algorithm> = ALL.iter().copied().filter(|&a| want(alg_name(a))).collect();
        for &a in &algs {
            g.prepare(a)?;
        }
        gpu.synchronize()?;
        let fmt = match g.format() {
            Format::B2sr(t) => format!("B2SR {t}x{t}"),
            _ => "CSR".into(),
        };
        println!(
            "# {name}: {} vertices, {} entries, {fmt}, loaded and prepared in {:.1} s",
            g.nvertices(),
            g.nedges(),
            t0.elapsed().as_secs_f64()
        );
        let mut row = |a: &str, best: f64, med: f64, check: String| {
            println!(
                "{name:<14} {a:<10} {:>10.3} {:>10.3}  {check}",
                best * 1e3,
                med * 1e3
            );
            rows.push(format!(
                "{{\"graph\":\"{name}\",\"algorithm\":\"{a}\",\"best_ms\":{:.4},\"median_ms\":{:.4},\"check\":\"{check}\"}}",
                best * 1e3,
                med * 1e3
            ));
        };
        if reorder != Order::None {
            row(
                "reorder",
                reorder_s,
                reorder_s,
                format!("{reorder} order computed on the host, not in the algorithms"),
            );
        }
        let r = if big { reps.min(2) } else { reps };
        for &a in &algs {
            match a {
                Algorithm::Bfs => {
                    // The levels stay on the device (as CuPy's do): the
                    // download is timed on its own below.
                    let (b, m, res) = timed(r, || -> bitgraphblas::Result<_> {
                        let d = alg::bfs_on_backend(&g, source, direction)?;
                        gpu.synchronize()?;
                        Ok(d)
                    });
                    let d = res?;
                    let (db, dm, lv) = timed(r, || gpu.download_vector(&d.levels));
                    let lv = lv?.into_vec(-1);
                    let max_level = lv.iter().max().copied().unwrap_or(0);
                    let check = format!(
                        "reached={} max_level={max_level}",
                        lv.iter().filter(|&&l| l >= 0).count(),
                    );
                    if max_level != d.depth {
                        return Err(
                            format!("bfs depth {} but largest level {max_level}", d.depth).into(),
                        );
                    }
                    row("bfs", b, m, check);
                    row(
                        "bfs_download",
                        db,
                        dm,
                        format!("download of the {} levels (i64), not in bfs", lv.len()),
                    );
                }
                Algorithm::PageRank => {
                    let opts = alg::PageRankOptions {
                        tol: 0.0,
                        max_iters: 20,
                        ..Default::default()
                    };
                    // The ranks stay on the device (as CuPy's do): the
                    // download is timed on its own below.
                    let (b, m, res) = timed(r, || -> bitgraphblas::Result<_> {
                        let d = alg::pagerank_on_backend(&g, &opts)?;
                        gpu.synchronize()?;
                        Ok(d)
                    });
                    let d = res?;
                    let (db, dm, ranks) = timed(r, || gpu.download_vector(&d.ranks));
                    let ranks = ranks?.into_vec(f64::NAN);
                    let check = format!(
                        "sum={:.12} r0={:.12e}",
                        ranks.iter().sum::<f64>(),
                        ranks[source]
                    );
                    row("pagerank20", b, m, check);
                    row(
                        "pr20_download",
                        db,
                        dm,
                        format!(
                            "download of the {} ranks (f64), not in pagerank20",
                            ranks.len()
                        ),
                    );
                }
                Algorithm::Tc => {
                    let (b, m, res) = timed(r, || alg::triangle_count(&g));
                    match res {
                        Ok(t) => row("tc", b, m, format!("triangles={t}")),
                        Err(e) => failed(&mut failures, name, "tc", e),
                    }
                }
                Algorithm::Bc => {
                    let sources = (0..BC_SOURCES.min(g.nvertices()))
                        .map(vertex)
                        .collect::<bitgraphblas::Result<Vec<usize>>>()?;
                    let (b, m, res) = timed(r, || alg::betweenness(&g, &sources));
                    match res {
                        Ok(c) => {
                            let total: f64 = c.iter().sum();
                            row(
                                "bc",
                                b,
                                m,
                                format!("sources={} sum={total:.6e}", sources.len()),
                            );
                        }
                        Err(e) => failed(&mut failures, name, "bc", e),
                    }
                }
                Algorithm::Sssp => {
                    // Both to the host: the distances as `sssp` returns them,
                    // against the levels as `bfs` returns them, run in turn.
                    let ((b, m, res), (bb, bm, levels)) = timed_pair(
                        r,
                        || alg::sssp(&g, source, None),
                        || alg::bfs(&g, source, false),
                    );
                    match (res, levels) {
                        (Ok(d), Ok(levels)) => {
                            let fin: Vec<f64> =
                                d.iter().copied().filter(|x| x.is_finite()).collect();
                            let same = d.iter().zip(&levels.levels).all(|(&x, &l)| {
                                if l < 0 {
                                    x.is_infinite()
                                } else {
                                    x == l as f64
                                }
                            });
                            if !same {
                                failed(
                                    &mut failures,
                                    name,
                                    "sssp",
                                    "distances differ from the BFS levels",
                                );
                            }
                            let check = format!(
                                "reached={} max_dist={:?}; {:.2}x bfs_host (best)",
                                fin.len(),
                                fin.iter().cloned().fold(0.0, f64::max),
                                b / bb
                            );
                            row("sssp", b, m, check);
                            row(
                                "bfs_host",
                                bb,
                                bm,
                                "bfs with its levels on the host (the span sssp times)".into(),
                            );
                        }
                        (Err(e), _) | (_, Err(e)) => failed(&mut failures, name, "sssp", e),
                    }
                }
                Algorithm::Cc => {
                    let (b, m, res) = timed(1, || alg::connected_components(&g));
                    match res {
                        Ok(cc) => {
                            let k = cc
                                .iter()
                                .enumerate()
                                .filter(|&(i, &l)| l == i as u64)
                                .count();
                            row("cc", b, m, format!("components={k}"));
                        }
                        Err(e) => failed(&mut failures, name, "cc", e),
                    }
                }
            }
        }
        if weighted && algs.contains(&Algorithm::Sssp) {
            // delta-stepping with random integer weights 1..=100, on this
            // backend and on the CPU backend of the same machine
            let pattern = g.pattern().to_format(Format::Csr)?;
            let weights = bitgraphblas::generate::integer_weights(&pattern, 100, 0)?;
            // the light and heavy edges are built once per graph
            // (`Graph::prepare`), timed on their own
            let gw = Graph::new(&gpu, pattern.clone(), Some(weights.clone()), Format::Auto)?;
            let t = Instant::now();
            gw.prepare(Algorithm::Sssp)?;
            gpu.synchronize()?;
            let prep = t.elapsed().as_secs_f64();
            let (b, m, res) = timed(r, || alg::sssp(&gw, source, None));
            let cpu = bitgraphblas::Cpu::new();
            let gc = Graph::new(&cpu, pattern, Some(weights), Format::Auto)?;
            let t = Instant::now();
            gc.prepare(Algorithm::Sssp)?;
            let cprep = t.elapsed().as_secs_f64();
            let (cb, cm, cres) = timed(r.min(2), || alg::sssp(&gc, source, None));
            match (res, cres) {
                (Ok(d), Ok(c)) if d == c => {
                    let reached = d.iter().filter(|x| x.is_finite()).count();
                    row(
                        "sssp_weighted",
                        b,
                        m,
                        format!("weights 1..=100, reached={reached}, equal to the CPU backend; {:.1}x the CPU backend (best)", cb / b),
                    );
                    row(
                        "sssp_weighted_prepare",
                        prep,
                        prep,
                        format!("light and heavy edges split at delta and uploaded, once per graph (CPU backend: {:.3} ms)", cprep * 1e3),
                    );
                    row(
                        "sssp_weighted_cpu",
                        cb,
                        cm,
                        format!(
                            "CPU backend on the same machine, {} threads",
                            std::thread::available_parallelism().map_or(1, |n| n.get())
                        ),
                    );
                }
                (Ok(_), Ok(_)) => failed(
                    &mut failures,
                    name,
                    "sssp_weighted",
                    "distances differ from the CPU backend",
                ),
                (Err(e), _) | (_, Err(e)) => failed(&mut failures, name, "sssp_weighted", e),
            }
        }
    }
    if let Some(p) = json_out {
        std::fs::write(
            p,
            format!(
                "{{\"device\":\"{}\",\"commit\":\"{commit}\",\"rows\":[\n{}\n]}}\n",
                gpu.device_name(),
                rows.join(",\n")
            ),
        )?;
    }
    if !failures.is_empty() {
        return Err(format!("{} runs failed: {}", failures.len(), failures.join("; ")).into());
    }
    Ok(())
}
