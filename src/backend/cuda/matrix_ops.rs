//! Matrix-level operations on the device (kernels in `cuda/matrix.cu`): CSR
//! transpose, element-wise, apply, select, diagonal scaling, extract, assign,
//! and the output phase `C<mask> = accum(C, T)` with replace.
//!
//! Every operation works on CSR with values: a B2SR input is unpacked on the
//! device (its iso value filled in), a transposed input is transposed on the
//! device. Results are CSR with sorted rows, entry for entry what the CPU
//! backend (`cpu/generic.rs`, `cpu/writeback.rs`) produces. Index lists
//! (`rows`, `cols` of extract and assign) are the caller's host slices: they
//! are checked and uploaded, with their inverse maps built on the host.

use super::device::{bits_of, opt_arg, Arg, DBuf};
use super::kernels::{semiring_ops, ModuleId};
use super::mem::DMat;
use super::{
    accum_code, kernel_of, op_code, select_code, unary_code, CudaBackend, CudaDense, CudaMatrix,
    CudaVector,
};
use crate::algebra::{BinaryOp, BuiltinOp, IndexUnaryOp, Semiring, UnaryOp};
use crate::backend::EwiseKind;
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// "No row / no column" in the index maps of `cuda/matrix.cu`.
const NO_ROW: u32 = u32::MAX;

/// A CSR matrix on the device as raw addresses, with the storage kept alive
/// when it was made for this operation (unpacked or transposed).
pub(crate) struct CsrRef<T> {
    nrows: usize,
    ncols: usize,
    rowptr: u64,
    colidx: u64,
    vals: u64,
    nnz: usize,
    own: Option<CudaMatrix<T>>,
}

/// The pattern a matrix mask selects, as device CSR (row pointers and sorted
/// columns), kept alive while an operation uses it.
#[doc(hidden)]
pub struct MaskPattern {
    rowptr: u64,
    colidx: u64,
    _own: Option<(DBuf<u32>, DBuf<u32>)>,
}

fn csr<T>(
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
        repr: DMat::Csr {
            rowptr,
            colidx,
            vals,
            nnz,
            iso: None,
        },
    }
}

/// The one (nonzero) value every stored entry of `a` holds, where the matrix
/// records it: CSR uploaded or converted with one value, or B2SR.
fn iso_value<T: Scalar>(a: &CudaMatrix<T>) -> Option<T> {
    match &a.repr {
        DMat::Csr { iso, .. } => *iso,
        DMat::B2sr { value, .. } => value.is_nonzero().then_some(*value),
    }
}

impl<T: Scalar> CsrRef<T> {
    fn owned(m: CudaMatrix<T>) -> CsrRef<T> {
        let DMat::Csr {
            rowptr,
            colidx,
            vals,
            nnz,
            ..
        } = &m.repr
        else {
            unreachable!("owned CSR references are made from CSR matrices")
        };
        CsrRef {
            nrows: m.nrows,
            ncols: m.ncols,
            rowptr: rowptr.ptr(),
            colidx: colidx.ptr(),
            vals: vals.ptr(),
            nnz: *nnz,
            own: None,
        }
        .keep(m)
    }
    fn keep(mut self, m: CudaMatrix<T>) -> CsrRef<T> {
        self.own = Some(m);
        self
    }
}

/// The kept entries of a compaction (values when asked for).
struct Compacted<T> {
    rowptr: DBuf<u32>,
    colidx: DBuf<u32>,
    vals: Option<DBuf<T>>,
    nnz: usize,
}

/// `(kind code, alpha, beta)` of an element-wise kind (the codes of `ewise_row`).
fn ewise_kind<T: Scalar>(kind: EwiseKind<T>) -> (i32, T, T) {
    match kind {
        EwiseKind::Add => (0, T::zero(), T::zero()),
        EwiseKind::Mult => (1, T::zero(), T::zero()),
        EwiseKind::Union { alpha, beta } => (2, alpha, beta),
    }
}

