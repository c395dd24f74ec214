//! The device: probing, the context and its one stream, the module cache
//! (NVRTC at first use, for the device's own architecture, kept on disk by
//! `cache.rs`), device buffers
//! (allocation, fill, device-to-device copy, scan) and the one place kernels
//! are launched. Copies between host and device are `transfer.rs`'s.
//!
//! cudarc's per-buffer event tracking is switched off: everything runs in
//! order on one stream, and kernels get raw device addresses, so a buffer's
//! lifetime is what keeps it valid (drops are stream-ordered frees). The
//! stream is the backend's own (not the legacy default stream), so that
//! work queued on it can be recorded as a CUDA graph ([`Dev::record`]).

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, PushKernelArg,
};

use super::cache::{nvrtc_version, KernelCache};
use super::kernels::{all_modules, compile_cubin, ModuleId, ModuleSpec};
use super::launch::pack;
use super::transfer::Staging;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A driver error as our error.
pub(crate) fn drv(op: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |e| Error::Cuda {
        op,
        detail: e.to_string(),
    }
}

/// The raw bits of a scalar, zero-extended (how kernels take values: `u64 vbits`).
pub(crate) fn bits_of<T: Scalar>(x: T) -> u64 {
    let mut b = [0u8; 8];
    let n = std::mem::size_of::<T>();
    // SAFETY: T is one of bool, i32, u32, i64, u64, f32, f64 (at most 8 bytes, no padding).
    unsafe { std::ptr::copy_nonoverlapping(&x as *const T as *const u8, b.as_mut_ptr(), n) };
    u64::from_le_bytes(b)
}

/// A kernel argument (built only by the typed launches of `launch/`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg {
    /// A device address (0 = NULL) or a 64-bit value.
    U64(u64),
    /// A 32-bit unsigned value.
    U32(u32),
    /// A 32-bit signed value.
    I32(i32),
    /// A 64-bit signed value.
    I64(i64),
    /// Eight device addresses as one 64-byte parameter (a struct of eight
    /// pointers, read in place by `__grid_constant__` kernels).
    Ptrs8([u64; 8]),
}

