//! `bitgraphblas`: graph algorithms and B2SR tools on the command line.
//!
//! ```text
//! bitgraphblas tour GRAPH [--backend cpu|cuda] [--tile T]
//! bitgraphblas info GRAPH
//! bitgraphblas convert GRAPH OUT [--tile 4|8|16|32|64|auto]
//! bitgraphblas bfs GRAPH --source S [--output FILE]
//! bitgraphblas sssp GRAPH --source S [--output FILE]
//! bitgraphblas pagerank GRAPH [--damping 0.85] [--tol T] [--max-iters N] [--output FILE]
//! bitgraphblas cc GRAPH [--output FILE]
//! bitgraphblas tc GRAPH [--output FILE]
//! bitgraphblas bc GRAPH [--sources K] [--output FILE]
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::ext::BackendExt;
use bitgraphblas::storage::b2sr::Profile;
use bitgraphblas::storage::B2sr;
use bitgraphblas::{Cpu, Format, Matrix, TileSize};
use bitgraphblas_algorithms as alg;
use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

#[derive(Parser)]
#[command(
    name = "bitgraphblas",
    version,
    about = "Graph algorithms on B2SR bit-tile matrices (CPU; CUDA with the `cuda` feature)",
    after_help = "GRAPH is a Matrix Market file (.mtx or .mtx.gz) or a B2SR file. Vertices are numbered \
                  from 0 (Matrix Market index minus 1); an entry (i, j) is an edge from i to j, and \
                  symmetric files hold both directions."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendKind {
    Cpu,
    Cuda,
}

/// Options every algorithm takes.
#[derive(Args, Clone, Debug)]
struct Common {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = BackendKind::Cpu)]
    backend: BackendKind,
    /// Tile size of the B2SR matrices: 4, 8, 16, 32, 64, or auto (the sampling
    /// profile picks one, or keeps CSR where no tile size stores fewer bytes).
    #[arg(long, default_value = "auto", value_parser = parse_tile)]
    tile: TileSize,
    /// Print a one-line JSON summary (graph, vertices, entries, backend, tile
    /// size, seconds spent loading, converting and computing) as the last line of standard output.
    #[arg(long)]
    json: bool,
    /// Write the result to FILE (one line per vertex) instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

fn parse_tile(s: &str) -> Result<TileSize, String> {
    s.parse::<TileSize>()
        .map_err(|_| format!("'{s}' is not a tile size (4, 8, 16, 32, 64 or auto)"))
}

