//! The CUDA backend (feature `cuda`): device-resident matrices and vectors,
//! kernels from `cuda/*.cu` compiled by NVRTC at first use for the device's
//! own architecture and cached per module.
//!
//! Data has an explicit home: [`CudaMatrix`], [`CudaVector`], [`CudaDense`] and [`CudaBits`]
//! live on the device and move only through `upload_*`/`download_*`; no
//! operation copies between host and device behind the caller's back (a few
//! read back one scalar: a count that sizes an allocation, or a reduction's
//! result). Operations with no device kernel return [`Error::NoKernel`]:
//!
//! - the bit-plane products (`bmm_planes`, `bspmm_planes`) where the code
//!   sums could pass 2^32 (`k (2^b - 1) (2^c - 1)`, `k (2^b - 1)`);
//! - user-defined semirings without their operators as CUDA source
//!   ([`DeviceOps`](crate::algebra::DeviceOps): with it, NVRTC compiles them
//!   into the built-in semirings' templates for `mxv`, `vxm`, `mxm`,
//!   `mxm_reduce` and `mxm_dense`), and user-defined operators elsewhere
//!   (closures: element-wise, apply, select, accumulators).
//!
//! A 64x64-tile pattern is uploaded or converted to 32x32 tiles (the device
//! kernels take tiles of 4 to 32). `Format::Auto` in `convert` counts the
//! tiles on the device and lets a model of this backend's kernels choose
//! between CSR and 4x4 or 8x8 tiles (`auto`).
//!
//! Every other call of [`crate::ops`] runs on the device for every format, mask
//! and built-in operator. Where no dedicated kernel exists, a generic CSR one
//! stands in (slower than a dedicated kernel would be, same results):
//!
//! - `mxm` with a sparse result: the B2SR boolean product where it applies
//!   (B2SR operands of one tile size, an idempotent `⊕`, one value in the
//!   result, a B2SR mask or none), the CSR merge product
//!   (`cuda/csr_spgemm.cu`) for everything else: PLUS semirings, user
//!   semirings, CSR operands or masks, a result with several values;
//! - `transpose` of B2SR under a CSR mask or into `C` with other values: the
//!   CSR transpose and output phase;
//! - `mxm_reduce` beyond the B2SR `PLUS.PAIR` / `PLUS.TIMES` counts: CSR
//!   masked dot products (`cuda/csr_dot.cu`); under a complemented mask the
//!   masked product is formed, then reduced;
//! - operands held as B2SR are unpacked to CSR on the device where only a
//!   CSR kernel takes them (element-wise with values, extract, assign).
//!
//! ```no_run
//! use bitgraphblas::{ops, algebra::PlusTimes, Backend, Desc, Format, Matrix, TileSize, Vector};
//! use bitgraphblas::backend::cuda::CudaBackend;
//! let gpu = CudaBackend::new(0)?; // Err (never a panic) without a GPU
//! let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0f32), (1, 2, 1.0), (2, 0, 1.0)])?;
//! let a = gpu.convert(&gpu.upload_matrix(&a)?, Format::B2sr(TileSize::T8))?; // packed on the device
//! let u = gpu.upload_vector(&Vector::from_dense(vec![1.0f32, 2.0, 3.0]))?;
//! let mut w = gpu.vector_new(3, None, bitgraphblas::VectorFormat::Dense)?;
//! ops::mxv(&gpu, &mut w, PlusTimes::<f32>::new(), &a, &u, &Desc::new())?;
//! assert_eq!(gpu.download_vector(&w)?.to_vec(0.0), vec![2.0, 3.0, 1.0]);
//! # Ok::<(), bitgraphblas::Error>(())
//! ```
//!
//! The layers, bottom up:
//!
//! - `device`: the context, stream, module cache, buffers and the untyped launch;
//!   `transfer`: copies between host and device;
//!   `kernels`: the module table; `launch/`: one typed function per kernel;
//! - `mem`: the device containers; `mask`: vectors and matrices as masks;
//! - `vector/`: vector views, forms and operations; `reduce`: reductions;
//! - `mxv/`: matrix-vector products (CSR, B2SR, push, affine);
//! - `convert`: CSR <-> B2SR on the device; `auto`: the format `Auto`
//!   chooses; `csr/`: matrix operations on
//!   CSR with values; `b2sr/`: products, transposes, selection and the
//!   write-back with a B2SR result; `dense`: products with dense
//!   matrices; `dense_ops`: element-wise operations, scalings and row
//!   reductions of dense matrices; `bits/`: dense bit matrices and the bit products;
//! - `visit`: fused breadth-first levels and the [`BackendExt`](crate::ext::BackendExt)
//!   implementation; `sssp`: delta-stepping's buckets; `backend`: the [`Backend`]
//!   implementation, a list of delegations to the above.

