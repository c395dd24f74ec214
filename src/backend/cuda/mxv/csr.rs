//! `mxv` on CSR (`cuda/sr.cu`): the merge path for every semiring but LOR
//! and ANY, which keep the row-group kernel (a row stops at its first hit),
//! with long rows cut into chunks for whole warps.

use super::super::device::{bits_of, DevPtr};
use super::super::launch::{sr, Sr};
use super::super::mem::{CsrParts, MergePlan};
use super::super::CudaBackend;
use super::Io;
use crate::algebra::SemiringKind;
use crate::error::Result;
use crate::scalar::Scalar;
use std::sync::OnceLock;

/// Items (row ends and entries) per warp of the CSR merge-path product
/// (`MERGE_D = 32 * MERGE_E` in `cuda/sr.cu`, 6 items a lane).
const CSR_MERGE_ITEMS: usize = 192;

/// The matrix of a CSR product: row pointers, columns, values (NULL when
/// iso) and the iso value's bits.
pub(crate) type CsrOperand<T> = (DevPtr<u32>, DevPtr<u32>, DevPtr<T>, u64);

/// The operand of the product kernels: the values are not read when every
/// entry holds the iso value.
pub(crate) fn operand<T: Scalar>(
    (rowptr, colidx, vals, _, iso, _): CsrParts<'_, T>,
) -> CsrOperand<T> {
    match iso {
        Some(x) => (rowptr.ptr(), colidx.ptr(), DevPtr::null(), bits_of(x)),
        None => (rowptr.ptr(), colidx.ptr(), vals.ptr(), 0),
    }
}