/// Host indices as device `u32`, each below `bound`.
fn checked_u32(op: &'static str, idx: &[usize], bound: usize) -> Result<Vec<u32>> {
    idx.iter()
        .map(|&i| {
            if i < bound {
                Ok(i as u32)
            } else {
                Err(Error::IndexOutOfBounds {
                    op,
                    index: i,
                    len: bound,
                })
            }
        })
        .collect()
}

impl CudaBackend {
    /// `a` (or `a'`) as device CSR with values: borrowed when it already is,
    /// unpacked from B2SR and/or transposed on the device otherwise.
    pub(crate) fn csr_input<T: Scalar>(
        &self,
        a: &CudaMatrix<T>,
        transpose: bool,
    ) -> Result<CsrRef<T>> {
        let r = match &a.repr {
            DMat::Csr {
                rowptr,
                colidx,
                vals,
                nnz,
                ..
            } => CsrRef {
                nrows: a.nrows,
                ncols: a.ncols,
                rowptr: rowptr.ptr(),
                colidx: colidx.ptr(),
                vals: vals.ptr(),
                nnz: *nnz,
                own: None,
            },
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

    /// An owned CSR matrix of the entries `r` refers to (no copy when `r` owns them).
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
        copy(rowptr.ptr(), r.rowptr, 4 * (r.nrows + 1))?;
        copy(colidx.ptr(), r.colidx, 4 * r.nnz)?;
        copy(vals.ptr(), r.vals, std::mem::size_of::<T>() * r.nnz)?;
        Ok(csr(r.nrows, r.ncols, rowptr, colidx, vals, r.nnz))
    }

    /// `A'` as device CSR with values (B2SR inputs are unpacked first). Each
    /// row of the result lists its entries in increasing column, as the CPU's
    /// `Csr::transpose`.
    ///
    /// For the `transpose` and transposed-CSR `mxv` entry points.
    ///
    /// ```no_run
    /// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Matrix};
    /// let gpu = CudaBackend::new(0)?;
    /// let a = Matrix::from_triplets(2, 3, vec![(0, 2, 1.5f32), (1, 0, 2.0)])?;
    /// let t = gpu.csr_transpose(&gpu.upload_matrix(&a)?)?;
    /// assert_eq!(gpu.download_matrix(&t)?.get(2, 0), Some(1.5));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn csr_transpose<T: Scalar>(&self, a: &CudaMatrix<T>) -> Result<CudaMatrix<T>> {
        let r = self.csr_input(a, true)?;
        self.csr_owned(r)
    }

    /// `C<mask> = accum(C, A')` (`A` with `flags.transpose_a`) with a CSR
    /// result: the whole `transpose` entry point except a B2SR fast path.
    /// Call it through [`crate::ops::transpose`] once that entry point is wired to it.
    #[doc(hidden)]
    pub fn transpose_into<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("transpose")?;
        let t = self.csr_input(a, !flags.transpose_a)?;
        let t = self.csr_owned(t)?;
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The transpose of `r`: counts per column and a scan give the row
    /// pointers; a stable radix sort of the entries by column gives the order.
    fn transpose_ref<T: Scalar>(&self, r: &CsrRef<T>) -> Result<CudaMatrix<T>> {
        let id = ModuleId::Mat(T::TYPE);
        let (n, m, nnz) = (r.nrows, r.ncols, r.nnz);
        let rowptr = self.dev.zeros::<u32>(m + 1)?;
        self.dev.run(
            id,
            "col_counts",
            None,
            nnz,
            &[Arg::U64(r.colidx), Arg::U64(nnz as u64), rowptr.arg()],
        )?;
        self.dev.scan(&rowptr, m + 1)?;
        let rows = self.dev.alloc::<u32>(nnz)?;
        self.dev.run(
            id,
            "csr_row_ids",
            None,
            nnz,
            &[
                Arg::U64(r.rowptr),
                Arg::U64(n as u64),
                Arg::U64(nnz as u64),
                rows.arg(),
            ],
        )?;
        let perm = self.radix_perm::<T>(r.colidx, nnz, m)?;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let vals = self.dev.alloc::<T>(nnz)?;
        self.dev.run(
            id,
            "csr_gather",
            None,
            nnz,
            &[
                opt_arg(perm.as_ref()),
                rows.arg(),
                Arg::U64(r.vals),
                Arg::U64(nnz as u64),
                colidx.arg(),
                vals.arg(),
            ],
        )?;
        Ok(csr(m, n, rowptr, colidx, vals, nnz))
    }