mod auto;
mod b2sr;
mod backend;
mod bits;
mod cache;
mod codes;
mod convert;
mod csr;
mod dense;
mod dense_counts;
mod dense_ops;
mod device;
pub mod kernels;
mod launch;
mod mask;
mod mem;
mod mxv;
mod reduce;
mod sssp;
mod transfer;
mod vector;
mod visit;

use std::sync::OnceLock;

#[doc(hidden)]
pub use bits::BmmPath;
pub use bits::CudaBits;
#[doc(hidden)]
pub use cache::CACHE_ENV;
pub use csr::MaskPattern;
#[doc(hidden)]
pub use mask::{DevB2srRef, DeviceBits};
pub use mask::{DeviceMask, DeviceMatrixMask};
pub use mem::{CudaDense, CudaMatrix, CudaVector};

use self::device::Dev;
use crate::error::Result;
#[cfg(doc)]
use crate::{backend::Backend, error::Error};

/// The CUDA backend: one device, one stream, a cache of compiled modules.
///
/// ```no_run
/// use bitgraphblas::backend::cuda::CudaBackend;
/// match CudaBackend::new(0) {
///     Ok(gpu) => println!("{}", gpu.device_name()),
///     Err(e) => println!("no GPU: {e}"),
/// }
/// ```
pub struct CudaBackend {
    dev: Dev,
}

/// The shared device, or why there is none. Tests use [`cuda_or_skip`].
static SHARED: OnceLock<std::result::Result<CudaBackend, String>> = OnceLock::new();

/// The process-wide CUDA backend for tests: `None` (after printing a
/// `SKIPPED` line) when no GPU can be opened, a panic instead when
/// `BITGRAPHBLAS_REQUIRE_GPU=1`. Output buffers are poisoned in this backend.
///
/// ```no_run
/// let Some(gpu) = bitgraphblas::backend::cuda::cuda_or_skip("my_test") else {
///     return;
/// };
/// println!("{}", gpu.device_name());
/// ```
#[doc(hidden)]
pub fn cuda_or_skip(test: &str) -> Option<&'static CudaBackend> {
    let dev = SHARED.get_or_init(|| {
        CudaBackend::new(0)
            .inspect(|b| b.set_poison(true))
            .map_err(|e| e.to_string())
    });
    match dev {
        Ok(d) => Some(d),
        Err(e) => no_gpu(test, e),
    }
}

/// A CUDA backend of the test's own, for tests that need one the shared
/// [`cuda_or_skip`] backend cannot be: not in poison mode (which
/// synchronises after every launch, so nothing is recorded), or with a
/// stream no other test queues work on. `None` (after printing a `SKIPPED`
/// line) when no GPU can be opened, a panic instead when
/// `BITGRAPHBLAS_REQUIRE_GPU=1`.
///
/// ```no_run
/// let Some(gpu) = bitgraphblas::backend::cuda::own_cuda_or_skip("my_test") else {
///     return;
/// };
/// gpu.set_poison(true);
/// ```
#[doc(hidden)]
pub fn own_cuda_or_skip(test: &str) -> Option<CudaBackend> {
    match CudaBackend::new(0) {
        Ok(d) => Some(d),
        Err(e) => no_gpu(test, &e.to_string()),
    }
}

