//! Matrix-level operations on CSR with values (kernels in `cuda/matrix.cu`):
//! transpose, element-wise, apply, select, diagonal scaling, extract,
//! assign, the output phase `C<mask> = accum(C, T)` with replace,
//! `mxm_reduce` as masked dot products (`cuda/csr_dot.cu`) and `mxm` by
//! merged rows (`cuda/csr_spgemm.cu`).
//!
//! Every operation works on CSR with values: a B2SR input is unpacked on the
//! device and an iso CSR input gets its values (both: the iso value filled
//! in, for the operation), a transposed input is transposed on the device;
//! the products read an iso input's columns alone. Results are CSR with
//! sorted rows, entry for entry what the CPU backend (`cpu/generic.rs`,
//! `cpu/writeback.rs`) produces. Index lists (`rows`, `cols` of extract and
//! assign) are the caller's host slices: they are checked and uploaded, with
//! their inverse maps built on the host.
//!
//! This file holds the CSR operand ([`CsrRef`]) and the building blocks the
//! operations share: counts scanned into row pointers, and compaction of
//! flagged entries.

mod dot;
mod elementwise;
mod index;
mod spgemm;
mod transpose;
mod writeback;

pub use writeback::MaskPattern;

use super::device::{bits_of, opt_ptr, DBuf, DevPtr};
use super::launch::mat;
use super::mem::{CsrVals, DMat};
use super::{CudaBackend, CudaMatrix};
use crate::error::Result;
use crate::scalar::Scalar;

/// A CSR matrix on the device as typed addresses, with the storage kept
/// alive when it was made for this operation (unpacked, transposed, or its
/// one value filled in).
pub(crate) struct CsrRef<T> {
    pub nrows: usize,
    pub ncols: usize,
    pub rowptr: DevPtr<u32>,
    pub colidx: DevPtr<u32>,
    /// NULL where every entry holds the value `isobits` (only from
    /// [`CudaBackend::csr_product_input`]: the products' convention).
    pub vals: DevPtr<T>,
    pub isobits: u64,
    pub nnz: usize,
    own: Option<CudaMatrix<T>>,
}

/// A CSR matrix of new device arrays (not iso).
pub(crate) fn csr<T>(
    nrows: usize,
    ncols: usize,
    rowptr: DBuf<u32>,
    colidx: DBuf<u32>,
    vals: DBuf<T>,
    nnz: usize,
) -> CudaMatrix<T> {
    CudaMatrix {
        nrows,
        ncols,
        repr: DMat::csr(rowptr, colidx, vals, nnz),
    }
}

impl<T: Scalar> CsrRef<T> {
    /// Borrows a CSR matrix's arrays (`None` for B2SR); the values NULL
    /// and `isobits` set where the matrix is iso.
    fn borrowed(m: &CudaMatrix<T>) -> Option<CsrRef<T>> {
        let DMat::Csr { pat, vals } = &m.repr else {
            return None;
        };
        let (vals, isobits) = match vals {
            CsrVals::Each(v) => (v.ptr(), 0),
            CsrVals::Iso(v) => (DevPtr::null(), bits_of(*v)),
        };
        Some(CsrRef {
            nrows: m.nrows,
            ncols: m.ncols,
            rowptr: pat.rowptr.ptr(),
            colidx: pat.colidx.ptr(),
            vals,
            isobits,
            nnz: pat.nnz,
            own: None,
        })
    }
    /// Takes a CSR matrix made for the operation.
    fn owned(m: CudaMatrix<T>) -> CsrRef<T> {
        let mut r = CsrRef::borrowed(&m).expect("owned CSR references are made from CSR matrices");
        r.own = Some(m);
        r
    }
}

/// The kept entries of a compaction (values when asked for).
struct Compacted<T> {
    rowptr: DBuf<u32>,
    colidx: DBuf<u32>,
    vals: Option<DBuf<T>>,
    nnz: usize,
}

impl CudaBackend {
    /// `a` (or `a'`) as device CSR with values: borrowed when it already is,
    /// unpacked from B2SR, its one value filled in and/or transposed on the
    /// device otherwise.
    pub(crate) fn csr_input<T: Scalar>(
        &self,
        a: &CudaMatrix<T>,
        transpose: bool,
    ) -> Result<CsrRef<T>> {
        let r = match &a.repr {
            DMat::Csr {
                vals: CsrVals::Each(_),
                ..
            } => CsrRef::borrowed(a).expect("matched CSR"),
            DMat::Csr {
                pat,
                vals: CsrVals::Iso(v),
            } => CsrRef::owned(CudaMatrix {
                nrows: a.nrows,
                ncols: a.ncols,
                repr: DMat::Csr {
                    pat: pat.clone(),
                    vals: CsrVals::Each(self.fill(pat.nnz, *v)?),
                },
            }),
            DMat::B2sr { pat, value } => {
                let (rowptr, colidx, nnz) = self.unpack(pat)?;
                let vals = self.fill(nnz, *value)?;
                CsrRef::owned(csr(a.nrows, a.ncols, rowptr, colidx, vals, nnz))
            }
        };
        if transpose {
            Ok(CsrRef::owned(self.transpose_ref(&r)?))
        } else {
            Ok(r)
        }
    }