    /// The permutation that sorts `n` keys (below `bound`) stably: LSD radix
    /// passes of 8 bits. `None` when no pass is needed (identity).
    fn radix_perm<T: Scalar>(
        &self,
        keys: u64,
        n: usize,
        bound: usize,
    ) -> Result<Option<DBuf<u32>>> {
        if n == 0 || bound <= 1 {
            return Ok(None);
        }
        let bits = 32 - ((bound - 1) as u32).leading_zeros();
        let passes = bits.div_ceil(8) as usize;
        let id = ModuleId::Mat(T::TYPE);
        let nb = n.div_ceil(2048).clamp(1, 16384);
        let per = n.div_ceil(nb);
        let ghist = self.dev.alloc::<u32>(256 * nb)?;
        let hist = self.dev.func(id, "radix_hist", None)?;
        let scatter = self.dev.func(id, "radix_scatter", None)?;
        let mut bufs = Vec::with_capacity(2);
        for _ in 0..passes.min(2) {
            bufs.push((self.dev.alloc::<u32>(n)?, self.dev.alloc::<u32>(n)?));
        }
        let (mut src_keys, mut src_pay) = (keys, 0u64);
        for pass in 0..passes {
            let shift = 8 * pass as u32;
            self.dev.launch(
                &hist,
                nb as u32,
                256,
                &[
                    Arg::U64(src_keys),
                    Arg::U64(n as u64),
                    Arg::U32(shift),
                    Arg::U64(per as u64),
                    ghist.arg(),
                ],
            )?;
            self.dev.scan(&ghist, 256 * nb)?;
            let (ko, po) = &bufs[pass % 2];
            self.dev.launch(
                &scatter,
                nb as u32,
                256,
                &[
                    Arg::U64(src_keys),
                    Arg::U64(src_pay),
                    Arg::U64(n as u64),
                    Arg::U32(shift),
                    Arg::U64(per as u64),
                    ghist.arg(),
                    ko.arg(),
                    po.arg(),
                ],
            )?;
            (src_keys, src_pay) = (ko.ptr(), po.ptr());
        }
        let last = (passes - 1) % 2;
        Ok(bufs.into_iter().nth(last).map(|b| b.1))
    }

    /// Rows of `r` in any order within a row, sorted: two stable transposes.
    fn sort_rows<T: Scalar>(&self, r: &CsrRef<T>) -> Result<CudaMatrix<T>> {
        let t = CsrRef::owned(self.transpose_ref(r)?);
        self.transpose_ref(&t)
    }

    /// Counts per row into a zeroed `nrows + 1` buffer via `count`, scans it
    /// into row pointers, and returns them with the total.
    fn count_scan(
        &self,
        nrows: usize,
        count: impl FnOnce(&DBuf<u32>) -> Result<()>,
    ) -> Result<(DBuf<u32>, usize)> {
        let rowptr = self.dev.zeros::<u32>(nrows + 1)?;
        count(&rowptr)?;
        self.dev.scan(&rowptr, nrows + 1)?;
        let nnz = self.dev.read_u32(&rowptr, nrows)? as usize;
        Ok((rowptr, nnz))
    }

