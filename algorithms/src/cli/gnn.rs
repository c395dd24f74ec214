//! `bitgraphblas gnn`: GNN inference on a dataset directory with a weights
//! file, on either backend, with accuracy, time and peak memory.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bitgraphblas::ext::Replay;
use bitgraphblas::{BackendExt, Format};

use super::files::{check_output, Input, Output};
use super::stdout::Stdout;
use bitgraphblas_algorithms::gnn::{Dataset, GnnGraph, Model, Network, Weights};

/// How long `gnn --reps N` (N > 1) replays the forward pass before timing it.
const WARM_UP: Duration = Duration::from_millis(300);

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// What `gnn` was asked for.
pub struct GnnJob<'a> {
    /// The model's name.
    pub model: &'a str,
    /// The safetensors file.
    pub weights: &'a Path,
    /// The dataset directory.
    pub dataset: &'a Path,
    /// End with one JSON line.
    pub json: bool,
    /// Where to write the predictions.
    pub output: Option<&'a Path>,
    /// Timed forward passes (the median is reported).
    pub reps: usize,
    /// Reading limits.
    pub read: &'a bitgraphblas::io::ReadOptions,
}

/// What `gnn` asks of a backend beyond `Backend`: its own memory, where it
/// has one (`(now, peak)` and a reset of the peak), and a wait for queued
/// work (to time the forward pass alone).
pub trait DeviceMemory {
    /// `(now, peak)` bytes, `None` for the host backend.
    fn device_memory(&self) -> Option<(u64, u64)>;
    /// Starts a new peak.
    fn reset_device_peak(&self);
    /// Waits until queued work is done (the host backend runs synchronously).
    fn wait(&self) -> bitgraphblas::Result<()>;
}

impl DeviceMemory for bitgraphblas::Cpu {
    fn device_memory(&self) -> Option<(u64, u64)> {
        None
    }
    fn reset_device_peak(&self) {}
    fn wait(&self) -> bitgraphblas::Result<()> {
        Ok(())
    }
}

#[cfg(feature = "cuda")]
impl DeviceMemory for bitgraphblas::CudaBackend {
    fn device_memory(&self) -> Option<(u64, u64)> {
        Some(self.memory())
    }
    fn reset_device_peak(&self) {
        self.reset_peak_memory()
    }
    fn wait(&self) -> bitgraphblas::Result<()> {
        self.synchronize()
    }
}