#[derive(Subcommand)]
enum Cmd {
    /// The main job: BFS, PageRank, connected components and triangle counting on
    /// GRAPH, with the time each takes (load and convert once).
    Tour {
        /// The graph file.
        graph: PathBuf,
        /// Where to run.
        #[arg(long, value_enum, default_value_t = BackendKind::Cpu)]
        backend: BackendKind,
        /// Tile size of the B2SR matrices (4, 8, 16, 32, 64 or auto).
        #[arg(long, default_value = "auto", value_parser = parse_tile)]
        tile: TileSize,
    },
    /// Size, tile statistics and B2SR storage against CSR for every tile size.
    Info {
        /// The graph file.
        graph: PathBuf,
    },
    /// Write GRAPH as a binary B2SR file.
    Convert {
        /// The graph file.
        graph: PathBuf,
        /// The B2SR file to write.
        out: PathBuf,
        /// Tile size (auto: the one with the least estimated mxv work).
        #[arg(long, default_value = "auto", value_parser = parse_tile)]
        tile: TileSize,
    },
    /// Breadth-first search: the level of every vertex (0 at the source, -1 where unreachable).
    Bfs {
        graph: PathBuf,
        /// Source vertex (from 0).
        #[arg(long)]
        source: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Single-source shortest paths: the distance of every vertex (inf where
    /// unreachable; pattern entries weigh 1; weights must be non-negative).
    Sssp {
        graph: PathBuf,
        /// Source vertex (from 0).
        #[arg(long)]
        source: usize,
        /// Bucket width of delta-stepping (default: the mean edge weight).
        #[arg(long)]
        delta: Option<f64>,
        #[command(flatten)]
        common: Common,
    },
    /// PageRank (NetworkX's definition): the rank of every vertex; ranks sum to 1.
    Pagerank {
        graph: PathBuf,
        /// Damping factor.
        #[arg(long, default_value_t = 0.85)]
        damping: f64,
        /// Stop when the L1 change of the ranks falls below n * tol.
        #[arg(long, default_value_t = 1e-6)]
        tol: f64,
        /// Iteration limit.
        #[arg(long, default_value_t = 100)]
        max_iters: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Weakly connected components: the smallest vertex of each vertex's component.
    Cc {
        graph: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Triangle count of the undirected simple graph (symmetrised, self loops dropped).
    Tc {
        graph: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Betweenness centrality from K sources spread evenly over the vertices
    /// (exact when K >= the number of vertices); not normalised.
    Bc {
        graph: PathBuf,
        /// Number of sources.
        #[arg(long, default_value_t = 32)]
        sources: usize,
        #[command(flatten)]
        common: Common,
    },
}

/// The algorithm a command runs, with its parameters.
#[derive(Clone, Debug)]
enum Job {
    Bfs { source: usize },
    Sssp { source: usize, delta: Option<f64> },
    PageRank(alg::PageRankOptions),
    Cc,
    Tc,
    Bc { sources: usize },
}

impl Job {
    fn name(&self) -> &'static str {
        match self {
            Job::Bfs { .. } => "bfs",
            Job::Sssp { .. } => "sssp",
            Job::PageRank(_) => "pagerank",
            Job::Cc => "cc",
            Job::Tc => "tc",
            Job::Bc { .. } => "bc",
        }
    }
    fn algorithm(&self) -> alg::Algorithm {
        match self {
            Job::Bfs { .. } => alg::Algorithm::Bfs,
            Job::Sssp { .. } => alg::Algorithm::Sssp,
            Job::PageRank(_) => alg::Algorithm::PageRank,
            Job::Cc => alg::Algorithm::Cc,
            Job::Tc => alg::Algorithm::Tc,
            Job::Bc { .. } => alg::Algorithm::Bc,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`| head`) is not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bitgraphblas: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> AnyResult<()> {
    match cli.cmd {
        Cmd::Tour {
            graph,
            backend,
            tile,
        } => match backend {
            BackendKind::Cpu => tour(&Cpu::new(), &graph, tile),
            BackendKind::Cuda => cuda_tour(&graph, tile),
        },
        Cmd::Info { graph } => info(&graph),
        Cmd::Convert { graph, out, tile } => convert(&graph, &out, tile),
        Cmd::Bfs {
            graph,
            source,
            common,
        } => job(&graph, Job::Bfs { source }, &common),
        Cmd::Sssp {
            graph,
            source,
            delta,
            common,
        } => job(&graph, Job::Sssp { source, delta }, &common),
        Cmd::Pagerank {
            graph,
            damping,
            tol,
            max_iters,
            common,
        } => job(
            &graph,
            Job::PageRank(alg::PageRankOptions {
                damping,
                tol,
                max_iters,
            }),
            &common,
        ),
        Cmd::Cc { graph, common } => job(&graph, Job::Cc, &common),
        Cmd::Tc { graph, common } => job(&graph, Job::Tc, &common),
        Cmd::Bc {
            graph,
            sources,
            common,
        } => job(&graph, Job::Bc { sources }, &common),
    }
}

/// A spinner on standard error (drawn only when it is a terminal) while `f` runs.
fn with_spinner<T>(msg: String, f: impl FnOnce() -> T) -> (T, Duration) {
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"),
    );
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(120));
    let t = Instant::now();
    let r = f();
    let dt = t.elapsed();
    pb.finish_and_clear();
    (r, dt)
}

fn load(path: &Path) -> AnyResult<(alg::load::Loaded, Duration)> {
    let (r, dt) = with_spinner(format!("loading {}", path.display()), || {
        alg::load::read_graph(path)
    });
    let loaded = r?;
    if loaded.matrix.nrows() != loaded.matrix.ncols() {
        return Err(format!(
            "{}: a graph's matrix must be square, this one is {}x{}",
            path.display(),
            loaded.matrix.nrows(),
            loaded.matrix.ncols()
        )
        .into());
    }
    Ok((loaded, dt))
}

fn info(path: &Path) -> AnyResult<()> {
    let (loaded, _) = with_spinner(format!("loading {}", path.display()), || {
        alg::load::read_graph(path)
    });
    let m = loaded?.matrix;
    let csr = m.as_csr();
    let (profile, _) = with_spinner("profiling tiles".into(), || Profile::sample(&csr));
    let mut out = std::io::stdout().lock();
    writeln!(out, "graph     {}", path.display())?;
    writeln!(out, "rows      {}", m.nrows())?;
    writeln!(out, "columns   {}", m.ncols())?;
    writeln!(out, "entries   {} (after symmetric expansion)", m.nvals())?;
    writeln!(
        out,
        "CSR bytes {} (pattern only, 32-bit indices)",
        profile.csr_bytes
    )?;
    writeln!(
        out,
        "{:>4} {:>10} {:>8} {:>12} {:>7} {:>12} {:>8} {:>7}",
        "tile", "tiles", "fill", "B2SR bytes", "/CSR", "est. bytes", "est.fill", "est/CSR"
    )?;
    for t in TileSize::FIXED {
        let (b, _) = with_spinner(format!("packing {t}x{t} tiles"), || B2sr::from_csr(&csr, t));
        let b = b?;
        let e = profile
            .estimate(t)
            .ok_or("the profile has every fixed tile size")?;
        let csr_b = profile.csr_bytes.max(1) as f64;
        writeln!(
            out,
            "{:>4} {:>10} {:>8.4} {:>12} {:>7.3} {:>12.0} {:>8.4} {:>7.3}",
            t.to_string(),
            b.ntiles(),
            b.fill(),
            b.bytes(),
            b.bytes() as f64 / csr_b,
            e.bytes,
            e.fill,
            e.bytes / csr_b
        )?;
    }
    match profile.recommend() {
        Some(t) => writeln!(
            out,
            "auto      {t} (sampled {} tile rows)",
            profile.sampled_rows
        )?,
        None => writeln!(
            out,
            "auto      keep CSR (sampled {} tile rows)",
            profile.sampled_rows
        )?,
    }
    Ok(())
}

fn convert(path: &Path, out: &Path, tile: TileSize) -> AnyResult<()> {
    let (loaded, _) = load(path)?;
    if !loaded.pattern {
        eprintln!("bitgraphblas: note: B2SR stores the pattern only; the edge weights are dropped");
    }
    let pattern = Matrix::from_csr(loaded.matrix.as_csr().map(|_| true));
    let (b, dt) = with_spinner(format!("packing {tile} tiles"), || {
        pattern.to_format(Format::B2sr(tile))
    });
    let b = b?;
    alg::load::write_b2sr(out, &b)?;
    let Format::B2sr(t) = b.format() else {
        return Err("packing gave a non-B2SR matrix".into());
    };
    eprintln!(
        "wrote {} ({}x{}, {} entries, {t}x{t} tiles, packed in {:.3} s)",
        out.display(),
        b.nrows(),
        b.ncols(),
        b.nvals(),
        dt.as_secs_f64()
    );
    Ok(())
}

fn job(path: &Path, job: Job, c: &Common) -> AnyResult<()> {
    match c.backend {
        BackendKind::Cpu => job_on(&Cpu::new(), path, job, c),
        BackendKind::Cuda => cuda_job(path, job, c),
    }
}

#[cfg(not(feature = "cuda"))]
const NO_CUDA: &str =
    "this bitgraphblas was built without CUDA support; rebuild with `--features cuda` \
     (cargo build --release -p bitgraphblas-algorithms --features cuda) or use --backend cpu";

#[cfg(not(feature = "cuda"))]
fn cuda_job(_: &Path, _: Job, _: &Common) -> AnyResult<()> {
    Err(NO_CUDA.into())
}

#[cfg(feature = "cuda")]
fn cuda_job(path: &Path, job: Job, c: &Common) -> AnyResult<()> {
    let gpu = bitgraphblas::CudaBackend::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
    job_on(&gpu, path, job, c)
}

/// Seconds as JSON.
fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn job_on<B>(b: &B, path: &Path, job: Job, c: &Common) -> AnyResult<()>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let (loaded, t_load) = load(path)?;
    let n = loaded.matrix.nrows();
    let entries = loaded.matrix.nvals();
    if let Job::Bfs { source } | Job::Sssp { source, .. } = job {
        if source >= n {
            return Err(format!(
                "source {source} is not a vertex: the graph has {n} vertices, numbered 0 to {}",
                n.saturating_sub(1)
            )
            .into());
        }
    }
    let (g, t_conv, tile_name) = {
        let (r, dt) = with_spinner(
            format!("converting for {} on {}", job.name(), b.name()),
            || {
                let pattern = Matrix::from_csr(loaded.matrix.as_csr().map(|_| true));
                let format = match c.tile {
                    TileSize::Auto => Format::Auto,
                    t => Format::B2sr(t),
                };
                let weights = (!loaded.pattern).then(|| loaded.matrix.clone());
                let g = alg::Graph::new(b, pattern, weights, format)?;
                g.prepare(job.algorithm())?;
                let name = match g.format() {
                    Format::B2sr(t) => t.to_string(),
                    _ => "csr".to_string(),
                };
                Ok::<_, bitgraphblas::Error>((g, name))
            },
        );
        let (g, name) = r?;
        (g, dt, name)
    };
    let t0 = Instant::now();
    let (lines, extra) = compute(&g, &job)?;
    let t_compute = t0.elapsed();
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        for l in &lines {
            writeln!(w, "{l}")?;
        }
        Ok(())
    };
    match &c.output {
        Some(f) => {
            let file = std::fs::File::create(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let mut w = std::io::BufWriter::new(file);
            write(&mut w)
                .and_then(|_| w.flush())
                .map_err(|e| format!("{}: {e}", f.display()))?;
        }
        None => {
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            write(&mut w)?;
            w.flush()?;
        }
    }
    if c.json {
        println!(
            "{{\"algorithm\":\"{}\",\"graph\":{:?},\"vertices\":{n},\"entries\":{entries},\"backend\":\"{}\",\"tile\":\"{tile_name}\",\"load_s\":{:.6},\"convert_s\":{:.6},\"compute_s\":{:.6}{extra}}}",
            job.name(),
            path.display().to_string(),
            b.name(),
            secs(t_load),
            secs(t_conv),
            secs(t_compute)
        );
    }
    Ok(())
}

/// Runs `job` on `g`: the output lines (one per vertex, or the count) and extra
/// JSON fields.
fn compute<B>(g: &alg::Graph<'_, B>, job: &Job) -> AnyResult<(Vec<String>, String)>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let n = g.nvertices();
    let mut extra = String::new();
    let lines: Vec<String> = match job {
        Job::Bfs { source } => alg::bfs(g, *source, false)?
            .levels
            .iter()
            .map(|l| l.to_string())
            .collect(),
        Job::Sssp { source, delta } => alg::sssp(g, *source, *delta)?
            .iter()
            .map(|d| {
                if d.is_infinite() {
                    "inf".to_string()
                } else {
                    d.to_string()
                }
            })
            .collect(),
        Job::PageRank(opts) => {
            let pr = alg::pagerank(g, opts)?;
            if !pr.converged {
                eprintln!(
                    "bitgraphblas: warning: pagerank did not converge in {} iterations",
                    pr.iterations
                );
            }
            extra = format!(
                ",\"iterations\":{},\"converged\":{}",
                pr.iterations, pr.converged
            );
            pr.ranks.iter().map(|r| format!("{r:.12e}")).collect()
        }
        Job::Cc => alg::connected_components(g)?
            .iter()
            .map(|l| l.to_string())
            .collect(),
        Job::Tc => {
            let t = alg::triangle_count(g)?;
            extra = format!(",\"triangles\":{t}");
            vec![t.to_string()]
        }
        Job::Bc { sources } => {
            let src = alg::even_sources(n, *sources);
            extra = format!(",\"sources\":{}", src.len());
            alg::betweenness(g, &src)?
                .iter()
                .map(|x| x.to_string())
                .collect()
        }
    };
    Ok((lines, extra))
}

#[cfg(not(feature = "cuda"))]
fn cuda_tour(_: &Path, _: TileSize) -> AnyResult<()> {
    Err(NO_CUDA.into())
}

#[cfg(feature = "cuda")]
fn cuda_tour(path: &Path, tile: TileSize) -> AnyResult<()> {
    let gpu = bitgraphblas::CudaBackend::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
    tour(&gpu, path, tile)
}

/// The main job: each algorithm once, with its time and a one-line result.
fn tour<B>(b: &B, path: &Path, tile: TileSize) -> AnyResult<()>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let (loaded, t_load) = load(path)?;
    let n = loaded.matrix.nrows();
    println!(
        "{}: {n} vertices, {} entries, loaded in {:.1} ms; backend {}",
        path.display(),
        loaded.matrix.nvals(),
        t_load.as_secs_f64() * 1e3,
        b.name()
    );
    let format = match tile {
        TileSize::Auto => Format::Auto,
        t => Format::B2sr(t),
    };
    let pattern = Matrix::from_csr(loaded.matrix.as_csr().map(|_| true));
    let weights = (!loaded.pattern).then(|| loaded.matrix.clone());
    let g = alg::Graph::new(b, pattern, weights, format)?;
    let jobs = [
        Job::Bfs { source: 0 },
        Job::PageRank(alg::PageRankOptions::default()),
        Job::Cc,
        Job::Tc,
    ];
    for job in &jobs {
        let t = Instant::now();
        g.prepare(job.algorithm())?;
        let t_conv = t.elapsed();
        let t = Instant::now();
        let (lines, _) = compute(&g, job)?;
        let t_compute = t.elapsed();
        let summary = match job {
            Job::Bfs { .. } => {
                let levels: Vec<i64> = lines.iter().filter_map(|l| l.parse().ok()).collect();
                format!(
                    "reached {} vertices from vertex 0 in {} levels",
                    levels.iter().filter(|&&l| l >= 0).count(),
                    levels.iter().max().copied().unwrap_or(0)
                )
            }
            Job::PageRank(_) => {
                let ranks: Vec<f64> = lines.iter().filter_map(|l| l.parse().ok()).collect();
                let (best, r) =
                    ranks
                        .iter()
                        .enumerate()
                        .fold((0, f64::MIN), |a, (i, &r)| if r > a.1 { (i, r) } else { a });
                format!("top vertex {best} with rank {r:.6e}")
            }
            Job::Cc => {
                let mut labels: Vec<&String> = lines.iter().collect();
                labels.sort_unstable();
                labels.dedup();
                format!("{} components", labels.len())
            }
            _ => format!("{} triangles", lines.first().map_or("?", |s| s.as_str())),
        };
        println!(
            "{:<9} {:>9.3} ms  (+{:.1} ms to convert)  {summary}",
            job.name(),
            t_compute.as_secs_f64() * 1e3,
            t_conv.as_secs_f64() * 1e3
        );
    }
    println!(
        "tile format: {}",
        match g.format() {
            Format::B2sr(t) => format!("B2SR {t}x{t}"),
            _ => "CSR (Auto kept CSR)".to_string(),
        }
    );
    Ok(())
}
