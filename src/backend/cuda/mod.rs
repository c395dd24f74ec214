//! The CUDA backend (feature `cuda`): device-resident matrices and vectors,
//! kernels from `cuda/*.cu` compiled by NVRTC at first use for the device's
//! own architecture and cached per module.
//!
//! Data has an explicit home: [`CudaMatrix`], [`CudaVector`] and [`CudaDense`]
//! live on the device and move only through `upload_*`/`download_*`; no
//! operation copies between host and device behind the caller's back (a few
//! read back one scalar: a count that sizes an allocation, or a reduction's
//! result). Operations with no device kernel return [`Error::NoKernel`]:
//!
//! - `mxm` on CSR operands with a sparse result, `mxm` with a `PLUS` semiring (a B2SR
//!   result holds one value), and either where the result would hold more
//!   than one value (`C`'s surviving entries differ from the new ones), or
//!   with a CSR mask;
//! - `mxm_reduce` except `PLUS.PAIR`/`PLUS.TIMES` on B2SR operands of one
//!   tile size with a B2SR mask, not complemented;
//! - 64x64 tiles, `Format::Auto`,
//!   user-defined semirings and operators.
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

mod affine;
mod codes;
mod device;
mod ext;
pub mod kernels;
mod matrix_ops;
mod mem;
mod mxm;
mod push;
mod transpose;
mod vector_ops;
mod visit;

use std::sync::OnceLock;

#[doc(hidden)]
pub use matrix_ops::MaskPattern;
pub use mem::{CudaDense, CudaMatrix, CudaVector};

use self::device::{bits_of, opt_arg, Arg, DBuf, Dev};
use self::kernels::{semiring_instances, ModuleId};
use self::mem::{bit_words, no_kernel, DMat, DVec, DevB2sr};
use self::codes::{accum_code, op_code, select_code, unary_code};
use super::{Backend, Content, EwiseKind, MatrixShape, VectorShape};
use crate::algebra::{
    BinaryOp, IndexUnaryOp, Monoid, Semiring, SemiringKind, UnaryOp,
};
use crate::container::{Accumulate, Flags, Format, Mask, Matrix, MatrixMask, Vector, VectorFormat};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::{DenseMatrix, TileSize};

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

/// Items (row ends and entries) per warp of the CSR merge-path product
/// (`MERGE_D = 32 * MERGE_E` in `cuda/sr.cu`, 6 items a lane).
const CSR_MERGE_ITEMS: usize = 192;

/// A device vector of any element type, seen as a mask.
pub trait DeviceMask: VectorShape + Sync {
    /// The positions the mask allows (complement applied), as device bits.
    #[doc(hidden)]
    fn allowed_bits(
        &self,
        b: &CudaBackend,
        structural: bool,
        complemented: bool,
    ) -> Result<DeviceBits>;
    /// The device address of bits that already are the mask's pattern
    /// (before any complement), where no kernel is needed to make them:
    /// packed bits, or the presence bits of a structural mask.
    #[doc(hidden)]
    fn pattern_words(&self, _structural: bool) -> Option<u64> {
        None
    }
}

/// A device matrix of any element type, seen as a mask.
pub trait DeviceMatrixMask: MatrixShape + Sync {
    /// The B2SR pattern and whether its iso value is nonzero; `None` for CSR.
    #[doc(hidden)]
    fn b2sr_mask(&self) -> Option<(&DevB2srRef, bool)>;
    /// The selected pattern (every entry, or the nonzero ones) as device CSR.
    #[doc(hidden)]
    fn mask_pattern(&self, b: &CudaBackend, structural: bool) -> Result<MaskPattern>;
}

/// Device bits (opaque; for [`DeviceMask`]).
#[doc(hidden)]
pub struct DeviceBits(DBuf<u32>);

/// A device B2SR pattern (opaque; for [`DeviceMatrixMask`]).
#[doc(hidden)]
#[repr(transparent)]
pub struct DevB2srRef(DevB2sr);

impl<T: Scalar> DeviceMask for CudaVector<T> {
    fn allowed_bits(
        &self,
        b: &CudaBackend,
        structural: bool,
        complemented: bool,
    ) -> Result<DeviceBits> {
        let v = b.view(self)?;
        let out = b.dev.alloc::<u32>(bit_words(self.len))?;
        b.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_mask",
            None,
            bit_words(self.len) * 32,
            &[
                Arg::U64(v.vals),
                Arg::U64(v.pres),
                Arg::U64(self.len as u64),
                Arg::I32(structural as i32),
                Arg::I32(complemented as i32),
                out.arg(),
            ],
        )?;
        Ok(DeviceBits(out))
    }
    fn pattern_words(&self, structural: bool) -> Option<u64> {
        match &self.repr {
            DVec::Bits(b) => Some(b.ptr()),
            DVec::Dense { pres: Some(p), .. } if structural => Some(p.ptr()),
            _ => None,
        }
    }
}

impl<T: Scalar> DeviceMatrixMask for CudaMatrix<T> {
    fn b2sr_mask(&self) -> Option<(&DevB2srRef, bool)> {
        match &self.repr {
            DMat::B2sr { pat, value } => {
                // SAFETY: DevB2srRef is a transparent wrapper of DevB2sr.
                let r = unsafe { &*(pat as *const DevB2sr as *const DevB2srRef) };
                Some((r, value.is_nonzero()))
            }
            DMat::Csr { .. } => None,
        }
    }
    fn mask_pattern(&self, b: &CudaBackend, structural: bool) -> Result<MaskPattern> {
        b.mask_pattern_of(self, structural)
    }
}

/// A dense view of a device vector: value and presence addresses (0 = all
/// one / all present), with temporaries kept alive.
struct View<T> {
    vals: u64,
    pres: u64,
    _tmp: Option<(DBuf<T>, DBuf<u32>)>,
}

/// The shared device, or why there is none. Tests use [`cuda_or_skip`].
static SHARED: OnceLock<std::result::Result<CudaBackend, String>> = OnceLock::new();

/// The process-wide CUDA backend for tests: `None` (after printing a
/// `SKIPPED` line) when no GPU can be opened, a panic instead when
/// `BITGRAPHBLAS_REQUIRE_GPU=1`. Output buffers are poisoned in this backend.
#[doc(hidden)]
pub fn cuda_or_skip(test: &str) -> Option<&'static CudaBackend> {
    let dev = SHARED.get_or_init(|| {
        CudaBackend::new(0)
            .inspect(|b| b.set_poison(true))
            .map_err(|e| e.to_string())
    });
    match dev {
        Ok(d) => Some(d),
        Err(e) if std::env::var("BITGRAPHBLAS_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: BITGRAPHBLAS_REQUIRE_GPU=1 but no GPU: {e}")
        }
        Err(e) => {
            // Straight to the stderr handle: the test harness captures eprintln!.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {e}");
            None
        }
    }
}

fn kernel_of<S: Semiring>(op: &'static str) -> Result<ModuleId> {
    let id = S::KERNEL.ok_or_else(|| no_kernel(op, format!("user semiring {}", S::NAME)))?;
    let key = (id.kind(), id.scalar_type());
    if !semiring_instances().contains(&key) {
        return Err(no_kernel(op, format!("semiring {}", S::NAME)));
    }
    Ok(ModuleId::Sr(key.0, key.1))
}