/// The median of `times` (sorted here).
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs the job on backend `b`.
pub fn run<B: BackendExt + DeviceMemory>(b: &B, job: &GnnJob<'_>) -> AnyResult<()> {
    let model = Model::parse(job.model)?;
    let inputs = [
        Input::new(job.weights),
        Input::new(&job.dataset.join("adj.mtx")),
        Input::new(&job.dataset.join("features.mtx")),
        Input::new(&job.dataset.join("labels.txt")),
        Input::new(&job.dataset.join("split.json")),
    ];
    let refs: Vec<&Input> = inputs.iter().collect();
    let out_path: Option<PathBuf> = job
        .output
        .filter(|p| p.as_os_str() != "-")
        .map(Path::to_path_buf);
    if let Some(p) = &out_path {
        check_output(&Output::File(p), &refs)?;
    }
    check_output(&Output::Stdout, &refs)?;
    let t = Instant::now();
    let data = Dataset::load(job.dataset, job.read)?;
    let weights = Weights::load(job.weights, job.read)?;
    let t_load = t.elapsed();
    super::oom::reset_peak();
    b.reset_device_peak();
    let t = Instant::now();
    let net = Network::load(b, model, &weights, data.features.ncols(), data.classes())?;
    let graph = GnnGraph::upload(b, &data, model.needs(), Format::Auto)?;
    let t_upload = t.elapsed();
    // the forward pass recorded (after a first plain pass that compiles the
    // kernels): on the GPU one CUDA graph, queued by one call per replay
    let mut replay = Replay::record(b, |b: &B| net.forward(b, &graph))?;
    let mut predictions = net.predict(b, &replay.output().logits)?;
    // the forward pass alone (features on the backend, logits left there):
    // by the device's clock where the backend has one (CUDA events around
    // the replay, as PyTorch's forward passes are timed), and by the host's
    // around the replay and a wait; and the round trip with the predictions
    // on the host
    let reps = job.reps.max(1);
    // when timing several passes, untimed replays first for WARM_UP: the
    // first replays of a process run slower (H200, Cora, `bigcn-bin`: the
    // median of 300 passes 14 or 21 µs from process to process at one
    // clock, of 3,000 passes 14 µs in every process)
    if reps > 1 {
        let t = Instant::now();
        while t.elapsed() < WARM_UP {
            replay.run(b)?;
            b.wait()?;
        }
    }
    let mut forward_host = Vec::with_capacity(reps);
    let (mut forward, mut times) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    let mut device_clock = true;
    for _ in 0..reps {
        b.wait()?;
        let t = Instant::now();
        let (_, device) = replay.run_timed(b)?;
        b.wait()?;
        forward_host.push(t.elapsed());
        device_clock &= device.is_some();
        forward.push(device.unwrap_or(t.elapsed()));
        let t = Instant::now();
        let out = replay.run(b)?;
        predictions = net.predict(b, &out.logits)?;
        times.push(t.elapsed());
    }
    let forward = median(&mut forward);
    let forward_host = median(&mut forward_host);
    let median = median(&mut times);
    let clock = if device_clock { "device" } else { "host" };
    let host_peak = super::oom::heap().1;
    let device_peak = b.device_memory().map(|m| m.1);
    let accuracy = data.accuracy(&predictions, &data.split.test);
    let mut stdout = Stdout::new();
    stdout.line(&format!(
        "{} on {} ({} nodes, {} features, {} classes), backend {}: test accuracy {:.4}",
        model.name(),
        data.name,
        data.nodes(),
        data.features.ncols(),
        data.classes(),
        b.name(),
        accuracy
    ))?;
    stdout.line(&format!(
        "inference {:.3} ms with the predictions on the host, forward pass alone {:.3} ms \
         by the {clock}'s clock ({:.3} ms by the host's, with a wait; medians of {reps}; {}); \
         load {:.1} ms, upload {:.1} ms",
        ms(median),
        ms(forward),
        ms(forward_host),
        if replay.is_recorded() {
            "the forward pass replayed as one recording"
        } else {
            "the forward pass as plain calls"
        },
        ms(t_load),
        ms(t_upload)
    ))?;
    let mut mem = format!("peak memory: host {:.2} MB", host_peak as f64 / 1e6);
    if let Some(d) = device_peak {
        mem += &format!(
            ", device {:.2} MB (allocated by the library)",
            d as f64 / 1e6
        );
    }
    stdout.line(&mem)?;
    if let Some(p) = &out_path {
        let mut file = bitgraphblas::io::OutputFile::create(p)?;
        for c in &predictions {
            writeln!(file, "{c}").map_err(|e| format!("{}: {e}", file.path().display()))?;
        }
        file.commit()?;
    } else if job.output.is_some() {
        for c in &predictions {
            stdout.line(&c.to_string())?;
        }
    }
    if job.json {
        let peak = device_peak.unwrap_or(host_peak as u64);
        stdout.line(&format!(
            "{{\"model\":\"{}\",\"dataset\":\"{}\",\"backend\":\"{}\",\"accuracy\":{accuracy},\
             \"seconds\":{},\"forward_seconds\":{},\"forward_clock\":\"{clock}\",\
             \"forward_host_seconds\":{},\"peak_bytes\":{peak},\"host_peak_bytes\":{host_peak},\
             \"device_peak_bytes\":{},\"nodes\":{},\"load_seconds\":{},\"upload_seconds\":{},\
             \"recorded\":{}}}",
            model.name(),
            data.name.escape_default(),
            b.name(),
            median.as_secs_f64(),
            forward.as_secs_f64(),
            forward_host.as_secs_f64(),
            device_peak.map_or("null".to_string(), |d| d.to_string()),
            data.nodes(),
            t_load.as_secs_f64(),
            t_upload.as_secs_f64(),
            replay.is_recorded()
        ))?;
    }
    Ok(())
}
