//! `bitgraphblas`: graph algorithms and B2SR tools on the command line.
//!
//! ```text
//! bitgraphblas tour GRAPH [--backend cpu|cuda] [--tile T] [--reorder ORDER]
//! bitgraphblas info GRAPH [--reorder ORDER]
//! bitgraphblas convert GRAPH OUT [--tile 4|8|16|32|64|auto]
//! bitgraphblas bfs GRAPH --source S [--output FILE]
//! bitgraphblas sssp GRAPH --source S [--output FILE]
//! bitgraphblas pagerank GRAPH [--damping 0.85] [--tol T] [--max-iters N] [--output FILE]
//! bitgraphblas cc GRAPH [--output FILE]
//! bitgraphblas tc GRAPH [--output FILE]
//! bitgraphblas bc GRAPH [--sources K] [--output FILE]
//! ```
//!
//! The algorithms also take `--reorder none|rcm|degree|locality`: the
//! vertices are renumbered (timed apart) before the graph is converted,
//! sources are mapped in and every result is reported in the original ids.
//!
//! GRAPH `-` is standard input. Every command takes `--max-memory SIZE` and
//! `--max-line-bytes N` (or `BITGRAPHBLAS_MAX_MEMORY`, `BITGRAPHBLAS_MAX_LINE_BYTES`).
//! Exit codes: 0 on success (also when standard output is closed early, as by
//! `| head`), 1 on an error, 2 on a usage error, 70 on an internal error (a bug).

mod cli;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::ext::BackendExt;
use bitgraphblas::reorder::{Order, Permutation};
use bitgraphblas::storage::b2sr::{ColumnForm, Profile};
use bitgraphblas::storage::B2sr;
use bitgraphblas::{Cpu, Format, Matrix, TileSize};
use bitgraphblas_algorithms as alg;
use clap::{Args, Parser, Subcommand, ValueEnum};
use cli::files::{check_output, Input, Output};
use cli::stdout::Stdout;
use cli::{note, StdoutClosed};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// An allocation the system refuses ends the run with a message and exit code 1, not an abort.
#[global_allocator]
static ALLOC: cli::oom::ExitOnOom = cli::oom::ExitOnOom;

#[derive(Parser)]
#[command(
    name = "bitgraphblas",
    version,
    about = "Graph algorithms on B2SR bit-tile matrices (CPU; CUDA with the `cuda` feature)",
    after_help = "GRAPH is a Matrix Market file (.mtx or .mtx.gz) or a B2SR file, or - for standard \
                  input (a FIFO works too). Vertices are numbered from 0 (Matrix Market index minus \
                  1); an entry (i, j) is an edge from i to j, and symmetric files hold both \
                  directions. Reading may use a quarter of the memory limit (--max-memory, \
                  BITGRAPHBLAS_MAX_MEMORY; default: the memory the process may have) and \
                  refuses longer lines than --max-line-bytes (BITGRAPHBLAS_MAX_LINE_BYTES; \
                  default 1 MiB). An output that is the same file as the input is refused; \
                  output files are replaced only once complete."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// Memory limit of the run (bytes, or 4G, 512MiB, ...); reading the graph may use a
    /// quarter of it. Default: BITGRAPHBLAS_MAX_MEMORY, else the memory the process may have.
    #[arg(long, global = true, value_name = "SIZE", value_parser = cli::limits::parse_size)]
    max_memory: Option<u64>,
    /// Longest accepted line of a Matrix Market file, in bytes. Default:
    /// BITGRAPHBLAS_MAX_LINE_BYTES, else 1 MiB.
    #[arg(long, global = true, value_name = "N", value_parser = cli::limits::parse_size)]
    max_line_bytes: Option<u64>,
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
    /// Renumber the vertices before converting, to fill B2SR tiles better:
    /// none, rcm (reverse Cuthill-McKee), degree (hubs first) or locality
    /// (hierarchical community pairing). Timed apart; results stay in the
    /// original vertex ids.
    #[arg(long, default_value = "none", value_parser = parse_order)]
    reorder: Order,
}