    /// `a` (or `a'`) as a CSR product reads it: as [`Self::csr_input`], but
    /// an iso CSR matrix not transposed is borrowed with its values NULL and
    /// `isobits` set (the product kernels' convention), nothing filled in.
    pub(crate) fn csr_product_input<T: Scalar>(
        &self,
        a: &CudaMatrix<T>,
        transpose: bool,
    ) -> Result<CsrRef<T>> {
        match CsrRef::borrowed(a) {
            Some(r) if !transpose => Ok(r),
            _ => self.csr_input(a, transpose),
        }
    }

    /// An owned CSR matrix of the entries `r` refers to (no copy when `r`
    /// owns them). `r` comes from [`Self::csr_input`], so its values are
    /// stored (never NULL).
    fn csr_owned<T: Scalar>(&self, r: CsrRef<T>) -> Result<CudaMatrix<T>> {
        if let Some(m) = r.own {
            return Ok(m);
        }
        let rowptr = self.dev.alloc::<u32>(r.nrows + 1)?;
        let colidx = self.dev.alloc::<u32>(r.nnz)?;
        let vals = self.dev.alloc::<T>(r.nnz)?;
        let copy = |dst: u64, src: u64, bytes: usize| -> Result<()> {
            if bytes == 0 {
                return Ok(());
            }
            // SAFETY: both addresses hold `bytes` bytes (device arrays of this matrix).
            unsafe {
                cudarc::driver::result::memcpy_dtod_async(
                    dst,
                    src,
                    bytes,
                    self.dev.stream.cu_stream(),
                )
            }
            .map_err(super::device::drv("copy on device"))
        };
        copy(rowptr.ptr().addr(), r.rowptr.addr(), 4 * (r.nrows + 1))?;
        copy(colidx.ptr().addr(), r.colidx.addr(), 4 * r.nnz)?;
        copy(
            vals.ptr().addr(),
            r.vals.addr(),
            std::mem::size_of::<T>() * r.nnz,
        )?;
        Ok(csr(r.nrows, r.ncols, rowptr, colidx, vals, r.nnz))
    }

    /// A CSR result built in two passes: `count` writes the entries per row
    /// into a zeroed `nrows + 1` buffer, which is scanned into row pointers;
    /// then `fill` writes the columns and values of the total into buffers of
    /// that size (its arguments: row pointers, columns, values).
    fn count_fill<T: Scalar>(
        &self,
        nrows: usize,
        ncols: usize,
        count: impl FnOnce(&DBuf<u32>) -> Result<()>,
        fill: impl FnOnce(DevPtr<u32>, DevPtr<u32>, DevPtr<T>) -> Result<()>,
    ) -> Result<CudaMatrix<T>> {
        let rowptr = self.dev.zeros::<u32>(nrows + 1)?;
        count(&rowptr)?;
        self.dev.scan(&rowptr, nrows + 1)?;
        let nnz = self.dev.read_u32(&rowptr, nrows)? as usize;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let vals = self.dev.alloc::<T>(nnz)?;
        fill(rowptr.ptr(), colidx.ptr(), vals.ptr())?;
        Ok(csr(nrows, ncols, rowptr, colidx, vals, nnz))
    }

    /// The entries of `r` whose flag is set (`flags`: `nnz + 1` entries, the
    /// last 0; scanned in place), values from `vals` (default: `r`'s); pattern
    /// only when `with_vals` is false.
    fn compact<T: Scalar>(
        &self,
        r: &CsrRef<T>,
        flags: DBuf<u32>,
        vals: Option<DevPtr<T>>,
        with_vals: bool,
    ) -> Result<Compacted<T>> {
        self.dev.scan(&flags, r.nnz + 1)?;
        let nnz = self.dev.read_u32(&flags, r.nnz)? as usize;
        let rowptr = self.dev.alloc::<u32>(r.nrows + 1)?;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let out_vals = if with_vals {
            Some(self.dev.alloc::<T>(nnz)?)
        } else {
            None
        };
        mat::csr_compact(
            r.rowptr,
            r.nrows as u64,
            r.colidx,
            vals.unwrap_or(r.vals),
            r.nnz as u64,
            flags.ptr(),
            rowptr.ptr(),
            colidx.ptr(),
            opt_ptr(out_vals.as_ref()),
        )
        .run(&self.dev, r.nnz.max(r.nrows + 1))?;
        Ok(Compacted {
            rowptr,
            colidx,
            vals: out_vals,
            nnz,
        })
    }

    /// The flagged entries of `r` as a new CSR matrix (values from `vals`,
    /// default `r`'s).
    fn compact_matrix<T: Scalar>(
        &self,
        r: &CsrRef<T>,
        flags: DBuf<u32>,
        vals: Option<DevPtr<T>>,
    ) -> Result<CudaMatrix<T>> {
        let k = self.compact(r, flags, vals, true)?;
        let v = k.vals.expect("values asked for");
        Ok(csr(r.nrows, r.ncols, k.rowptr, k.colidx, v, k.nnz))
    }

    /// Flags of the entries a built-in predicate keeps (`nnz + 1`, last 0).
    fn select_flags<T: Scalar>(
        &self,
        r: &CsrRef<T>,
        code: i32,
        k: i64,
        th: T,
    ) -> Result<DBuf<u32>> {
        let flags = self.dev.alloc::<u32>(r.nnz + 1)?;
        mat::select_flags(
            code,
            k,
            bits_of(th),
            r.rowptr,
            r.nrows as u64,
            r.colidx,
            r.vals,
            r.nnz as u64,
            flags.ptr(),
        )
        .run(&self.dev, r.nnz + 1)?;
        Ok(flags)
    }
}