/// log2 of the lanes per short tile row in the one-launch `mxv` (k <= 8):
/// about the average tiles per tile row (at most [`mem::SHORT_MAX`], at most
/// a warp), fewer while the short rows and the segments would not all fit in
/// one wave of `resident` lanes (what the device holds at once): the kernel
/// is bound by the latency of its dependent loads. On the H100 (commit
/// 2fe2c07, lanes from the average alone, two waves of lanes allowed),
/// grid-1024 on 4 lanes per tile row took 27 µs where the earlier
/// lane-per-row kernel took 11 µs, while delaunay_n14 on 16 lanes per tile
/// row went from 13.6 µs to 4.7 µs.
fn short_lanes_log(pat: &DevB2sr, resident: usize) -> u32 {
    let avg = pat
        .ntiles
        .div_ceil(pat.tile_rows.max(1))
        .clamp(1, mem::SHORT_MAX as usize);
    let mut lanes = avg.next_power_of_two().min(32);
    let room = resident.saturating_sub(32 * pat.nseg).max(resident / 4);
    while lanes > 1 && pat.tile_rows * lanes > room {
        lanes /= 2;
    }
    lanes.trailing_zeros()
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
    /// The architecture kernels are compiled for (`"sm_90"`).
    pub fn arch(&self) -> &'static str {
        self.dev.arch
    }
    /// Poison mode: every new device buffer starts as 0xFF bytes (NaN, `MAX`),
    /// and every launch is followed by a synchronisation, so unwritten outputs
    /// and faults show up where they happen. For tests.
    pub fn set_poison(&self, on: bool) {
        self.dev.set_poison(on)
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

    fn view<T: Scalar>(&self, v: &CudaVector<T>) -> Result<View<T>> {
        Ok(match &v.repr {
            DVec::Dense { vals, pres } => View {
                vals: vals.ptr(),
                pres: pres.as_ref().map_or(0, |p| p.ptr()),
                _tmp: None,
            },
            DVec::Bits(b) => View {
                vals: 0,
                pres: b.ptr(),
                _tmp: None,
            },
            DVec::Sparse { idx, vals, nnz } => {
                let (dv, dp) = self.scatter(idx, vals, *nnz, v.len)?;
                View {
                    vals: dv.ptr(),
                    pres: dp.ptr(),
                    _tmp: Some((dv, dp)),
                }
            }
        })
    }

    fn scatter<T: Scalar>(
        &self,
        idx: &DBuf<u32>,
        vals: &DBuf<T>,
        nnz: usize,
        n: usize,
    ) -> Result<(DBuf<T>, DBuf<u32>)> {
        let dv = self.fill(n, T::zero())?;
        let dp = self.dev.zeros::<u32>(bit_words(n))?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "sparse_scatter",
            None,
            nnz,
            &[
                idx.arg(),
                vals.arg(),
                Arg::U64(nnz as u64),
                dv.arg(),
                dp.arg(),
            ],
        )?;
        Ok((dv, dp))
    }

    fn fill<T: Scalar>(&self, n: usize, x: T) -> Result<DBuf<T>> {
        let b = self.dev.alloc::<T>(n)?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_fill",
            None,
            n,
            &[b.arg(), Arg::U64(n as u64), Arg::U64(bits_of(x))],
        )?;
        Ok(b)
    }

    fn ones_bits(&self, n: usize) -> Result<DBuf<u32>> {
        let z = self.dev.zeros::<u32>(bit_words(n))?;
        let out = self.dev.alloc::<u32>(bit_words(n))?;
        self.dev.run(
            ModuleId::Pack,
            "bits_not",
            None,
            bit_words(n),
            &[
                z.arg(),
                Arg::U64(n as u64),
                Arg::U64(bit_words(n) as u64),
                out.arg(),
            ],
        )?;
        Ok(out)
    }

    fn popc(&self, words: u64, nwords: usize) -> Result<u64> {
        let total = self.dev.zeros::<u64>(1)?;
        self.dev.run(
            ModuleId::Pack,
            "popc_words",
            None,
            nwords,
            &[Arg::U64(words), Arg::U64(nwords as u64), total.arg()],
        )?;
        self.dev.read_u64(&total)
    }

    fn count_ne<T: Scalar>(&self, vals: u64, pres: u64, n: usize, x: T) -> Result<u64> {
        let bad = self.dev.zeros::<u64>(1)?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "count_ne",
            None,
            n,
            &[
                Arg::U64(vals),
                Arg::U64(pres),
                Arg::U64(n as u64),
                Arg::U64(bits_of(x)),
                bad.arg(),
            ],
        )?;
        self.dev.read_u64(&bad)
    }

    fn allowed(&self, mask: Option<Mask<'_, Self>>) -> Result<Option<DBuf<u32>>> {
        mask.map(|m| {
            m.source
                .allowed_bits(self, m.structural, m.complemented)
                .map(|b| b.0)
        })
        .transpose()
    }

    /// `w<allowed> = accum(w, t)` with replace (`accum < 0`: none).
    fn write_vector<T: Scalar>(
        &self,
        w: &mut CudaVector<T>,
        t: CudaVector<T>,
        allowed: Option<&DBuf<u32>>,
        accum: i32,
        replace: bool,
    ) -> Result<()> {
        let n = w.len;
        if allowed.is_none() && accum < 0 {
            *w = t;
            return Ok(());
        }
        if let (DVec::Bits(tb), DVec::Bits(wb), Some(m), true) =
            (&t.repr, &w.repr, allowed, accum < 0)
        {
            let out = self.dev.alloc::<u32>(bit_words(n))?;
            self.dev.run(
                ModuleId::Pack,
                "bits_writeback",
                None,
                bit_words(n),
                &[
                    tb.arg(),
                    wb.arg(),
                    m.arg(),
                    Arg::I32(replace as i32),
                    Arg::U64(bit_words(n) as u64),
                    out.arg(),
                ],
            )?;
            w.repr = DVec::Bits(out);
            return Ok(());
        }
        // Accumulating into a full vector with no mask keeps it full: the
        // result needs no presence bits (downloads and views stay plain).
        let stays_full =
            allowed.is_none() && accum >= 0 && matches!(w.repr, DVec::Dense { pres: None, .. });
        if stays_full {
            // In place: `w(i) = accum(w(i), t(i))` where `t` has an entry, no
            // new buffers and no presence bits written.
            let tv = self.view(&t)?;
            let DVec::Dense { vals, .. } = &w.repr else {
                unreachable!("stays_full matched a full dense w")
            };
            self.dev.run(
                ModuleId::Vec(T::TYPE),
                "vec_writeback",
                None,
                bit_words(n) * 32,
                &[
                    Arg::U64(tv.vals),
                    Arg::U64(tv.pres),
                    vals.arg(),
                    Arg::U64(0),
                    Arg::U64(0),
                    Arg::I32(accum),
                    Arg::I32(replace as i32),
                    Arg::U64(n as u64),
                    vals.arg(),
                    Arg::U64(0),
                ],
            )?;
            drop(tv);
            return Ok(());
        }
        let tv = self.view(&t)?;
        let wv = self.view(w)?;
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_writeback",
            None,
            bit_words(n) * 32,
            &[
                Arg::U64(tv.vals),
                Arg::U64(tv.pres),
                Arg::U64(wv.vals),
                Arg::U64(wv.pres),
                opt_arg(allowed),
                Arg::I32(accum),
                Arg::I32(replace as i32),
                Arg::U64(n as u64),
                vals.arg(),
                pres.arg(),
            ],
        )?;
        drop((tv, wv));
        w.repr = DVec::Dense {
            vals,
            pres: Some(pres),
        };
        Ok(())
    }

    fn dense_vec<T: Scalar>(&self, n: usize, vals: DBuf<T>, pres: DBuf<u32>) -> CudaVector<T> {
        CudaVector {
            len: n,
            repr: DVec::Dense {
                vals,
                pres: Some(pres),
            },
        }
    }

    /// `out = A ⊕.⊗ u` on CSR into zeroed presence: a group of lanes per row
    /// (as many as the average row length, 2 to 32), and rows longer than
    /// `long_min` entries cut into chunks of that many entries for whole
    /// warps, whose partials `csr_mxv_fix` folds in order (hub rows of
    /// power-law graphs no longer serialise on one warp). With `iso` (every
    /// entry holds that value) the values are not read. With `accum >= 0`
    /// the output is a full vector and each row with an entry in the product
    /// is folded into it in place (`out_pres` is then unused).
    #[allow(clippy::too_many_arguments)]
    fn csr_mxv<T: Scalar>(
        &self,
        id: ModuleId,
        (rowptr, colidx, vals, nnz, iso): (&DBuf<u32>, &DBuf<u32>, &DBuf<T>, usize, Option<T>),
        nrows: usize,
        (u_vals, u_pres): (u64, u64),
        allowed: Option<&DBuf<u32>>,
        (out_vals, out_pres): (&DBuf<T>, u64),
        accum: i32,
    ) -> Result<()> {
        let (avals, isobits) = match iso {
            Some(x) => (0, device::bits_of(x)),
            None => (vals.ptr(), 0),
        };
        // LOR and ANY stop a row at its first hit: the row kernel keeps them.
        if !matches!(
            id,
            ModuleId::Sr(SemiringKind::LorLand | SemiringKind::AnyPair, _)
        ) {
            return self.csr_mxv_merge(
                id,
                (rowptr, colidx, nnz),
                (avals, isobits),
                nrows,
                (u_vals, u_pres),
                allowed,
                (out_vals, out_pres),
                accum,
                None,
            );
        }
        let avg = nnz / nrows.max(1);
        let vlog = (usize::BITS - 1 - avg.max(1).leading_zeros()).clamp(1, 5);
        let long_min = (32u32 << vlog).max(256);
        self.dev.run(
            id,
            "csr_mxv",
            None,
            nrows.div_ceil(32 >> vlog) * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(avals),
                Arg::U64(isobits),
                Arg::U64(nrows as u64),
                Arg::U64(u_vals),
                Arg::U64(u_pres),
                opt_arg(allowed),
                out_vals.arg(),
                Arg::U64(out_pres),
                Arg::U32(vlog),
                Arg::U32(long_min),
                Arg::I32(accum),
            ],
        )?;
        // no row can be long when the whole matrix is not
        if nnz <= long_min as usize {
            return Ok(());
        }
        let nchunks = nnz.div_ceil(long_min as usize);
        let part_vals = self.dev.alloc::<T>(2 * nchunks)?;
        let part_has = self.dev.alloc::<u8>(2 * nchunks)?;
        self.dev.run(
            id,
            "csr_mxv_long",
            None,
            nchunks * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(avals),
                Arg::U64(isobits),
                Arg::U64(nrows as u64),
                Arg::U32(nnz as u32),
                Arg::U64(u_vals),
                Arg::U64(u_pres),
                opt_arg(allowed),
                Arg::U32(long_min),
                part_vals.arg(),
                part_has.arg(),
            ],
        )?;
        self.dev.run(
            id,
            "csr_mxv_fix",
            None,
            nrows,
            &[
                rowptr.arg(),
                Arg::U64(nrows as u64),
                Arg::U32(long_min),
                part_vals.arg(),
                part_has.arg(),
                out_vals.arg(),
                Arg::U64(out_pres),
                Arg::I32(accum),
            ],
        )
    }

    /// [`Self::csr_mxv`] by the merge path (`cuda/sr.cu`): the row ends and
    /// the entries merged and cut into equal chunks of `CSR_MERGE_ITEMS`
    /// items, a warp per chunk, so every lane does the same work whatever
    /// the row lengths (power-law rows, empty rows). Rows crossing chunks are
    /// folded in a fixed order by `csr_merge_fix` (a lane per chunk):
    /// deterministic.
    /// `affine = Some((d, c))` as in [`Self::b2sr_mxv_fused`]: the gather
    /// reads `d_j ⊗ u_j`, every row becomes `c ⊕ value` (the output full,
    /// not read).
    #[allow(clippy::too_many_arguments)]
    fn csr_mxv_merge<T: Scalar>(
        &self,
        id: ModuleId,
        (rowptr, colidx, nnz): (&DBuf<u32>, &DBuf<u32>, usize),
        (avals, isobits): (u64, u64),
        nrows: usize,
        (u_vals, u_pres): (u64, u64),
        allowed: Option<&DBuf<u32>>,
        (out_vals, out_pres): (&DBuf<T>, u64),
        accum: i32,
        affine: Option<(u64, u64)>,
    ) -> Result<()> {
        let (d_vals, cbits) = affine.unwrap_or((0, 0));
        let affine = affine.is_some() as i32;
        let nchunks = (nrows + nnz).div_ceil(CSR_MERGE_ITEMS);
        if nchunks == 0 {
            return Ok(());
        }
        let start_row = self.dev.alloc::<u32>(nchunks + 1)?;
        self.dev.run(
            id,
            "csr_merge_start",
            None,
            nchunks + 1,
            &[
                rowptr.arg(),
                Arg::U64(nrows as u64),
                Arg::U64(nnz as u64),
                Arg::U64(nchunks as u64),
                start_row.arg(),
            ],
        )?;
        let part_vals = self.dev.alloc::<T>(2 * nchunks)?;
        let part_has = self.dev.alloc::<u8>(2 * nchunks)?;
        self.dev.run(
            id,
            "csr_mxv_merge",
            None,
            nchunks * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(avals),
                Arg::U64(isobits),
                Arg::U64(nrows as u64),
                Arg::U64(nnz as u64),
                Arg::U64(u_vals),
                Arg::U64(u_pres),
                opt_arg(allowed),
                out_vals.arg(),
                Arg::U64(out_pres),
                Arg::I32(accum),
                start_row.arg(),
                Arg::U64(nchunks as u64),
                part_vals.arg(),
                part_has.arg(),
                Arg::U64(d_vals),
                Arg::I32(affine),
                Arg::U64(cbits),
            ],
        )?;
        self.dev.run(
            id,
            "csr_merge_fix",
            None,
            nchunks.next_multiple_of(32),
            &[
                rowptr.arg(),
                Arg::U64(nrows as u64),
                start_row.arg(),
                Arg::U64(nchunks as u64),
                part_vals.arg(),
                part_has.arg(),
                opt_arg(allowed),
                out_vals.arg(),
                Arg::U64(out_pres),
                Arg::I32(accum),
                Arg::I32(affine),
                Arg::U64(cbits),
            ],
        )
    }

    /// The one-launch `mxv` on B2SR with tiles of at most 8x8
    /// (`b2sr_mxv_fused` in `cuda/sr.cu`): segments of long tile rows, then
    /// short tile rows. `accum >= 0`: folded into the full output in place.
    /// `affine = Some((d, c))` (device address of the full vector `d`, bits
    /// of `c`): the affine product `out = c ⊕ A ⊕.⊗ (d ⊗ u)`, every row
    /// written, the full output not read.
    #[allow(clippy::too_many_arguments)]
    fn b2sr_mxv_fused(
        &self,
        id: ModuleId,
        pat: &DevB2sr,
        vbits: u64,
        (u_vals, u_pres): (u64, u64),
        allowed: Option<&DBuf<u32>>,
        (out_vals, out_pres): (u64, u64),
        accum: i32,
        affine: Option<(u64, u64)>,
    ) -> Result<()> {
        let k = pat.k;
        let (d_vals, cbits) = affine.unwrap_or((0, 0));
        let scratch = if pat.nsplit > 0 {
            Some(pat.mxv_scratch(&self.dev)?)
        } else {
            None
        };
        // resident lanes of this kernel (its registers set how many)
        let per_sm = self
            .dev
            .func(id, "b2sr_mxv_fused", Some(k))?
            .occupancy_max_active_blocks_per_multiprocessor(256, 0, None)
            .map_or(8, |b| b.max(1) as usize);
        let llog = short_lanes_log(pat, 256 * per_sm * self.dev.sm_count as usize);
        let nshort = pat.tile_rows.div_ceil(32 >> llog);
        self.dev.run(
            id,
            "b2sr_mxv_fused",
            Some(k),
            (pat.nseg + nshort).max(1) * 32,
            &[
                pat.rowptr.arg(),
                pat.colidx.arg(),
                pat.tiles.arg(),
                pat.seg_row.arg(),
                pat.seg_off.arg(),
                Arg::U32(pat.nseg as u32),
                Arg::U32(mem::seg_len(k)),
                Arg::U32(pat.tile_rows as u32),
                Arg::U32(mem::SHORT_MAX),
                Arg::U32(llog),
                Arg::U64(pat.nrows as u64),
                Arg::U64(pat.ncols as u64),
                Arg::U64(vbits),
                Arg::U64(u_vals),
                Arg::U64(u_pres),
                opt_arg(allowed),
                Arg::U64(out_vals),
                Arg::U64(out_pres),
                opt_arg(scratch.map(|s| &s.part_vals)),
                opt_arg(scratch.map(|s| &s.part_has)),
                opt_arg(scratch.map(|s| &s.counter)),
                Arg::I32(accum),
                Arg::U64(d_vals),
                Arg::I32(affine.is_some() as i32),
                Arg::U64(cbits),
            ],
        )
    }

    /// `t = A ⊕.⊗ u` (or `A' ⊕.⊗ u`) on B2SR. With `into`, a vector of the
    /// result's length and representation (dense with presence, or bits for
    /// LOR.LAND on bits), the product is written into its buffers and `None`
    /// comes back: one product is then one kernel launch when no tile row is
    /// long (the short-row kernel writes every value and presence word).
    /// With `accum >= 0` and `into` a full vector (no presence), tiles of at
    /// most 8x8 and no transpose, the product is folded into it in place
    /// (`w = accum(w, t)` where `t` has a value, one launch, no temporary);
    /// otherwise `accum` is ignored and the caller accumulates.
    #[allow(clippy::too_many_arguments)]
    fn b2sr_mxv<S: Semiring>(
        &self,
        s: S,
        id: ModuleId,
        pat: &DevB2sr,
        value: S::T,
        u: &CudaVector<S::T>,
        allowed: Option<&DBuf<u32>>,
        transpose: bool,
        into: Option<&CudaVector<S::T>>,
        accum: i32,
    ) -> Result<Option<CudaVector<S::T>>> {
        let n_out = if transpose { pat.ncols } else { pat.nrows };
        let k = pat.k;
        let uv = self.view(u)?;
        let lor_bits = matches!(id, ModuleId::Sr(SemiringKind::LorLand, _))
            && matches!(u.repr, DVec::Bits(_))
            && value.is_nonzero();
        // (values, presence) addresses of a reusable output
        let reuse = match into.map(|w| (w.len == n_out, &w.repr)) {
            Some((true, DVec::Bits(b))) if lor_bits && !transpose => Some((0, b.ptr())),
            Some((
                true,
                DVec::Dense {
                    vals,
                    pres: Some(p),
                },
            )) if !lor_bits && !transpose && accum < 0 => Some((vals.ptr(), p.ptr())),
            Some((true, DVec::Dense { vals, pres: None }))
                if !lor_bits && !transpose && accum >= 0 && k <= 8 =>
            {
                Some((vals.ptr(), 0))
            }
            _ => None,
        };
        // folded in place only into a full output reused as it is
        let accum = if reuse.is_some() { accum } else { -1 };
        let (fresh, out_vals, out_pres) = match reuse {
            Some((v, p)) => (None, v, p),
            None => {
                let vals = if lor_bits {
                    None
                } else if transpose {
                    Some(self.fill(n_out, s.zero())?)
                } else {
                    Some(self.dev.alloc::<S::T>(n_out)?)
                };
                // Transposed products scatter with atomics into zeroed
                // presence; the short-row kernel writes every word itself.
                let pres = if transpose {
                    self.dev.zeros::<u32>(bit_words(n_out))?
                } else {
                    self.dev.alloc::<u32>(bit_words(n_out))?
                };
                let (v, p) = (vals.as_ref().map_or(0, |v| v.ptr()), pres.ptr());
                (Some((vals, pres)), v, p)
            }
        };
        let common = [
            pat.rowptr.arg(),
            pat.colidx.arg(),
            pat.tiles.arg(),
            pat.seg_row.arg(),
            pat.seg_off.arg(),
            Arg::U32(pat.nseg as u32),
            Arg::U32(mem::seg_len(k)),
            Arg::U64(pat.nrows as u64),
            Arg::U64(bits_of(value)),
            Arg::U64(uv.vals),
            Arg::U64(uv.pres),
            opt_arg(allowed),
            Arg::U64(out_vals),
            Arg::U64(out_pres),
        ];
        if transpose {
            // short tile rows, then the segments of long ones (atomics: any order)
            for (mode, count) in [(0, pat.tile_rows), (1, pat.nseg)] {
                if count == 0 {
                    continue;
                }
                let mut args = common.to_vec();
                args.push(Arg::I32(mode));
                args.push(Arg::U32(pat.tile_rows as u32));
                args.push(Arg::U32(mem::SHORT_MAX));
                self.dev.run(id, "b2sr_vxm", Some(k), count * 32, &args)?;
            }
        } else if k <= 8 {
            self.b2sr_mxv_fused(
                id,
                pat,
                bits_of(value),
                (uv.vals, uv.pres),
                allowed,
                (out_vals, out_pres),
                accum,
                None,
            )?;
        } else {
            // k lanes per tile row
            let lanes = pat.tile_rows.div_ceil(32 / k) * 32;
            self.dev.run(
                id,
                "b2sr_mxv_short",
                Some(k),
                lanes.max(32),
                &[
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    pat.tiles.arg(),
                    Arg::U32(pat.tile_rows as u32),
                    Arg::U32(mem::SHORT_MAX),
                    Arg::U64(pat.nrows as u64),
                    Arg::U64(pat.ncols as u64),
                    Arg::U64(bits_of(value)),
                    Arg::U64(uv.vals),
                    Arg::U64(uv.pres),
                    opt_arg(allowed),
                    Arg::U64(out_vals),
                    Arg::U64(out_pres),
                ],
            )?;
            if pat.nseg > 0 {
                let part = if pat.nsplit > 0 {
                    Some((
                        self.dev.alloc::<S::T>(pat.nseg * k)?,
                        self.dev.alloc::<u8>(pat.nseg * k)?,
                    ))
                } else {
                    None
                };
                let mut args = common.to_vec();
                args.push(opt_arg(part.as_ref().map(|p| &p.0)));
                args.push(opt_arg(part.as_ref().map(|p| &p.1)));
                self.dev
                    .run(id, "b2sr_mxv", Some(k), pat.nseg * 32, &args)?;
                if let Some((pv, ph)) = &part {
                    self.dev.run(
                        id,
                        "b2sr_mxv_fix",
                        Some(k),
                        pat.nsplit * k,
                        &[
                            pat.split_rows.arg(),
                            Arg::U32(pat.nsplit as u32),
                            pat.seg_off.arg(),
                            Arg::U64(pat.nrows as u64),
                            pv.arg(),
                            ph.arg(),
                            Arg::U64(out_vals),
                            Arg::U64(out_pres),
                        ],
                    )?;
                }
            }
        }
        drop(uv);
        Ok(fresh.map(|(vals, pres)| match vals {
            None => CudaVector {
                len: n_out,
                repr: DVec::Bits(pres),
            },
            Some(v) => self.dense_vec(n_out, v, pres),
        }))
    }

    /// Packs a device CSR into B2SR with `k x k` tiles, on the device. Tile
    /// rows whose longest row has more than [`mem::PACK_CHUNK`] entries are
    /// cut into chunks of tile columns, each packed by its own lane group.
    fn pack(
        &self,
        rowptr: &DBuf<u32>,
        colidx: &DBuf<u32>,
        nrows: usize,
        ncols: usize,
        k: usize,
    ) -> Result<DevB2sr> {
        let tile_rows = nrows.div_ceil(k);
        // chunks per tile row, scanned: chunk_off
        let chunk_off = self.dev.alloc::<u32>(tile_rows + 1)?;
        let chunks = |mode: i32, row: Arg, lo: Arg, tiles: Arg, out: Arg| {
            self.dev.run(
                ModuleId::Pack,
                "pack_chunks",
                None,
                tile_rows + 1,
                &[
                    rowptr.arg(),
                    colidx.arg(),
                    Arg::U64(nrows as u64),
                    Arg::U32(tile_rows as u32),
                    Arg::U32(k as u32),
                    Arg::U32(mem::PACK_CHUNK),
                    Arg::I32(mode),
                    chunk_off.arg(),
                    row,
                    lo,
                    tiles,
                    out,
                ],
            )
        };
        let null = Arg::U64(0);
        chunks(0, null, null, null, null)?;
        self.dev.scan(&chunk_off, tile_rows + 1)?;
        let nchunks = self.dev.read_u32(&chunk_off, tile_rows)? as usize;
        // units: tile rows, or chunks where some tile row is cut
        let cut = if nchunks > tile_rows {
            let row = self.dev.alloc::<u32>(nchunks)?;
            let lo = self.dev.alloc::<u32>(nchunks)?;
            chunks(1, row.arg(), lo.arg(), null, null)?;
            Some((row, lo))
        } else {
            None
        };
        let nunits = if cut.is_some() { nchunks } else { tile_rows };
        let (crow, clo) = (
            opt_arg(cut.as_ref().map(|c| &c.0)),
            opt_arg(cut.as_ref().map(|c| &c.1)),
        );
        let counts = self.dev.alloc::<u32>(nunits + 1)?;
        self.dev.memset(&counts, 0)?;
        let groups = nunits.div_ceil(32 / k);
        self.dev.run(
            ModuleId::Pack,
            "csr_to_b2sr_count",
            Some(k),
            groups * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(nrows as u64),
                Arg::U32(nunits as u32),
                crow,
                clo,
                counts.arg(),
            ],
        )?;
        self.dev.scan(&counts, nunits + 1)?;
        let ntiles = self.dev.read_u32(&counts, nunits)? as usize;
        let out_col = self.dev.alloc::<u32>(ntiles)?;
        // every byte of every tile is written by the fill; the padding of
        // the last u32 word (k = 4, odd tile counts) must read as zero
        let out_tiles = self.dev.alloc::<u8>(ntiles * k * k / 8)?;
        if !(ntiles * k * k / 8).is_multiple_of(4) {
            self.dev.memset(&out_tiles, 0)?;
        }
        self.dev.run(
            ModuleId::Pack,
            "csr_to_b2sr_fill",
            Some(k),
            groups * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(nrows as u64),
                Arg::U32(nunits as u32),
                crow,
                clo,
                counts.arg(),
                out_col.arg(),
                out_tiles.arg(),
            ],
        )?;
        let tile_rowptr = if cut.is_some() {
            let t = self.dev.alloc::<u32>(tile_rows + 1)?;
            chunks(2, null, null, counts.arg(), t.arg())?;
            t
        } else {
            counts
        };
        drop(cut);
        DevB2sr::new(
            &self.dev,
            k,
            nrows,
            ncols,
            ntiles,
            tile_rowptr,
            out_col,
            out_tiles,
        )
    }

    /// Row lengths of a B2SR pattern (`nrows + 1` entries, the last 0).
    fn b2sr_row_lens(&self, pat: &DevB2sr) -> Result<DBuf<u32>> {
        let lens = self.dev.zeros::<u32>(pat.nrows + 1)?;
        self.dev.run(
            ModuleId::Pack,
            "b2sr_to_csr_count",
            Some(pat.k),
            pat.nrows,
            &[
                pat.rowptr.arg(),
                pat.colidx.arg(),
                pat.tiles.arg(),
                Arg::U64(pat.nrows as u64),
                lens.arg(),
            ],
        )?;
        Ok(lens)
    }

    /// Unpacks B2SR into device CSR `(row_ptr, col_idx, nnz)`.
    fn unpack(&self, pat: &DevB2sr) -> Result<(DBuf<u32>, DBuf<u32>, usize)> {
        let rowptr = self.b2sr_row_lens(pat)?;
        self.dev.scan(&rowptr, pat.nrows + 1)?;
        let nnz = self.dev.read_u32(&rowptr, pat.nrows)? as usize;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        self.dev.run(
            ModuleId::Pack,
            "b2sr_to_csr_fill",
            Some(pat.k),
            pat.nrows,
            &[
                pat.rowptr.arg(),
                pat.colidx.arg(),
                pat.tiles.arg(),
                Arg::U64(pat.nrows as u64),
                rowptr.arg(),
                colidx.arg(),
            ],
        )?;
        Ok((rowptr, colidx, nnz))
    }

    fn copy_b2sr(&self, p: &DevB2sr) -> Result<DevB2sr> {
        DevB2sr::new(
            &self.dev,
            p.k,
            p.nrows,
            p.ncols,
            p.ntiles,
            self.dev.copy(&p.rowptr)?,
            self.dev.copy(&p.colidx)?,
            self.dev.copy(&p.tiles)?,
        )
    }

    fn copy_vector<T: Scalar>(&self, v: &CudaVector<T>) -> Result<CudaVector<T>> {
        let repr = match &v.repr {
            DVec::Dense { vals, pres } => DVec::Dense {
                vals: self.dev.copy(vals)?,
                pres: pres.as_ref().map(|p| self.dev.copy(p)).transpose()?,
            },
            DVec::Bits(b) => DVec::Bits(self.dev.copy(b)?),
            DVec::Sparse { idx, vals, nnz } => DVec::Sparse {
                idx: self.dev.copy(idx)?,
                vals: self.dev.copy(vals)?,
                nnz: *nnz,
            },
        };
        Ok(CudaVector { len: v.len, repr })
    }

    /// Owned dense values and a real presence bit vector.
    fn owned_dense<T: Scalar>(&self, v: &CudaVector<T>) -> Result<(DBuf<T>, DBuf<u32>)> {
        let n = v.len;
        Ok(match &v.repr {
            DVec::Dense { vals, pres } => (
                self.dev.copy(vals)?,
                match pres {
                    Some(p) => self.dev.copy(p)?,
                    None => self.ones_bits(n)?,
                },
            ),
            DVec::Bits(b) => {
                let vals = self.dev.alloc::<T>(n)?;
                self.dev.run(
                    ModuleId::Vec(T::TYPE),
                    "bits_to_vals",
                    None,
                    n,
                    &[b.arg(), Arg::U64(n as u64), vals.arg()],
                )?;
                (vals, self.dev.copy(b)?)
            }
            DVec::Sparse { idx, vals, nnz } => self.scatter(idx, vals, *nnz, n)?,
        })
    }

    fn reduce_raw<T: Scalar>(&self, op: i32, vals: u64, pres: u64, n: usize) -> Result<T> {
        let id = ModuleId::Vec(T::TYPE);
        if n == 0 {
            // identity, computed on the device like every other reduction
            let one = self.dev.alloc::<T>(1)?;
            let f = self.dev.func(id, "vec_reduce", None)?;
            self.dev.launch(
                &f,
                1,
                256,
                &[
                    Arg::I32(op),
                    Arg::U64(0),
                    Arg::U64(0),
                    Arg::U64(0),
                    one.arg(),
                ],
            )?;
            let b = self.dev.download_bytes(&one, 1)?;
            return Ok(device::from_bytes::<T>(&b, 1)[0]);
        }
        let blocks = n.div_ceil(4096).clamp(1, 1024);
        let partials = self.dev.alloc::<T>(blocks)?;
        let f = self.dev.func(id, "vec_reduce", None)?;
        self.dev.launch(
            &f,
            blocks as u32,
            256,
            &[
                Arg::I32(op),
                Arg::U64(vals),
                Arg::U64(pres),
                Arg::U64(n as u64),
                partials.arg(),
            ],
        )?;
        let out = self.dev.alloc::<T>(1)?;
        self.dev.launch(
            &f,
            1,
            256,
            &[
                Arg::I32(op),
                partials.arg(),
                Arg::U64(0),
                Arg::U64(blocks as u64),
                out.arg(),
            ],
        )?;
        let b = self.dev.download_bytes(&out, 1)?;
        Ok(device::from_bytes::<T>(&b, 1)[0])
    }

    fn upload_indices(&self, indices: &[usize], bound: usize) -> Result<DBuf<u32>> {
        let idx: Vec<u32> = indices
            .iter()
            .map(|&i| {
                if i < bound {
                    Ok(i as u32)
                } else {
                    Err(Error::IndexOutOfBounds {
                        op: "cuda indices",
                        index: i,
                        len: bound,
                    })
                }
            })
            .collect::<Result<_>>()?;
        self.dev.upload(&idx)
    }

    /// `z(indices) = accum(z(indices), u or scalar)`, then `w<mask> = z`.
    #[allow(clippy::too_many_arguments)]
    fn assign_common<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        u: Option<&CudaVector<T>>,
        scalar: T,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("assign")?;
        let mut seen = vec![false; w.len];
        for &i in indices {
            if i < w.len && std::mem::replace(&mut seen[i], true) {
                return Err(no_kernel("assign", "repeated indices"));
            }
        }
        let allowed = self.allowed(mask)?;
        let (zv, zp) = self.owned_dense(w)?;
        let idx = self.upload_indices(indices, w.len)?;
        let uv = u.map(|u| self.view(u)).transpose()?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_scatter",
            None,
            indices.len(),
            &[
                Arg::U64(uv.as_ref().map_or(0, |v| v.vals)),
                Arg::U64(uv.as_ref().map_or(0, |v| v.pres)),
                Arg::U64(bits_of(scalar)),
                Arg::I32(u.is_none() as i32),
                idx.arg(),
                Arg::U64(indices.len() as u64),
                Arg::I32(acc),
                zv.arg(),
                zp.arg(),
            ],
        )?;
        drop(uv);
        let z = self.dense_vec(w.len, zv, zp);
        self.write_vector(w, z, allowed.as_ref(), -1, flags.replace)
    }
}

