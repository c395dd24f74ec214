//! Conversions on the device (`cuda/bits_convert.cu`): f32 to bits by a
//! threshold (either layout), the mean of |x| per row or column, bits to
//! f32, bit transposes, and b-bit quantisation to planes and back.

use super::super::launch::bits::{convert as k, Planes};
use super::super::launch::Launch;
use super::super::{CudaBackend, CudaDense};
use super::{need, CudaBits};
use crate::algebra::BitDomain;
use crate::backend::MatrixShape;
use crate::container::{BitPlanes, Threshold};
use crate::error::Result;
use crate::storage::BitLayout;

/// Rows per partial sum of the column means.
const MEAN_ROWS: usize = 256;

/// `Err` unless `(r, c) == shape`.
fn same_shape(
    op: &'static str,
    what: &str,
    r: usize,
    c: usize,
    shape: (usize, usize),
) -> Result<()> {
    need(op, (r, c) == shape, || {
        format!("{what} is {r}x{c}, not {}x{}", shape.0, shape.1)
    })
}

impl CudaBackend {
    /// Runs `l` over `warps` warps (a warp per task).
    fn per_warp(&self, l: Launch, warps: usize) -> Result<()> {
        if warps == 0 {
            return Ok(());
        }
        l.run(&self.dev, warps * 32)
    }

    /// Runs `l` over `threads` threads (a thread per task).
    fn per_thread(&self, l: Launch, threads: usize) -> Result<()> {
        if threads == 0 {
            return Ok(());
        }
        l.run(&self.dev, threads)
    }

    /// The `binarize` entry point.
    pub(crate) fn binarize_op(
        &self,
        out: &mut CudaBits,
        x: &CudaDense<f32>,
        threshold: Threshold<'_, CudaBackend>,
    ) -> Result<()> {
        const OP: &str = "binarize";
        let (m, n) = (x.nrows(), x.ncols());
        same_shape(OP, "the output", out.nrows, out.ncols, (m, n))?;
        let (t, tcol) = match threshold {
            Threshold::Sign => (0.0, None),
            Threshold::Value(t) => (t, None),
            Threshold::PerColumn(d) => {
                same_shape(OP, "the threshold", d.nrows(), d.ncols(), (1, n))?;
                (0.0, Some(d.data.ptr()))
            }
        };
        let tcol = tcol.unwrap_or(super::super::device::DevPtr::null());
        let (xs, os, w32) = (x.data.ptr(), out.data.ptr().cast(), out.w32());
        let (m, n) = (m as u64, n as u64);
        match out.layout {
            BitLayout::RowMajor => self.per_warp(
                k::bits_binarize_rm(xs, m, n, t, tcol, os, w32),
                out.words() * 2,
            ),
            BitLayout::ColMajor => self.per_thread(
                k::bits_binarize_cm(xs, m, n, t, tcol, os, w32),
                out.words() * 2,
            ),
        }
    }

    /// The `mean_abs` entry point: per row in one pass (a warp per row), per
    /// column as partial sums over blocks of rows, then their totals.
    pub(crate) fn mean_abs_op(
        &self,
        out: &mut CudaDense<f32>,
        x: &CudaDense<f32>,
        rows: bool,
    ) -> Result<()> {
        const OP: &str = "mean_abs";
        let (m, n) = (x.nrows(), x.ncols());
        let shape = if rows { (m, 1) } else { (1, n) };
        same_shape(OP, "the output", out.nrows(), out.ncols(), shape)?;
        if rows {
            return self.per_warp(
                k::bits_mean_abs_rows(x.data.ptr(), m as u64, n as u64, out.data.ptr()),
                m,
            );
        }
        let nparts = m.div_ceil(MEAN_ROWS);
        let part = self.dev.alloc::<f64>(nparts * n)?;
        self.per_thread(
            k::bits_mean_abs_part(
                x.data.ptr(),
                m as u64,
                n as u64,
                MEAN_ROWS as u64,
                part.ptr(),
            ),
            nparts * n,
        )?;
        self.per_thread(
            k::bits_mean_abs_cols(
                part.ptr(),
                nparts as u64,
                m as u64,
                n as u64,
                out.data.ptr(),
            ),
            n,
        )
    }

