//! `mxm_reduce` on CSR (`cuda/csr_dot.cu`): `⊕` over `(op(A) ⊕.⊗ op(B))<M>`
//! as one dot product per mask entry, for every built-in semiring and any
//! format of operands and mask (B2SR ones are unpacked on the device). The
//! B2SR count kernels (`b2sr/reduce.rs`) take `PLUS.PAIR`/`PLUS.TIMES` on
//! B2SR operands and masks; everything else comes here.

use super::super::launch::{sr, Sr};
use super::super::mem::{bit_words, DVec};
use super::super::{CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::Semiring;
use crate::backend::Backend;
use crate::container::{Flags, Matrix, MatrixMask, NoAccum};
use crate::error::Result;

impl CudaBackend {
    /// `⊕` over `(op(A) ⊕.⊗ op(B))<M>`: a warp per row of the mask's pattern,
    /// each entry `(i, j)` the merge of the sorted rows `op(A)(i,:)` and
    /// `op(B)'(j,:)`, then the rows' results reduced with the monoid. A
    /// complemented mask selects nearly the whole product: the masked product
    /// is formed (`mxm`) and its entries reduced.
    pub(crate) fn mxm_reduce_csr<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        let op = "mxm_reduce";
        let m = Sr::of(&s, op)?;
        if mask.complemented {
            return self.mxm_reduce_formed(mask, s, a, b, flags);
        }
        let ar = self.csr_product_input(a, flags.transpose_a)?;
        // The rows of Bt are the columns of op(B).
        let bt = self.csr_product_input(b, !flags.transpose_b)?;
        let pattern = mask.source.mask_pattern(self, mask.structural)?;
        let (m_rowptr, m_colidx) = pattern.arrays();
        let n = ar.nrows;
        if n == 0 {
            return Ok(s.zero());
        }
        let vals = self.dev.alloc::<S::T>(n)?;
        let pres = self.dev.zeros::<u32>(bit_words(n))?;
        sr::csr_mxm_reduce_dot(
            m,
            m_rowptr,
            m_colidx,
            n as u64,
            ar.rowptr,
            ar.colidx,
            ar.vals,
            ar.isobits,
            bt.rowptr,
            bt.colidx,
            bt.vals,
            bt.isobits,
            vals.ptr(),
            pres.ptr(),
        )
        .run(&self.dev, n * 32)?;
        let rows = CudaVector {
            len: n,
            repr: DVec::Dense {
                vals,
                pres: Some(pres),
            },
        };
        self.reduce_vector_op::<S::T, S::Add>(&rows)
    }

    /// `⊕` over the entries of the product `C<M> = op(A) ⊕.⊗ op(B)`, formed
    /// in device memory and dropped.
    fn mxm_reduce_formed<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        let nrows = if flags.transpose_a { a.ncols } else { a.nrows };
        let ncols = if flags.transpose_b { b.nrows } else { b.ncols };
        let mut c = self.upload_matrix(&Matrix::<S::T>::empty(nrows, ncols))?;
        self.mxm(&mut c, Some(mask), NoAccum, s, a, b, flags)?;
        self.reduce_matrix_op(s.add_op(), &c)
    }
}
