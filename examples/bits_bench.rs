//! GPU benchmark of the dense-bit products (issue 17), through the public
//! API (`ops::{bmm, bspmm, bmm_planes, bspmm_planes}` on [`CudaBackend`]),
//! with the device copy bandwidth measured in the same run:
//!
//! - BMM, bits x bits -> i32 (PLUS.XNOR) on square sizes and on the GNN
//!   shapes, as binary ops/s (`2 m n k` per product) and as a fraction of the
//!   1-bit tensor-core peaks measured for the issue (`mma.sync` 9.5e15,
//!   `wgmma` 14.6e15 binary ops/s; `--peak-mma`, `--peak-wgmma` to change);
//!   at the GNN shapes every output kind too (BBF, BBB, FBF, FBB: bits or f32
//!   activations, f32 scaled or bits out), with the byte floor of each (the
//!   operands read once, the output written once, at the copy bandwidth);
//! - BSpMM, pattern x bits (PLUS.LAND_SIGNED: 0/1 adjacency by +1/-1
//!   features) to i32, f32 (row and column scales) and bits (a per-column
//!   threshold), with 64/128/256 feature columns, on delaunay_n14,
//!   USA-road-d.NY, cnr-2000, ego-Twitter and two generated Reddit-size graphs
//!   (232,965 vertices, about 114M directed edges): `reddit-rmat`, the
//!   Graph500 R-MAT of `generate::rmat` at scale 18 cropped to the first
//!   232,965 vertices, and `reddit-sbm`, `generate::sbm` with 41 blocks and
//!   80% of the edges inside a block; each at the tile size the sampling
//!   profile picks (what the CPU's `Format::Auto` packs to), at 32x32, and
//!   in CSR (what the CUDA backend's `Format::Auto` keeps for products by
//!   dense operands);
//! - bit-plane products at b = 1, 2, 4, 8: `bmm_planes` at the GNN shapes
//!   (both operands b-bit) and `bspmm_planes` on one graph, to i32 and to f32
//!   (dequantised).
//!
//! Each graph's CSR pattern is written into `--csr-dir` (`NAME.row_ptr.bin`:
//! n + 1 little-endian u64, `NAME.col_idx.bin`: nnz little-endian u32,
//! `NAME.csr.json`: the header), with `anchor-args.txt` (one argument a
//! line): the arguments of `scripts/gpu-bits-anchors.py` that time cuBLAS
//! and cuSPARSE on exactly these shapes and patterns. `scripts/gpu-run.sh
//! bits` runs the three steps (this, the anchors, `gpu-bits-report.py`).
//!
//! Every product is checked on sampled entries against a host computation
//! from the same inputs (`check` in the JSON); a product that fails its check,
//! returns an error or panics is reported and the run goes on; the program
//! exits non-zero at the end. Times are per call: medians of CUDA-event-timed
//! batches of back-to-back calls after warm-up (see `time_ms`, the same as
//! `examples/gpu_bench.rs`). Writes `bits-ours.json` into `--out` (again after
//! each section, so an interrupted run leaves what it measured).
//!
//! ```text
//! cargo build --release --features cuda --example bits_bench
//! bits_bench --data DIR --out DIR [--csr-dir DIR] [--quick] [--reps N]
//!     [--square 4096,8192,16384] [--gnn 232965x602x128,89250x500x256]
//!     [--features 64,128,256] [--only GRAPH,GRAPH..] [--reddit rmat,sbm|none]
//!     [--planes-graph NAME] [--plane-bits 1,2,4,8] [--skip-bmm] [--skip-bspmm]
//!     [--skip-planes] [--reddit-n N] [--reddit-edges E] [--budget-s 300] [--cpu]
//! ```
//! `--budget-s`: after this many seconds no further product is timed and no
//! further graph is loaded (recorded as `skipped`), so that the run with its
//! anchors stays inside one device command.
//! `--quick`: square 1024 and 2048, GNN shape 20000x602x128, widths 64 and
//! 128, delaunay_n14 alone, 5 repetitions (a smoke run). `--cpu`: the same
//! program on the CPU backend (host clock; a check of this program's own
//! inputs, checks and files where there is no GPU: give it small sizes).
//! Without a GPU (and without `--cpu`) it says so and exits with status 2.

use std::io::Write as _;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bitgraphblas::algebra::BitSemiring;
use bitgraphblas::container::MatrixRepr;
use bitgraphblas::container::{BitInput, BitOutput, BitPlanes, Scales, Threshold};
use bitgraphblas::generate::{self, SplitMix64};
use bitgraphblas::storage::b2sr::Profile;
use bitgraphblas::storage::{BitLayout, BitMatrix, Csr};
use bitgraphblas::{ops, Backend, Cpu, CudaBackend, DenseMatrix, Format, Matrix, Result, TileSize};
use cudarc::driver::sys::CUevent_flags;
use rayon::prelude::*;

/// The Reddit graph's vertex count, and about its directed edge count.
const REDDIT_N: usize = 232_965;
const REDDIT_EDGES: usize = 114_000_000;
/// Entries sampled by each product's check.
const SAMPLES: usize = 256;

// ------------------------------------------------------------------ JSON

/// A JSON value, written by `Display` (non-finite numbers as null).
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl std::fmt::Display for J {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            J::Null => write!(f, "null"),
            J::Bool(b) => write!(f, "{b}"),
            J::Num(x) if x.is_finite() => write!(f, "{x:e}"),
            J::Num(_) => write!(f, "null"),
            J::Int(i) => write!(f, "{i}"),
            J::Str(s) => {
                write!(f, "\"")?;
                for c in s.chars() {
                    match c {
                        '"' => write!(f, "\\\"")?,
                        '\\' => write!(f, "\\\\")?,
                        '\n' => write!(f, "\\n")?,
                        c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
                        c => write!(f, "{c}")?,
                    }
                }
                write!(f, "\"")
            }
            J::Arr(v) => {
                write!(f, "[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",\n")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, "]")
            }
            J::Obj(v) => {
                write!(f, "{{")?;
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{}:{x}", J::Str(k.clone()))?;
                }
                write!(f, "}}")
            }
        }
    }
}

fn s(x: impl Into<String>) -> J {
    J::Str(x.into())
}
fn int(x: usize) -> J {
    J::Int(x as i64)
}
fn obj(v: Vec<(&str, J)>) -> J {
    J::Obj(v.into_iter().map(|(k, x)| (k.to_string(), x)).collect())
}

// ------------------------------------------------------------------ timing

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN times"));
    v[v.len() / 2]
}

/// One timing: the median per-call time, the batch length and the batches.
#[derive(Clone, Copy)]
struct Timing {
    ms: f64,
    inner: usize,
    reps: usize,
}

/// What the benchmark needs of a backend besides [`Backend`]: its names, a
/// timed batch of calls, the copy bandwidth and a stored matrix's size.
/// [`CudaBackend`] runs the benchmark; [`Cpu`] (`--cpu`) runs the same
/// program on the host, a check of its own logic where there is no GPU.
trait Bench: Backend {
    fn device(&self) -> String;
    fn arch_name(&self) -> String;
    /// Waits for all queued work.
    fn sync(&self) -> Result<()>;
    /// Time per call (ms) of `inner` back-to-back calls of `f`.
    fn batch(&self, inner: usize, f: &mut dyn FnMut() -> Result<()>) -> Result<f64>;
    /// Bytes read + written per second by a large copy in this backend's memory.
    fn copy_bandwidth(&self) -> Result<f64>;
    /// Tiles and bytes of a stored pattern (0 tiles for CSR).
    fn matrix_size(m: &Self::Matrix<bool>) -> (usize, usize);
}

fn cuda_err(op: &'static str) -> impl Fn(cudarc::driver::DriverError) -> bitgraphblas::Error {
    move |e| bitgraphblas::Error::Cuda {
        op,
        detail: e.to_string(),
    }
}

impl Bench for CudaBackend {
    fn device(&self) -> String {
        self.device_name().to_string()
    }
    fn arch_name(&self) -> String {
        self.arch().to_string()
    }
    fn sync(&self) -> Result<()> {
        self.synchronize()
    }
    /// CUDA events around the batch on the backend's stream.
    fn batch(&self, inner: usize, f: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
        let (ctx, stream) = self.raw();
        let err = cuda_err("event");
        let a = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(&err)?;
        let b = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(&err)?;
        a.record(stream).map_err(&err)?;
        for _ in 0..inner {
            f()?;
        }
        b.record(stream).map_err(&err)?;
        b.synchronize().map_err(&err)?;
        Ok(a.elapsed_ms(&b).map_err(&err)? as f64 / inner as f64)
    }
    /// A device-to-device copy of 1 GiB.
    fn copy_bandwidth(&self) -> Result<f64> {
        let (_, stream) = self.raw();
        let n = 1usize << 28;
        let err = cuda_err("copy");
        let a = stream.alloc_zeros::<f32>(n).map_err(&err)?;
        let mut b = stream.alloc_zeros::<f32>(n).map_err(&err)?;
        let t = time_ms(self, 2, 10, || stream.memcpy_dtod(&a, &mut b).map_err(&err))?;
        Ok(2.0 * 4.0 * n as f64 / (t.ms * 1e-3))
    }
    fn matrix_size(m: &Self::Matrix<bool>) -> (usize, usize) {
        (m.ntiles(), m.bytes())
    }
}