    /// The entries of `r` whose flag is set (`flags`: `nnz + 1` entries, the
    /// last 0; scanned in place), values from `vals` (default: `r`'s); pattern
    /// only when `with_vals` is false.
    fn compact<T: Scalar>(
        &self,
        r: &CsrRef<T>,
        flags: DBuf<u32>,
        vals: Option<u64>,
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
        self.dev.run(
            ModuleId::Mat(T::TYPE),
            "csr_compact",
            None,
            r.nnz.max(r.nrows + 1),
            &[
                Arg::U64(r.rowptr),
                Arg::U64(r.nrows as u64),
                Arg::U64(r.colidx),
                Arg::U64(vals.unwrap_or(r.vals)),
                Arg::U64(r.nnz as u64),
                flags.arg(),
                rowptr.arg(),
                colidx.arg(),
                opt_arg(out_vals.as_ref()),
            ],
        )?;
        Ok(Compacted {
            rowptr,
            colidx,
            vals: out_vals,
            nnz,
        })
    }

    fn compact_matrix<T: Scalar>(
        &self,
        r: &CsrRef<T>,
        flags: DBuf<u32>,
        vals: Option<u64>,
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
        self.dev.run(
            ModuleId::Mat(T::TYPE),
            "select_flags",
            None,
            r.nnz + 1,
            &[
                Arg::I32(code),
                Arg::I64(k),
                Arg::U64(bits_of(th)),
                Arg::U64(r.rowptr),
                Arg::U64(r.nrows as u64),
                Arg::U64(r.colidx),
                Arg::U64(r.vals),
                Arg::U64(r.nnz as u64),
                flags.arg(),
            ],
        )?;
        Ok(flags)
    }

    /// The pattern a matrix mask over `m` selects: every entry (`structural`)
    /// or the nonzero ones.
    pub(crate) fn mask_pattern_of<T: Scalar>(
        &self,
        m: &CudaMatrix<T>,
        structural: bool,
    ) -> Result<MaskPattern> {
        let owned = |rowptr: DBuf<u32>, colidx: DBuf<u32>| MaskPattern {
            rowptr: rowptr.ptr(),
            colidx: colidx.ptr(),
            _own: Some((rowptr, colidx)),
        };
        Ok(match &m.repr {
            DMat::B2sr { value, .. } if !structural && !value.is_nonzero() => {
                owned(self.dev.zeros(m.nrows + 1)?, self.dev.alloc(0)?)
            }
            DMat::B2sr { pat, .. } => {
                let (rowptr, colidx, _) = self.unpack(pat)?;
                owned(rowptr, colidx)
            }
            DMat::Csr { rowptr, colidx, .. } if structural => MaskPattern {
                rowptr: rowptr.ptr(),
                colidx: colidx.ptr(),
                _own: None,
            },
            DMat::Csr { .. } => {
                let r = self.csr_input(m, false)?;
                // value != 0 (code 7 of select_flags)
                let flags = self.select_flags(&r, 7, 0, T::zero())?;
                let k = self.compact(&r, flags, None, false)?;
                owned(k.rowptr, k.colidx)
            }
        })
    }

    /// `C<mask> = accum(C, T)` with replace (`accum < 0`: none), as
    /// `cpu/writeback.rs::write_matrix`; the result is CSR.
    pub(crate) fn write_matrix<T: Scalar>(
        &self,
        c: &mut CudaMatrix<T>,
        t: CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: i32,
        replace: bool,
    ) -> Result<()> {
        if mask.is_none() && accum < 0 {
            *c = t;
            return Ok(());
        }
        let pat = mask
            .map(|m| {
                m.source
                    .mask_pattern(self, m.structural)
                    .map(|p| (p, m.complemented))
            })
            .transpose()?;
        let (m_rowptr, m_col, comp) = pat
            .as_ref()
            .map_or((0, 0, false), |(p, comp)| (p.rowptr, p.colidx, *comp));
        let cr = self.csr_input(c, false)?;
        let tr = self.csr_input(&t, false)?;
        let id = ModuleId::Mat(T::TYPE);
        let n = cr.nrows;
        let flags = [
            Arg::U64(m_rowptr),
            Arg::U64(m_col),
            Arg::I32(comp as i32),
            Arg::I32(accum),
            Arg::I32(replace as i32),
            Arg::U64(n as u64),
        ];
        let (rowptr, nnz) = self.count_scan(n, |counts| {
            let mut args = vec![
                Arg::U64(cr.rowptr),
                Arg::U64(cr.colidx),
                Arg::U64(tr.rowptr),
                Arg::U64(tr.colidx),
            ];
            args.extend(flags);
            args.push(counts.arg());
            self.dev.run(id, "mat_write_count", None, n, &args)
        })?;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let vals = self.dev.alloc::<T>(nnz)?;
        let mut args = vec![
            Arg::U64(cr.rowptr),
            Arg::U64(cr.colidx),
            Arg::U64(cr.vals),
            Arg::U64(tr.rowptr),
            Arg::U64(tr.colidx),
            Arg::U64(tr.vals),
        ];
        args.extend(flags);
        args.extend([rowptr.arg(), colidx.arg(), vals.arg()]);
        self.dev.run(id, "mat_write_fill", None, n, &args)?;
        drop((cr, tr, pat));
        *c = csr(n, c.ncols, rowptr, colidx, vals, nnz);
        Ok(())
    }