/// No GPU for `test`: a panic under `BITGRAPHBLAS_REQUIRE_GPU=1`, else a
/// `SKIPPED` line and `None`.
fn no_gpu<T>(test: &str, e: &str) -> Option<T> {
    if std::env::var("BITGRAPHBLAS_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!("{test}: BITGRAPHBLAS_REQUIRE_GPU=1 but no GPU: {e}")
    }
    // Straight to the stderr handle: the test harness captures eprintln!.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {e}");
    None
}

impl CudaBackend {
    /// Opens device `ordinal`. `Err` (never a panic) where there is no driver,
    /// no NVRTC or no such device.
    pub fn new(ordinal: usize) -> Result<Self> {
        Ok(CudaBackend {
            dev: Dev::open(ordinal)?,
        })
    }
    /// The device's name (`"NVIDIA H100 80GB HBM3"`).
    pub fn device_name(&self) -> &str {
        &self.dev.name
    }
    /// Compiles every built-in kernel module that the on-disk kernel cache
    /// lacks for this device, in parallel, and returns how many it compiled:
    /// a process run after it compiles nothing at first use (user semirings
    /// compile at their first use as before). `examples/kernel_cache.rs`
    /// runs it from the command line. Without a cache
    /// (`BITGRAPHBLAS_KERNEL_CACHE=off`) it compiles everything and keeps nothing.
    ///
    /// ```no_run
    /// let gpu = bitgraphblas::CudaBackend::new(0)?;
    /// let compiled = gpu.warm_kernel_cache()?;
    /// assert_eq!(gpu.warm_kernel_cache()?, 0); // all cached now
    /// # let _ = compiled;
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn warm_kernel_cache(&self) -> Result<usize> {
        self.dev.warm_kernel_cache()
    }
    /// The architecture kernels are compiled for (`"sm_90a"` on an H100 or
    /// H200: the arch-specific target, for the warpgroup MMA).
    pub fn arch(&self) -> &'static str {
        self.dev.arch
    }
    /// Poison mode: every new device buffer starts as 0xFF bytes (NaN, `MAX`),
    /// and every launch is followed by a synchronisation, so unwritten outputs
    /// and faults show up where they happen. For tests.
    pub fn set_poison(&self, on: bool) {
        self.dev.set_poison(on)
    }
    /// Bytes of device memory this backend's buffers hold now, and the most
    /// they held since the backend was made or [`Self::reset_peak_memory`].
    ///
    /// ```no_run
    /// let gpu = bitgraphblas::CudaBackend::new(0)?;
    /// let (now, peak) = gpu.memory();
    /// assert!(now <= peak);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn memory(&self) -> (u64, u64) {
        self.dev.bytes.get()
    }
    /// Starts a new peak of [`Self::memory`] from what is held now.
    pub fn reset_peak_memory(&self) {
        self.dev.bytes.reset_peak()
    }
    /// Waits for all queued device work; reports asynchronous faults.
    pub fn synchronize(&self) -> Result<()> {
        self.dev.sync()
    }
    /// The driver context and stream this backend runs on (for interop such
    /// as cuSPARSE in benchmarks).
    #[doc(hidden)]
    pub fn raw(
        &self,
    ) -> (
        &std::sync::Arc<cudarc::driver::CudaContext>,
        &std::sync::Arc<cudarc::driver::CudaStream>,
    ) {
        (&self.dev.ctx, &self.dev.stream)
    }
    /// Compiles (and caches) the given modules now rather than at first use.
    pub fn warm_up(&self, ids: &[kernels::ModuleId]) -> Result<()> {
        for &id in ids {
            self.dev.module(id)?;
        }
        Ok(())
    }
}