impl Bench for Cpu {
    fn device(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }
    fn arch_name(&self) -> String {
        std::env::consts::ARCH.to_string()
    }
    fn sync(&self) -> Result<()> {
        Ok(())
    }
    /// The host clock around the batch.
    fn batch(&self, inner: usize, f: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
        let t = Instant::now();
        for _ in 0..inner {
            f()?;
        }
        Ok(t.elapsed().as_secs_f64() * 1e3 / inner as f64)
    }
    /// A copy of 256 MiB in host memory.
    fn copy_bandwidth(&self) -> Result<f64> {
        let n = 1usize << 26;
        let a = vec![1f32; n];
        let mut b = vec![0f32; n];
        let t = time_ms(self, 1, 5, || {
            b.copy_from_slice(&a);
            std::hint::black_box(&mut b);
            Ok(())
        })?;
        Ok(2.0 * 4.0 * n as f64 / (t.ms * 1e-3))
    }
    fn matrix_size(m: &Self::Matrix<bool>) -> (usize, usize) {
        match m.repr() {
            MatrixRepr::B2sr { pattern, .. } => (pattern.ntiles(), pattern.bytes()),
            MatrixRepr::Csr(c) => (0, c.pattern_bytes()),
        }
    }
}

/// Time (ms) of one call of `f`: the median over `reps` timed batches (CUDA
/// events on the GPU), after `warm` calls. A batch is `inner` back-to-back
/// calls (`inner` chosen from one timed call so that a batch takes about 0.5
/// ms, at most 64 calls), divided by `inner`, as `examples/gpu_bench.rs` and
/// `scripts/gpu-bits-anchors.py` time. Where one call takes over 100 ms, 5
/// batches (the run stays within its time).
fn time_ms<B: Bench>(
    be: &B,
    warm: usize,
    reps: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    for _ in 0..warm {
        f()?;
    }
    be.sync()?;
    let one = be.batch(1, &mut f)?;
    let inner = ((0.5 / one.max(1e-4)).ceil() as usize).clamp(1, 64);
    let reps = if one > 100.0 { reps.min(5) } else { reps }.max(1);
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        t.push(be.batch(inner, &mut f)?);
    }
    be.sync()?;
    Ok(Timing {
        ms: median(t),
        inner,
        reps,
    })
}

/// Runs `f`, turning an error or a panic into a message (the run goes on).
fn attempt<T>(f: impl FnOnce() -> Result<T>) -> std::result::Result<T, String> {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(p) => Err(format!(
            "panic: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "?".into())
        )),
    }
}

/// A product's timing (or why there is none), before its check.
struct Measured {
    label: String,
    t: std::result::Result<Timing, String>,
    /// Not timed: the run was over its time budget.
    skipped: bool,
}

/// Times a product (an error or a panic is kept as a message).
fn measure<B: Bench>(gpu: &B, cfg: &Cfg, label: &str, run: impl FnMut() -> Result<()>) -> Measured {
    if cfg.over_budget() {
        return Measured {
            label: label.to_string(),
            t: Err(format!(
                "skipped: over the time budget ({} s)",
                cfg.budget_s
            )),
            skipped: true,
        };
    }
    Measured {
        label: label.to_string(),
        t: attempt(|| time_ms(gpu, cfg.warm, cfg.reps, run)),
        skipped: false,
    }
}

impl Measured {
    /// Checks the product's output (`check` gives the number of sampled
    /// entries compared, or what differs); the record `{ms, inner, reps,
    /// check}` or `{error}`. A failed check or an error goes into `failed`.
    fn check(
        self,
        failed: &mut Vec<String>,
        check: impl FnOnce() -> Result<std::result::Result<usize, String>>,
    ) -> J {
        let label = self.label;
        let t = match self.t {
            Ok(t) => t,
            Err(e) if self.skipped => {
                println!("  {label}: {e}");
                return obj(vec![("skipped", s(e))]);
            }
            Err(e) => {
                println!("  {label}: ERROR {e}");
                failed.push(format!("{label}: {e}"));
                return obj(vec![("error", s(e))]);
            }
        };
        let c = match attempt(check) {
            Ok(Ok(n)) => format!("ok ({n} sampled entries)"),
            Ok(Err(e)) => format!("FAILED {e}"),
            Err(e) => format!("FAILED the check could not run: {e}"),
        };
        println!("  {label}: {:.4} ms  check {c}", t.ms);
        if c.starts_with("FAILED") {
            println!("  CHECK FAILED: {label}");
            failed.push(format!("{label}: {c}"));
        }
        obj(vec![
            ("ms", J::Num(t.ms)),
            ("inner", int(t.inner)),
            ("reps", int(t.reps)),
            ("check", s(c)),
        ])
    }
}

fn ms_of(r: &J) -> Option<f64> {
    if let J::Obj(v) = r {
        let failed = v
            .iter()
            .any(|(k, x)| k == "check" && matches!(x, J::Str(c) if c.starts_with("FAILED")));
        if failed {
            return None;
        }
        return v.iter().find_map(|(k, x)| match (k.as_str(), x) {
            ("ms", J::Num(m)) => Some(*m),
            _ => None,
        });
    }
    None
}

// ------------------------------------------------------------------ inputs

/// A random bit matrix (every bit 1 with probability 1/2), deterministic per seed.
fn random_bits(nrows: usize, ncols: usize, layout: BitLayout, seed: u64) -> Result<BitMatrix> {
    let (lines, len) = match layout {
        BitLayout::RowMajor => (nrows, ncols),
        BitLayout::ColMajor => (ncols, nrows),
    };
    let stride = len.div_ceil(64);
    let tail = len % 64;
    let mut words = vec![0u64; lines * stride];
    if stride > 0 {
        words.par_chunks_mut(stride).enumerate().for_each(|(l, w)| {
            let mut r = SplitMix64::new(seed ^ (l as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93));
            for x in w.iter_mut() {
                *x = r.next_u64();
            }
            if tail != 0 {
                w[stride - 1] &= (1u64 << tail) - 1;
            }
        });
    }
    BitMatrix::from_words(nrows, ncols, layout, words)
}

/// Random f32 values uniform in `[lo, hi)`, deterministic per seed.
fn random_f32(nrows: usize, ncols: usize, lo: f32, hi: f32, seed: u64) -> Result<DenseMatrix<f32>> {
    let mut v = vec![0f32; nrows * ncols];
    v.par_chunks_mut(1 << 16).enumerate().for_each(|(c, x)| {
        let mut r = SplitMix64::new(seed ^ (c as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for y in x.iter_mut() {
            *y = lo + (hi - lo) * r.next_f64() as f32;
        }
    });
    DenseMatrix::from_vec(nrows, ncols, v)
}

fn popc(a: &[u64]) -> i64 {
    a.iter().map(|x| x.count_ones() as i64).sum()
}
fn popc_and(a: &[u64], b: &[u64]) -> i64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x & y).count_ones() as i64)
        .sum()
}

/// Sampled (i, j) positions of an m x n output.
fn samples(m: usize, n: usize, seed: u64) -> Vec<(usize, usize)> {
    if m == 0 || n == 0 {
        return Vec::new();
    }
    let mut r = SplitMix64::new(seed);
    let mut v: Vec<(usize, usize)> = (0..SAMPLES)
        .map(|_| {
            (
                (r.next_u64() % m as u64) as usize,
                (r.next_u64() % n as u64) as usize,
            )
        })
        .collect();
    v.push((0, 0));
    v.push((m - 1, n - 1));
    v
}

/// Compares sampled values: `want(i, j)` gives the exact value and its
/// tolerance, `got(i, j)` the product's.
fn compare(
    at: &[(usize, usize)],
    mut want: impl FnMut(usize, usize) -> (f64, f64),
    mut got: impl FnMut(usize, usize) -> f64,
) -> std::result::Result<usize, String> {
    for &(i, j) in at {
        let (w, tol) = want(i, j);
        let g = got(i, j);
        // NaN never passes
        let close = (g - w).abs() <= tol;
        if !close {
            return Err(format!(
                "({i}, {j}): expected {w} (within {tol:.3e}), got {g}"
            ));
        }
    }
    Ok(at.len())
}