impl CudaBackend {
    /// `out = A ⊕.⊗ u` on CSR into zeroed presence: a group of lanes per row
    /// (as many as the average row length, 2 to 32), and rows longer than
    /// `long_min` entries cut into chunks of that many entries for whole
    /// warps, whose partials `csr_mxv_fix` folds in order (hub rows of
    /// power-law graphs no longer serialise on one warp). With `iso` (every
    /// entry holds that value) the values are not read. With `accum >= 0`
    /// the output is a full vector and each row with an entry in the product
    /// is folded into it in place (`out_pres` is then unused).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn csr_mxv<T: Scalar>(
        &self,
        m: Sr<T>,
        a: CsrParts<'_, T>,
        nrows: usize,
        io: Io<T>,
        accum: i32,
    ) -> Result<()> {
        let ((u_vals, u_pres), allowed, (out_vals, out_pres)) = (io.u, io.allowed, io.out);
        let (nnz, plan) = (a.3, &a.5.merge);
        let (rowptr, colidx, avals, isobits) = operand(a);
        // LOR and ANY stop a row at its first hit: the row kernel keeps them.
        // Every other semiring takes the merge path: measured on the H100
        // (`gpu_bench`, f32 PLUS.TIMES, both in one run) the row-group kernel
        // is slower on all nine graphs of the benchmark, also where rows are
        // long (ego-Twitter 0.047 against 0.029 ms, cnr-2000 0.056 against
        // 0.033, R-MAT 18 0.096 against 0.060).
        if !matches!(
            m.kind(),
            Some(SemiringKind::LorLand | SemiringKind::AnyPair)
        ) {
            return self.csr_mxv_merge(
                m,
                (rowptr, colidx, avals, isobits),
                plan,
                nnz,
                nrows,
                Io {
                    u: (u_vals, u_pres),
                    allowed,
                    out: (out_vals, out_pres),
                },
                accum,
                None,
            );
        }
        let avg = nnz / nrows.max(1);
        let vlog = (usize::BITS - 1 - avg.max(1).leading_zeros()).clamp(1, 5);
        let long_min = (32u32 << vlog).max(256);
        let n = nrows as u64;
        sr::csr_mxv(
            m, rowptr, colidx, avals, isobits, n, u_vals, u_pres, allowed, out_vals, out_pres,
            vlog, long_min, accum,
        )
        .run(&self.dev, nrows.div_ceil(32 >> vlog) * 32)?;
        // no row can be long when the whole matrix is not
        if nnz <= long_min as usize {
            return Ok(());
        }
        let nchunks = nnz.div_ceil(long_min as usize);
        let part_vals = self.dev.alloc::<T>(2 * nchunks)?;
        let part_has = self.dev.alloc::<u8>(2 * nchunks)?;
        let (pv, ph) = (part_vals.ptr(), part_has.ptr());
        sr::csr_mxv_long(
            m, rowptr, colidx, avals, isobits, n, nnz as u32, u_vals, u_pres, allowed, long_min,
            pv, ph,
        )
        .run(&self.dev, nchunks * 32)?;
        sr::csr_mxv_fix(m, rowptr, n, long_min, pv, ph, out_vals, out_pres, accum)
            .run(&self.dev, nrows)
    }

    /// [`Self::csr_mxv`] by the merge path (`cuda/csr_merge.cu`), into
    /// zeroed presence: the row ends and the entries merged and cut into
    /// equal chunks of `CSR_MERGE_ITEMS` items, a warp per chunk, so every
    /// lane does the same work whatever the row lengths (power-law rows,
    /// empty rows). Rows crossing chunks are folded by `csr_merge_fix` (a
    /// lane per chunk) in a fixed order: deterministic. The chunks' first
    /// rows and the pieces' scratch are made at the matrix's first product
    /// and kept with it (`plan`): a product is two launches, no allocation.
    /// `affine = Some((d, c))` as in [`Self::b2sr_mxv_fused`]: the gather
    /// reads `d_j ⊗ u_j`, every row becomes `c ⊕ value` (the output full,
    /// not read).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn csr_mxv_merge<T: Scalar>(
        &self,
        m: Sr<T>,
        (rowptr, colidx, avals, isobits): CsrOperand<T>,
        plan: &OnceLock<MergePlan>,
        nnz: usize,
        nrows: usize,
        io: Io<T>,
        accum: i32,
        affine: Option<(DevPtr<T>, u64)>,
    ) -> Result<()> {
        let ((u_vals, u_pres), allowed, (out_vals, out_pres)) = (io.u, io.allowed, io.out);
        let (d_vals, cbits) = affine.unwrap_or((DevPtr::null(), 0));
        let affine = affine.is_some();
        let plan = self.merge_plan(m, plan, rowptr, nnz, nrows)?;
        if plan.nchunks == 0 {
            return Ok(());
        }
        let (n, nc) = (nrows as u64, plan.nchunks as u64);
        let (start, pv, ph) = (
            plan.start_row.ptr(),
            plan.part_vals.ptr().cast::<T>(),
            plan.part_has.ptr(),
        );
        sr::csr_mxv_merge(
            m, rowptr, colidx, avals, isobits, n, nnz as u64, u_vals, u_pres, allowed, out_vals,
            out_pres, accum, start, nc, pv, ph, d_vals, affine, cbits,
        )
        .run(&self.dev, plan.nchunks * 32)?;
        sr::csr_merge_fix(
            m, rowptr, n, start, nc, pv, ph, allowed, out_vals, out_pres, accum, affine, cbits,
        )
        .run(&self.dev, plan.nchunks.next_multiple_of(32))
    }

    /// The matrix's merge plan, made at its first product: each chunk's
    /// first row (`csr_merge_start`, the merge-path search) and the scratch
    /// of the pieces of rows crossing chunks (two slots a chunk).
    fn merge_plan<'a, T: Scalar>(
        &self,
        m: Sr<T>,
        cell: &'a OnceLock<MergePlan>,
        rowptr: DevPtr<u32>,
        nnz: usize,
        nrows: usize,
    ) -> Result<&'a MergePlan> {
        if let Some(p) = cell.get() {
            return Ok(p);
        }
        let nchunks = (nrows + nnz).div_ceil(CSR_MERGE_ITEMS);
        let start_row = self.dev.alloc::<u32>(nchunks + 1)?;
        if nchunks > 0 {
            sr::csr_merge_start(
                m,
                rowptr,
                nrows as u64,
                nnz as u64,
                nchunks as u64,
                start_row.ptr(),
            )
            .run(&self.dev, nchunks + 1)?;
        }
        let plan = MergePlan {
            nchunks,
            start_row,
            part_vals: self.dev.alloc(2 * nchunks)?,
            part_has: self.dev.alloc(2 * nchunks)?,
        };
        Ok(cell.get_or_init(|| plan))
    }
}
