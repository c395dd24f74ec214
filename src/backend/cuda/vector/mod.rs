//! Device vectors: dense views of any form, the conversions between forms,
//! and the small building blocks the vector operations share (fills,
//! scatters, bit counts).

mod convert;
mod elementwise;
mod index;
mod writeback;

pub(crate) use elementwise::ewise_kind;

use super::device::{bits_of, DBuf, DevPtr};
use super::launch::{pack, vec};
use super::mem::{bit_words, DVec};
use super::{CudaBackend, CudaVector};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A dense view of a device vector: values and presence bits (NULL = all
/// one / all present), with temporaries kept alive.
pub(crate) struct View<T> {
    pub vals: DevPtr<T>,
    pub pres: DevPtr<u32>,
    _tmp: Option<(DBuf<T>, DBuf<u32>)>,
}

impl CudaBackend {
    /// `v` as dense values and presence bits (a sparse vector is scattered
    /// into temporaries).
    pub(crate) fn view<T: Scalar>(&self, v: &CudaVector<T>) -> Result<View<T>> {
        Ok(match &v.repr {
            DVec::Dense { vals, pres } => View {
                vals: vals.ptr(),
                pres: super::device::opt_ptr(pres.as_ref()),
                _tmp: None,
            },
            DVec::Bits(b) => View {
                vals: DevPtr::null(),
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

    /// Sparse entries as new dense values and presence bits of length `n`.
    pub(crate) fn scatter<T: Scalar>(
        &self,
        idx: &DBuf<u32>,
        vals: &DBuf<T>,
        nnz: usize,
        n: usize,
    ) -> Result<(DBuf<T>, DBuf<u32>)> {
        let dv = self.fill(n, T::zero())?;
        let dp = self.dev.zeros::<u32>(bit_words(n))?;
        vec::sparse_scatter(idx.ptr(), vals.ptr(), nnz as u64, dv.ptr(), dp.ptr())
            .run(&self.dev, nnz)?;
        Ok((dv, dp))
    }

    /// A new buffer of `n` copies of `x`.
    pub(crate) fn fill<T: Scalar>(&self, n: usize, x: T) -> Result<DBuf<T>> {
        let b = self.dev.alloc::<T>(n)?;
        vec::vec_fill(b.ptr(), n as u64, bits_of(x)).run(&self.dev, n)?;
        Ok(b)
    }

    /// `n` set bits.
    pub(crate) fn ones_bits(&self, n: usize) -> Result<DBuf<u32>> {
        let z = self.dev.zeros::<u32>(bit_words(n))?;
        let out = self.dev.alloc::<u32>(bit_words(n))?;
        pack::bits_not(z.ptr(), n as u64, bit_words(n) as u64, out.ptr())
            .run(&self.dev, bit_words(n))?;
        Ok(out)
    }

    /// The set bits of `nwords` words.
    pub(crate) fn popc(&self, words: DevPtr<u32>, nwords: usize) -> Result<u64> {
        let total = self.dev.zeros::<u64>(1)?;
        pack::popc_words(words, nwords as u64, total.ptr()).run(&self.dev, nwords)?;
        self.dev.read_u64(&total)
    }

    /// How many present values of the first `n` differ from `x`.
    pub(crate) fn count_ne<T: Scalar>(
        &self,
        vals: DevPtr<T>,
        pres: DevPtr<u32>,
        n: usize,
        x: T,
    ) -> Result<u64> {
        let bad = self.dev.zeros::<u64>(1)?;
        vec::count_ne(vals, pres, n as u64, bits_of(x), bad.ptr()).run(&self.dev, n)?;
        self.dev.read_u64(&bad)
    }

    /// A dense vector of length `n` with presence bits.
    pub(crate) fn dense_vec<T: Scalar>(
        &self,
        n: usize,
        vals: DBuf<T>,
        pres: DBuf<u32>,
    ) -> CudaVector<T> {
        CudaVector {
            len: n,
            repr: DVec::Dense {
                vals,
                pres: Some(pres),
            },
        }
    }

    /// A device copy of `v` in its own form.
    pub(crate) fn copy_vector<T: Scalar>(&self, v: &CudaVector<T>) -> Result<CudaVector<T>> {
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
    pub(crate) fn owned_dense<T: Scalar>(&self, v: &CudaVector<T>) -> Result<(DBuf<T>, DBuf<u32>)> {
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
                vec::bits_to_vals(b.ptr(), n as u64, vals.ptr()).run(&self.dev, n)?;
                (vals, self.dev.copy(b)?)
            }
            DVec::Sparse { idx, vals, nnz } => self.scatter(idx, vals, *nnz, n)?,
        })
    }

    /// Host indices as a device `u32` array, each checked against `bound`.
    pub(crate) fn upload_indices(&self, indices: &[usize], bound: usize) -> Result<DBuf<u32>> {
        self.dev
            .upload(&checked_u32("cuda indices", indices, bound)?)
    }
}

/// Host indices as `u32`, each below `bound` (else an index error for `op`).
pub(crate) fn checked_u32(op: &'static str, idx: &[usize], bound: usize) -> Result<Vec<u32>> {
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