/// A typed device address of `T` elements (possibly NULL): what kernels
/// take for a `T*` parameter (see the typed launches in `launch/`).
#[derive(Debug)]
pub struct DevPtr<T> {
    addr: u64,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for DevPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DevPtr<T> {}

impl<T> DevPtr<T> {
    /// NULL (an absent optional array).
    pub(crate) const fn null() -> DevPtr<T> {
        DevPtr {
            addr: 0,
            _t: PhantomData,
        }
    }
    /// The raw address.
    pub(crate) fn addr(self) -> u64 {
        self.addr
    }
    /// Whether this is NULL.
    pub(crate) fn is_null(self) -> bool {
        self.addr == 0
    }
    /// The same address seen as `U` elements (scratch reused across types,
    /// bytes read as words).
    pub(crate) fn cast<U>(self) -> DevPtr<U> {
        DevPtr {
            addr: self.addr,
            _t: PhantomData,
        }
    }
    /// The address `n` elements further on.
    pub(crate) fn add(self, n: usize) -> DevPtr<T> {
        DevPtr {
            addr: self.addr + (n * std::mem::size_of::<T>()) as u64,
            _t: PhantomData,
        }
    }
}

/// The address of an optional buffer (NULL when absent).
pub(crate) fn opt_ptr<T>(b: Option<&DBuf<T>>) -> DevPtr<T> {
    b.map_or(DevPtr::null(), DBuf::ptr)
}

/// A typed device buffer of `len` elements (raw bytes underneath).
pub(crate) struct DBuf<T> {
    /// The device's byte counter, told when the buffer goes.
    bytes: Arc<MemCounter>,
    slice: CudaSlice<u8>,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T> DBuf<T> {
    /// The device address.
    pub fn ptr(&self) -> DevPtr<T> {
        DevPtr {
            addr: self.ptr,
            _t: PhantomData,
        }
    }

    /// How many elements it holds.
    pub fn elements(&self) -> usize {
        self.len
    }
}

/// The device and everything cached on it.
/// Bytes of device buffers the library holds now, and the most it held
/// since the last reset.
#[derive(Debug, Default)]
pub(crate) struct MemCounter {
    now: AtomicU64,
    peak: AtomicU64,
}

impl MemCounter {
    fn add(&self, b: u64) {
        let now = self.now.fetch_add(b, Ordering::Relaxed) + b;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }
    fn sub(&self, b: u64) {
        self.now.fetch_sub(b, Ordering::Relaxed);
    }
    /// `(now, peak)`.
    pub(crate) fn get(&self) -> (u64, u64) {
        (
            self.now.load(Ordering::Relaxed),
            self.peak.load(Ordering::Relaxed),
        )
    }
    /// Starts a new peak from what is held now.
    pub(crate) fn reset_peak(&self) {
        self.peak
            .store(self.now.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

impl<T> Drop for DBuf<T> {
    fn drop(&mut self) {
        self.bytes.sub(self.slice.len() as u64);
    }
}

pub(crate) struct Dev {
    /// The thread that starts the stream-ordered pool ([`warm_pool`]),
    /// joined when the device is dropped.
    pool_start: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Device memory the library's buffers hold.
    pub bytes: Arc<MemCounter>,
    /// Made at the first large download (declared first: dropped before the context).
    pub(super) staging: Mutex<Option<Staging>>,
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub arch: &'static str,
    pub sm_count: u32,
    pub name: String,
    modules: Mutex<HashMap<ModuleId, Arc<CudaModule>>>,
    /// Compiled modules kept on disk between processes (`cache.rs`).
    kernel_cache: KernelCache,
    /// The NVRTC version, part of every cache key.
    nvrtc: (i32, i32),
    /// [`crate::TRACE_ENV`] set: each module's and kernel's first use says
    /// on standard error what it cost ([`Dev::module`], [`Dev::func`]).
    trace: bool,
    funcs: Mutex<HashMap<String, CudaFunction>>,
    poison: AtomicBool,
    /// Limits of the fused BFS's one-block levels (`visit.rs`): the most
    /// frontier out-edges, and the most frontier vertices (queue length).
    pub bfs_block: [AtomicU64; 2],
    /// Whether the fused BFS's one-block kernel may keep the visited bits in
    /// shared memory (where they fit; `visit.rs`).
    pub bfs_shared: AtomicBool,
    /// Whether affine products (`affine.rs`) scale `d ⊗ u` into a
    /// temporary first: 0 by their rule, 1 always, 2 never.
    pub affine_prescale: AtomicU8,
    /// The kernel family of bit BMMs (`bits/mod.rs`): 0 by shape, 1 or 2
    /// the tensor cores with 2 or 4 warps along m, 3 popcounts, 4 thin k,
    /// 5 the warpgroup tensor cores.
    pub bmm_path: AtomicU8,
}

fn arch_name(major: i32, minor: i32) -> &'static str {
    match (major, minor) {
        (7, 0) => "sm_70",
        (7, 5) => "sm_75",
        (8, 0) => "sm_80",
        (8, 6) => "sm_86",
        (8, 9) => "sm_89",
        // the arch-specific target: Hopper's warpgroup MMA (`wgmma`) is
        // only there (cuda/bits_bmm.cu)
        (9, 0) => "sm_90a",
        (10, 0) => "sm_100",
        (12, 0) => "sm_120",
        (a, b) => Box::leak(format!("sm_{a}{b}").into_boxed_str()),
    }
}

/// Keeps freed memory in the device's stream-ordered pool across
/// synchronisations. With the driver's default release threshold (0) every
/// synchronisation hands the pool's free memory back, so each later
/// allocation maps fresh pages: measured on the H200 (commit fc09732) that
/// cost about 27 ms of host time per PageRank iteration on the 4096² grid
/// (six 134 MB vectors a step) against 1.4 ms of kernels. Best effort: without
/// stream-ordered allocation nothing changes.
fn keep_pool_memory(ctx: &CudaContext) {
    use cudarc::driver::sys;
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let mut threshold = u64::MAX;
    // SAFETY: plain driver queries on a device that `ctx` opened; the
    // attribute value is a u64, as the driver expects for this attribute.
    unsafe {
        if sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == sys::CUresult::CUDA_SUCCESS
            && !pool.is_null()
        {
            let _ = sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut threshold as *mut u64 as *mut std::ffi::c_void,
            );
        }
    }
}

/// Starts the device's stream-ordered pool on a thread of its own: a
/// process's first stream-ordered allocation takes the driver about 10 ms
/// (measured on an H200: `cuMemAllocAsync` 8.1 to 11.7 ms the first time in
/// a fresh process, 0.02 ms after; `cuMemAlloc` 0.12 to 0.15 ms), work it can
/// do while the host reads and prepares its inputs rather than at the first
/// upload. One allocation of 4 bytes on a stream of its own, freed at once;
/// best effort: a failure here shows again at the first real allocation,
/// which reports it. With `trace`, says on standard error how long it took.
fn warm_pool(ctx: &Arc<CudaContext>, trace: bool) -> Option<std::thread::JoinHandle<()>> {
    let ctx = ctx.clone();
    let start = move || {
        let t0 = std::time::Instant::now();
        let Ok(stream) = ctx.new_stream() else {
            return;
        };
        // SAFETY: a buffer nothing reads or writes, freed on its stream.
        drop(unsafe { stream.alloc::<u8>(4) });
        let _ = stream.synchronize();
        if trace {
            eprintln!(
                "device memory pool started: {:.2} ms (on a thread of its own)",
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
    };
    std::thread::Builder::new()
        .name("bitgraphblas-pool".into())
        .spawn(start)
        .ok()
}

impl Drop for Dev {
    fn drop(&mut self) {
        let start = self.pool_start.get_mut().ok().and_then(Option::take);
        if let Some(h) = start {
            let _ = h.join();
        }
    }
}

/// Work recorded by [`Dev::record`], launched again as one unit, and the
/// stream it runs on (for [`crate::ext::Relaunch::relaunch_timed`]'s events).
pub(crate) struct DeviceGraph {
    graph: cudarc::driver::CudaGraph,
    stream: Arc<CudaStream>,
}

impl crate::ext::Relaunch for DeviceGraph {
    /// Queues the recorded work again on the stream it was recorded on.
    fn relaunch(&self) -> Result<()> {
        self.graph.launch().map_err(drv("graph launch"))
    }

    /// The launch between two timing events on the stream, then a wait for
    /// the second: the device's time from the graph's start to its end.
    fn relaunch_timed(&self) -> Result<Option<std::time::Duration>> {
        let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timing).map_err(drv("event"))?;
        self.relaunch()?;
        let end = self.stream.record_event(timing).map_err(drv("event"))?;
        let ms = start.elapsed_ms(&end).map_err(drv("event"))?;
        Ok(Some(std::time::Duration::from_secs_f64(
            f64::from(ms.max(0.0)) / 1e3,
        )))
    }
}

impl Dev {
    /// Opens device `ordinal`, or says why not (never panics when libcuda is missing).
    pub fn open(ordinal: usize) -> Result<Dev> {
        // SAFETY: only probes for the shared library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::GpuUnavailable("libcuda not found".into()));
        }
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(Error::GpuUnavailable("libnvrtc not found".into()));
        }
        let n = CudaContext::device_count().map_err(|e| Error::GpuUnavailable(e.to_string()))?;
        if ordinal >= n.max(0) as usize {
            return Err(Error::GpuUnavailable(format!(
                "device {ordinal} asked for, {n} present"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| Error::GpuUnavailable(e.to_string()))?;
        // SAFETY: we order all work on one stream and keep buffers alive ourselves.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx.compute_capability().map_err(drv("device"))?;
        let sm_count = ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .map_err(drv("device"))? as u32;
        let name = ctx.name().map_err(drv("device"))?;
        // a stream of our own: the legacy default stream cannot be captured
        let stream = ctx.new_stream().map_err(drv("create stream"))?;
        keep_pool_memory(&ctx);
        let trace = crate::tracing();
        let pool_start = warm_pool(&ctx, trace);
        Ok(Dev {
            pool_start: Mutex::new(pool_start),
            bytes: Arc::new(MemCounter::default()),
            staging: Mutex::new(None),
            ctx,
            stream,
            arch: arch_name(major, minor),
            sm_count,
            name,
            modules: Mutex::new(HashMap::new()),
            kernel_cache: KernelCache::from_env(),
            nvrtc: nvrtc_version(),
            trace,
            funcs: Mutex::new(HashMap::new()),
            poison: AtomicBool::new(false),
            bfs_block: [
                AtomicU64::new(super::visit::BLOCK_EDGES),
                AtomicU64::new(super::visit::BLOCK_QUEUE),
            ],
            bfs_shared: AtomicBool::new(true),
            affine_prescale: AtomicU8::new(0),
            bmm_path: AtomicU8::new(0),
        })
    }

    /// Compiles every built-in module that the kernel cache lacks, on all
    /// cores at once (NVRTC compiles separate programs in parallel), so that
    /// no later process compiles at first use; how many were compiled.
    pub fn warm_kernel_cache(&self) -> Result<usize> {
        use rayon::prelude::*;
        let compiled = std::sync::atomic::AtomicUsize::new(0);
        all_modules().par_iter().try_for_each(|spec| {
            let key = KernelCache::key(spec, self.arch, self.nvrtc);
            self.kernel_cache
                .get_or_compile(spec, &key, || {
                    compiled.fetch_add(1, Ordering::Relaxed);
                    compile_cubin(spec, self.arch)
                })
                .map(drop)
        })?;
        Ok(compiled.into_inner())
    }

    /// Fill every new buffer with 0xFF bytes (tests: catches unwritten outputs);
    /// also synchronises after every launch so faults surface at their kernel.
    pub fn set_poison(&self, on: bool) {
        self.poison.store(on, Ordering::Relaxed);
    }

    /// Module `id`, from the kernel cache or compiled, loaded once per
    /// process. With [`crate::TRACE_ENV`] set, a first use prints
    /// one line to standard error: the module, its size, and the
    /// milliseconds spent keying, reading or compiling, and loading it.
    pub fn module(&self, id: ModuleId) -> Result<Arc<CudaModule>> {
        let mut m = self.modules.lock().expect("module cache lock");
        if let Some(x) = m.get(&id) {
            return Ok(x.clone());
        }
        let t0 = std::time::Instant::now();
        let spec: ModuleSpec = id.spec();
        let key = KernelCache::key(&spec, self.arch, self.nvrtc);
        let t_key = t0.elapsed();
        let compiled = std::cell::Cell::new(false);
        let cubin = self.kernel_cache.get_or_compile(&spec, &key, || {
            compiled.set(true);
            compile_cubin(&spec, self.arch)
        })?;
        let t_code = t0.elapsed();
        let size = cubin.len();
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(cubin))
            .map_err(drv("load module"))?;
        if self.trace {
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "module {}: {} KiB, key {:.2} ms, {} {:.2} ms, load {:.2} ms",
                spec.name,
                size.div_ceil(1024),
                ms(t_key),
                if compiled.get() { "compile" } else { "cache" },
                ms(t_code - t_key),
                ms(t0.elapsed() - t_code)
            );
        }
        m.insert(id, module.clone());
        Ok(module)
    }

    /// The kernel `base` (`_k<k>`) of module `id`, compiled on first use
    /// (with [`crate::TRACE_ENV`] set, the time its lookup took is printed).
    pub fn func(&self, id: ModuleId, base: &str, k: Option<usize>) -> Result<CudaFunction> {
        let name = id.entry(base, k);
        if let Some(f) = self.funcs.lock().expect("func cache lock").get(&name) {
            return Ok(f.clone());
        }
        let module = self.module(id)?;
        let t0 = std::time::Instant::now();
        let f = module.load_function(&name).map_err(|e| Error::Cuda {
            op: "load function",
            detail: format!("{name}: {e}"),
        })?;
        if self.trace {
            eprintln!(
                "kernel {name}: load {:.2} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
        self.funcs
            .lock()
            .expect("func cache lock")
            .insert(name, f.clone());
        Ok(f)
    }

    /// Launches `f` on `grid` blocks of `block` threads.
    pub fn launch(&self, f: &CudaFunction, grid: u32, block: u32, args: &[Arg]) -> Result<()> {
        self.launch_shared(f, grid, block, 0, args)
    }

    /// The most bytes of dynamic shared memory a launch of `f` may ask for
    /// (the device's opt-in limit per block less `f`'s static shared memory).
    pub fn shared_room(&self, f: &CudaFunction) -> Result<u32> {
        use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute_enum};
        let max = self
            .ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(drv("device"))?;
        let used = f
            .get_attribute(CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            .map_err(drv("function attribute"))?;
        Ok((max - used).max(0) as u32)
    }

    /// Launches `f` on `grid` blocks of `block` threads with `shared` bytes of
    /// dynamic shared memory (at most [`Dev::shared_room`]; beyond the
    /// default 48 KiB the function is opted in first).
    pub fn launch_shared(
        &self,
        f: &CudaFunction,
        grid: u32,
        block: u32,
        shared: u32,
        args: &[Arg],
    ) -> Result<()> {
        if grid == 0 {
            return Ok(());
        }
        if shared > 48 << 10 {
            f.set_attribute(
                cudarc::driver::sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .map_err(drv("function attribute"))?;
        }
        self.start(f, grid, block, shared, args, false)
    }

    /// Blocks of `block` threads with `shared` bytes of dynamic shared memory
    /// that fit on the device at once (at least one per multiprocessor): the
    /// grid of a persistent kernel. Opts `f` in to `shared` bytes first where
    /// that is past the default 48 KiB.
    pub fn resident_blocks(&self, f: &CudaFunction, block: u32, shared: u32) -> Result<u32> {
        use cudarc::driver::sys::CUfunction_attribute_enum as A;
        if shared > 48 << 10 {
            f.set_attribute(
                A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .map_err(drv("function attribute"))?;
        }
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(block, shared as usize, None)
            .map_err(drv("occupancy"))?;
        Ok(per_sm.max(1) * self.sm_count)
    }

    /// Launches `f` cooperatively on as many blocks of `block` threads as can
    /// be resident at once (kernels with a grid-wide barrier).
    pub fn launch_resident(&self, f: &CudaFunction, block: u32, args: &[Arg]) -> Result<()> {
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .map_err(drv("occupancy"))?;
        self.start(f, per_sm.max(1) * self.sm_count, block, 0, args, true)
    }

    /// The launch of `launch`, `launch_shared` and `launch_resident`
    /// (`shared`: bytes of dynamic shared memory; `cooperative`: all blocks
    /// resident at once, or an error).
    fn start(
        &self,
        f: &CudaFunction,
        grid: u32,
        block: u32,
        shared: u32,
        args: &[Arg],
        cooperative: bool,
    ) -> Result<()> {
        let mut b = self.stream.launch_builder(f);
        for a in args {
            match a {
                Arg::U64(x) => b.arg(x),
                Arg::U32(x) => b.arg(x),
                Arg::I32(x) => b.arg(x),
                Arg::I64(x) => b.arg(x),
                Arg::Ptrs8(x) => b.arg(x),
            };
        }
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: shared,
        };
        if cooperative {
            // SAFETY: as below; a cooperative launch fails rather than start
            // more blocks than can be resident, so a grid barrier cannot hang.
            unsafe { b.launch_cooperative(cfg) }.map_err(drv("cooperative launch"))?;
        } else {
            // SAFETY: argument order and types follow the kernel signatures;
            // the typed launches of `launch/` are the only callers.
            unsafe { b.launch(cfg) }.map_err(drv("launch"))?;
        }
        if self.poison.load(Ordering::Relaxed) {
            self.sync()?;
        }
        Ok(())
    }

    /// Runs `base` from `id` with a grid sized for `work` items (grid-stride kernels).
    pub fn run(
        &self,
        id: ModuleId,
        base: &str,
        k: Option<usize>,
        work: usize,
        args: &[Arg],
    ) -> Result<()> {
        let f = self.func(id, base, k)?;
        let block = 256u32;
        let grid = work
            .div_ceil(block as usize)
            .clamp(1, self.sm_count as usize * 16) as u32;
        self.launch(&f, grid, block, args)
    }

    /// Waits for the stream; reports asynchronous faults.
    pub fn sync(&self) -> Result<()> {
        self.stream.synchronize().map_err(drv("synchronize"))
    }

    /// Runs `f`, recording the work it queues on the stream as a CUDA graph
    /// instead of running it, then launches the graph once: `Some((f's
    /// output, the graph))`, whose `relaunch` queues the same
    /// work again (same kernels, arguments and buffers; buffers `f` made and
    /// returned are the graph's, at fixed addresses, rewritten by every
    /// launch). `None` when the work cannot be recorded (poison mode, which
    /// synchronises after every launch; `f` failing, answering `None`, or
    /// waiting for the device, or copying from host memory inside the
    /// recording): nothing of it ran, and the caller runs `f` itself.
    /// Lazily made state (compiled kernels, a matrix's product plan) should
    /// exist before: run `f` once first. No other thread may queue work on
    /// this backend meanwhile (it would be recorded, not run).
    pub fn record<R>(&self, f: impl FnOnce() -> Option<R>) -> Result<Option<(R, DeviceGraph)>> {
        use cudarc::driver::sys::{
            CUgraphInstantiate_flags as Flags, CUstreamCaptureMode as Mode,
            CUstreamCaptureStatus as Status,
        };
        if self.poison.load(Ordering::Relaxed) {
            return Ok(None);
        }
        self.stream
            .begin_capture(Mode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(drv("begin graph capture"))?;
        let out = f();
        let active = matches!(
            self.stream.capture_status(),
            Ok(Status::CU_STREAM_CAPTURE_STATUS_ACTIVE)
        );
        // an output of a failed recording holds addresses that were never
        // allocated: dropped here, its frees fail harmlessly
        let out = out.filter(|_| active);
        // graph allocations that outlive a launch (the outputs) are freed
        // at the next launch, which allocates them again at the same addresses
        let graph = self
            .stream
            .end_capture(Flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
        let recorded = match (out, graph) {
            (Some(o), Ok(Some(graph))) => Some((
                o,
                DeviceGraph {
                    graph,
                    stream: self.stream.clone(),
                },
            )),
            (o, _) => {
                drop(o);
                None
            }
        };
        // errors the driver recorded for the frees of a failed recording
        let _ = self.ctx.check_err();
        match recorded {
            Some((o, g)) => {
                crate::ext::Relaunch::relaunch(&g)?;
                Ok(Some((o, g)))
            }
            None => Ok(None),
        }
    }

    /// A buffer of `len` elements (contents undefined; 0xFF bytes in poison mode).
    pub fn alloc<T>(&self, len: usize) -> Result<DBuf<T>> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .and_then(|b| b.max(1).checked_next_multiple_of(4))
            .ok_or_else(|| Error::TooLarge {
                what: "device buffer",
                detail: format!(
                    "{len} elements of {} bytes exceed the address space",
                    std::mem::size_of::<T>()
                ),
            })?;
        // SAFETY: the memory is only read after kernels or copies wrote it.
        let slice = unsafe { self.stream.alloc::<u8>(bytes) }.map_err(drv("alloc"))?;
        let ptr = slice.device_ptr(&self.stream).0;
        if self.poison.load(Ordering::Relaxed) {
            // SAFETY: ptr addresses `bytes` bytes of this allocation.
            unsafe {
                cudarc::driver::result::memset_d8_async(ptr, 0xff, bytes, self.stream.cu_stream())
            }
            .map_err(drv("memset"))?;
        }
        self.bytes.add(bytes as u64);
        Ok(DBuf {
            bytes: self.bytes.clone(),
            slice,
            ptr,
            len,
            _t: PhantomData,
        })
    }

    /// A zeroed buffer.
    pub fn zeros<T>(&self, len: usize) -> Result<DBuf<T>> {
        let b = self.alloc::<T>(len)?;
        self.memset(&b, 0)?;
        Ok(b)
    }

    /// Sets every byte of `b` to `byte`.
    pub fn memset<T>(&self, b: &DBuf<T>, byte: u8) -> Result<()> {
        // SAFETY: the whole allocation.
        unsafe {
            cudarc::driver::result::memset_d8_async(
                b.ptr,
                byte,
                b.slice.len(),
                self.stream.cu_stream(),
            )
        }
        .map_err(drv("memset"))
    }

    /// A device-to-device copy of a whole buffer.
    pub fn copy<T>(&self, b: &DBuf<T>) -> Result<DBuf<T>> {
        let out = self.alloc::<T>(b.len)?;
        self.copy_into(b, &out)?;
        Ok(out)
    }

    /// Copies the whole of `src` over `dst`, which holds as many elements.
    pub fn copy_into<T>(&self, src: &DBuf<T>, dst: &DBuf<T>) -> Result<()> {
        if src.len != dst.len {
            return Err(Error::Cuda {
                op: "copy on device",
                detail: format!("{} elements into a buffer of {}", src.len, dst.len),
            });
        }
        let n = (src.len * std::mem::size_of::<T>())
            .max(1)
            .next_multiple_of(4);
        // SAFETY: both hold n bytes (allocations are rounded up alike).
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(dst.ptr, src.ptr, n, self.stream.cu_stream())
        }
        .map_err(drv("copy on device"))
    }

    /// In-place exclusive scan of the first `n` elements of `data`.
    pub fn scan(&self, data: &DBuf<u32>, n: usize) -> Result<()> {
        const TILE: usize = 1024;
        if n == 0 {
            return Ok(());
        }
        let nb = n.div_ceil(TILE);
        let sums = self.alloc::<u32>(nb)?;
        pack::scan_block(data.ptr(), n as u64, sums.ptr()).grid(self, nb as u32, 256)?;
        if nb > 1 {
            self.scan(&sums, nb)?;
            pack::scan_add(data.ptr(), n as u64, sums.ptr()).grid(self, nb as u32, 256)?;
        }
        Ok(())
    }
}
