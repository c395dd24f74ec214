//! The device: probing, the context and its one stream, the module cache
//! (NVRTC at first use, for the device's own architecture), device buffers
//! and the one place kernels are launched.
//!
//! cudarc's per-buffer event tracking is switched off: everything runs in
//! order on one stream, and kernels get raw device addresses, so a buffer's
//! lifetime is what keeps it valid (drops are stream-ordered frees).

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, PushKernelArg,
};

use super::kernels::{compile_ptx, ModuleId, ModuleSpec};
use super::launch::pack;
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
}

/// Downloads of at least this many bytes touch their host pages in parallel
/// first ([`Dev::download_vec`]).
const PREFAULT_FROM: usize = 1 << 20;

/// Downloads of at least this many bytes go through the pinned staging
/// buffers ([`Staging`]).
const STAGED_FROM: usize = 4 << 20;

/// Bytes of each of the two pinned staging buffers.
const STAGE_BYTES: usize = 8 << 20;

/// Two page-locked host buffers and an event each: large downloads copy
/// device memory into one (DMA at the link's speed) while the other is
/// copied, by every core, into the result. Measured on the H100 host (commit
/// e19a747) the driver's pageable copy moved 134 MB in 31 ms and 32 MB in
/// 11 ms (3-4 GB/s).
struct Staging {
    bufs: [usize; 2],
    events: [cudarc::driver::sys::CUevent; 2],
}

// SAFETY: the buffers and events are used only under the `Dev::staging`
// lock, from one thread at a time.
unsafe impl Send for Staging {}

impl Staging {
    fn new() -> Result<Staging> {
        use cudarc::driver::sys;
        let mut st = Staging {
            bufs: [0; 2],
            events: [std::ptr::null_mut(); 2],
        };
        for i in 0..2 {
            let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
            // SAFETY: plain allocations in the current context; freed in `drop`.
            unsafe {
                sys::cuMemAllocHost_v2(&mut p, STAGE_BYTES)
                    .result()
                    .map_err(drv("pinned host allocation"))?;
                st.bufs[i] = p as usize;
                sys::cuEventCreate(
                    &mut st.events[i],
                    sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
                )
                .result()
                .map_err(drv("event"))?;
            }
        }
        Ok(st)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        use cudarc::driver::sys;
        // SAFETY: made by `Staging::new` (null / 0 where it failed part-way).
        unsafe {
            for &b in &self.bufs {
                if b != 0 {
                    let _ = sys::cuMemFreeHost(b as *mut std::ffi::c_void);
                }
            }
            for &e in &self.events {
                if !e.is_null() {
                    let _ = sys::cuEventDestroy_v2(e);
                }
            }
        }
    }
}

/// The device and everything cached on it.
pub(crate) struct Dev {
    /// Made at the first large download (declared first: dropped before the context).
    staging: Mutex<Option<Staging>>,
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub arch: &'static str,
    pub sm_count: u32,
    pub name: String,
    modules: Mutex<HashMap<ModuleId, Arc<CudaModule>>>,
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
}