/// Compares sampled bits: `want(i, j)` gives `(s, t, tol)` (the bit is `s >=
/// t`; positions with `|s - t| <= tol` are ties that rounding may decide
/// either way and are skipped).
fn compare_bits(
    at: &[(usize, usize)],
    mut want: impl FnMut(usize, usize) -> (f64, f64, f64),
    out: &BitMatrix,
) -> std::result::Result<usize, String> {
    let mut n = 0;
    for &(i, j) in at {
        let (sv, t, tol) = want(i, j);
        if (sv - t).abs() <= tol {
            continue;
        }
        let g = out.get(i, j).ok_or(format!("({i}, {j}) out of range"))?;
        if g != (sv >= t) {
            return Err(format!("({i}, {j}): s = {sv}, threshold {t}, got bit {g}"));
        }
        n += 1;
    }
    Ok(n)
}

fn upload_f32<B: Bench>(gpu: &B, nrows: usize, ncols: usize, v: Vec<f32>) -> Result<B::Dense<f32>> {
    gpu.upload_dense(&DenseMatrix::from_vec(nrows, ncols, v)?)
}

// ------------------------------------------------------------------ config

struct Cfg {
    data: String,
    out: String,
    csr_dir: PathBuf,
    quick: bool,
    reps: usize,
    warm: usize,
    squares: Vec<usize>,
    gnn: Vec<(usize, usize, usize)>,
    features: Vec<usize>,
    graphs: Vec<String>,
    planes_graph: Option<String>,
    plane_bits: Vec<u32>,
    peak_mma: f64,
    peak_wgmma: f64,
    skip_bmm: bool,
    skip_bspmm: bool,
    skip_planes: bool,
    cpu: bool,
    reddit_n: usize,
    reddit_edges: usize,
    /// Seconds after which no further product is timed (nor graph loaded).
    budget_s: f64,
    start: Instant,
}

impl Cfg {
    fn over_budget(&self) -> bool {
        self.start.elapsed().as_secs_f64() > self.budget_s
    }
}

fn parse_list<T: std::str::FromStr>(s: &str, what: &str) -> std::result::Result<Vec<T>, String> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().map_err(|_| format!("{what}: cannot read {x:?}")))
        .collect()
}

fn parse_shape(x: &str) -> std::result::Result<(usize, usize, usize), String> {
    let p: Vec<usize> = x
        .split('x')
        .map(|v| v.parse().map_err(|_| format!("--gnn: cannot read {x:?}")))
        .collect::<std::result::Result<_, _>>()?;
    match p[..] {
        [m, k, n] if m > 0 && k > 0 && n > 0 => Ok((m, k, n)),
        _ => Err(format!("--gnn: {x:?} is not MxKxN")),
    }
}

fn parse_args() -> std::result::Result<Cfg, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flags = [
        "--quick",
        "--skip-bmm",
        "--skip-bspmm",
        "--skip-planes",
        "--cpu",
        "--help",
        "-h",
    ];
    let valued = [
        "--data",
        "--out",
        "--csr-dir",
        "--reps",
        "--square",
        "--gnn",
        "--features",
        "--only",
        "--reddit",
        "--planes-graph",
        "--plane-bits",
        "--peak-mma",
        "--peak-wgmma",
        "--reddit-n",
        "--reddit-edges",
        "--budget-s",
    ];
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if flags.contains(&a) {
            i += 1;
        } else if valued.contains(&a) {
            if i + 1 >= args.len() {
                return Err(format!("{a} needs a value"));
            }
            i += 2;
        } else {
            return Err(format!("unknown argument {a:?}"));
        }
    }
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Err(String::new());
    }
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|p| args.get(p + 1))
            .cloned()
    };
    let has = |k: &str| args.iter().any(|a| a == k);
    let quick = has("--quick");
    let squares = match get("--square") {
        Some(v) => parse_list(&v, "--square")?,
        None if quick => vec![1024, 2048],
        None => vec![4096, 8192, 16384],
    };
    let gnn = match get("--gnn") {
        Some(v) => v
            .split(',')
            .filter(|x| !x.is_empty())
            .map(parse_shape)
            .collect::<std::result::Result<_, _>>()?,
        None if quick => vec![(20_000, 602, 128)],
        None => vec![(REDDIT_N, 602, 128), (89_250, 500, 256)],
    };
    let features = match get("--features") {
        Some(v) => parse_list(&v, "--features")?,
        None if quick => vec![64, 128],
        None => vec![64, 128, 256],
    };
    let reddit: Vec<String> = match get("--reddit") {
        Some(v) if v == "none" => vec![],
        Some(v) => {
            let r: Vec<String> = v.split(',').map(str::to_string).collect();
            if let Some(x) = r.iter().find(|x| *x != "rmat" && *x != "sbm") {
                return Err(format!("--reddit: {x:?} is none of rmat, sbm, none"));
            }
            r
        }
        None if quick => vec![],
        None => vec!["rmat".into(), "sbm".into()],
    };
    let mut graphs: Vec<String> = if quick {
        vec!["delaunay_n14".into()]
    } else {
        ["delaunay_n14", "USA-road-d.NY", "cnr-2000", "ego-Twitter"]
            .map(String::from)
            .to_vec()
    };
    graphs.extend(reddit.iter().map(|r| format!("reddit-{r}")));
    if let Some(o) = get("--only") {
        let only: Vec<&str> = o.split(',').collect();
        graphs.retain(|g| only.contains(&g.as_str()));
    }
    let planes_graph = get("--planes-graph").or_else(|| {
        ["reddit-sbm", "reddit-rmat"]
            .iter()
            .find(|g| graphs.iter().any(|x| x == *g))
            .map(|g| g.to_string())
            .or_else(|| graphs.first().cloned())
    });
    let reps = match get("--reps") {
        Some(v) => v
            .parse()
            .map_err(|_| format!("--reps: cannot read {v:?}"))?,
        None if quick => 5,
        None => 20,
    };
    let peak = |k: &str, d: f64| -> std::result::Result<f64, String> {
        get(k).map_or(Ok(d), |v| {
            v.parse().map_err(|_| format!("{k}: cannot read {v:?}"))
        })
    };
    if squares.iter().chain(&features).any(|&x| x == 0) {
        return Err("sizes must be positive".into());
    }
    let size = |k: &str, d: usize| -> std::result::Result<usize, String> {
        get(k).map_or(Ok(d), |v| {
            v.parse().map_err(|_| format!("{k}: cannot read {v:?}"))
        })
    };
    let (reddit_n, reddit_edges) = (
        size("--reddit-n", REDDIT_N)?,
        size("--reddit-edges", REDDIT_EDGES)?,
    );
    if reddit_n < 2 {
        return Err("--reddit-n: at least 2 vertices".into());
    }
    let plane_bits: Vec<u32> = match get("--plane-bits") {
        Some(v) => parse_list(&v, "--plane-bits")?,
        None => vec![1, 2, 4, 8],
    };
    if plane_bits.iter().any(|&b| !(1..=8).contains(&b)) {
        return Err("--plane-bits: widths are 1..=8".into());
    }
    Ok(Cfg {
        data: get("--data").unwrap_or_else(|| "data".into()),
        out: get("--out").unwrap_or_else(|| ".".into()),
        csr_dir: get("--csr-dir").map_or_else(
            || std::env::temp_dir().join("bitgraphblas-bits"),
            PathBuf::from,
        ),
        quick,
        reps: reps.max(1),
        warm: 3,
        squares,
        gnn,
        features,
        graphs,
        planes_graph,
        plane_bits,
        // measured on the H100 for issue 17 (its Benchmark section)
        peak_mma: peak("--peak-mma", 9.5e15)?,
        peak_wgmma: peak("--peak-wgmma", 14.6e15)?,
        skip_bmm: has("--skip-bmm"),
        skip_bspmm: has("--skip-bspmm"),
        skip_planes: has("--skip-planes"),
        cpu: has("--cpu"),
        reddit_n,
        reddit_edges,
        budget_s: peak("--budget-s", 300.0)?,
        start: Instant::now(),
    })
}

// ------------------------------------------------------------------ state

#[derive(Default)]
struct Results {
    head: Vec<(String, J)>,
    bmm: Vec<J>,
    bmm_planes: Vec<J>,
    graphs: Vec<J>,
    bspmm: Vec<J>,
    bspmm_planes: Vec<J>,
    failed: Vec<String>,
}

