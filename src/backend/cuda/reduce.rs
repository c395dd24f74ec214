//! Reductions on the device: a vector or a matrix's entries to one value
//! (two block-level passes), and the rows or columns of a matrix to a vector.

use super::codes::{accum_code, op_code};
use super::device::{bits_of, DevPtr};
use super::launch::vec;
use super::mem::{bit_words, DMat, DVec};
use super::transfer::from_bytes;
use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::Monoid;
use crate::backend::Backend;
use crate::container::{Accumulate, Flags, Mask};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// `op` over the `n` present values at `vals` (`pres`: presence bits or
    /// NULL), read back.
    fn reduce_raw<T: Scalar>(
        &self,
        op: i32,
        vals: DevPtr<T>,
        pres: DevPtr<u32>,
        n: usize,
    ) -> Result<T> {
        if n == 0 {
            // identity, computed on the device like every other reduction
            let one = self.dev.alloc::<T>(1)?;
            vec::vec_reduce(
                op,
                DevPtr::null(),
                DevPtr::null(),
                0,
                one.ptr(),
                DevPtr::null(),
            )
            .grid(&self.dev, 1, 256)?;
            let b = self.dev.download_bytes(&one, 1)?;
            return Ok(from_bytes::<T>(&b, 1)[0]);
        }
        let blocks = n.div_ceil(4096).clamp(1, 1024);
        let partials = self.dev.alloc::<T>(blocks)?;
        let part_pres = self.dev.zeros::<u32>(blocks.div_ceil(32))?;
        vec::vec_reduce(op, vals, pres, n as u64, partials.ptr(), part_pres.ptr()).grid(
            &self.dev,
            blocks as u32,
            256,
        )?;
        let out = self.dev.alloc::<T>(1)?;
        vec::vec_reduce(
            op,
            partials.ptr(),
            part_pres.ptr(),
            blocks as u64,
            out.ptr(),
            DevPtr::null(),
        )
        .grid(&self.dev, 1, 256)?;
        let b = self.dev.download_bytes(&out, 1)?;
        Ok(from_bytes::<T>(&b, 1)[0])
    }

    /// The `reduce_vector` entry point.
    pub(crate) fn reduce_vector_op<T: Scalar, M: Monoid<T>>(&self, u: &CudaVector<T>) -> Result<T> {
        let code = op_code::<T, M>("reduce_vector")?;
        match &u.repr {
            DVec::Sparse { vals, nnz, .. } => {
                self.reduce_raw(code, vals.ptr(), DevPtr::null(), *nnz)
            }
            _ => {
                let v = self.view(u)?;
                self.reduce_raw(code, v.vals, v.pres, u.len)
            }
        }
    }

    /// The `reduce_matrix` entry point (a B2SR matrix: its entry count,
    /// folded on the host as the CPU backend does).
    pub(crate) fn reduce_matrix_op<T: Scalar, M: Monoid<T>>(
        &self,
        monoid: M,
        a: &CudaMatrix<T>,
    ) -> Result<T> {
        let code = op_code::<T, M>("reduce_matrix")?;
        match &a.repr {
            DMat::Csr { .. } => {
                // an iso matrix's value filled in: the device's order of
                // folds whatever the storage
                let r = self.csr_input(a, false)?;
                self.reduce_raw(code, r.vals, DevPtr::null(), r.nnz)
            }
            DMat::B2sr { value, .. } => {
                // Every entry equals `value`: count them on the device, then fold
                // the count as the CPU backend does.
                let n = self.matrix_nvals(a)?;
                Ok(monoid.fold_repeated(*value, n))
            }
        }
    }

    /// The `reduce_rows` entry point (columns with `transpose_a`: the rows
    /// of `A'`, transposed on the device).
    pub(crate) fn reduce_rows_op<T: Scalar, M: Monoid<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let code = op_code::<T, M>("reduce_rows")?;
        let acc = accum_code::<T, A>("reduce_rows")?;
        let allowed = self.allowed(mask)?;
        // Column reductions: the rows of A', transposed on the device.
        let at = flags
            .transpose_a
            .then(|| self.csr_input(a, true))
            .transpose()?;
        let n = at.as_ref().map_or(a.nrows, |t| t.nrows);
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        let work = bit_words(n) * 32;
        match (&at, &a.repr) {
            (Some(t), _) => {
                vec::reduce_rows_csr(code, t.rowptr, t.vals, n as u64, vals.ptr(), pres.ptr())
                    .run(&self.dev, work)?;
            }
            (None, DMat::B2sr { pat, value }) => {
                let lens = self.b2sr_row_lens(pat)?;
                vec::reduce_rows_iso(
                    code,
                    bits_of(*value),
                    lens.ptr(),
                    n as u64,
                    vals.ptr(),
                    pres.ptr(),
                )
                .run(&self.dev, work)?;
            }
            (None, DMat::Csr { .. }) => {
                // an iso matrix's value filled in
                let r = self.csr_input(a, false)?;
                vec::reduce_rows_csr(code, r.rowptr, r.vals, n as u64, vals.ptr(), pres.ptr())
                    .run(&self.dev, work)?;
            }
        }
        drop(at);
        let t = self.dense_vec(n, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }
}
