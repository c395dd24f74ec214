//! Element-wise matrix operations on CSR: `ewise_add`/`ewise_mult`/
//! `ewise_union` (count, scan, fill), `apply`, `select` by flags and
//! compaction, and diagonal scaling `scale`.

use super::super::codes::{accum_code, op_code, select_code, unary_code};
use super::super::device::bits_of;
use super::super::launch::{mat, vec};
use super::super::mem::{no_kernel, CsrVals, DMat};
use super::super::vector::ewise_kind;
use super::super::{CudaBackend, CudaMatrix, CudaVector};
use super::CsrRef;
use crate::algebra::{BinaryOp, IndexUnaryOp, UnaryOp};
use crate::backend::EwiseKind;
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// `T = A op B` element-wise (`kind` codes of `ewise_row`).
    pub(super) fn ewise_raw<T: Scalar>(
        &self,
        kind: i32,
        op: i32,
        alpha: T,
        beta: T,
        a: &CsrRef<T>,
        b: &CsrRef<T>,
    ) -> Result<CudaMatrix<T>> {
        let n = a.nrows;
        self.count_fill(
            n,
            a.ncols,
            |counts| {
                mat::ewise_count::<T>(
                    kind,
                    a.rowptr,
                    a.colidx,
                    b.rowptr,
                    b.colidx,
                    n as u64,
                    counts.ptr(),
                )
                .run(&self.dev, n)
            },
            |rowptr, colidx, vals| {
                mat::ewise_fill(
                    kind,
                    op,
                    bits_of(alpha),
                    bits_of(beta),
                    a.rowptr,
                    a.colidx,
                    a.vals,
                    b.rowptr,
                    b.colidx,
                    b.vals,
                    n as u64,
                    rowptr,
                    colidx,
                    vals,
                )
                .run(&self.dev, n)
            },
        )
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
        let (code, s) = unary_code(&f, "apply")?;
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
        if let DMat::Csr {
            pat,
            vals: CsrVals::Each(vals),
        } = &t.repr
        {
            // element by element, in place (`t` is this operation's own)
            vec::vec_apply(code, bits_of(s), vals.ptr(), pat.nnz as u64, vals.ptr())
                .run(&self.dev, pat.nnz)?;
        }
        self.write_matrix(c, t, mask, acc, flags.replace)
    }

    /// The `select_matrix` entry point: a structural predicate on a B2SR
    /// input with no mask, accumulator or transpose keeps a B2SR result
    /// (`b2sr/select.rs`); every other case goes through CSR (any input,
    /// through `csr_input`).
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
            .ok_or_else(|| no_kernel("select_matrix", "a user predicate"))?;
        if mask.is_none() && !A::ACTIVE && !flags.transpose_a {
            if let Some(t) = self.select_b2sr(&pred, p, a)? {
                *c = t;
                return Ok(());
            }
        }
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
        mat::scale_flags(
            code,
            rows,
            dv.vals,
            dv.pres,
            r.rowptr,
            r.nrows as u64,
            r.colidx,
            r.vals,
            r.nnz as u64,
            flags.ptr(),
            vals.ptr(),
        )
        .run(&self.dev, r.nnz + 1)?;
        *c = self.compact_matrix(&r, flags, Some(vals.ptr()))?;
        drop((dv, vals));
        Ok(())
    }
}