fn io_err(path: &Path, e: std::io::Error) -> bitgraphblas::Error {
    bitgraphblas::Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn write_results(cfg: &Cfg, r: &Results) -> Result<()> {
    let mut v: Vec<(String, J)> = Vec::new();
    for (k, x) in &r.head {
        v.push((k.clone(), clone_j(x)));
    }
    let take = |x: &Vec<J>| J::Arr(x.iter().map(clone_j).collect());
    v.push(("bmm".into(), take(&r.bmm)));
    v.push(("bmm_planes".into(), take(&r.bmm_planes)));
    v.push(("graphs".into(), take(&r.graphs)));
    v.push(("bspmm".into(), take(&r.bspmm)));
    v.push(("bspmm_planes".into(), take(&r.bspmm_planes)));
    v.push((
        "failed".into(),
        J::Arr(r.failed.iter().map(|f| s(f.clone())).collect()),
    ));
    let path = Path::new(&cfg.out).join("bits-ours.json");
    let tmp = Path::new(&cfg.out).join("bits-ours.json.tmp");
    std::fs::write(&tmp, format!("{}\n", J::Obj(v))).map_err(|e| io_err(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io_err(&path, e))
}

fn clone_j(x: &J) -> J {
    match x {
        J::Null => J::Null,
        J::Bool(b) => J::Bool(*b),
        J::Num(n) => J::Num(*n),
        J::Int(i) => J::Int(*i),
        J::Str(t) => J::Str(t.clone()),
        J::Arr(v) => J::Arr(v.iter().map(clone_j).collect()),
        J::Obj(v) => J::Obj(v.iter().map(|(k, x)| (k.clone(), clone_j(x))).collect()),
    }
}

// ------------------------------------------------------------------ main

fn main() {
    let cfg = match parse_args() {
        Ok(c) => c,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("bits_bench: {e}");
            }
            eprintln!(
                "usage: bits_bench --data DIR --out DIR [--csr-dir DIR] [--quick] [--reps N] \
                 [--square 4096,..] [--gnn MxKxN,..] [--features 64,..] [--only GRAPH,..] \
                 [--reddit rmat,sbm|none] [--planes-graph NAME] [--plane-bits 1,2,4,8] \
                 [--peak-mma OPS] [--peak-wgmma OPS] [--skip-bmm] [--skip-bspmm] [--skip-planes] \
                 [--reddit-n N] [--reddit-edges E] [--budget-s S] [--cpu]"
            );
            std::process::exit(if e.is_empty() { 0 } else { 2 });
        }
    };
    match run(&cfg) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("bits_bench: {e}");
            std::process::exit(1);
        }
    }
}

fn run(cfg: &Cfg) -> Result<i32> {
    if cfg.cpu {
        return run_on(&Cpu::new(), cfg);
    }
    match CudaBackend::new(0) {
        Ok(gpu) => run_on(&gpu, cfg),
        Err(e) => {
            eprintln!(
                "bits_bench: no usable GPU ({e}): nothing was timed. It runs on the GPU machine \
                 (scripts/gpu-bundle.sh, then `bash .gpu/run.sh bits`); `--cpu` runs it on the \
                 CPU backend instead (a check of this program, small sizes)."
            );
            Ok(2)
        }
    }
}

fn run_on<B: Bench>(gpu: &B, cfg: &Cfg) -> Result<i32> {
    let commit = std::env::var("BITGRAPHBLAS_COMMIT").unwrap_or_else(|_| "unknown".into());
    std::fs::create_dir_all(&cfg.out).map_err(|e| io_err(Path::new(&cfg.out), e))?;
    prepare_csr_dir(cfg)?;
    let bw = gpu.copy_bandwidth()?;
    println!(
        "device {} ({}), commit {commit}",
        gpu.device(),
        gpu.arch_name()
    );
    println!("device copy bandwidth {:.3} TB/s (read + write)", bw / 1e12);
    let mut r = Results {
        head: vec![
            ("tool".into(), s("bits_bench")),
            ("device".into(), s(gpu.device())),
            ("arch".into(), s(gpu.arch_name())),
            ("commit".into(), s(commit)),
            ("copy_bandwidth_bytes_per_s".into(), J::Num(bw)),
            ("reps".into(), int(cfg.reps)),
            ("warm".into(), int(cfg.warm)),
            ("quick".into(), J::Bool(cfg.quick)),
            (
                "peaks".into(),
                obj(vec![
                    ("mma_sync_ops_per_s", J::Num(cfg.peak_mma)),
                    ("wgmma_ops_per_s", J::Num(cfg.peak_wgmma)),
                    (
                        "source",
                        s("issue 17, measured on the H100 earlier (not in this run)"),
                    ),
                ]),
            ),
            ("bmm_semiring".into(), s(BitSemiring::PLUS_XNOR.name())),
            (
                "bspmm_semiring".into(),
                s(BitSemiring::PLUS_LAND_SIGNED.name()),
            ),
            ("csr_dir".into(), s(cfg.csr_dir.display().to_string())),
        ],
        ..Default::default()
    };
    write_results(cfg, &r)?;
    let t0 = Instant::now();
    if !cfg.skip_bmm {
        bmm_section(gpu, cfg, bw, &mut r)?;
        write_results(cfg, &r)?;
    }
    if !cfg.skip_planes && !cfg.skip_bmm {
        planes_section(gpu, cfg, &mut r)?;
        write_results(cfg, &r)?;
    }
    if !cfg.skip_bspmm {
        for (order, name) in cfg.graphs.iter().enumerate() {
            graph_section(gpu, cfg, order, name, &mut r)?;
            write_results(cfg, &r)?;
        }
    }
    r.head
        .push(("seconds".into(), J::Num(t0.elapsed().as_secs_f64())));
    write_results(cfg, &r)?;
    println!(
        "bits_bench: {:.0} s; results in {}/bits-ours.json",
        t0.elapsed().as_secs_f64(),
        cfg.out
    );
    if r.failed.is_empty() {
        Ok(0)
    } else {
        println!("bits_bench: {} FAILED:", r.failed.len());
        for f in &r.failed {
            println!("  {f}");
        }
        Ok(1)
    }
}

