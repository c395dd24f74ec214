//! Matrix operations with a B2SR result on the device (`cuda/mxm.cu`,
//! `cuda/transpose.cu`, `cuda/pack.cu`): products, transposes, structural
//! selection, the masked, accumulating write of a B2SR result they share,
//! and the masked count of `mxm_reduce`.
//!
//! A B2SR result holds one iso value, so these run where the result's values
//! are all one value: an idempotent `⊕` (LOR, ANY, MIN, MAX: every entry of
//! `A ⊕.⊗ B` is `a ⊗ b`), and a mask/accumulator that keeps `C`'s entries
//! only where those carry the same value. Other cases return
//! [`Error::NoKernel`](crate::Error::NoKernel).
//!
//! This file holds the operand orientation shared by the operations.

mod mxm;
mod reduce;
mod select;
mod transpose;
mod writeback;

use std::ops::Deref;

use super::mem::DevB2sr;
use super::CudaBackend;
use crate::error::Result;

/// A pattern as given, or transposed (or repacked) into a temporary.
pub(crate) enum Oriented<'a> {
    Given(&'a DevB2sr),
    Made(Box<DevB2sr>),
}

impl Deref for Oriented<'_> {
    type Target = DevB2sr;
    fn deref(&self) -> &DevB2sr {
        match self {
            Oriented::Given(p) => p,
            Oriented::Made(p) => p,
        }
    }
}

impl CudaBackend {
    /// `op(p)`: `p`, or its transpose computed on the device.
    pub(crate) fn oriented<'a>(&self, p: &'a DevB2sr, transpose: bool) -> Result<Oriented<'a>> {
        Ok(if transpose {
            Oriented::Made(Box::new(self.b2sr_transpose(p)?))
        } else {
            Oriented::Given(p)
        })
    }

    /// `p` at tile size `k` (repacked on the device when it differs).
    fn at_tile_size<'a>(&self, p: &'a DevB2sr, k: usize) -> Result<Oriented<'a>> {
        if p.k == k {
            return Ok(Oriented::Given(p));
        }
        let (rowptr, colidx, _) = self.unpack(p)?;
        Ok(Oriented::Made(Box::new(
            self.pack(&rowptr, &colidx, p.nrows, p.ncols, k)?,
        )))
    }
}
