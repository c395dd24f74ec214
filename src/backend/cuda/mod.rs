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
//! - `mxm` with a sparse result, `ewise_matrix`, `apply_matrix`,
//!   `extract_matrix`, `assign_matrix`, `transpose`, `scale` (matrix);
//! - `select_matrix` except on B2SR with a built-in predicate and no
//!   mask/accumulator; `mxm_reduce` except `PLUS.PAIR` on B2SR operands of one
//!   tile size with `B` transposed by the descriptor and a plain B2SR mask;
//! - transposed CSR `mxv`, CSR `mxm_dense`, 64x64 tiles, `Format::Auto`,
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

mod device;
pub mod kernels;
mod mem;
mod vector_ops;

use std::sync::OnceLock;

pub use mem::{CudaDense, CudaMatrix, CudaVector};

use self::device::{bits_of, opt_arg, Arg, DBuf, Dev};
use self::kernels::{semiring_instances, ModuleId};
use self::mem::{bit_words, no_kernel, DMat, DVec, DevB2sr};
use super::{Backend, EwiseKind, MatrixShape, VectorShape};
use crate::algebra::{
    BinaryOp, BuiltinUnary, IndexOp, IndexUnaryOp, Monoid, Semiring, SemiringKind, UnaryOp,
};
use crate::container::{Accumulate, Flags, Format, Mask, Matrix, MatrixMask, Vector, VectorFormat};
use crate::error::{Error, Result};
use crate::scalar::{Scalar, ScalarType};
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

fn op_code<T: Scalar, Op: BinaryOp<T>>(op: &'static str) -> Result<i32> {
    Op::BUILTIN
        .map(|b| b as i32)
        .ok_or_else(|| no_kernel(op, format!("user operator {}", Op::NAME)))
}

fn accum_code<T: Scalar, A: Accumulate<T>>(op: &'static str) -> Result<i32> {
    if !A::ACTIVE {
        return Ok(-1);
    }
    A::BUILTIN
        .map(|b| b as i32)
        .ok_or_else(|| no_kernel(op, "a user-defined accumulator"))
}

/// The host value of raw bits (the inverse of `bits_of`; integers wrap).
fn from_bits<T: Scalar>(b: u64) -> T {
    if T::TYPE == ScalarType::Bool {
        return T::from_usize((b & 0xff != 0) as usize);
    }
    let bytes = b.to_le_bytes();
    let mut x = T::default();
    // SAFETY: T is a plain numeric type of at most 8 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            &mut x as *mut T as *mut u8,
            std::mem::size_of::<T>(),
        )
    };
    x
}