/// Empties the CSR folder of this program's files and writes the anchors'
/// arguments (one a line).
fn prepare_csr_dir(cfg: &Cfg) -> Result<()> {
    let d = &cfg.csr_dir;
    std::fs::create_dir_all(d).map_err(|e| io_err(d, e))?;
    for e in std::fs::read_dir(d).map_err(|e| io_err(d, e))?.flatten() {
        let n = e.file_name().to_string_lossy().to_string();
        if n.ends_with(".csr.json")
            || n.ends_with(".row_ptr.bin")
            || n.ends_with(".col_idx.bin")
            || n == "anchor-args.txt"
        {
            std::fs::remove_file(e.path()).map_err(|x| io_err(&e.path(), x))?;
        }
    }
    let mut a: Vec<String> = Vec::new();
    let join = |v: &[usize]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    if cfg.skip_bmm {
        a.push("--skip-gemm".into());
    } else {
        a.push("--square".into());
        a.push(join(&cfg.squares));
        a.push("--gnn".into());
        a.push(
            cfg.gnn
                .iter()
                .map(|(m, k, n)| format!("{m}x{k}x{n}"))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    if cfg.skip_bspmm || cfg.graphs.is_empty() {
        a.push("--skip-spmm".into());
    } else {
        a.push("--graphs".into());
        a.push(d.display().to_string());
        a.push("--features".into());
        a.push(join(&cfg.features));
    }
    a.push("--reps".into());
    a.push(cfg.reps.to_string());
    let p = d.join("anchor-args.txt");
    std::fs::write(&p, a.join("\n") + "\n").map_err(|e| io_err(&p, e))
}

// ------------------------------------------------------------------ BMM

/// Bytes of a bit matrix's words.
fn bit_bytes(lines: usize, len: usize) -> f64 {
    (lines * len.div_ceil(64) * 8) as f64
}

fn bmm_section<B: Bench>(gpu: &B, cfg: &Cfg, bw: f64, r: &mut Results) -> Result<()> {
    let sr = BitSemiring::PLUS_XNOR;
    let mut shapes: Vec<(&str, (usize, usize, usize))> =
        cfg.squares.iter().map(|&x| ("square", (x, x, x))).collect();
    shapes.extend(cfg.gnn.iter().map(|&s| ("gnn", s)));
    for (family, (m, k, n)) in shapes {
        println!("== BMM {m}x{k} by {k}x{n} ({family})");
        let seed = (m * 31 + k * 7 + n) as u64;
        let a = random_bits(m, k, BitLayout::RowMajor, seed)?;
        let w = random_bits(k, n, BitLayout::ColMajor, seed + 1)?;
        let ga = gpu.upload_bits(&a)?;
        let gw = gpu.upload_bits(&w)?;
        let at = samples(m, n, seed + 2);
        let ops = 2.0 * m as f64 * n as f64 * k as f64;
        // PLUS.XNOR value of bits rows i of a and columns j of w
        let xnor = |i: usize, j: usize| -> i64 {
            let (x, y) = (a.line(i), w.line(j));
            4 * popc_and(x, y) - 2 * popc(x) - 2 * popc(y) + k as i64
        };
        // a BMM record: shape, kind, bytes and floor, and the timing where its check passed
        let record = |kind: &str, rec: J, bytes: f64, binary: bool| -> J {
            let t = ms_of(&rec);
            let floor_ms = bytes / bw * 1e3;
            let mut v = vec![
                ("family", s(family)),
                ("m", int(m)),
                ("k", int(k)),
                ("n", int(n)),
                ("kind", s(kind)),
                ("semiring", s(sr.name())),
                ("ops", J::Num(ops)),
                ("bytes", J::Num(bytes)),
                ("floor_ms", J::Num(floor_ms)),
            ];
            if let Some(t) = t {
                v.push(("ms", J::Num(t)));
                v.push(("ops_per_s", J::Num(ops / (t * 1e-3))));
                v.push(("frac_floor", J::Num(floor_ms / t)));
                if binary {
                    v.push(("frac_mma", J::Num(ops / (t * 1e-3) / cfg.peak_mma)));
                    v.push(("frac_wgmma", J::Num(ops / (t * 1e-3) / cfg.peak_wgmma)));
                }
            }
            let mut v: Vec<(String, J)> = v.into_iter().map(|(k, x)| (k.to_string(), x)).collect();
            if let J::Obj(o) = rec {
                for (key, x) in o {
                    // a time whose check failed stays in the record under another name
                    let key = if key == "ms" {
                        "ms_unchecked".to_string()
                    } else {
                        key
                    };
                    if key != "ms_unchecked" || t.is_none() {
                        v.push((key, x));
                    }
                }
            }
            J::Obj(v)
        };
        let (abits, wbits) = (bit_bytes(m, k), bit_bytes(n, k));
        // bits x bits -> i32
        {
            let mut out = gpu.dense_new::<i32>(m, n, 0)?;
            let rec = measure(gpu, cfg, &format!("BMM {m}x{k}x{n} BB->i32"), || {
                ops::bmm(
                    gpu,
                    BitOutput::Counts(&mut out),
                    sr,
                    BitInput::Bits(&ga),
                    &gw,
                )
            })
            .check(&mut r.failed, || {
                let o = gpu.download_dense(&out)?;
                Ok(compare(
                    &at,
                    |i, j| (xnor(i, j) as f64, 0.0),
                    |i, j| o.get(i, j) as f64,
                ))
            });
            r.bmm.push(record(
                "BB->i32",
                rec,
                abits + wbits + 4.0 * (m * n) as f64,
                true,
            ));
        }
        if family != "gnn" {
            continue;
        }
        // the other kinds at the GNN shapes: row and column scales, a per-column threshold
        let rs: Vec<f32> = (0..m).map(|i| 0.5 + (i % 97) as f32 / 97.0).collect();
        let cs: Vec<f32> = (0..n).map(|j| 0.5 + (j % 13) as f32 / 13.0).collect();
        let th: Vec<f32> = (0..n).map(|j| (j % 7) as f32 - 3.0).collect();
        let grs = upload_f32(gpu, m, 1, rs.clone())?;
        let gcs = upload_f32(gpu, 1, n, cs.clone())?;
        let gth = upload_f32(gpu, 1, n, th.clone())?;
        let scales = || Scales {
            row: Some(&grs),
            col: Some(&gcs),
            bias: None,
        };
        let sbytes = 4.0 * (m + n) as f64;
        let scaled = |v: f64, i: usize, j: usize| v * rs[i] as f64 * cs[j] as f64;
        // BBF
        {
            let mut out = gpu.dense_new::<f32>(m, n, 0.0)?;
            let rec = measure(gpu, cfg, &format!("BMM {m}x{k}x{n} BBF"), || {
                ops::bmm(
                    gpu,
                    BitOutput::Scaled {
                        out: &mut out,
                        scales: scales(),
                    },
                    sr,
                    BitInput::Bits(&ga),
                    &gw,
                )
            })
            .check(&mut r.failed, || {
                let o = gpu.download_dense(&out)?;
                Ok(compare(
                    &at,
                    |i, j| {
                        let v = scaled(xnor(i, j) as f64, i, j);
                        (v, 1e-5 * v.abs() + 1e-6)
                    },
                    |i, j| o.get(i, j) as f64,
                ))
            });
            r.bmm.push(record(
                "BBF",
                rec,
                abits + wbits + sbytes + 4.0 * (m * n) as f64,
                true,
            ));
        }
        // BBB
        {
            let mut out = gpu.bits_new(m, n, BitLayout::RowMajor)?;
            let rec = measure(gpu, cfg, &format!("BMM {m}x{k}x{n} BBB"), || {
                ops::bmm(
                    gpu,
                    BitOutput::Bits {
                        out: &mut out,
                        scales: scales(),
                        threshold: Threshold::PerColumn(&gth),
                    },
                    sr,
                    BitInput::Bits(&ga),
                    &gw,
                )
            })
            .check(&mut r.failed, || {
                let o = gpu.download_bits(&out)?;
                Ok(compare_bits(
                    &at,
                    |i, j| {
                        let v = scaled(xnor(i, j) as f64, i, j);
                        (v, th[j] as f64, 1e-5 * v.abs() + 1e-6)
                    },
                    &o,
                ))
            });
            r.bmm.push(record(
                "BBB",
                rec,
                abits + wbits + sbytes + 4.0 * n as f64 + bit_bytes(m, n),
                true,
            ));
        }
        // f32 activations: FBF, FBB
        let x = random_f32(m, k, -1.0, 1.0, seed + 3)?;
        let gx = gpu.upload_dense(&x)?;
        let xbytes = 4.0 * (m * k) as f64;
        // Σ_k x_ik (+1/-1 of w_kj), and Σ_k |x_ik| (the rounding scale)
        let fdot = |i: usize, j: usize| -> (f64, f64) {
            let (row, col) = (x.row(i), w.line(j));
            let mut v = 0.0;
            let mut mag = 0.0;
            for (p, &xv) in row.iter().enumerate() {
                let bit = (col[p / 64] >> (p % 64)) & 1 == 1;
                v += if bit { xv as f64 } else { -(xv as f64) };
                mag += (xv as f64).abs();
            }
            (v, mag)
        };
        {
            let mut out = gpu.dense_new::<f32>(m, n, 0.0)?;
            let rec = measure(gpu, cfg, &format!("BMM {m}x{k}x{n} FBF"), || {
                ops::bmm(
                    gpu,
                    BitOutput::Scaled {
                        out: &mut out,
                        scales: scales(),
                    },
                    sr,
                    BitInput::F32(&gx),
                    &gw,
                )
            })
            .check(&mut r.failed, || {
                let o = gpu.download_dense(&out)?;
                Ok(compare(
                    &at,
                    |i, j| {
                        let (v, mag) = fdot(i, j);
                        (scaled(v, i, j), scaled(1e-5 * mag + 1e-6, i, j))
                    },
                    |i, j| o.get(i, j) as f64,
                ))
            });
            r.bmm.push(record(
                "FBF",
                rec,
                xbytes + wbits + sbytes + 4.0 * (m * n) as f64,
                false,
            ));
        }
        {
            let mut out = gpu.bits_new(m, n, BitLayout::RowMajor)?;
            let rec = measure(gpu, cfg, &format!("BMM {m}x{k}x{n} FBB"), || {
                ops::bmm(
                    gpu,
                    BitOutput::Bits {
                        out: &mut out,
                        scales: scales(),
                        threshold: Threshold::PerColumn(&gth),
                    },
                    sr,
                    BitInput::F32(&gx),
                    &gw,
                )
            })
            .check(&mut r.failed, || {
                let o = gpu.download_bits(&out)?;
                Ok(compare_bits(
                    &at,
                    |i, j| {
                        let (v, mag) = fdot(i, j);
                        (
                            scaled(v, i, j),
                            th[j] as f64,
                            scaled(1e-5 * mag + 1e-6, i, j),
                        )
                    },
                    &o,
                ))
            });
            r.bmm.push(record(
                "FBB",
                rec,
                xbytes + wbits + sbytes + 4.0 * n as f64 + bit_bytes(m, n),
                false,
            ));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ planes

/// `b` random planes of a `nrows x ncols` matrix in `layout` (uniform codes).
fn random_planes(
    nrows: usize,
    ncols: usize,
    layout: BitLayout,
    b: u32,
    seed: u64,
) -> Result<Vec<BitMatrix>> {
    (0..b)
        .map(|p| random_bits(nrows, ncols, layout, seed.wrapping_add(1000 * p as u64 + 1)))
        .collect()
}

fn upload_planes<B: Bench>(
    gpu: &B,
    planes: &[BitMatrix],
    scale: (usize, Vec<f32>),
    zero: Vec<f32>,
) -> Result<BitPlanes<B>> {
    let cols = scale.0;
    let gp: Vec<B::Bits> = planes
        .iter()
        .map(|p| gpu.upload_bits(p))
        .collect::<Result<_>>()?;
    BitPlanes::new(
        gp,
        upload_f32(gpu, 1, cols, scale.1)?,
        upload_f32(gpu, 1, cols, zero)?,
    )
}

fn planes_section<B: Bench>(gpu: &B, cfg: &Cfg, r: &mut Results) -> Result<()> {
    for &(m, k, n) in &cfg.gnn {
        for &b in &cfg.plane_bits {
            println!("== bit-plane BMM {m}x{k} by {k}x{n}, b = {b}");
            let seed = (m * 131 + k * 17 + n + b as usize) as u64;
            let pa = random_planes(m, k, BitLayout::RowMajor, b, seed)?;
            let pw = random_planes(k, n, BitLayout::ColMajor, b, seed + 7)?;
            let half = (1u32 << (b - 1)) as f32;
            let (sa, za) = (0.01f32, half);
            let sw: Vec<f32> = (0..n).map(|j| 0.005 + (j % 11) as f32 * 0.001).collect();
            let zw: Vec<f32> = vec![half; n];
            let ga = upload_planes(gpu, &pa, (1, vec![sa]), vec![za])?;
            let gw = upload_planes(gpu, &pw, (n, sw.clone()), zw.clone())?;
            let at = samples(m, n, seed + 3);
            // v, rowsum of a's codes, colsum of w's codes
            let exact = |i: usize, j: usize| -> (i64, i64, i64) {
                let mut v = 0i64;
                for (p, ap) in pa.iter().enumerate() {
                    for (q, wq) in pw.iter().enumerate() {
                        v += popc_and(ap.line(i), wq.line(j)) << (p + q);
                    }
                }
                let ra: i64 = pa
                    .iter()
                    .enumerate()
                    .map(|(p, x)| popc(x.line(i)) << p)
                    .sum();
                let cw: i64 = pw
                    .iter()
                    .enumerate()
                    .map(|(q, x)| popc(x.line(j)) << q)
                    .sum();
                (v, ra, cw)
            };
            let mut outs = Vec::new();
            {
                let mut out = gpu.dense_new::<i32>(m, n, 0)?;
                let rec = measure(
                    gpu,
                    cfg,
                    &format!("bmm_planes {m}x{k}x{n} b={b} i32"),
                    || ops::bmm_planes(gpu, BitOutput::Counts(&mut out), &ga, &gw),
                )
                .check(&mut r.failed, || {
                    let o = gpu.download_dense(&out)?;
                    Ok(compare(
                        &at,
                        |i, j| (exact(i, j).0 as f64, 0.0),
                        |i, j| o.get(i, j) as f64,
                    ))
                });
                outs.push(("i32", rec));
            }
            {
                let mut out = gpu.dense_new::<f32>(m, n, 0.0)?;
                let rec = measure(
                    gpu,
                    cfg,
                    &format!("bmm_planes {m}x{k}x{n} b={b} f32"),
                    || {
                        ops::bmm_planes(
                            gpu,
                            BitOutput::Scaled {
                                out: &mut out,
                                scales: Scales::default(),
                            },
                            &ga,
                            &gw,
                        )
                    },
                )
                .check(&mut r.failed, || {
                    let o = gpu.download_dense(&out)?;
                    Ok(compare(
                        &at,
                        |i, j| {
                            let (v, ra, cw) = exact(i, j);
                            let (sa, za) = (sa as f64, za as f64);
                            let (swj, zwj) = (sw[j] as f64, zw[j] as f64);
                            let terms = [
                                v as f64,
                                -zwj * ra as f64,
                                -za * cw as f64,
                                k as f64 * za * zwj,
                            ];
                            let val = sa * swj * terms.iter().sum::<f64>();
                            let mag = sa * swj * terms.iter().map(|t| t.abs()).sum::<f64>();
                            (val, 1e-5 * mag + 1e-6)
                        },
                        |i, j| o.get(i, j) as f64,
                    ))
                });
                outs.push(("f32", rec));
            }
            r.bmm_planes.push(obj(vec![
                ("m", int(m)),
                ("k", int(k)),
                ("n", int(n)),
                ("bits", int(b as usize)),
                (
                    "binary_ops",
                    J::Num(2.0 * (m * n) as f64 * k as f64 * (b * b) as f64),
                ),
                (
                    "outputs",
                    J::Obj(outs.into_iter().map(|(k, x)| (k.to_string(), x)).collect()),
                ),
            ]));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ graphs

/// The pattern of a Matrix Market file (values dropped).
fn load_mtx(path: &str) -> Result<Matrix<bool>> {
    let a = bitgraphblas::io::read_matrix_market::<f32>(path)?;
    Ok(Matrix::from_csr(a.as_csr().map(|_| true)))
}

/// The leading `n x n` block of a pattern.
fn crop(m: &Matrix<bool>, n: usize) -> Result<Matrix<bool>> {
    let c = m.as_csr();
    let n = n.min(c.nrows()).min(c.ncols());
    let mut rp = Vec::with_capacity(n + 1);
    rp.push(0usize);
    let mut ci = Vec::with_capacity(c.nnz());
    for i in 0..n {
        ci.extend(c.row(i).0.iter().copied().filter(|&j| (j as usize) < n));
        rp.push(ci.len());
    }
    let vals = vec![true; ci.len()];
    Ok(Matrix::from_csr(Csr::try_new(n, n, rp, ci, vals)?))
}

/// The (parameter, entries) pairs a calibration tried.
type Tries = Vec<(usize, usize)>;

/// Calls `make(x)` for parameters `x` chosen to bring its entry count within
/// 1% of `target` (a secant in log-log; at most 4 tries); the closest graph
/// and every (x, entries) tried.
fn calibrate(
    target: usize,
    x0: usize,
    make: impl Fn(usize) -> Result<Matrix<bool>>,
) -> Result<(Matrix<bool>, Tries)> {
    let mut tries: Vec<(usize, usize)> = Vec::new();
    let mut best: Option<(usize, Matrix<bool>)> = None;
    let mut x = x0.max(1);
    for _ in 0..4 {
        let start = Instant::now();
        let g = make(x)?;
        let e = g.nvals();
        println!(
            "  parameter {x}: {e} entries ({:.1} s)",
            start.elapsed().as_secs_f64()
        );
        tries.push((x, e));
        let diff = e.abs_diff(target);
        let better = match &best {
            None => true,
            Some((d, _)) => diff < *d,
        };
        if better {
            best = Some((diff, g));
        } else {
            drop(g);
        }
        if diff * 100 <= target || e == 0 {
            break;
        }
        let next = if tries.len() == 1 {
            x as f64 * (target as f64 / e as f64).powf(1.25)
        } else {
            let (xa, ea) = tries[tries.len() - 2];
            let (xb, eb) = tries[tries.len() - 1];
            let slope =
                ((eb as f64).ln() - (ea as f64).ln()) / ((xb as f64).ln() - (xa as f64).ln());
            let slope = if slope.is_finite() && slope > 0.05 {
                slope
            } else {
                0.8
            };
            xb as f64 * (target as f64 / eb as f64).powf(1.0 / slope)
        };
        let next = next.round().max(1.0) as usize;
        if next == x {
            break;
        }
        x = next;
    }
    let (_, g) = best.expect("one try at least");
    Ok((g, tries))
}

fn tries_json(tries: &Tries, what: &str) -> J {
    J::Arr(
        tries
            .iter()
            .map(|&(x, e)| obj(vec![(what, int(x)), ("entries", int(e))]))
            .collect(),
    )
}

/// A graph by name: the pattern, where it came from, how it was generated.
fn load_graph(cfg: &Cfg, name: &str) -> Result<(Matrix<bool>, String, J)> {
    let d = &cfg.data;
    match name {
        "delaunay_n14" => Ok((
            load_mtx(&format!("{d}/delaunay_n14.mtx"))?,
            format!("{d}/delaunay_n14.mtx"),
            J::Null,
        )),
        "reddit-rmat" => {
            // the R-MAT of the next power of two, then its leading n x n block
            let (n, target) = (cfg.reddit_n, cfg.reddit_edges);
            let scale = n.next_power_of_two().trailing_zeros();
            let ef0 = ((target as f64 * 0.8 / (1u64 << scale) as f64).round() as usize).max(1);
            let (g, tries) = calibrate(target, ef0, |ef| {
                crop(&generate::rmat::<bool>(scale, ef, 0x5ead), n)
            })?;
            let gen = obj(vec![
                (
                    "generator",
                    s(format!(
                        "generate::rmat({scale}, edge_factor, 0x5ead), its leading {n} x {n} block"
                    )),
                ),
                ("target_entries", int(target)),
                ("tries", tries_json(&tries, "edge_factor")),
            ]);
            Ok((g, "generated: R-MAT".into(), gen))
        }
        "reddit-sbm" => {
            let (n, target) = (cfg.reddit_n, cfg.reddit_edges);
            let (blocks, p_in) = (41.min(n), 0.8);
            let (g, tries) = calibrate(target, (target / 2 * 103 / 100).max(1), |draws| {
                Ok(generate::sbm::<bool>(n, blocks, draws, p_in, 0x5eed))
            })?;
            let gen = obj(vec![
                (
                    "generator",
                    s(format!(
                        "generate::sbm({n}, {blocks} blocks, draws, p_in {p_in}, 0x5eed)"
                    )),
                ),
                ("target_entries", int(target)),
                ("tries", tries_json(&tries, "draws")),
            ]);
            Ok((g, "generated: stochastic block model".into(), gen))
        }
        other => {
            let p = format!("{d}/large/{other}.mtx.gz");
            Ok((load_mtx(&p)?, p, J::Null))
        }
    }
}

/// Writes the CSR pattern the anchors read: raw little-endian arrays and a header.
fn write_csr(cfg: &Cfg, order: usize, name: &str, m: &Matrix<bool>, source: &str) -> Result<()> {
    let c = m.as_csr();
    let d = &cfg.csr_dir;
    let rp_file = format!("{name}.row_ptr.bin");
    let ci_file = format!("{name}.col_idx.bin");
    let write =
        |file: &str,
         bytes: &mut dyn FnMut(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>|
         -> Result<()> {
            let p = d.join(file);
            let f = std::fs::File::create(&p).map_err(|e| io_err(&p, e))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 22, f);
            bytes(&mut w).map_err(|e| io_err(&p, e))?;
            w.flush().map_err(|e| io_err(&p, e))
        };
    write(&rp_file, &mut |w| {
        for &x in c.row_ptr() {
            w.write_all(&(x as u64).to_le_bytes())?;
        }
        Ok(())
    })?;
    write(&ci_file, &mut |w| {
        for &x in c.col_idx() {
            w.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    })?;
    let head = obj(vec![
        ("format", s("bitgraphblas-csr-pattern")),
        ("name", s(name)),
        ("order", int(order)),
        ("nrows", int(c.nrows())),
        ("ncols", int(c.ncols())),
        ("nnz", int(c.nnz())),
        (
            "row_ptr",
            obj(vec![("file", s(rp_file)), ("dtype", s("u64"))]),
        ),
        (
            "col_idx",
            obj(vec![("file", s(ci_file)), ("dtype", s("u32"))]),
        ),
        ("source", s(source)),
    ]);
    let p = d.join(format!("{name}.csr.json"));
    std::fs::write(&p, format!("{head}\n")).map_err(|e| io_err(&p, e))
}

fn format_name(f: Format) -> String {
    match f {
        Format::Csr => "CSR".into(),
        Format::B2sr(t) => format!("B2SR-{}", t.k().map_or("auto".into(), |k| k.to_string())),
        Format::Auto => "Auto".into(),
    }
}

fn graph_section<B: Bench>(
    gpu: &B,
    cfg: &Cfg,
    order: usize,
    name: &str,
    r: &mut Results,
) -> Result<()> {
    println!("== graph {name}");
    if cfg.over_budget() {
        println!("  skipped: over the time budget ({} s)", cfg.budget_s);
        r.graphs.push(obj(vec![
            ("name", s(name)),
            (
                "skipped",
                s(format!("over the time budget ({} s)", cfg.budget_s)),
            ),
        ]));
        return Ok(());
    }
    let start = Instant::now();
    let (a, source, gen) = match attempt(|| load_graph(cfg, name)) {
        Ok(x) => x,
        Err(e) => {
            println!("  {name}: cannot load: {e}");
            r.failed.push(format!("{name}: cannot load: {e}"));
            r.graphs.push(obj(vec![("name", s(name)), ("error", s(e))]));
            return Ok(());
        }
    };
    let (n, k, nnz) = (a.nrows(), a.ncols(), a.nvals());
    let load_s = start.elapsed().as_secs_f64();
    write_csr(cfg, order, name, &a, &source)?;
    let csr = a.as_csr();
    let profile = Profile::sample(&csr);
    let best = profile.best_tile();
    let auto = match profile.recommend() {
        Some(t) => Format::B2sr(t),
        None => Format::Csr,
    };
    println!(
        "  {n} x {k}, {nnz} entries ({source}, {load_s:.1} s); profile tile {}, Format::Auto {}",
        format_name(Format::B2sr(best)),
        format_name(auto)
    );
    r.graphs.push(obj(vec![
        ("name", s(name)),
        ("n", int(n)),
        ("ncols", int(k)),
        ("nnz", int(nnz)),
        ("source", s(source)),
        ("profile_tile", s(format_name(Format::B2sr(best)))),
        ("auto_format", s(format_name(auto))),
        ("load_s", J::Num(load_s)),
        ("generation", gen),
    ]));
    let mut formats = vec![Format::B2sr(best)];
    if best != TileSize::T32 {
        formats.push(Format::B2sr(TileSize::T32));
    }
    // the CUDA backend's `Format::Auto` for products by dense operands
    formats.push(Format::Csr);
    // host data the checks read: degrees and sampled rows (random ones and the largest)
    let rp = csr.row_ptr();
    let deg = |i: usize| rp[i + 1] - rp[i];
    let random_rows: Vec<usize> = {
        let mut g = SplitMix64::new(order as u64 + 99);
        (0..32.min(n))
            .map(|_| (g.next_u64() % n as u64) as usize)
            .collect()
    };
    // the 4 largest rows, largest first
    let top_rows: Vec<usize> = {
        let mut by_deg: Vec<usize> = (0..n).collect();
        let top = 4.min(n);
        if top > 0 {
            by_deg.select_nth_unstable_by_key(n - top, |&i| deg(i));
        }
        let mut t = by_deg.split_off(n - top);
        t.sort_unstable_by_key(|&i| std::cmp::Reverse(deg(i)));
        t
    };
    let mut rows: Vec<usize> = random_rows.iter().chain(&top_rows).copied().collect();
    rows.sort_unstable();
    rows.dedup();
    let ga_csr = gpu.upload_matrix(&a)?;
    let sr = BitSemiring::PLUS_LAND_SIGNED;
    let mut ones_by_width: std::collections::HashMap<usize, Vec<Vec<i64>>> = Default::default();
    for &fmt in &formats {
        let conv_start = Instant::now();
        let ga = match attempt(|| {
            let g = if fmt == Format::Csr {
                gpu.upload_matrix(&a)?
            } else {
                gpu.convert(&ga_csr, fmt)?
            };
            gpu.sync()?;
            Ok(g)
        }) {
            Ok(g) => g,
            Err(e) => {
                println!("  {}: cannot convert: {e}", format_name(fmt));
                r.failed
                    .push(format!("{name} {}: cannot convert: {e}", format_name(fmt)));
                continue;
            }
        };
        let conv_ms = conv_start.elapsed().as_secs_f64() * 1e3;
        let (tiles, bytes) = B::matrix_size(&ga);
        println!(
            "  {}: {} tiles, {:.1} MB ({conv_ms:.1} ms to build)",
            format_name(fmt),
            tiles,
            bytes as f64 / 1e6
        );
        for &f in &cfg.features {
            let seed = (order * 1000 + f) as u64;
            let x = random_bits(k, f, BitLayout::RowMajor, seed)?;
            let gx = gpu.upload_bits(&x)?;
            let rs: Vec<f32> = (0..n).map(|i| 1.0 / ((deg(i) + 1) as f32).sqrt()).collect();
            let cs: Vec<f32> = (0..f).map(|j| 0.5 + (j % 13) as f32 / 13.0).collect();
            let th: Vec<f32> = (0..f).map(|j| ((j % 5) as f32 - 2.0) * 0.25).collect();
            let grs = upload_f32(gpu, n, 1, rs.clone())?;
            let gcs = upload_f32(gpu, 1, f, cs.clone())?;
            let gth = upload_f32(gpu, 1, f, th.clone())?;
            let scales = || Scales {
                row: Some(&grs),
                col: Some(&gcs),
                bias: None,
            };
            let at: Vec<(usize, usize)> = rows
                .iter()
                .flat_map(|&i| (0..f).map(move |j| (i, j)))
                .collect();
            // 2 popc(row & x_j) - deg: the sum of +1/-1 features over the row's columns
            // (the counts of ones computed once per width, for every format)
            let ones = ones_by_width
                .entry(f)
                .or_insert_with(|| column_sums(&csr, &rows, std::slice::from_ref(&x), f));
            let value = |i: usize, j: usize| -> f64 {
                let ri = rows.binary_search(&i).expect("a sampled row");
                2.0 * ones[ri][j] as f64 - deg(i) as f64
            };
            let scaled = |v: f64, i: usize, j: usize| v * rs[i] as f64 * cs[j] as f64;
            let label = format!("{name} {} F={f}", format_name(fmt));
            let mut outs = Vec::new();
            {
                let mut out = gpu.dense_new::<i32>(n, f, 0)?;
                let rec = measure(gpu, cfg, &format!("BSpMM {label} i32"), || {
                    ops::bspmm(gpu, BitOutput::Counts(&mut out), sr, &ga, &gx)
                })
                .check(&mut r.failed, || {
                    let o = gpu.download_dense(&out)?;
                    Ok(compare(
                        &at,
                        |i, j| (value(i, j), 0.0),
                        |i, j| o.get(i, j) as f64,
                    ))
                });
                outs.push(("i32", rec));
            }
            {
                let mut out = gpu.dense_new::<f32>(n, f, 0.0)?;
                let rec = measure(gpu, cfg, &format!("BSpMM {label} f32"), || {
                    ops::bspmm(
                        gpu,
                        BitOutput::Scaled {
                            out: &mut out,
                            scales: scales(),
                        },
                        sr,
                        &ga,
                        &gx,
                    )
                })
                .check(&mut r.failed, || {
                    let o = gpu.download_dense(&out)?;
                    Ok(compare(
                        &at,
                        |i, j| {
                            let v = scaled(value(i, j), i, j);
                            (v, 1e-5 * v.abs() + 1e-6)
                        },
                        |i, j| o.get(i, j) as f64,
                    ))
                });
                outs.push(("f32", rec));
            }
            {
                let mut out = gpu.bits_new(n, f, BitLayout::RowMajor)?;
                let rec = measure(gpu, cfg, &format!("BSpMM {label} bits"), || {
                    ops::bspmm(
                        gpu,
                        BitOutput::Bits {
                            out: &mut out,
                            scales: scales(),
                            threshold: Threshold::PerColumn(&gth),
                        },
                        sr,
                        &ga,
                        &gx,
                    )
                })
                .check(&mut r.failed, || {
                    let o = gpu.download_bits(&out)?;
                    Ok(compare_bits(
                        &at,
                        |i, j| {
                            let v = scaled(value(i, j), i, j);
                            (v, th[j] as f64, 1e-5 * v.abs() + 1e-6)
                        },
                        &o,
                    ))
                });
                outs.push(("bits", rec));
            }
            r.bspmm.push(obj(vec![
                ("graph", s(name)),
                ("n", int(n)),
                ("nnz", int(nnz)),
                ("format", s(format_name(fmt))),
                ("tiles", int(tiles)),
                ("matrix_bytes", int(bytes)),
                ("build_ms", J::Num(conv_ms)),
                ("features", int(f)),
                ("semiring", s(sr.name())),
                (
                    "outputs",
                    J::Obj(outs.into_iter().map(|(k, x)| (k.to_string(), x)).collect()),
                ),
            ]));
        }
        // bit-plane BSpMM on one graph, at the profile's tile size
        if !cfg.skip_planes && cfg.planes_graph.as_deref() == Some(name) && fmt == formats[0] {
            // fewer rows checked here (b planes each): the 2 largest and 16 others
            let mut prow: Vec<usize> = random_rows.iter().copied().take(16).collect();
            prow.extend(top_rows.iter().take(2));
            prow.sort_unstable();
            prow.dedup();
            planes_bspmm(gpu, cfg, name, &ga, &fmt, &csr, &prow, r)?;
        }
    }
    Ok(())
}

/// For each sampled row `i` (sorted) and column `j < f`: the sum over the
/// row's columns `c` of the code of `x`'s line `c`, position `j`, in the
/// planes (one plane: the count of ones).
fn column_sums(csr: &Csr<bool>, rows: &[usize], planes: &[BitMatrix], f: usize) -> Vec<Vec<i64>> {
    rows.par_iter()
        .map(|&i| {
            let mut acc = vec![0i64; f];
            for &c in csr.row(i).0 {
                for (p, x) in planes.iter().enumerate() {
                    for (w, &word) in x.line(c as usize).iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            acc[w * 64 + bits.trailing_zeros() as usize] += 1 << p;
                            bits &= bits - 1;
                        }
                    }
                }
            }
            acc
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn planes_bspmm<B: Bench>(
    gpu: &B,
    cfg: &Cfg,
    name: &str,
    ga: &B::Matrix<bool>,
    fmt: &Format,
    csr: &Csr<bool>,
    rows: &[usize],
    r: &mut Results,
) -> Result<()> {
    let k = csr.ncols();
    for &f in &cfg.features {
        for &b in &cfg.plane_bits {
            let seed = (f * 10 + b as usize) as u64;
            let px = random_planes(k, f, BitLayout::RowMajor, b, seed)?;
            let half = (1u32 << (b - 1)) as f32;
            let sx: Vec<f32> = (0..f).map(|j| 0.01 + (j % 7) as f32 * 0.002).collect();
            let zx: Vec<f32> = vec![half; f];
            let gx = upload_planes(gpu, &px, (f, sx.clone()), zx.clone())?;
            let at: Vec<(usize, usize)> = rows
                .iter()
                .flat_map(|&i| (0..f).map(move |j| (i, j)))
                .collect();
            let sums = column_sums(csr, rows, &px, f);
            let value = |i: usize, j: usize| -> (f64, usize) {
                let ri = rows.binary_search(&i).expect("a sampled row");
                (sums[ri][j] as f64, csr.row(i).0.len())
            };
            let label = format!("bspmm_planes {name} {} F={f} b={b}", format_name(*fmt));
            let mut outs = Vec::new();
            {
                let mut out = gpu.dense_new::<i32>(csr.nrows(), f, 0)?;
                let rec = measure(gpu, cfg, &format!("{label} i32"), || {
                    ops::bspmm_planes(gpu, BitOutput::Counts(&mut out), ga, &gx)
                })
                .check(&mut r.failed, || {
                    let o = gpu.download_dense(&out)?;
                    Ok(compare(
                        &at,
                        |i, j| (value(i, j).0, 0.0),
                        |i, j| o.get(i, j) as f64,
                    ))
                });
                outs.push(("i32", rec));
            }
            {
                let mut out = gpu.dense_new::<f32>(csr.nrows(), f, 0.0)?;
                let rec = measure(gpu, cfg, &format!("{label} f32"), || {
                    ops::bspmm_planes(
                        gpu,
                        BitOutput::Scaled {
                            out: &mut out,
                            scales: Scales::default(),
                        },
                        ga,
                        &gx,
                    )
                })
                .check(&mut r.failed, || {
                    let o = gpu.download_dense(&out)?;
                    Ok(compare(
                        &at,
                        |i, j| {
                            let (v, d) = value(i, j);
                            let zd = zx[j] as f64 * d as f64;
                            let s = sx[j] as f64;
                            (s * (v - zd), 1e-5 * s * (v.abs() + zd) + 1e-6)
                        },
                        |i, j| o.get(i, j) as f64,
                    ))
                });
                outs.push(("f32", rec));
            }
            r.bspmm_planes.push(obj(vec![
                ("graph", s(name)),
                ("format", s(format_name(*fmt))),
                ("features", int(f)),
                ("bits", int(b as usize)),
                (
                    "outputs",
                    J::Obj(outs.into_iter().map(|(k, x)| (k.to_string(), x)).collect()),
                ),
            ]));
        }
    }
    Ok(())
}