fn parse_order(s: &str) -> Result<Order, String> {
    s.parse::<Order>()
        .map_err(|_| format!("'{s}' is not an order (none, rcm, degree or locality)"))
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
        /// The graph file (- for standard input).
        graph: PathBuf,
        /// Where to run.
        #[arg(long, value_enum, default_value_t = BackendKind::Cpu)]
        backend: BackendKind,
        /// Tile size of the B2SR matrices (4, 8, 16, 32, 64 or auto).
        #[arg(long, default_value = "auto", value_parser = parse_tile)]
        tile: TileSize,
        /// Renumber the vertices first (none, rcm, degree or locality); results
        /// stay in the original ids.
        #[arg(long, default_value = "none", value_parser = parse_order)]
        reorder: Order,
    },
    /// Size, tile statistics and B2SR storage against CSR for every tile size,
    /// and the tile fill after each vertex order (with the time it takes).
    Info {
        /// The graph file (- for standard input).
        graph: PathBuf,
        /// Only this order in the reordering table (default: every order).
        #[arg(long, value_parser = parse_order)]
        reorder: Option<Order>,
    },
    /// Write GRAPH as a binary B2SR file.
    Convert {
        /// The graph file (- for standard input).
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
    /// unreachable, overflow where the distance is larger than the largest f64;
    /// pattern entries weigh 1; weights must be finite and non-negative).
    Sssp {
        graph: PathBuf,
        /// Source vertex (from 0).
        #[arg(long)]
        source: usize,
        /// Bucket width of delta-stepping (default: the mean edge weight; raised where it
        /// would make more than 2^24 buckets).
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
    /// GNN inference: test accuracy, inference time and peak memory of MODEL with the
    /// weights FILE on the dataset DIR (adj.mtx and features.mtx, or graph.safetensors;
    /// labels.txt, split.json).
    #[command(after_help = gnn_models_help())]
    Gnn {
        /// The model (see the list below).
        #[arg(long)]
        model: String,
        /// Its weights: a safetensors file from scripts/gnn-train.py.
        #[arg(long)]
        weights: PathBuf,
        /// The dataset directory (e.g. data/cora).
        #[arg(long)]
        dataset: PathBuf,
        /// Where to run.
        #[arg(long, value_enum, default_value_t = BackendKind::Cpu)]
        backend: BackendKind,
        /// End with one JSON line (model, dataset, accuracy, seconds, peak_bytes, ...).
        #[arg(long)]
        json: bool,
        /// Write the predicted class of every node, one line per node (- for standard output).
        #[arg(long)]
        output: Option<PathBuf>,
        /// Timed forward passes after a first one and, where more than one,
        /// 300 ms of untimed ones (the median is reported).
        #[arg(long, default_value_t = 5)]
        reps: usize,
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
    std::panic::set_hook(Box::new(|info| {
        note(&format!(
            "internal error (a bug; please report it with the command line): {info}"
        ));
    }));
    match std::panic::catch_unwind(main_inner) {
        Ok(code) => code,
        Err(_) => ExitCode::from(70),
    }
}

fn main_inner() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`| head`) is not an error.
        Err(e) if e.is::<StdoutClosed>() => ExitCode::SUCCESS,
        Err(e) => {
            note(&format!("error: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// Prints clap's help, version or usage error (escaped) and picks the exit
/// code: 0 for help and version (1 if standard output fails, 0 if it is
/// closed), 2 for a usage error.
fn clap_exit(e: clap::Error) -> ExitCode {
    let text = cli::escape_lines(&e.render().to_string());
    if e.use_stderr() {
        let _ = write!(std::io::stderr(), "{text}");
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout().lock();
    match write!(out, "{text}").and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            note(&format!("error: standard output: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// The run's limits, with the total for messages.
struct Limits {
    read: bitgraphblas::io::ReadOptions,
    total: u64,
}

fn run(cli: Cli) -> AnyResult<()> {
    let (read, total) = cli::limits::read_options(cli.max_memory, cli.max_line_bytes)?;
    let lim = Limits { read, total };
    match cli.cmd {
        Cmd::Tour {
            graph,
            backend,
            tile,
            reorder,
        } => match backend {
            BackendKind::Cpu => tour(&Cpu::new(), &graph, tile, reorder, &lim),
            BackendKind::Cuda => cuda_tour(&graph, tile, reorder, &lim),
        },
        Cmd::Info { graph, reorder } => info(&graph, reorder, &lim),
        Cmd::Gnn {
            model,
            weights,
            dataset,
            backend,
            json,
            output,
            reps,
        } => {
            let job = cli::gnn::GnnJob {
                model: &model,
                weights: &weights,
                dataset: &dataset,
                json,
                output: output.as_deref(),
                reps,
                read: &lim.read,
            };
            match backend {
                BackendKind::Cpu => cli::gnn::run(&Cpu::new(), &job),
                BackendKind::Cuda => cuda_gnn(&job),
            }
        }
        Cmd::Convert { graph, out, tile } => convert(&graph, &out, tile, &lim),
        Cmd::Bfs {
            graph,
            source,
            common,
        } => job(&graph, Job::Bfs { source }, &common, &lim),
        Cmd::Sssp {
            graph,
            source,
            delta,
            common,
        } => job(&graph, Job::Sssp { source, delta }, &common, &lim),
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
            &lim,
        ),
        Cmd::Cc { graph, common } => job(&graph, Job::Cc, &common, &lim),
        Cmd::Tc { graph, common } => job(&graph, Job::Tc, &common, &lim),
        Cmd::Bc {
            graph,
            sources,
            common,
        } => job(&graph, Job::Bc { sources }, &common, &lim),
    }
}

/// A spinner on standard error (drawn only when it is a terminal) while `f` runs.
fn with_spinner<T>(msg: String, f: impl FnOnce() -> T) -> (T, Duration) {
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"),
    );
    pb.set_message(cli::escape_lines(&msg));
    pb.enable_steady_tick(Duration::from_millis(120));
    let t = Instant::now();
    let r = f();
    let dt = t.elapsed();
    pb.finish_and_clear();
    (r, dt)
}

/// Reads the graph within the limits; a memory error says how to raise them.
fn read_input(input: &Input, lim: &Limits) -> AnyResult<(alg::load::Loaded, Duration)> {
    let (r, dt) = with_spinner(format!("loading {}", input.name), || input.read(&lim.read));
    let file = match r {
        Ok(f) => f,
        Err(e @ bitgraphblas::Error::OutOfMemory { .. }) => {
            return Err(format!("{e}; {}", cli::limits::raise_hint(lim.total)).into())
        }
        Err(e) => return Err(e.into()),
    };
    Ok((alg::load::Loaded::from_file(file), dt))
}

/// Reads a graph for an algorithm: its matrix must be square.
fn load(input: &Input, lim: &Limits) -> AnyResult<(alg::load::Loaded, Duration)> {
    let (loaded, dt) = read_input(input, lim)?;
    if loaded.matrix.nrows() != loaded.matrix.ncols() {
        return Err(format!(
            "{}: a graph's matrix must be square, this one is {}x{}",
            input.name,
            loaded.matrix.nrows(),
            loaded.matrix.ncols()
        )
        .into());
    }
    Ok((loaded, dt))
}

fn info(path: &Path, reorder: Option<Order>, lim: &Limits) -> AnyResult<()> {
    let input = Input::new(path);
    check_output(&Output::Stdout, &[&input])?;
    let (loaded, _) = read_input(&input, lim)?;
    let m = loaded.matrix;
    let csr = m.as_csr();
    let (profile, _) = with_spinner("profiling tiles".into(), || Profile::sample(&csr));
    let mut out = Stdout::new();
    out.line(&format!("graph     {}", input.name))?;
    out.line(&format!("rows      {}", m.nrows()))?;
    out.line(&format!("columns   {}", m.ncols()))?;
    out.line(&format!(
        "entries   {} (after symmetric expansion)",
        m.nvals()
    ))?;
    out.line(&format!(
        "CSR bytes {} (pattern only, 32-bit indices)",
        profile.csr_bytes
    ))?;
    out.line(&format!(
        "{:>4} {:>10} {:>8} {:>12} {:>7} {:>12} {:>12} {:>8} {:>7}",
        "tile",
        "tiles",
        "fill",
        "B2SR bytes",
        "/CSR",
        "16-bit bytes",
        "est. bytes",
        "est.fill",
        "est/CSR"
    ))?;
    for t in TileSize::FIXED {
        let (b, _) = with_spinner(format!("packing {t}x{t} tiles"), || B2sr::from_csr(&csr, t));
        let b = b?;
        let e = profile
            .estimate(t)
            .ok_or("the profile has every fixed tile size")?;
        let csr_b = profile.csr_bytes.max(1) as f64;
        out.line(&format!(
            "{:>4} {:>10} {:>8.4} {:>12} {:>7.3} {:>12} {:>12.0} {:>8.4} {:>7.3}",
            t.to_string(),
            b.ntiles(),
            b.fill(),
            b.bytes(),
            b.bytes() as f64 / csr_b,
            b.clone().with_columns(ColumnForm::Narrow).bytes(),
            e.bytes,
            e.fill,
            e.bytes / csr_b
        ))?;
    }
    match profile.recommend() {
        Some(t) => out.line(&format!(
            "auto      {t} (sampled {} tile rows)",
            profile.sampled_rows
        ))?,
        None => out.line(&format!(
            "auto      keep CSR (sampled {} tile rows)",
            profile.sampled_rows
        ))?,
    }
    if m.nrows() == m.ncols() {
        reorder_table(&mut out, &m, reorder)?;
    }
    out.finish()
}

/// The tile fill (exact) in the given order and after each vertex order.
fn reorder_table(out: &mut Stdout, m: &Matrix<f64>, only: Option<Order>) -> AnyResult<()> {
    let tiles = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];
    let mut head = format!("{:<9} {:>9}", "reorder", "seconds");
    for t in tiles {
        head += &format!(" {:>10} {:>7}", format!("tiles{t}"), format!("fill{t}"));
    }
    out.line(&head)?;
    let csr = m.as_csr();
    for o in Order::ALL {
        if only.is_some_and(|x| x != o && o != Order::None) {
            continue;
        }
        let ((p, dt), _) = with_spinner(format!("reordering ({o})"), || {
            let t = Instant::now();
            (o.compute(&csr), t.elapsed())
        });
        let p = p?;
        let (prof, _) = with_spinner(format!("counting tiles ({o})"), || {
            p.permute_csr(&csr)
                .map(|c| Profile::sample_with(&c, usize::MAX, 1))
        });
        let prof = prof?;
        let mut line = format!("{:<9} {:>9.3}", o.name(), dt.as_secs_f64());
        for t in tiles {
            let e = prof
                .estimate(t)
                .ok_or("the profile has every fixed tile size")?;
            line += &format!(" {:>10.0} {:>7.4}", e.tiles, e.fill);
        }
        out.line(&line)?;
    }
    Ok(())
}

fn convert(path: &Path, out: &Path, tile: TileSize, lim: &Limits) -> AnyResult<()> {
    if out.as_os_str() == "-" {
        return Err(
            "convert writes a B2SR file; name one (- for standard output is not supported)".into(),
        );
    }
    let input = Input::new(path);
    check_output(&Output::File(out), &[&input])?;
    let (loaded, _) = load(&input, lim)?;
    if !loaded.pattern {
        note("note: B2SR stores the pattern only; the edge weights are dropped");
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
    note(&format!(
        "wrote {} ({}x{}, {} entries, {t}x{t} tiles, packed in {:.3} s)",
        out.display(),
        b.nrows(),
        b.ncols(),
        b.nvals(),
        dt.as_secs_f64()
    ));
    Ok(())
}

fn job(path: &Path, job: Job, c: &Common, lim: &Limits) -> AnyResult<()> {
    let input = Input::new(path);
    let out = match &c.output {
        Some(f) if f.as_os_str() != "-" => Output::File(f),
        _ => Output::Stdout,
    };
    check_output(&out, &[&input])?;
    // JSON goes to standard output even with --output.
    if c.json && matches!(out, Output::File(_)) {
        check_output(&Output::Stdout, &[&input])?;
    }
    match c.backend {
        BackendKind::Cpu => job_on(&Cpu::new(), &input, job, c, &out, lim),
        BackendKind::Cuda => cuda_job(&input, job, c, &out, lim),
    }
}

#[cfg(not(feature = "cuda"))]
const NO_CUDA: &str =
    "this bitgraphblas was built without CUDA support; rebuild with `--features cuda` \
     (cargo build --release -p bitgraphblas-algorithms --features cuda) or use --backend cpu";

#[cfg(not(feature = "cuda"))]
fn cuda_job(_: &Input, _: Job, _: &Common, _: &Output<'_>, _: &Limits) -> AnyResult<()> {
    Err(NO_CUDA.into())
}

#[cfg(feature = "cuda")]
fn cuda_job(input: &Input, job: Job, c: &Common, out: &Output<'_>, lim: &Limits) -> AnyResult<()> {
    let t0 = Instant::now();
    let gpu = bitgraphblas::CudaBackend::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
    trace_phase("open the device", t0);
    job_on(&gpu, input, job, c, out, lim)
}

/// With `BITGRAPHBLAS_TRACE` set, how long a phase since `t0` took, on
/// standard error (beside the library's own trace lines).
fn trace_phase(what: &str, t0: Instant) {
    if bitgraphblas::tracing() {
        eprintln!("phase {what}: {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
}

/// Seconds as JSON.
fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// `Err` unless `source` is a vertex of a graph with `n` vertices.
fn check_source(source: usize, n: usize) -> AnyResult<()> {
    if n == 0 {
        return Err(format!("source {source} is not a vertex: the graph has no vertices").into());
    }
    if source >= n {
        return Err(format!(
            "source {source} is not a vertex: the graph has {n} vertices, numbered 0 to {}",
            n - 1
        )
        .into());
    }
    Ok(())
}

fn job_on<B>(
    b: &B,
    input: &Input,
    job: Job,
    c: &Common,
    out: &Output<'_>,
    lim: &Limits,
) -> AnyResult<()>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let (mut loaded, t_load) = load(input, lim)?;
    let n = loaded.matrix.nrows();
    let entries = loaded.matrix.nvals();
    if let Job::Bfs { source } | Job::Sssp { source, .. } = job {
        check_source(source, n)?;
    }
    let (perm, t_reorder) = reorder_graph(&mut loaded, c.reorder)?;
    let job = map_sources(job, perm.as_ref())?;
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
                let t0 = Instant::now();
                let g = alg::Graph::new(b, pattern, weights, format)?;
                trace_phase("build the graph", t0);
                let t0 = Instant::now();
                match &job {
                    Job::Sssp { delta, .. } => g.prepare_sssp(*delta)?,
                    _ => g.prepare(job.algorithm())?,
                }
                trace_phase("prepare it", t0);
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
    let (lines, extra) = compute(&g, &job, perm.as_ref())?;
    let t_compute = t0.elapsed();
    if c.reorder != Order::None {
        note(&format!(
            "reorder {}: {:.3} s (convert {:.3} s, compute {:.3} s)",
            c.reorder,
            secs(t_reorder),
            secs(t_conv),
            secs(t_compute)
        ));
    }
    let mut stdout = Stdout::new();
    match out {
        Output::File(f) => {
            let mut file = bitgraphblas::io::OutputFile::create(f)?;
            for l in &lines {
                writeln!(file, "{l}").map_err(|e| format!("{}: {e}", file.path().display()))?;
            }
            file.commit()?;
        }
        Output::Stdout => stdout.lines(&lines)?,
    }
    if c.json {
        stdout.line(&format!(
            "{{\"algorithm\":\"{}\",\"graph\":{:?},\"vertices\":{n},\"entries\":{entries},\"backend\":\"{}\",\"tile\":\"{tile_name}\",\"reorder\":\"{}\",\"load_s\":{:.6},\"reorder_s\":{:.6},\"convert_s\":{:.6},\"compute_s\":{:.6}{extra}}}",
            job.name(),
            input.name,
            b.name(),
            c.reorder,
            secs(t_load),
            secs(t_reorder),
            secs(t_conv),
            secs(t_compute)
        ))?;
    }
    stdout.finish()
}

/// Renumbers the loaded graph's vertices by `order` (nothing for `none`):
/// the permutation and the time it took to compute and apply.
fn reorder_graph(
    loaded: &mut alg::load::Loaded,
    order: Order,
) -> AnyResult<(Option<Permutation>, Duration)> {
    if order == Order::None {
        return Ok((None, Duration::ZERO));
    }
    let (r, dt) = with_spinner(format!("reordering ({order})"), || {
        let p = order.compute(&loaded.matrix.as_csr())?;
        let m = p.permute_symmetric(&loaded.matrix)?;
        Ok::<_, bitgraphblas::Error>((p, m))
    });
    let (p, m) = r?;
    loaded.matrix = m;
    Ok((Some(p), dt))
}

/// The job with its source vertex in the renumbered graph.
fn map_sources(job: Job, perm: Option<&Permutation>) -> AnyResult<Job> {
    let Some(p) = perm else { return Ok(job) };
    Ok(match job {
        Job::Bfs { source } => Job::Bfs {
            source: p.vertex_to_new(source)?,
        },
        Job::Sssp { source, delta } => Job::Sssp {
            source: p.vertex_to_new(source)?,
            delta,
        },
        j => j,
    })
}

/// Component labels of a renumbered graph (each the smallest new id of its
/// component) as the smallest original id of the component, still indexed by
/// new id.
fn original_labels(p: &Permutation, labels: &[u64]) -> Vec<u64> {
    let mut min_old = vec![u64::MAX; labels.len()];
    for (v, &l) in labels.iter().enumerate() {
        let old = p.new_to_old()[v] as u64;
        let m = &mut min_old[l as usize];
        *m = (*m).min(old);
    }
    labels.iter().map(|&l| min_old[l as usize]).collect()
}

/// Runs `job` on `g`: the output lines (one per vertex, or the count) and extra
/// JSON fields. With `perm`, `g` is the renumbered graph and `job`'s source is
/// already mapped in; the lines come back in the original vertex ids.
fn compute<B>(
    g: &alg::Graph<'_, B>,
    job: &Job,
    perm: Option<&Permutation>,
) -> AnyResult<(Vec<String>, String)>
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
        Job::Sssp { source, delta } => {
            if let (Some(w), Some(d)) = (g.weights(), delta) {
                let used = alg::sssp::delta_for(w, Some(*d))?;
                if used != *d {
                    note(&format!(
                        "note: --delta {d:e} raised to {used:e}, so that delta-stepping needs at \
                         most 2^24 buckets (the distances are the same)"
                    ));
                }
            }
            let dist = alg::sssp(g, *source, *delta)?;
            let over = alg::sssp::overflowed(g, *source, &dist)?;
            if !over.is_empty() {
                let (k, what) = match over.len() {
                    1 => ("1".to_string(), "vertex is"),
                    k => (k.to_string(), "vertices are"),
                };
                note(&format!(
                    "warning: the distance of {k} {what} larger than the largest f64 \
                     ({:e}), written as 'overflow'",
                    f64::MAX
                ));
            }
            let mut lines: Vec<String> = dist
                .iter()
                .map(|d| {
                    if d.is_infinite() {
                        "inf".to_string()
                    } else {
                        d.to_string()
                    }
                })
                .collect();
            for v in over {
                lines[v] = "overflow".to_string();
            }
            lines
        }
        Job::PageRank(opts) => {
            let pr = alg::pagerank(g, opts)?;
            if !pr.converged {
                note(&format!(
                    "warning: pagerank did not converge in {} iterations",
                    pr.iterations
                ));
            }
            extra = format!(
                ",\"iterations\":{},\"converged\":{}",
                pr.iterations, pr.converged
            );
            pr.ranks.iter().map(|r| format!("{r:.12e}")).collect()
        }
        Job::Cc => {
            let mut labels = alg::connected_components(g)?;
            if let Some(p) = perm {
                labels = original_labels(p, &labels);
            }
            labels.iter().map(|l| l.to_string()).collect()
        }
        Job::Tc => {
            let t = alg::triangle_count(g)?;
            extra = format!(",\"triangles\":{t}");
            vec![t.to_string()]
        }
        Job::Bc { sources } => {
            let mut src = alg::even_sources(n, *sources);
            if let Some(p) = perm {
                for s in &mut src {
                    *s = p.vertex_to_new(*s)?;
                }
            }
            extra = format!(",\"sources\":{}", src.len());
            alg::betweenness(g, &src)?
                .iter()
                .map(|x| x.to_string())
                .collect()
        }
    };
    let lines = match (perm, job) {
        (
            Some(p),
            Job::Bfs { .. } | Job::Sssp { .. } | Job::PageRank(_) | Job::Cc | Job::Bc { .. },
        ) => p.slice_to_original(&lines)?,
        _ => lines,
    };
    Ok((lines, extra))
}

#[cfg(not(feature = "cuda"))]
fn cuda_tour(_: &Path, _: TileSize, _: Order, _: &Limits) -> AnyResult<()> {
    Err(NO_CUDA.into())
}

#[cfg(not(feature = "cuda"))]
fn cuda_gnn(_: &cli::gnn::GnnJob<'_>) -> AnyResult<()> {
    Err(NO_CUDA.into())
}

#[cfg(feature = "cuda")]
fn cuda_gnn(job: &cli::gnn::GnnJob<'_>) -> AnyResult<()> {
    let gpu = bitgraphblas::CudaBackend::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
    cli::gnn::run(&gpu, job)
}

/// The models `gnn --help` lists.
fn gnn_models_help() -> String {
    let mut s = String::from("Models:\n");
    for m in alg::gnn::Model::ALL {
        s += &format!("  {:10} {}\n", m.name(), m.describe());
    }
    s += "  (gcn-qK takes any K from 2 to 8.) Weights for Cora and CiteSeer: \
          data/weights/MODEL-DATASET.safetensors.";
    s
}

#[cfg(feature = "cuda")]
fn cuda_tour(path: &Path, tile: TileSize, reorder: Order, lim: &Limits) -> AnyResult<()> {
    let gpu = bitgraphblas::CudaBackend::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
    tour(&gpu, path, tile, reorder, lim)
}

/// The main job: each algorithm once, with its time and a one-line result.
fn tour<B>(b: &B, path: &Path, tile: TileSize, reorder: Order, lim: &Limits) -> AnyResult<()>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let input = Input::new(path);
    check_output(&Output::Stdout, &[&input])?;
    let (mut loaded, t_load) = load(&input, lim)?;
    let n = loaded.matrix.nrows();
    let mut out = Stdout::new();
    out.line(&format!(
        "{}: {n} vertices, {} entries, loaded in {:.1} ms; backend {}",
        input.name,
        loaded.matrix.nvals(),
        t_load.as_secs_f64() * 1e3,
        b.name()
    ))?;
    if n == 0 {
        out.line("no vertices: nothing to run")?;
        return out.finish();
    }
    let (perm, t_reorder) = reorder_graph(&mut loaded, reorder)?;
    if reorder != Order::None {
        out.line(&format!(
            "reorder   {:>9.3} ms  ({reorder}; results in the original vertex ids)",
            t_reorder.as_secs_f64() * 1e3
        ))?;
    }
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
        let mapped = map_sources(job.clone(), perm.as_ref())?;
        let t = Instant::now();
        g.prepare(job.algorithm())?;
        let t_conv = t.elapsed();
        let t = Instant::now();
        let (lines, _) = compute(&g, &mapped, perm.as_ref())?;
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
        out.line(&format!(
            "{:<9} {:>9.3} ms  (+{:.1} ms to convert)  {summary}",
            job.name(),
            t_compute.as_secs_f64() * 1e3,
            t_conv.as_secs_f64() * 1e3
        ))?;
    }
    out.line(&format!(
        "tile format: {}",
        match g.format() {
            Format::B2sr(t) => format!("B2SR {t}x{t}"),
            _ => "CSR (Auto kept CSR)".to_string(),
        }
    ))?;
    out.finish()
}