fn no_mask_no_accum<T: Scalar, A: Accumulate<T>>(op: &'static str, has_mask: bool) -> Result<()> {
    if has_mask || A::ACTIVE {
        return Err(no_kernel(op, "a mask or accumulator on a matrix result"));
    }
    Ok(())
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
            pres: (!stays_full).then_some(pres),
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

    /// `t = A ⊕.⊗ u` (or `A' ⊕.⊗ u`) on B2SR.
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
    ) -> Result<CudaVector<S::T>> {
        let n_out = if transpose { pat.ncols } else { pat.nrows };
        let k = pat.k;
        let uv = self.view(u)?;
        let lor_bits = matches!(id, ModuleId::Sr(SemiringKind::LorLand, _))
            && matches!(u.repr, DVec::Bits(_))
            && value.is_nonzero();
        let out_vals = if lor_bits {
            None
        } else if transpose {
            Some(self.fill(n_out, s.zero())?)
        } else {
            Some(self.dev.alloc::<S::T>(n_out)?)
        };
        let out_pres = self.dev.zeros::<u32>(bit_words(n_out))?;
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
            opt_arg(out_vals.as_ref()),
            out_pres.arg(),
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
        } else {
            let groups = pat.tile_rows.div_ceil(32 / k);
            self.dev.run(
                id,
                "b2sr_mxv_short",
                Some(k),
                groups * 32,
                &[
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    pat.tiles.arg(),
                    Arg::U32(pat.tile_rows as u32),
                    Arg::U32(mem::SHORT_MAX),
                    Arg::U64(pat.nrows as u64),
                    Arg::U64(bits_of(value)),
                    Arg::U64(uv.vals),
                    Arg::U64(uv.pres),
                    opt_arg(allowed),
                    opt_arg(out_vals.as_ref()),
                    out_pres.arg(),
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
                            opt_arg(out_vals.as_ref()),
                            out_pres.arg(),
                        ],
                    )?;
                }
            }
        }
        drop(uv);
        Ok(match out_vals {
            None => CudaVector {
                len: n_out,
                repr: DVec::Bits(out_pres),
            },
            Some(v) => self.dense_vec(n_out, v, out_pres),
        })
    }

    /// Packs a device CSR into B2SR with `k x k` tiles, on the device.
    fn pack(
        &self,
        rowptr: &DBuf<u32>,
        colidx: &DBuf<u32>,
        nrows: usize,
        ncols: usize,
        k: usize,
    ) -> Result<DevB2sr> {
        let tile_rows = nrows.div_ceil(k);
        let counts = self.dev.zeros::<u32>(tile_rows + 1)?;
        let groups = tile_rows.div_ceil(32 / k);
        self.dev.run(
            ModuleId::Pack,
            "csr_to_b2sr_count",
            Some(k),
            groups * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(nrows as u64),
                Arg::U32(tile_rows as u32),
                counts.arg(),
            ],
        )?;
        self.dev.scan(&counts, tile_rows + 1)?;
        let ntiles = self.dev.read_u32(&counts, tile_rows)? as usize;
        let out_col = self.dev.alloc::<u32>(ntiles)?;
        let out_tiles = self.dev.zeros::<u8>(ntiles * k * k / 8)?;
        self.dev.run(
            ModuleId::Pack,
            "csr_to_b2sr_fill",
            Some(k),
            groups * 32,
            &[
                rowptr.arg(),
                colidx.arg(),
                Arg::U64(nrows as u64),
                Arg::U32(tile_rows as u32),
                counts.arg(),
                out_col.arg(),
                out_tiles.arg(),
            ],
        )?;
        DevB2sr::new(
            &self.dev, k, nrows, ncols, ntiles, counts, out_col, out_tiles,
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

fn unary_code<T: Scalar, F: UnaryOp<T>>(f: &F) -> Result<(i32, T)> {
    Ok(match f.builtin() {
        Some(BuiltinUnary::Identity) => (0, T::zero()),
        Some(BuiltinUnary::Ainv) => (1, T::zero()),
        Some(BuiltinUnary::Abs) => (2, T::zero()),
        Some(BuiltinUnary::Lnot) => (3, T::zero()),
        Some(BuiltinUnary::One) => (4, T::zero()),
        Some(BuiltinUnary::BindFirst(op, x)) => (100 + op as i32, T::from_f64(x)),
        Some(BuiltinUnary::BindSecond(op, x)) => (200 + op as i32, T::from_f64(x)),
        None => return Err(no_kernel("apply", format!("user operator {}", F::NAME))),
    })
}

fn select_code<T: Scalar>(p: IndexOp<T>) -> (i32, i64, T) {
    let z = T::zero();
    match p {
        IndexOp::Tril(k) => (0, k, z),
        IndexOp::Triu(k) => (1, k, z),
        IndexOp::Diag(k) => (2, k, z),
        IndexOp::OffDiag(k) => (3, k, z),
        IndexOp::RowLe(k) => (4, k, z),
        IndexOp::RowGt(k) => (5, k, z),
        IndexOp::ValueEq(x) => (6, 0, x),
        IndexOp::ValueNe(x) => (7, 0, x),
        IndexOp::ValueGt(x) => (8, 0, x),
        IndexOp::ValueGe(x) => (9, 0, x),
        IndexOp::ValueLt(x) => (10, 0, x),
        IndexOp::ValueLe(x) => (11, 0, x),
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
                },
                None,
            ) => DMat::Csr {
                rowptr: self.dev.copy(rowptr)?,
                colidx: self.dev.copy(colidx)?,
                vals: self.dev.copy(vals)?,
                nnz: *nnz,
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
        let allowed = self.allowed(mask)?;
        let t = match &a.repr {
            DMat::B2sr { pat, value } => self.b2sr_mxv(
                semiring,
                id,
                pat,
                *value,
                u,
                allowed.as_ref(),
                flags.transpose_a,
            )?,
            DMat::Csr {
                rowptr,
                colidx,
                vals,
                ..
            } if !flags.transpose_a => {
                let uv = self.view(u)?;
                let out_vals = self.dev.alloc::<S::T>(a.nrows)?;
                let out_pres = self.dev.zeros::<u32>(bit_words(a.nrows))?;
                self.dev.run(
                    id,
                    "csr_mxv",
                    None,
                    a.nrows * 32,
                    &[
                        rowptr.arg(),
                        colidx.arg(),
                        vals.arg(),
                        Arg::U64(a.nrows as u64),
                        Arg::U64(uv.vals),
                        Arg::U64(uv.pres),
                        opt_arg(allowed.as_ref()),
                        out_vals.arg(),
                        out_pres.arg(),
                    ],
                )?;
                self.dense_vec(a.nrows, out_vals, out_pres)
            }
            DMat::Csr { .. } => {
                return Err(no_kernel(
                    "mxv",
                    "a transposed CSR matrix (convert to B2SR, or transpose on the host)",
                ))
            }
        };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn mxm<S: Semiring, A: Accumulate<S::T>>(
        &self,
        _c: &mut CudaMatrix<S::T>,
        _mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        _semiring: S,
        _a: &CudaMatrix<S::T>,
        _b: &CudaMatrix<S::T>,
        _flags: Flags,
    ) -> Result<()> {
        Err(no_kernel(
            "mxm",
            "a sparse result (use mxm_reduce or mxm_dense)",
        ))
    }

    fn mxm_reduce<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        let id = kernel_of::<S>("mxm_reduce")?;
        if !matches!(id, ModuleId::Sr(SemiringKind::PlusPair, _)) {
            return Err(no_kernel("mxm_reduce", format!("semiring {}", S::NAME)));
        }
        let (DMat::B2sr { pat: pa, .. }, DMat::B2sr { pat: pb, .. }) = (&a.repr, &b.repr) else {
            return Err(no_kernel("mxm_reduce", "CSR operands (convert to B2SR)"));
        };
        let Some((pm, nonzero)) = mask.source.b2sr_mask() else {
            return Err(no_kernel("mxm_reduce", "a CSR mask"));
        };
        let pm = &pm.0;
        if flags.transpose_a || !flags.transpose_b || mask.complemented {
            return Err(no_kernel(
                "mxm_reduce",
                "only C<M> = A B' (B transposed by the descriptor, mask not complemented)",
            ));
        }
        if pa.k != pb.k || pa.k != pm.k {
            return Err(no_kernel("mxm_reduce", "operands of different tile sizes"));
        }
        if !mask.structural && !nonzero {
            return Ok(semiring.zero());
        }
        let total = self.dev.zeros::<u64>(1)?;
        self.dev.run(
            ModuleId::Pack,
            "b2sr_tc",
            Some(pa.k),
            pm.ntiles * 32,
            &[
                pm.rowptr.arg(),
                pm.colidx.arg(),
                pm.tiles.arg(),
                Arg::U32(pm.tile_rows as u32),
                Arg::U64(pm.ntiles as u64),
                pa.rowptr.arg(),
                pa.colidx.arg(),
                pa.tiles.arg(),
                pb.rowptr.arg(),
                pb.colidx.arg(),
                pb.tiles.arg(),
                total.arg(),
            ],
        )?;
        let count = self.dev.read_u64(&total)?;
        Ok(if <S::T as Scalar>::IS_FLOAT {
            <S::T as Scalar>::from_f64(count as f64)
        } else {
            from_bits::<S::T>(count)
        })
    }

    fn mxm_dense<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        accum: A,
        _semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let id = kernel_of::<S>("mxm_dense")?;
        let acc = accum_code::<S::T, A>("mxm_dense")?;
        let _ = accum;
        let (DMat::B2sr { pat, value }, false) = (&a.repr, flags.transpose_a) else {
            return Err(no_kernel("mxm_dense", "a CSR or transposed matrix"));
        };
        let nf = b.ncols;
        let out = self.dev.alloc::<S::T>(a.nrows * nf)?;
        let f = self.dev.func(id, "b2sr_mxm_dense", Some(pat.k))?;
        let block = nf.next_multiple_of(32).clamp(32, 256) as u32;
        let grid = pat.tile_rows.clamp(1, self.dev.sm_count as usize * 64) as u32;
        if pat.tile_rows > 0 {
            self.dev.launch(
                &f,
                grid,
                block,
                &[
                    pat.rowptr.arg(),
                    pat.colidx.arg(),
                    pat.tiles.arg(),
                    Arg::U64(pat.nrows as u64),
                    Arg::U32(pat.tile_rows as u32),
                    Arg::U64(bits_of(*value)),
                    b.data.arg(),
                    Arg::U64(nf as u64),
                    out.arg(),
                ],
            )?;
        }
        if acc >= 0 {
            self.dev.run(
                ModuleId::Vec(<S::T as Scalar>::TYPE),
                "dense_accum",
                None,
                a.nrows * nf,
                &[
                    Arg::I32(acc),
                    out.arg(),
                    Arg::U64((a.nrows * nf) as u64),
                    c.data.arg(),
                ],
            )?;
        } else {
            *c = CudaDense {
                nrows: a.nrows,
                ncols: nf,
                data: out,
            };
        }
        Ok(())
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
        let n = u.len;
        let (uv, vv) = (self.view(u)?, self.view(v)?);
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
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
                pres.arg(),
            ],
        )?;
        drop((uv, vv));
        let t = self.dense_vec(n, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    fn ewise_matrix<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        _c: &mut CudaMatrix<T>,
        _mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        _kind: EwiseKind<T>,
        _op: Op,
        _a: &CudaMatrix<T>,
        _b: &CudaMatrix<T>,
        _flags: Flags,
    ) -> Result<()> {
        Err(no_kernel("ewise_matrix", "matrix element-wise operations"))
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
        _c: &mut CudaMatrix<T>,
        _mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        _f: F,
        _a: &CudaMatrix<T>,
        _flags: Flags,
    ) -> Result<()> {
        Err(no_kernel("apply_matrix", "apply on matrices"))
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
        no_mask_no_accum::<T, A>("select_matrix", mask.is_some())?;
        let (DMat::B2sr { pat, value }, false) = (&a.repr, flags.transpose_a) else {
            return Err(no_kernel("select_matrix", "a CSR or transposed matrix"));
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
        if flags.transpose_a {
            return Err(no_kernel("reduce_rows", "column reductions (transposed)"));
        }
        let allowed = self.allowed(mask)?;
        let n = a.nrows;
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        let id = ModuleId::Vec(T::TYPE);
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
        _c: &mut CudaMatrix<T>,
        _mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        _a: &CudaMatrix<T>,
        _rows: &[usize],
        _cols: &[usize],
        _flags: Flags,
    ) -> Result<()> {
        Err(no_kernel("extract_matrix", "sub-matrix extraction"))
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
        _c: &mut CudaMatrix<T>,
        _mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        _a: &CudaMatrix<T>,
        _rows: &[usize],
        _cols: &[usize],
        _flags: Flags,
    ) -> Result<()> {
        Err(no_kernel("assign_matrix", "sub-matrix assignment"))
    }

    fn transpose<T: Scalar, A: Accumulate<T>>(
        &self,
        _c: &mut CudaMatrix<T>,
        _mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        _a: &CudaMatrix<T>,
        _flags: Flags,
    ) -> Result<()> {
        Err(no_kernel("transpose", "matrix transpose"))
    }

    fn scale<T: Scalar, Op: BinaryOp<T>>(
        &self,
        _c: &mut CudaMatrix<T>,
        _op: Op,
        _d: &CudaVector<T>,
        _a: &CudaMatrix<T>,
        _rows: bool,
    ) -> Result<()> {
        Err(no_kernel("scale", "diagonal scaling of a sparse matrix"))
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