impl Backend for CudaBackend {
    type Matrix<T: Scalar> = CudaMatrix<T>;
    type Vector<T: Scalar> = CudaVector<T>;
    type Dense<T: Scalar> = CudaDense<T>;
    type MaskSource = dyn DeviceMask;
    type MatrixMaskSource = dyn DeviceMatrixMask;

    fn name(&self) -> &'static str {
        "cuda"
    }

    /// Valued products on tiles of at most 8x8: one launch does the whole
    /// product (the fused k <= 8 kernel), and `bin_full_full` at k = 8 runs
    /// twice as fast as at k = 32 on the grids (`benches/results/gpu-kernels.md`).
    fn auto_format(&self, profiled: Format, content: Content) -> Format {
        match (content, profiled) {
            (Content::Values, Format::B2sr(TileSize::T16 | TileSize::T32 | TileSize::T64)) => {
                Format::B2sr(TileSize::T8)
            }
            _ => profiled,
        }
    }

    fn mask<T: Scalar>(v: &CudaVector<T>) -> Mask<'_, Self> {
        Mask::new(v as &dyn DeviceMask)
    }
    fn matrix_mask<T: Scalar>(m: &CudaMatrix<T>) -> MatrixMask<'_, Self> {
        MatrixMask::new(m as &dyn DeviceMatrixMask)
    }

    fn upload_matrix<T: Scalar>(&self, m: &Matrix<T>) -> Result<CudaMatrix<T>> {
        CudaMatrix::upload(&self.dev, m)
    }
    fn download_matrix<T: Scalar>(&self, m: &CudaMatrix<T>) -> Result<Matrix<T>> {
        m.download(&self.dev)
    }
    fn upload_vector<T: Scalar>(&self, v: &Vector<T>) -> Result<CudaVector<T>> {
        CudaVector::upload(&self.dev, v)
    }
    fn download_vector<T: Scalar>(&self, v: &CudaVector<T>) -> Result<Vector<T>> {
        v.download(&self.dev)
    }
    fn upload_dense<T: Scalar>(&self, m: &DenseMatrix<T>) -> Result<CudaDense<T>> {
        CudaDense::upload(&self.dev, m)
    }
    fn download_dense<T: Scalar>(&self, m: &CudaDense<T>) -> Result<DenseMatrix<T>> {
        m.download(&self.dev)
    }

    fn vector_new<T: Scalar>(
        &self,
        len: usize,
        fill: Option<T>,
        format: VectorFormat,
    ) -> Result<CudaVector<T>> {
        let repr = match (format, fill) {
            (VectorFormat::Dense, Some(x)) => DVec::Dense {
                vals: self.fill(len, x)?,
                pres: None,
            },
            (VectorFormat::Dense, None) => DVec::Dense {
                vals: self.fill(len, T::zero())?,
                pres: Some(self.dev.zeros(bit_words(len))?),
            },
            (VectorFormat::Bits, None) => DVec::Bits(self.dev.zeros(bit_words(len))?),
            (VectorFormat::Bits, Some(x)) if x == T::one() => DVec::Bits(self.ones_bits(len)?),
            (VectorFormat::Bits, Some(_)) => {
                return Err(Error::invalid(
                    "vector_new",
                    "packed bits hold only entries equal to one",
                ))
            }
            (VectorFormat::Sparse, None) => DVec::Sparse {
                idx: self.dev.alloc(0)?,
                vals: self.dev.alloc(0)?,
                nnz: 0,
            },
            (VectorFormat::Sparse, Some(x)) => {
                let d = self.vector_new(len, Some(x), VectorFormat::Dense)?;
                return self.convert_vector(&d, VectorFormat::Sparse);
            }
        };
        Ok(CudaVector { len, repr })
    }

    fn dense_new<T: Scalar>(&self, nrows: usize, ncols: usize, value: T) -> Result<CudaDense<T>> {
        Ok(CudaDense {
            nrows,
            ncols,
            data: self.fill(nrows * ncols, value)?,
        })
    }

    fn convert<T: Scalar>(&self, m: &CudaMatrix<T>, format: Format) -> Result<CudaMatrix<T>> {
        let k = match format {
            Format::Csr => None,
            Format::B2sr(t) if t != TileSize::T64 && t != TileSize::Auto => t.k(),
            _ => return Err(no_kernel("convert", format!("{format:?} on the device"))),
        };
        let repr = match (&m.repr, k) {
            (
                DMat::Csr {
                    rowptr,
                    colidx,
                    vals,
                    nnz,
                    iso,
                },
                None,
            ) => DMat::Csr {
                rowptr: self.dev.copy(rowptr)?,
                colidx: self.dev.copy(colidx)?,
                vals: self.dev.copy(vals)?,
                nnz: *nnz,
                iso: *iso,
            },
            (DMat::B2sr { pat, value }, Some(k)) if pat.k == k => DMat::B2sr {
                pat: self.copy_b2sr(pat)?,
                value: *value,
            },
            (DMat::B2sr { pat, value }, k) => {
                let (rowptr, colidx, nnz) = self.unpack(pat)?;
                match k {
                    None => DMat::Csr {
                        rowptr,
                        colidx,
                        vals: self.fill(nnz, *value)?,
                        nnz,
                        iso: (nnz > 0 && value.is_nonzero()).then_some(*value),
                    },
                    Some(k) => DMat::B2sr {
                        pat: self.pack(&rowptr, &colidx, m.nrows, m.ncols, k)?,
                        value: *value,
                    },
                }
            }
            (
                DMat::Csr {
                    rowptr,
                    colidx,
                    vals,
                    nnz,
                    ..
                },
                Some(k),
            ) => {
                let value = if *nnz == 0 {
                    T::one()
                } else {
                    let b = self.dev.download_bytes(vals, 1)?;
                    device::from_bytes::<T>(&b, 1)[0]
                };
                if *nnz > 0 && self.count_ne(vals.ptr(), 0, *nnz, value)? > 0 {
                    return Err(Error::invalid(
                        "convert",
                        "B2SR stores one value for all entries but they differ",
                    ));
                }
                DMat::B2sr {
                    pat: self.pack(rowptr, colidx, m.nrows, m.ncols, k)?,
                    value,
                }
            }
        };
        Ok(CudaMatrix {
            nrows: m.nrows,
            ncols: m.ncols,
            repr,
        })
    }

    fn convert_vector<T: Scalar>(
        &self,
        v: &CudaVector<T>,
        format: VectorFormat,
    ) -> Result<CudaVector<T>> {
        let n = v.len;
        if format == v.format() {
            return self.copy_vector(v);
        }
        let repr = match format {
            VectorFormat::Dense => {
                let (vals, pres) = self.owned_dense(v)?;
                DVec::Dense {
                    vals,
                    pres: Some(pres),
                }
            }
            VectorFormat::Bits => {
                let view = self.view(v)?;
                let (cnt_vals, cnt_pres, cnt_n) = match &v.repr {
                    DVec::Sparse { vals, nnz, .. } => (vals.ptr(), 0, *nnz),
                    _ => (view.vals, view.pres, n),
                };
                if self.count_ne(cnt_vals, cnt_pres, cnt_n, T::one())? > 0 {
                    return Err(Error::invalid(
                        "convert_vector",
                        "packed bits hold only entries equal to one",
                    ));
                }
                let bits = if view.pres == 0 {
                    self.ones_bits(n)?
                } else {
                    let out = self.dev.alloc::<u32>(bit_words(n))?;
                    let id = ModuleId::Vec(T::TYPE);
                    self.dev.run(
                        id,
                        "vec_mask",
                        None,
                        bit_words(n) * 32,
                        &[
                            Arg::U64(0),
                            Arg::U64(view.pres),
                            Arg::U64(n as u64),
                            Arg::I32(1),
                            Arg::I32(0),
                            out.arg(),
                        ],
                    )?;
                    out
                };
                DVec::Bits(bits)
            }
            VectorFormat::Sparse => {
                let view = self.view(v)?;
                let flags = self.dev.alloc::<u32>(n + 1)?;
                self.dev.run(
                    ModuleId::Pack,
                    "pres_flags",
                    None,
                    n + 1,
                    &[Arg::U64(view.pres), Arg::U64(n as u64), flags.arg()],
                )?;
                self.dev.scan(&flags, n + 1)?;
                let nnz = self.dev.read_u32(&flags, n)? as usize;
                let idx = self.dev.alloc::<u32>(nnz)?;
                let vals = self.dev.alloc::<T>(nnz)?;
                self.dev.run(
                    ModuleId::Vec(T::TYPE),
                    "vec_compact",
                    None,
                    n,
                    &[
                        Arg::U64(view.vals),
                        Arg::U64(view.pres),
                        flags.arg(),
                        Arg::U64(n as u64),
                        idx.arg(),
                        vals.arg(),
                    ],
                )?;
                DVec::Sparse { idx, vals, nnz }
            }
        };
        Ok(CudaVector { len: n, repr })
    }

    fn vector_nvals<T: Scalar>(&self, v: &CudaVector<T>) -> Result<usize> {
        Ok(match &v.repr {
            DVec::Dense { pres: None, .. } => v.len,
            DVec::Dense { pres: Some(p), .. } => self.popc(p.ptr(), bit_words(v.len))? as usize,
            DVec::Bits(b) => self.popc(b.ptr(), bit_words(v.len))? as usize,
            DVec::Sparse { nnz, .. } => *nnz,
        })
    }

    fn matrix_nvals<T: Scalar>(&self, m: &CudaMatrix<T>) -> Result<usize> {
        Ok(match &m.repr {
            DMat::Csr { nnz, .. } => *nnz,
            DMat::B2sr { pat, .. } => self.popc(
                pat.tiles.ptr(),
                (pat.ntiles * pat.k * pat.k / 8).div_ceil(4),
            )? as usize,
        })
    }

    fn mxv<S: Semiring, A: Accumulate<S::T>>(
        &self,
        w: &mut CudaVector<S::T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        semiring: S,
        a: &CudaMatrix<S::T>,
        u: &CudaVector<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let id = kernel_of::<S>("mxv")?;
        let acc = accum_code::<S::T, A>("mxv")?;
        if flags.transpose_a {
            // A' u (vxm): pushed from u's entries, no transpose (push.rs).
            return self.mxv_push::<S, A>(w, mask, semiring, a, u, flags);
        }
        let allowed = self.allowed(mask)?;
        let t = match &a.repr {
            DMat::B2sr { pat, value } => {
                // w = A u with no mask or accumulator: write into w's buffers;
                // w ⊕= A u into a full w with no mask: folded in place (k <= 8)
                let plain = allowed.is_none() && acc < 0;
                let in_place = allowed.is_none()
                    && acc >= 0
                    && matches!(w.repr, DVec::Dense { pres: None, .. });
                match self.b2sr_mxv(
                    semiring,
                    id,
                    pat,
                    *value,
                    u,
                    allowed.as_ref(),
                    flags.transpose_a,
                    (plain || in_place).then_some(&*w),
                    acc,
                )? {
                    Some(t) => t,
                    None => return Ok(()),
                }
            }
            DMat::Csr {
                rowptr,
                colidx,
                vals,
                nnz,
                iso,
            } => {
                // (not transposed: that case returned above)
                let uv = self.view(u)?;
                let csr = (rowptr, colidx, vals, *nnz, *iso);
                // `w += A u` into a full `w` with no mask: folded in place by
                // the product itself (no temporary, no second pass).
                if let (
                    None,
                    true,
                    DVec::Dense {
                        vals: w_vals,
                        pres: None,
                    },
                ) = (&allowed, acc >= 0, &w.repr)
                {
                    let (uv_vals, uv_pres) = (uv.vals, uv.pres);
                    return self.csr_mxv(
                        id,
                        csr,
                        a.nrows,
                        (uv_vals, uv_pres),
                        None,
                        (w_vals, 0),
                        acc,
                    );
                }
                let out_vals = self.dev.alloc::<S::T>(a.nrows)?;
                let out_pres = self.dev.zeros::<u32>(bit_words(a.nrows))?;
                self.csr_mxv(
                    id,
                    csr,
                    a.nrows,
                    (uv.vals, uv.pres),
                    allowed.as_ref(),
                    (&out_vals, out_pres.ptr()),
                    -1,
                )?;
                self.dense_vec(a.nrows, out_vals, out_pres)
            }
        };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn mxm<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaMatrix<S::T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<()> {
        self.mxm_b2sr(c, mask, accum, semiring, a, b, flags)
    }

    fn mxm_reduce<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        self.mxm_reduce_b2sr(mask, semiring, a, b, flags)
    }

    fn mxm_dense<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        _accum: A,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        match a.repr {
            DMat::B2sr { .. } => self.mxm_dense_b2sr::<S, A>(c, semiring, a, b, flags),
            DMat::Csr { .. } => self.mxm_dense_csr_into::<S, A>(c, semiring, a, b, flags),
        }
    }

    fn ewise_vector<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        kind: EwiseKind<T>,
        _op: Op,
        u: &CudaVector<T>,
        v: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        let code = op_code::<T, Op>("ewise")?;
        let acc = accum_code::<T, A>("ewise")?;
        let allowed = self.allowed(mask)?;
        let (k, alpha, beta) = match kind {
            EwiseKind::Add => (0, T::zero(), T::zero()),
            EwiseKind::Mult => (1, T::zero(), T::zero()),
            EwiseKind::Union { alpha, beta } => (2, alpha, beta),
        };
        if matches!(kind, EwiseKind::Mult) {
            if let Some(t) = self.ewise_mult_gather(code, u, v)? {
                return self.write_vector(w, t, allowed.as_ref(), acc, flags.replace);
            }
        }
        let n = u.len;
        // Full operands (dense, no presence bits) give a full result: the
        // union when either is full, the intersection when both are.
        let full = |x: &CudaVector<T>| matches!(x.repr, DVec::Dense { pres: None, .. });
        let full_out = match kind {
            EwiseKind::Mult => full(u) && full(v),
            _ => full(u) || full(v),
        };
        let (uv, vv) = (self.view(u)?, self.view(v)?);
        let vals = self.dev.alloc::<T>(n)?;
        let pres = if full_out {
            None
        } else {
            Some(self.dev.alloc::<u32>(bit_words(n))?)
        };
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_ewise",
            None,
            bit_words(n) * 32,
            &[
                Arg::I32(k),
                Arg::I32(code),
                Arg::U64(bits_of(alpha)),
                Arg::U64(bits_of(beta)),
                Arg::U64(uv.vals),
                Arg::U64(uv.pres),
                Arg::U64(vv.vals),
                Arg::U64(vv.pres),
                Arg::U64(n as u64),
                vals.arg(),
                opt_arg(pres.as_ref()),
            ],
        )?;
        drop((uv, vv));
        let t = CudaVector {
            len: n,
            repr: DVec::Dense { vals, pres },
        };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn ewise_matrix<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        kind: EwiseKind<T>,
        _op: Op,
        a: &CudaMatrix<T>,
        b: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.ewise_matrix_op::<T, Op, A>(c, mask, kind, a, b, flags)
    }

    fn apply_vector<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        f: F,
        u: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        let (code, s) = unary_code(&f)?;
        let acc = accum_code::<T, A>("apply")?;
        let allowed = self.allowed(mask)?;
        let run = |vals: u64, n: usize| -> Result<DBuf<T>> {
            let out = self.dev.alloc::<T>(n)?;
            self.dev.run(
                ModuleId::Vec(T::TYPE),
                "vec_apply",
                None,
                n,
                &[
                    Arg::I32(code),
                    Arg::U64(bits_of(s)),
                    Arg::U64(vals),
                    Arg::U64(n as u64),
                    out.arg(),
                ],
            )?;
            Ok(out)
        };
        let repr = match &u.repr {
            DVec::Sparse { idx, vals, nnz } => DVec::Sparse {
                idx: self.dev.copy(idx)?,
                vals: run(vals.ptr(), *nnz)?,
                nnz: *nnz,
            },
            DVec::Dense { vals, pres } => DVec::Dense {
                vals: run(vals.ptr(), u.len)?,
                pres: pres.as_ref().map(|p| self.dev.copy(p)).transpose()?,
            },
            DVec::Bits(b) => DVec::Dense {
                vals: run(0, u.len)?,
                pres: Some(self.dev.copy(b)?),
            },
        };
        let t = CudaVector { len: u.len, repr };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn apply_matrix<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        f: F,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.apply_matrix_op::<T, F, A>(c, mask, f, a, flags)
    }

    fn select_vector<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        pred: P,
        u: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        let p = pred
            .builtin()
            .ok_or_else(|| no_kernel("select", "a user predicate"))?;
        let (code, k, th) = select_code(p);
        let acc = accum_code::<T, A>("select")?;
        let allowed = self.allowed(mask)?;
        let n = u.len;
        let uv = self.view(u)?;
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_select",
            None,
            bit_words(n) * 32,
            &[
                Arg::I32(code),
                Arg::I64(k),
                Arg::U64(bits_of(th)),
                Arg::U64(uv.vals),
                Arg::U64(uv.pres),
                Arg::U64(n as u64),
                vals.arg(),
                pres.arg(),
            ],
        )?;
        drop(uv);
        let t = self.dense_vec(n, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn select_matrix<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        pred: P,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let (DMat::B2sr { pat, value }, false, None, false) =
            (&a.repr, flags.transpose_a, &mask, A::ACTIVE)
        else {
            // CSR, transposed, masked or accumulated: the CSR path.
            return self.select_matrix_op::<T, P, A>(c, mask, pred, a, flags);
        };
        let p = pred
            .builtin()
            .ok_or_else(|| no_kernel("select_matrix", "a user predicate"))?;
        let (code, kk, _) = select_code(p);
        let k = pat.k;
        let tb = k * k / 8;
        let new_pat = if code >= 6 {
            // A value predicate on an iso-valued matrix keeps all or nothing.
            if pred.keep(*value, 0, 0) {
                self.copy_b2sr(pat)?
            } else {
                DevB2sr::new(
                    &self.dev,
                    k,
                    pat.nrows,
                    pat.ncols,
                    0,
                    self.dev.zeros(pat.tile_rows + 1)?,
                    self.dev.alloc(0)?,
                    self.dev.alloc(0)?,
                )?
            }
        } else {
            let tmp_tiles = self.dev.zeros::<u8>(pat.ntiles * tb)?;
            let keep = self.dev.zeros::<u32>(pat.ntiles + 1)?;
            self.dev.run(
                ModuleId::Pack,
                "b2sr_select",
                Some(k),
                pat.tile_rows,
                &[
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    pat.tiles.arg(),
                    Arg::U32(pat.tile_rows as u32),
                    Arg::I32(code),
                    Arg::I64(kk),
                    tmp_tiles.arg(),
                    keep.arg(),
                ],
            )?;
            let pos = self.dev.copy(&keep)?;
            self.dev.scan(&pos, pat.ntiles + 1)?;
            let nt = self.dev.read_u32(&pos, pat.ntiles)? as usize;
            let rowptr = self.dev.alloc::<u32>(pat.tile_rows + 1)?;
            let colidx = self.dev.alloc::<u32>(nt)?;
            let tiles = self.dev.zeros::<u8>(nt * tb)?;
            self.dev.run(
                ModuleId::Pack,
                "tiles_compact",
                None,
                pat.ntiles.max(pat.tile_rows + 1),
                &[
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    tmp_tiles.arg(),
                    Arg::U32(pat.tile_rows as u32),
                    Arg::U64(pat.ntiles as u64),
                    Arg::U32(tb as u32),
                    keep.arg(),
                    pos.arg(),
                    rowptr.arg(),
                    colidx.arg(),
                    tiles.arg(),
                ],
            )?;
            DevB2sr::new(
                &self.dev, k, pat.nrows, pat.ncols, nt, rowptr, colidx, tiles,
            )?
        };
        *c = CudaMatrix {
            nrows: a.nrows,
            ncols: a.ncols,
            repr: DMat::B2sr {
                pat: new_pat,
                value: *value,
            },
        };
        Ok(())
    }

    fn reduce_rows<T: Scalar, M: Monoid<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        _monoid: M,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let code = op_code::<T, M>("reduce_rows")?;
        let acc = accum_code::<T, A>("reduce_rows")?;
        let allowed = self.allowed(mask)?;
        // Column reductions: the rows of A', transposed on the device.
        let at = flags
            .transpose_a
            .then(|| self.reduce_input(a))
            .transpose()?;
        let n = at.as_ref().map_or(a.nrows, |t| t.rows_vals().2);
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        let id = ModuleId::Vec(T::TYPE);
        if let Some(t) = &at {
            let (rowptr, av, _) = t.rows_vals();
            self.dev.run(
                id,
                "reduce_rows_csr",
                None,
                bit_words(n) * 32,
                &[
                    Arg::I32(code),
                    Arg::U64(rowptr),
                    Arg::U64(av),
                    Arg::U64(n as u64),
                    vals.arg(),
                    pres.arg(),
                ],
            )?;
            drop(at);
            let t = self.dense_vec(n, vals, pres);
            return self.write_vector(w, t, allowed.as_ref(), acc, flags.replace);
        }
        match &a.repr {
            DMat::B2sr { pat, value } => {
                let lens = self.b2sr_row_lens(pat)?;
                self.dev.run(
                    id,
                    "reduce_rows_iso",
                    None,
                    bit_words(n) * 32,
                    &[
                        Arg::I32(code),
                        Arg::U64(bits_of(*value)),
                        lens.arg(),
                        Arg::U64(n as u64),
                        vals.arg(),
                        pres.arg(),
                    ],
                )?;
            }
            DMat::Csr {
                rowptr, vals: av, ..
            } => {
                self.dev.run(
                    id,
                    "reduce_rows_csr",
                    None,
                    bit_words(n) * 32,
                    &[
                        Arg::I32(code),
                        rowptr.arg(),
                        av.arg(),
                        Arg::U64(n as u64),
                        vals.arg(),
                        pres.arg(),
                    ],
                )?;
            }
        }
        let t = self.dense_vec(n, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn reduce_vector<T: Scalar, M: Monoid<T>>(&self, _monoid: M, u: &CudaVector<T>) -> Result<T> {
        let code = op_code::<T, M>("reduce_vector")?;
        match &u.repr {
            DVec::Sparse { vals, nnz, .. } => self.reduce_raw(code, vals.ptr(), 0, *nnz),
            _ => {
                let v = self.view(u)?;
                self.reduce_raw(code, v.vals, v.pres, u.len)
            }
        }
    }

    fn reduce_matrix<T: Scalar, M: Monoid<T>>(&self, monoid: M, a: &CudaMatrix<T>) -> Result<T> {
        let code = op_code::<T, M>("reduce_matrix")?;
        match &a.repr {
            DMat::Csr { vals, nnz, .. } => self.reduce_raw(code, vals.ptr(), 0, *nnz),
            DMat::B2sr { value, .. } => {
                // Every entry equals `value`: count them on the device, then fold
                // the count as the CPU backend does.
                let n = self.matrix_nvals(a)?;
                let mut acc = monoid.identity();
                for _ in 0..n {
                    acc = monoid.apply(acc, *value);
                    if monoid.terminal() == Some(acc) {
                        break;
                    }
                }
                Ok(acc)
            }
        }
    }

    fn extract_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        u: &CudaVector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("extract")?;
        let allowed = self.allowed(mask)?;
        let m = indices.len();
        let idx = self.upload_indices(indices, u.len)?;
        let uv = self.view(u)?;
        let vals = self.dev.alloc::<T>(m)?;
        let pres = self.dev.alloc::<u32>(bit_words(m))?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_gather",
            None,
            bit_words(m) * 32,
            &[
                Arg::U64(uv.vals),
                Arg::U64(uv.pres),
                idx.arg(),
                Arg::U64(m as u64),
                vals.arg(),
                pres.arg(),
            ],
        )?;
        drop(uv);
        let t = self.dense_vec(m, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn extract_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        a: &CudaMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.extract_matrix_op::<T, A>(c, mask, a, rows, cols, flags)
    }

    fn assign_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        u: &CudaVector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.assign_common::<T, A>(w, mask, Some(u), T::zero(), indices, flags)
    }

    fn assign_vector_scalar<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        value: T,
        indices: Option<&[usize]>,
        flags: Flags,
    ) -> Result<()> {
        match indices {
            Some(idx) => self.assign_common::<T, A>(w, mask, None, value, idx, flags),
            None => {
                let acc = accum_code::<T, A>("assign")?;
                self.assign_all_scalar(w, mask, acc, value, flags.replace)
            }
        }
    }

    fn assign_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        a: &CudaMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.assign_matrix_op::<T, A>(c, mask, a, rows, cols, flags)
    }

    fn transpose<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        match a.repr {
            DMat::B2sr { .. } => self.transpose_b2sr(c, mask, accum, a, flags),
            DMat::Csr { .. } => self.transpose_into::<T, A>(c, mask, a, flags),
        }
    }

    fn scale<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        _op: Op,
        d: &CudaVector<T>,
        a: &CudaMatrix<T>,
        rows: bool,
    ) -> Result<()> {
        self.scale_op::<T, Op>(c, d, a, rows)
    }

    fn scale_dense_rows<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        _op: Op,
        d: &CudaVector<T>,
        b: &CudaDense<T>,
    ) -> Result<()> {
        let code = op_code::<T, Op>("scale_dense_rows")?;
        let dv = self.view(d)?;
        let out = self.dev.alloc::<T>(b.nrows * b.ncols)?;
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "scale_dense_rows",
            None,
            b.nrows * b.ncols,
            &[
                Arg::I32(code),
                Arg::U64(dv.vals),
                Arg::U64(dv.pres),
                b.data.arg(),
                Arg::U64(b.nrows as u64),
                Arg::U64(b.ncols as u64),
                out.arg(),
            ],
        )?;
        drop(dv);
        *c = CudaDense {
            nrows: b.nrows,
            ncols: b.ncols,
            data: out,
        };
        Ok(())
    }
}