fn arch_name(major: i32, minor: i32) -> &'static str {
    match (major, minor) {
        (7, 0) => "sm_70",
        (7, 5) => "sm_75",
        (8, 0) => "sm_80",
        (8, 6) => "sm_86",
        (8, 9) => "sm_89",
        (9, 0) => "sm_90",
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
        let stream = ctx.default_stream();
        keep_pool_memory(&ctx);
        Ok(Dev {
            staging: Mutex::new(None),
            ctx,
            stream,
            arch: arch_name(major, minor),
            sm_count,
            name,
            modules: Mutex::new(HashMap::new()),
            funcs: Mutex::new(HashMap::new()),
            poison: AtomicBool::new(false),
            bfs_block: [
                AtomicU64::new(super::visit::BLOCK_EDGES),
                AtomicU64::new(super::visit::BLOCK_QUEUE),
            ],
            bfs_shared: AtomicBool::new(true),
            affine_prescale: AtomicU8::new(0),
        })
    }

    /// Fill every new buffer with 0xFF bytes (tests: catches unwritten outputs);
    /// also synchronises after every launch so faults surface at their kernel.
    pub fn set_poison(&self, on: bool) {
        self.poison.store(on, Ordering::Relaxed);
    }

    pub fn module(&self, id: ModuleId) -> Result<Arc<CudaModule>> {
        let mut m = self.modules.lock().expect("module cache lock");
        if let Some(x) = m.get(&id) {
            return Ok(x.clone());
        }
        let spec: ModuleSpec = id.spec();
        let ptx = compile_ptx(&spec, self.arch)?;
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(drv("load module"))?;
        m.insert(id, module.clone());
        Ok(module)
    }

    /// The kernel `base` (`_k<k>`) of module `id`, compiled on first use.
    pub fn func(&self, id: ModuleId, base: &str, k: Option<usize>) -> Result<CudaFunction> {
        let name = id.entry(base, k);
        if let Some(f) = self.funcs.lock().expect("func cache lock").get(&name) {
            return Ok(f.clone());
        }
        let module = self.module(id)?;
        let f = module.load_function(&name).map_err(|e| Error::Cuda {
            op: "load function",
            detail: format!("{name}: {e}"),
        })?;
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

    /// A buffer of `len` elements (contents undefined; 0xFF bytes in poison mode).
    pub fn alloc<T>(&self, len: usize) -> Result<DBuf<T>> {
        let bytes = (len * std::mem::size_of::<T>()).max(1).next_multiple_of(4);
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
        Ok(DBuf {
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

    /// Copies host data into a new buffer.
    pub fn upload<T: Copy>(&self, data: &[T]) -> Result<DBuf<T>> {
        let b = self.alloc::<T>(data.len())?;
        if !std::mem::size_of_val(data).is_multiple_of(4) {
            // the padding past the data must read as zero bits (tile counts)
            self.memset(&b, 0)?;
        }
        if !data.is_empty() {
            // SAFETY: plain data, viewed as bytes.
            let bytes = unsafe {
                std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data))
            };
            // SAFETY: the destination holds at least that many bytes.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(b.ptr, bytes, self.stream.cu_stream())
            }
            .map_err(drv("copy to device"))?;
            // The host slice must outlive the asynchronous copy.
            self.sync()?;
        }
        Ok(b)
    }

    /// Copies a buffer's bytes back.
    pub fn download_bytes<T>(&self, b: &DBuf<T>, len: usize) -> Result<Vec<u8>> {
        let n = len * std::mem::size_of::<T>();
        let mut out = vec![0u8; n];
        if n > 0 {
            // SAFETY: the buffer holds at least n bytes.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(&mut out, b.ptr, self.stream.cu_stream())
            }
            .map_err(drv("copy to host"))?;
        }
        self.sync()?;
        Ok(out)
    }

    /// The first `len` elements of a buffer, copied straight into a new host
    /// vector (no zeroed staging bytes and no second copy: for a 16.7 M-entry
    /// `f64` vector that was two passes over fresh host pages).
    pub fn download_vec<T: Scalar>(&self, b: &DBuf<T>, len: usize) -> Result<Vec<T>> {
        if T::TYPE == crate::ScalarType::Bool {
            return Ok(from_bytes::<T>(&self.download_bytes(b, len)?, len));
        }
        let bytes = len * std::mem::size_of::<T>();
        let mut out = Vec::<T>::with_capacity(len);
        if bytes >= STAGED_FROM {
            self.download_staged(b.ptr, out.as_mut_ptr() as usize, bytes)?;
            // SAFETY: the staged copy wrote all `len` elements; T is a plain
            // numeric type (bool handled above), so every bit pattern is valid.
            unsafe { out.set_len(len) };
            return Ok(out);
        }
        if bytes >= PREFAULT_FROM {
            // Fresh host pages fault on first touch, one at a time inside the
            // driver's pageable copy (measured on the H100 host: ~100 ms for
            // 134 MB, 20x the copy itself); touched first by every core they
            // fault in parallel.
            use rayon::prelude::*;
            out.spare_capacity_mut()
                .par_chunks_mut(PREFAULT_FROM / std::mem::size_of::<T>())
                .for_each(|c| c.fill(std::mem::MaybeUninit::new(T::zero())));
        }
        if bytes > 0 {
            // SAFETY: the buffer holds at least `bytes` bytes and `out` has room
            // for them; the copy completes at the synchronisation below, before
            // `out` is read or resized.
            unsafe {
                cudarc::driver::sys::cuMemcpyDtoHAsync_v2(
                    out.as_mut_ptr() as *mut std::ffi::c_void,
                    b.ptr,
                    bytes,
                    self.stream.cu_stream(),
                )
            }
            .result()
            .map_err(drv("copy to host"))?;
        }
        self.sync()?;
        // SAFETY: the copy wrote all `len` elements; T is a plain numeric type
        // (bool handled above), so every bit pattern is valid.
        unsafe { out.set_len(len) };
        Ok(out)
    }

    /// Copies `bytes` bytes at device address `src` to host address `dst`
    /// through the two pinned staging buffers: chunk `i + 1` is in flight on
    /// the stream while chunk `i` is copied into `dst` by every core (which
    /// also faults fresh destination pages in parallel). Waits for the
    /// stream's earlier work first, as any download does.
    fn download_staged(&self, src: u64, dst: usize, bytes: usize) -> Result<()> {
        use cudarc::driver::sys;
        use rayon::prelude::*;
        self.ctx.bind_to_thread().map_err(drv("bind context"))?;
        let mut guard = self.staging.lock().expect("staging lock");
        if guard.is_none() {
            *guard = Some(Staging::new()?);
        }
        let st = guard.as_ref().expect("made above");
        let stream = self.stream.cu_stream();
        let chunks = bytes.div_ceil(STAGE_BYTES);
        let span = |i: usize| (i * STAGE_BYTES, STAGE_BYTES.min(bytes - i * STAGE_BYTES));
        let issue = |i: usize| -> Result<()> {
            let (off, len) = span(i);
            // SAFETY: `src` holds `bytes` bytes; the staging buffer holds
            // STAGE_BYTES >= len; it is not read until its event completes.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    st.bufs[i % 2] as *mut std::ffi::c_void,
                    src + off as u64,
                    len,
                    stream,
                )
                .result()
                .map_err(drv("copy to host"))?;
                sys::cuEventRecord(st.events[i % 2], stream)
                    .result()
                    .map_err(drv("event"))
            }
        };
        issue(0)?;
        for i in 0..chunks {
            if i + 1 < chunks {
                // into the other buffer, whose chunk (i - 1) was copied out
                issue(i + 1)?;
            }
            // SAFETY: an event recorded above.
            unsafe { sys::cuEventSynchronize(st.events[i % 2]) }
                .result()
                .map_err(drv("copy to host"))?;
            let (off, len) = span(i);
            let from = st.bufs[i % 2];
            const PIECE: usize = 256 << 10;
            (0..len.div_ceil(PIECE)).into_par_iter().for_each(|k| {
                let (a, n) = (k * PIECE, PIECE.min(len - k * PIECE));
                // SAFETY: disjoint pieces of the staged chunk and of `dst`,
                // which the caller sized for `bytes` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (from + a) as *const u8,
                        (dst + off + a) as *mut u8,
                        n,
                    )
                };
            });
        }
        Ok(())
    }

    /// Element `i` of a u32 buffer.
    pub fn read_u32(&self, b: &DBuf<u32>, i: usize) -> Result<u32> {
        let mut out = [0u8; 4];
        // SAFETY: i < len.
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(
                &mut out,
                b.ptr + 4 * i as u64,
                self.stream.cu_stream(),
            )
        }
        .map_err(drv("copy to host"))?;
        self.sync()?;
        Ok(u32::from_le_bytes(out))
    }

    /// Element 0 of a u64 buffer.
    pub fn read_u64(&self, b: &DBuf<u64>) -> Result<u64> {
        let v = self.download_bytes(b, 1)?;
        Ok(u64::from_le_bytes(v[..8].try_into().expect("8 bytes")))
    }

    /// A device-to-device copy of a whole buffer.
    pub fn copy<T>(&self, b: &DBuf<T>) -> Result<DBuf<T>> {
        let out = self.alloc::<T>(b.len)?;
        let n = (b.len * std::mem::size_of::<T>())
            .max(1)
            .next_multiple_of(4);
        // SAFETY: both hold n bytes.
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(out.ptr, b.ptr, n, self.stream.cu_stream())
        }
        .map_err(drv("copy on device"))?;
        Ok(out)
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

/// Host data from downloaded bytes (bools normalised to 0/1).
pub(crate) fn from_bytes<T: Scalar>(bytes: &[u8], len: usize) -> Vec<T> {
    let sz = std::mem::size_of::<T>();
    assert!(bytes.len() >= len * sz, "short download");
    let mut out = Vec::<T>::with_capacity(len);
    if T::TYPE == crate::ScalarType::Bool {
        for &b in &bytes[..len] {
            out.push(T::from_usize((b != 0) as usize));
        }
        return out;
    }
    // SAFETY: T is a plain numeric type; every bit pattern is valid.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr() as *mut u8, len * sz);
        out.set_len(len);
    }
    out
}

/// Host bit vector words as the device's u32 words.
pub(crate) fn words_to_u32(words: &[u64]) -> Vec<u32> {
    words
        .iter()
        .flat_map(|&w| [w as u32, (w >> 32) as u32])
        .collect()
}

/// Device u32 words back to host u64 words.
pub(crate) fn u32_to_words(w: &[u32]) -> Vec<u64> {
    w.chunks(2)
        .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect()
}
