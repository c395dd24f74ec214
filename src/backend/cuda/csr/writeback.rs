//! The output phase of CSR matrix operations: `C<mask> = accum(C, T)` with
//! replace (as `cpu/writeback.rs::write_matrix`), and the pattern a matrix
//! mask selects, as device CSR.

use super::super::codes::SELECT_VALUE_NE;
use super::super::device::{DBuf, DevPtr};
use super::super::launch::mat;
use super::super::mem::DMat;
use super::super::{CudaBackend, CudaMatrix};
use crate::container::MatrixMask;
use crate::error::Result;
use crate::scalar::Scalar;

/// The pattern a matrix mask selects, as device CSR (row pointers and sorted
/// columns), kept alive while an operation uses it.
#[doc(hidden)]
pub struct MaskPattern {
    rowptr: DevPtr<u32>,
    colidx: DevPtr<u32>,
    _own: Option<(DBuf<u32>, DBuf<u32>)>,
}

impl MaskPattern {
    /// The row pointers and the sorted column indices.
    pub(crate) fn arrays(&self) -> (DevPtr<u32>, DevPtr<u32>) {
        (self.rowptr, self.colidx)
    }
}

impl CudaBackend {
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
            DMat::Csr { pat, .. } if structural => MaskPattern {
                rowptr: pat.rowptr.ptr(),
                colidx: pat.colidx.ptr(),
                _own: None,
            },
            DMat::Csr { .. } => {
                let r = self.csr_input(m, false)?;
                // value != 0
                let flags = self.select_flags(&r, SELECT_VALUE_NE, 0, T::zero())?;
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
            .map_or((DevPtr::null(), DevPtr::null(), false), |(p, comp)| {
                (p.rowptr, p.colidx, *comp)
            });
        let cr = self.csr_input(c, false)?;
        let tr = self.csr_input(&t, false)?;
        let n = cr.nrows;
        let out = self.count_fill(
            n,
            c.ncols,
            |counts| {
                mat::mat_write_count::<T>(
                    cr.rowptr,
                    cr.colidx,
                    tr.rowptr,
                    tr.colidx,
                    m_rowptr,
                    m_col,
                    comp,
                    accum,
                    replace,
                    n as u64,
                    counts.ptr(),
                )
                .run(&self.dev, n)
            },
            |rowptr, colidx, vals| {
                mat::mat_write_fill(
                    cr.rowptr, cr.colidx, cr.vals, tr.rowptr, tr.colidx, tr.vals, m_rowptr, m_col,
                    comp, accum, replace, n as u64, rowptr, colidx, vals,
                )
                .run(&self.dev, n)
            },
        )?;
        drop((cr, tr, pat));
        *c = out;
        Ok(())
    }
}
