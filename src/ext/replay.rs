//! Recorded sequences of calls, replayed without the host: [`Replay`].
//!
//! A forward pass of a small model, or an iteration of an algorithm, is
//! a few dozen launches of a few microseconds each, and on a GPU the host
//! then spends more time queueing them than the device spends running them.
//! [`Replay::record`] runs such a sequence once and records what it queued
//! ([`BackendExt::record`]: a CUDA graph on the CUDA backend); each
//! [`Replay::run`] queues the whole recording again in one call, rewriting
//! the same output buffers. A backend that records nothing (the CPU's, the
//! default) runs the sequence again instead, so the same client code runs
//! everywhere.

use std::marker::PhantomData;
use std::time::Duration;

use super::BackendExt;
use crate::error::Result;

/// Work a backend recorded ([`BackendExt::record`]), queued again as one unit.
pub trait Relaunch {
    /// Queues the recorded work again (asynchronously on a device backend).
    fn relaunch(&self) -> Result<()>;

    /// Runs the recorded work again and waits for it: the time the device
    /// took from the start of the work to its end, by the device's own clock
    /// (CUDA events on the CUDA backend), or `None` where the backend has no
    /// such clock (the host's clock is the caller's then).
    fn relaunch_timed(&self) -> Result<Option<Duration>> {
        self.relaunch().map(|()| None)
    }
}

/// A sequence of backend calls recorded once and replayed: the closure `run`
/// and its last output.
///
/// `run` must queue the same work every time it is called with the same
/// inputs: a recording replays the kernels, arguments and buffers of the
/// call it recorded. Inputs it borrows may change their contents between
/// replays (a replay reads them anew), but not their shapes or formats; a
/// replay rewrites the buffers of the output it returned. On a device
/// backend a sequence that waits for the device or copies from the host
/// cannot be recorded: it then runs as plain calls ([`Replay::is_recorded`]
/// says which). While `record` runs, no other thread may use the backend.
///
/// ```
/// use bitgraphblas::ext::Replay;
/// use bitgraphblas::{ops, Backend, Cpu, DenseMatrix};
/// let cpu = Cpu::new();
/// let x = cpu.upload_dense(&DenseMatrix::from_vec(2, 2, vec![1.0f32, -2.0, 3.0, -4.0])?)?;
/// // one step, recorded once (on the CPU: run again at each replay)
/// let mut step = Replay::record(&cpu, |b: &Cpu| {
///     let mut y = b.dense_new(2, 2, 0.0f32)?;
///     ops::log_softmax_rows(b, &mut y, &x)?;
///     Ok::<_, bitgraphblas::Error>(y)
/// })?;
/// assert!(!step.is_recorded());
/// let y = cpu.download_dense(step.run(&cpu)?)?;
/// assert!((y.get(0, 0).exp() + y.get(0, 1).exp() - 1.0).abs() < 1e-6);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub struct Replay<B, R, F> {
    /// Declared before `recording`: a device output is freed before its graph.
    out: R,
    recording: Option<Box<dyn Relaunch>>,
    run: F,
    _backend: PhantomData<fn(&B)>,
}

impl<B, R, E, F> Replay<B, R, F>
where
    B: BackendExt,
    F: Fn(&B) -> std::result::Result<R, E>,
    E: From<crate::Error>,
{
    /// Runs `run` once plainly (compiling kernels, making products' plans),
    /// then once more under the backend's recording. The output of the
    /// recorded run is [`Self::output`].
    pub fn record(b: &B, run: F) -> std::result::Result<Self, E> {
        drop(run(b)?);
        // a failure under the recording (a wait for the device, say) is
        // the backend's cue not to record: the plain run below reports
        // any failure of the sequence itself
        let recorded = b.record(|b| run(b).ok())?;
        let (out, recording) = match recorded {
            Some((out, r)) => (out, Some(r)),
            None => (run(b)?, None),
        };
        Ok(Replay {
            out,
            recording,
            run,
            _backend: PhantomData,
        })
    }

    /// Runs the sequence again (the recording where there is one, queued
    /// in one call) and returns its output.
    pub fn run(&mut self, b: &B) -> std::result::Result<&R, E> {
        match &self.recording {
            Some(r) => r.relaunch()?,
            None => self.out = (self.run)(b)?,
        }
        Ok(&self.out)
    }

    /// Runs the sequence again as [`Self::run`] does: its output and, where
    /// the backend recorded it and has a clock of its own, the time the
    /// device took (from the start of the recorded work to its end, as CUDA
    /// events around a launch measure it; the call waits for the end). With
    /// `None` the caller times the run by the host's clock, after its own
    /// wait for the backend.
    ///
    /// ```
    /// use bitgraphblas::ext::Replay;
    /// use bitgraphblas::{ops, Backend, Cpu};
    /// let cpu = Cpu::new();
    /// let mut step = Replay::record(&cpu, |b: &Cpu| b.dense_new(2, 2, 1.0f32))?;
    /// let (_, device_time) = step.run_timed(&cpu)?;
    /// assert!(device_time.is_none()); // the CPU backend records nothing
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn run_timed(&mut self, b: &B) -> std::result::Result<(&R, Option<Duration>), E> {
        let time = match &self.recording {
            Some(r) => r.relaunch_timed()?,
            None => {
                self.out = (self.run)(b)?;
                None
            }
        };
        Ok((&self.out, time))
    }
}

impl<B, R, F> Replay<B, R, F> {
    /// The output of the last run (on a device backend, possibly still
    /// being computed: downloads wait for it).
    pub fn output(&self) -> &R {
        &self.out
    }

    /// Whether the backend recorded the sequence (a replay is then one
    /// call from the host), or runs it as plain calls.
    pub fn is_recorded(&self) -> bool {
        self.recording.is_some()
    }
}