    /// `T = A op B` element-wise (`kind` codes of `ewise_row`).
    fn ewise_raw<T: Scalar>(
        &self,
        kind: i32,
        op: i32,
        alpha: T,
        beta: T,
        a: &CsrRef<T>,
        b: &CsrRef<T>,
    ) -> Result<CudaMatrix<T>> {
        let id = ModuleId::Mat(T::TYPE);
        let n = a.nrows;
        let (rowptr, nnz) = self.count_scan(n, |counts| {
            self.dev.run(
                id,
                "ewise_count",
                None,
                n,
                &[
                    Arg::I32(kind),
                    Arg::U64(a.rowptr),
                    Arg::U64(a.colidx),
                    Arg::U64(b.rowptr),
                    Arg::U64(b.colidx),
                    Arg::U64(n as u64),
                    counts.arg(),
                ],
            )
        })?;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let vals = self.dev.alloc::<T>(nnz)?;
        self.dev.run(
            id,
            "ewise_fill",
            None,
            n,
            &[
                Arg::I32(kind),
                Arg::I32(op),
                Arg::U64(bits_of(alpha)),
                Arg::U64(bits_of(beta)),
                Arg::U64(a.rowptr),
                Arg::U64(a.colidx),
                Arg::U64(a.vals),
                Arg::U64(b.rowptr),
                Arg::U64(b.colidx),
                Arg::U64(b.vals),
                Arg::U64(n as u64),
                rowptr.arg(),
                colidx.arg(),
                vals.arg(),
            ],
        )?;
        Ok(csr(n, a.ncols, rowptr, colidx, vals, nnz))
    }

    /// Rows `src_row` of `a` (`NO_ROW`: empty), each entry in column `j`
    /// repeated at the output columns `map_k[map_ptr[j]..map_ptr[j + 1]]`,
    /// rows sorted afterwards unless `sorted`.
    #[allow(clippy::too_many_arguments)]
    fn map_rows<T: Scalar>(
        &self,
        a: &CsrRef<T>,
        src_row: &[u32],
        ncols_out: usize,
        map_ptr: &[u32],
        map_k: &[u32],
        sorted: bool,
    ) -> Result<CudaMatrix<T>> {
        let id = ModuleId::Mat(T::TYPE);
        let n = src_row.len();
        let (src, ptr, k) = (
            self.dev.upload(src_row)?,
            self.dev.upload(map_ptr)?,
            self.dev.upload(map_k)?,
        );
        let (rowptr, nnz) = self.count_scan(n, |counts| {
            self.dev.run(
                id,
                "map_count",
                None,
                n,
                &[
                    Arg::U64(a.rowptr),
                    src.arg(),
                    Arg::U64(n as u64),
                    Arg::U64(a.colidx),
                    ptr.arg(),
                    counts.arg(),
                ],
            )
        })?;
        let colidx = self.dev.alloc::<u32>(nnz)?;
        let vals = self.dev.alloc::<T>(nnz)?;
        self.dev.run(
            id,
            "map_fill",
            None,
            n,
            &[
                Arg::U64(a.rowptr),
                Arg::U64(a.colidx),
                Arg::U64(a.vals),
                src.arg(),
                Arg::U64(n as u64),
                ptr.arg(),
                k.arg(),
                rowptr.arg(),
                colidx.arg(),
                vals.arg(),
            ],
        )?;
        let t = csr(n, ncols_out, rowptr, colidx, vals, nnz);
        if sorted {
            Ok(t)
        } else {
            self.sort_rows(&CsrRef::owned(t))
        }
    }

