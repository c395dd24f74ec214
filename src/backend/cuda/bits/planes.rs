//! The bit-plane products on the device (QGTC): `b`-bit codes times `c`-bit
//! codes, and a sparse pattern times `b`-bit codes, through the BMM and
//! BSpMM kernels' `_planes` entries: the (p, q) plane pairs loop inside the
//! kernel with a shift, and the epilogue dequantises (`cuda/bits_common.cuh`).
//!
//! The kernels sum codes in `u32`: a product whose values could pass 2^32 - 1
//! (`k (2^b - 1) (2^c - 1)`, or `k (2^b - 1)` for the BSpMM) has no kernel
//! here and returns [`Error::NoKernel`] (Counts are limited further, to
//! `i32`, by `ops`).

use super::super::launch::bits::Planes;
use super::super::mem::no_kernel;
use super::super::{CudaBackend, CudaMatrix};
use super::bmm::Operands;
use super::bspmm::Features;
use super::epilogue::{Dequant, Linear, Target};
use super::need;
use crate::container::{BitOutput, BitPlanes};
use crate::error::Result;
use crate::storage::BitLayout;

#[cfg(doc)]
use crate::error::Error;

/// The planes' words.
fn plane_ptrs(p: &BitPlanes<CudaBackend>) -> Planes {
    Planes::of(p.planes().iter().map(|b| b.data.ptr()))
}

/// `Err(NoKernel)` where `k` codes up to `max` could pass `u32`.
fn fits_u32(op: &'static str, k: usize, max: u64) -> Result<()> {
    if (k as u128) * (max as u128) > u32::MAX as u128 {
        return Err(no_kernel(
            op,
            format!("code sums past 2^32 (k = {k} times the largest code product {max})"),
        ));
    }
    Ok(())
}

impl CudaBackend {
    /// The `bmm_planes` entry point.
    pub(crate) fn bmm_planes_op(
        &self,
        out: BitOutput<'_, CudaBackend>,
        a: &BitPlanes<CudaBackend>,
        w: &BitPlanes<CudaBackend>,
    ) -> Result<()> {
        const OP: &str = "bmm_planes";
        need(OP, a.layout() == BitLayout::RowMajor, || {
            "a's planes must be row-major".into()
        })?;
        need(OP, w.layout() == BitLayout::ColMajor, || {
            "w's planes must be column-major".into()
        })?;
        need(OP, !a.per_column(), || {
            "a needs per-tensor quantisation parameters".into()
        })?;
        let kk = a.ncols();
        need(OP, kk == w.nrows(), || {
            format!("a has {kk} columns, w {} rows", w.nrows())
        })?;
        let max = ((1u64 << a.bits()) - 1) * ((1u64 << w.bits()) - 1);
        fits_u32(OP, kk, max)?;
        let t = Target::of(
            OP,
            out,
            (a.nrows(), w.ncols()),
            Linear::identity(),
            Dequant::of(w, Some(a), kk),
        )?;
        let dequant = !t.counts();
        let ops = Operands {
            a: plane_ptrs(a),
            w: plane_ptrs(w),
            nb: a.bits() as usize,
            nc: w.bits() as usize,
            stride: w.planes()[0].stride,
            need_pa: dequant,
            need_pw: dequant,
            planes: true,
        };
        self.bmm_launch(&t, &ops)
    }

    /// The `bspmm_planes` entry point.
    pub(crate) fn bspmm_planes_op(
        &self,
        out: BitOutput<'_, CudaBackend>,
        a: &CudaMatrix<bool>,
        x: &BitPlanes<CudaBackend>,
    ) -> Result<()> {
        const OP: &str = "bspmm_planes";
        need(OP, x.layout() == BitLayout::RowMajor, || {
            "x's planes must be row-major".into()
        })?;
        need(OP, a.ncols == x.nrows(), || {
            format!("A has {} columns, x {} rows", a.ncols, x.nrows())
        })?;
        fits_u32(OP, a.ncols, (1u64 << x.bits()) - 1)?;
        let t = Target::of(
            OP,
            out,
            (a.nrows, x.ncols()),
            Linear::identity(),
            Dequant::of(x, None, a.ncols),
        )?;
        let f = Features {
            x: plane_ptrs(x),
            nb: x.bits() as usize,
            n: x.ncols(),
            stride: x.planes()[0].stride,
            planes: true,
            need_deg: !t.counts(),
        };
        self.bspmm_launch(&t, a, &f)
    }
}