    /// The `unpack_bits` entry point.
    pub(crate) fn unpack_bits_op(
        &self,
        out: &mut CudaDense<f32>,
        b: &CudaBits,
        domain: BitDomain,
    ) -> Result<()> {
        let (m, n) = (b.nrows, b.ncols);
        same_shape(
            "unpack_bits",
            "the output",
            out.nrows(),
            out.ncols(),
            (m, n),
        )?;
        self.per_thread(
            k::bits_unpack(
                b.data.ptr().cast(),
                b.w32(),
                b.layout == BitLayout::ColMajor,
                m as u64,
                n as u64,
                domain.of(false) as f32,
                domain.of(true) as f32,
                out.data.ptr(),
            ),
            m * n,
        )
    }

    /// The `bit_transpose` entry point: 32 x 32 blocks, a warp each.
    pub(crate) fn bit_transpose_op(&self, out: &mut CudaBits, b: &CudaBits) -> Result<()> {
        const OP: &str = "bit_transpose";
        same_shape(OP, "the output", out.nrows, out.ncols, (b.nrows, b.ncols))?;
        need(OP, out.layout != b.layout, || {
            "the output must be in the other layout".into()
        })?;
        let out_lines = out.lines();
        self.per_warp(
            k::bits_transpose(
                b.data.ptr().cast(),
                b.lines() as u64,
                b.w32(),
                out.data.ptr().cast(),
                out_lines as u64,
                out.w32(),
            ),
            out_lines.div_ceil(32) * out.w32() as usize,
        )
    }

    /// The `quantize` entry point: every plane in one pass.
    pub(crate) fn quantize_op(
        &self,
        out: &mut BitPlanes<CudaBackend>,
        x: &CudaDense<f32>,
    ) -> Result<()> {
        const OP: &str = "quantize";
        let (m, n) = (x.nrows(), x.ncols());
        same_shape(OP, "the output", out.nrows(), out.ncols(), (m, n))?;
        let (nb, percol, layout) = (out.bits() as i32, out.per_column(), out.layout());
        let (scale, zero) = (out.scale().data.ptr(), out.zero().data.ptr());
        let first = &out.planes()[0];
        let (w32, words) = (first.w32(), first.words());
        let p = Planes::of(out.planes_mut().iter_mut().map(|b| b.data.ptr()));
        let (xs, mm, nn) = (x.data.ptr(), m as u64, n as u64);
        match layout {
            BitLayout::RowMajor => self.per_warp(
                k::bits_quantize_rm(xs, mm, nn, scale, zero, percol, nb, p, w32),
                words * 2,
            ),
            BitLayout::ColMajor => self.per_thread(
                k::bits_quantize_cm(xs, mm, nn, scale, zero, percol, nb, p, w32),
                words * 2,
            ),
        }
    }

    /// The `dequantize` entry point.
    pub(crate) fn dequantize_op(
        &self,
        out: &mut CudaDense<f32>,
        p: &BitPlanes<CudaBackend>,
    ) -> Result<()> {
        let (m, n) = (p.nrows(), p.ncols());
        same_shape("dequantize", "the output", out.nrows(), out.ncols(), (m, n))?;
        self.per_thread(
            k::bits_dequantize(
                Planes::of(p.planes().iter().map(|b| b.data.ptr())),
                p.bits() as i32,
                p.planes()[0].w32(),
                p.layout() == BitLayout::ColMajor,
                m as u64,
                n as u64,
                p.scale().data.ptr(),
                p.zero().data.ptr(),
                p.per_column(),
                out.data.ptr(),
            ),
            m * n,
        )
    }
}