    /// The `ewise_matrix` entry point.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ewise_matrix_op<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        kind: EwiseKind<T>,
        a: &CudaMatrix<T>,
        b: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let code = op_code::<T, Op>("ewise_matrix")?;
        let acc = accum_code::<T, A>("ewise_matrix")?;
        let (k, alpha, beta) = ewise_kind(kind);
        let ar = self.csr_input(a, flags.transpose_a)?;
        let br = self.csr_input(b, flags.transpose_b)?;
        let t = self.ewise_raw(k, code, alpha, beta, &ar, &br)?;
        drop((ar, br));
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The `apply_matrix` entry point. A B2SR input with no mask, accumulator
    /// or transpose stays B2SR (its iso value mapped).
    pub(crate) fn apply_matrix_op<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        f: F,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let (code, s) = unary_code(&f)?;
        let acc = accum_code::<T, A>("apply_matrix")?;
        if let (DMat::B2sr { pat, value }, None, true, false) =
            (&a.repr, &mask, acc < 0, flags.transpose_a)
        {
            *c = CudaMatrix {
                nrows: a.nrows,
                ncols: a.ncols,
                repr: DMat::B2sr {
                    pat: self.copy_b2sr(pat)?,
                    value: f.apply(*value),
                },
            };
            return Ok(());
        }
        let r = self.csr_input(a, flags.transpose_a)?;
        let t = self.csr_owned(r)?;
        if let DMat::Csr { vals, nnz, .. } = &t.repr {
            // element by element, in place
            self.dev.run(
                ModuleId::Vec(T::TYPE),
                "vec_apply",
                None,
                *nnz,
                &[
                    Arg::I32(code),
                    Arg::U64(bits_of(s)),
                    vals.arg(),
                    Arg::U64(*nnz as u64),
                    vals.arg(),
                ],
            )?;
        }
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The `select_matrix` entry point on CSR (any input, through `csr_input`).
    pub(crate) fn select_matrix_op<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        pred: P,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let p = pred
            .builtin()
            .ok_or_else(|| super::no_kernel("select_matrix", "a user predicate"))?;
        let acc = accum_code::<T, A>("select_matrix")?;
        let (code, k, th) = select_code(p);
        let r = self.csr_input(a, flags.transpose_a)?;
        let fl = self.select_flags(&r, code, k, th)?;
        let t = self.compact_matrix(&r, fl, None)?;
        drop(r);
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The `scale` entry point: `c_ij = op(d_i, a_ij)` (`rows`) or
    /// `op(a_ij, d_j)`, entries whose `d` is absent dropped; CSR result.
    pub(crate) fn scale_op<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        d: &CudaVector<T>,
        a: &CudaMatrix<T>,
        rows: bool,
    ) -> Result<()> {
        let code = op_code::<T, Op>("scale")?;
        let r = self.csr_input(a, false)?;
        let dv = self.view(d)?;
        let flags = self.dev.alloc::<u32>(r.nnz + 1)?;
        let vals = self.dev.alloc::<T>(r.nnz)?;
        self.dev.run(
            ModuleId::Mat(T::TYPE),
            "scale_flags",
            None,
            r.nnz + 1,
            &[
                Arg::I32(code),
                Arg::I32(rows as i32),
                Arg::U64(dv.vals),
                Arg::U64(dv.pres),
                Arg::U64(r.rowptr),
                Arg::U64(r.nrows as u64),
                Arg::U64(r.colidx),
                Arg::U64(r.vals),
                Arg::U64(r.nnz as u64),
                flags.arg(),
                vals.arg(),
            ],
        )?;
        *c = self.compact_matrix(&r, flags, Some(vals.ptr()))?;
        drop((dv, vals));
        Ok(())
    }

    /// The `extract_matrix` entry point: `C<mask> = accum(C, A(rows, cols))`
    /// (indices may repeat).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn extract_matrix_op<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        a: &CudaMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("extract_matrix")?;
        let r = self.csr_input(a, flags.transpose_a)?;
        let src_row = checked_u32("extract_matrix", rows, r.nrows)?;
        let cols32 = checked_u32("extract_matrix", cols, r.ncols)?;
        // Output positions of each source column, in increasing position.
        let mut map_ptr = vec![0u32; r.ncols + 1];
        for &j in &cols32 {
            map_ptr[j as usize + 1] += 1;
        }
        for j in 0..r.ncols {
            map_ptr[j + 1] += map_ptr[j];
        }
        let mut next = map_ptr.clone();
        let mut map_k = vec![0u32; cols.len()];
        for (k, &j) in cols32.iter().enumerate() {
            map_k[next[j as usize] as usize] = k as u32;
            next[j as usize] += 1;
        }
        let sorted = cols32.windows(2).all(|w| w[0] <= w[1]);
        let mut t = self.map_rows(&r, &src_row, cols.len(), &map_ptr, &map_k, sorted)?;
        drop(r);
        // The entries of an iso-valued input keep its one value: the selection
        // stays iso, and products on it read the column indices alone (PageRank
        // on a relabelled graph extracts its `A'(p, p)`).
        if let (Some(v), DMat::Csr { iso, nnz, .. }) = (iso_value(a), &mut t.repr) {
            *iso = (*nnz > 0).then_some(v);
        }
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The `assign_matrix` entry point: `C(rows, cols)<mask> = accum(C(rows,
    /// cols), A)` (indices distinct, checked by `ops`), as the CPU: inside
    /// the region, old entries go without an accumulator and combine with
    /// `A`'s with one; then `C<mask> = Z` with replace.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assign_matrix_op<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        a: &CudaMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("assign_matrix")?;
        let (nr, nc) = (c.nrows, c.ncols);
        let rows32 = checked_u32("assign_matrix", rows, nr)?;
        let cols32 = checked_u32("assign_matrix", cols, nc)?;
        let mut row_in = vec![NO_ROW; nr];
        for (p, &i) in rows32.iter().enumerate() {
            row_in[i as usize] = p as u32;
        }
        let mut col_in = vec![NO_ROW; nc];
        for (k, &j) in cols32.iter().enumerate() {
            col_in[j as usize] = k as u32;
        }
        // A in C's coordinates: C row i is A row row_in[i]; A column k goes to cols[k].
        let ar = self.csr_input(a, flags.transpose_a)?;
        let map_ptr: Vec<u32> = (0..=cols.len() as u32).collect();
        let sorted = cols32.windows(2).all(|w| w[0] < w[1]);
        let m = self.map_rows(&ar, &row_in, nc, &map_ptr, &cols32, sorted)?;
        drop(ar);
        let mr = CsrRef::owned(m);
        let cr = self.csr_input(c, false)?;
        let z = if acc >= 0 {
            self.ewise_raw(0, acc, T::zero(), T::zero(), &cr, &mr)?
        } else {
            let (ri, ci) = (self.dev.upload(&row_in)?, self.dev.upload(&col_in)?);
            let fl = self.dev.alloc::<u32>(cr.nnz + 1)?;
            self.dev.run(
                ModuleId::Mat(T::TYPE),
                "region_flags",
                None,
                cr.nnz + 1,
                &[
                    Arg::U64(cr.rowptr),
                    Arg::U64(nr as u64),
                    Arg::U64(cr.colidx),
                    Arg::U64(cr.nnz as u64),
                    ri.arg(),
                    ci.arg(),
                    fl.arg(),
                ],
            )?;
            let kept = CsrRef::owned(self.compact_matrix(&cr, fl, None)?);
            // disjoint patterns: the operator is never applied
            self.ewise_raw(
                0,
                BuiltinOp::Second as i32,
                T::zero(),
                T::zero(),
                &kept,
                &mr,
            )?
        };
        drop((cr, mr));
        self.write_matrix(c, z, mask, -1, flags.replace)
    }

    /// `A ⊕.⊗ B` (`A'` with `transpose`) with `B` dense, for any input
    /// format: CSR as stored, B2SR unpacked, transposes on the device. For
    /// the `mxm_dense` entry point (CSR or transposed `A`).
    ///
    /// ```no_run
    /// use bitgraphblas::{algebra::PlusTimes, backend::cuda::CudaBackend, Backend, DenseMatrix, Matrix};
    /// let gpu = CudaBackend::new(0)?;
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 2.0f32), (1, 0, 3.0)])?;
    /// let x = DenseMatrix::from_vec(2, 1, vec![1.0f32, 10.0])?;
    /// let y = gpu.csr_mxm_dense(PlusTimes::<f32>::new(), &gpu.upload_matrix(&a)?, &gpu.upload_dense(&x)?, false)?;
    /// assert_eq!(gpu.download_dense(&y)?.as_slice(), &[20.0, 3.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn csr_mxm_dense<S: Semiring>(
        &self,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        transpose: bool,
    ) -> Result<CudaDense<S::T>> {
        let ModuleId::Sr(kind, _) = kernel_of::<S>("mxm_dense")? else {
            unreachable!("semiring modules are ModuleId::Sr")
        };
        let (add, mul) = semiring_ops(kind);
        let r = self.csr_input(a, transpose)?;
        let nf = b.ncols;
        let out = self.dev.alloc::<S::T>(r.nrows * nf)?;
        self.dev.run(
            ModuleId::Mat(<S::T as Scalar>::TYPE),
            "csr_mxm_dense",
            None,
            r.nrows * nf,
            &[
                Arg::I32(add as i32),
                Arg::I32(mul as i32),
                Arg::U64(bits_of(s.zero())),
                Arg::U64(r.rowptr),
                Arg::U64(r.colidx),
                Arg::U64(r.vals),
                Arg::U64(r.nrows as u64),
                b.data.arg(),
                Arg::U64(nf as u64),
                out.arg(),
            ],
        )?;
        Ok(CudaDense {
            nrows: r.nrows,
            ncols: nf,
            data: out,
        })
    }

    /// The whole `mxm_dense` entry point on the CSR path: `C = accum(C, A ⊕.⊗ B)`
    /// (`A'` with `flags.transpose_a`). Call it through [`crate::ops`] once
    /// that entry point is wired to it.
    #[doc(hidden)]
    pub fn mxm_dense_csr_into<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<S::T, A>("mxm_dense")?;
        let t = self.csr_mxm_dense(s, a, b, flags.transpose_a)?;
        if acc < 0 {
            *c = t;
            return Ok(());
        }
        let n = t.nrows * t.ncols;
        self.dev.run(
            ModuleId::Vec(<S::T as Scalar>::TYPE),
            "dense_accum",
            None,
            n,
            &[
                Arg::I32(acc),
                t.data.arg(),
                Arg::U64(n as u64),
                c.data.arg(),
            ],
        )
    }

    /// Column reductions (`reduce_rows` with `transpose_a`): the rows of `A'`,
    /// as device CSR for `reduce_rows_csr`.
    pub(crate) fn reduce_input<T: Scalar>(&self, a: &CudaMatrix<T>) -> Result<CsrRef<T>> {
        self.csr_input(a, true)
    }
}

impl<T> CsrRef<T> {
    /// Row pointers, values and row count (for the row-reduction kernel).
    pub(crate) fn rows_vals(&self) -> (u64, u64, usize) {
        (self.rowptr, self.vals, self.nrows)
    }
}
