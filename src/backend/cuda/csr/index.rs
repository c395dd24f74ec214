//! Indexed matrix operations on CSR: `extract` (`C = A(rows, cols)`,
//! indices may repeat) and `assign` (`C(rows, cols) = A`, indices distinct),
//! both as a map of source rows and columns, with the inverse maps built on
//! the host.

use super::super::codes::{accum_code, ACCUM_NONE, OP_SECOND};
use super::super::launch::mat;
use super::super::mem::{CsrVals, DMat};
use super::super::vector::checked_u32;
use super::super::{CudaBackend, CudaMatrix};
use super::CsrRef;
use crate::container::{Accumulate, Flags, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;

/// "No row / no column" in the index maps of `cuda/matrix.cu`.
const NO_ROW: u32 = u32::MAX;

/// The one (nonzero) value every stored entry of `a` holds, where the matrix
/// records it: CSR uploaded or converted with one value, or B2SR.
fn iso_value<T: Scalar>(a: &CudaMatrix<T>) -> Option<T> {
    match &a.repr {
        DMat::Csr { vals, .. } => vals.iso(),
        DMat::B2sr { value, .. } => value.is_nonzero().then_some(*value),
    }
}

impl CudaBackend {
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
        let n = src_row.len();
        let (src, ptr, k) = (
            self.dev.upload(src_row)?,
            self.dev.upload(map_ptr)?,
            self.dev.upload(map_k)?,
        );
        let t = self.count_fill(
            n,
            ncols_out,
            |counts| {
                mat::map_count::<T>(
                    a.rowptr,
                    src.ptr(),
                    n as u64,
                    a.colidx,
                    ptr.ptr(),
                    counts.ptr(),
                )
                .run(&self.dev, n)
            },
            |rowptr, colidx, vals| {
                mat::map_fill(
                    a.rowptr,
                    a.colidx,
                    a.vals,
                    src.ptr(),
                    n as u64,
                    ptr.ptr(),
                    k.ptr(),
                    rowptr,
                    colidx,
                    vals,
                )
                .run(&self.dev, n)
            },
        )?;
        if sorted {
            Ok(t)
        } else {
            self.sort_rows(&CsrRef::owned(t))
        }
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
        if let (Some(v), DMat::Csr { pat, vals }) = (iso_value(a), &mut t.repr) {
            if pat.nnz > 0 {
                *vals = CsrVals::Iso(v);
            }
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
            mat::region_flags::<T>(
                cr.rowptr,
                nr as u64,
                cr.colidx,
                cr.nnz as u64,
                ri.ptr(),
                ci.ptr(),
                fl.ptr(),
            )
            .run(&self.dev, cr.nnz + 1)?;
            let kept = CsrRef::owned(self.compact_matrix(&cr, fl, None)?);
            // disjoint patterns: the operator is never applied
            self.ewise_raw(0, OP_SECOND, T::zero(), T::zero(), &kept, &mr)?
        };
        drop((cr, mr));
        self.write_matrix(c, z, mask, ACCUM_NONE, flags.replace)
    }
}
