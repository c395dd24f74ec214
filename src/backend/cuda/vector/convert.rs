//! New device vectors, conversions between the vector forms (dense, packed
//! bits, sparse) and entry counts.

use super::super::device::DevPtr;
use super::super::launch::{pack, vec};
use super::super::mem::{bit_words, DVec};
use super::super::{CudaBackend, CudaVector};
use crate::backend::Backend;
use crate::container::VectorFormat;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

impl CudaBackend {
    /// The `vector_new` entry point.
    pub(crate) fn vector_new_op<T: Scalar>(
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

    /// The `convert_vector` entry point.
    pub(crate) fn convert_vector_op<T: Scalar>(
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
                    DVec::Sparse { vals, nnz, .. } => (vals.ptr(), DevPtr::null(), *nnz),
                    _ => (view.vals, view.pres, n),
                };
                if self.count_ne(cnt_vals, cnt_pres, cnt_n, T::one())? > 0 {
                    return Err(Error::invalid(
                        "convert_vector",
                        "packed bits hold only entries equal to one",
                    ));
                }
                let bits = if view.pres.is_null() {
                    self.ones_bits(n)?
                } else {
                    let out = self.dev.alloc::<u32>(bit_words(n))?;
                    vec::vec_mask::<T>(DevPtr::null(), view.pres, n as u64, true, false, out.ptr())
                        .run(&self.dev, bit_words(n) * 32)?;
                    out
                };
                DVec::Bits(bits)
            }
            VectorFormat::Sparse => {
                let view = self.view(v)?;
                let flags = self.dev.alloc::<u32>(n + 1)?;
                pack::pres_flags(view.pres, n as u64, flags.ptr()).run(&self.dev, n + 1)?;
                self.dev.scan(&flags, n + 1)?;
                let nnz = self.dev.read_u32(&flags, n)? as usize;
                let idx = self.dev.alloc::<u32>(nnz)?;
                let vals = self.dev.alloc::<T>(nnz)?;
                vec::vec_compact(
                    view.vals,
                    view.pres,
                    flags.ptr(),
                    n as u64,
                    idx.ptr(),
                    vals.ptr(),
                )
                .run(&self.dev, n)?;
                DVec::Sparse { idx, vals, nnz }
            }
        };
        Ok(CudaVector { len: n, repr })
    }

    /// The `vector_nvals` entry point (a bit count on the device where
    /// there are presence bits).
    pub(crate) fn vector_nvals_op<T: Scalar>(&self, v: &CudaVector<T>) -> Result<usize> {
        Ok(match &v.repr {
            DVec::Dense { pres: None, .. } => v.len,
            DVec::Dense { pres: Some(p), .. } => self.popc(p.ptr(), bit_words(v.len))? as usize,
            DVec::Bits(b) => self.popc(b.ptr(), bit_words(v.len))? as usize,
            DVec::Sparse { nnz, .. } => *nnz,
        })
    }
}
