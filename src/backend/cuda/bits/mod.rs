//! Dense bit matrices on the device ([`CudaBits`]) and the dense-bit entry
//! points of the CUDA backend (issue 17). Transfers and allocation are
//! here; the conversions and products have no device kernel yet and return
//! [`Error::NoKernel`].

use super::device::DBuf;
use super::mem::no_kernel;
use super::CudaBackend;
use crate::algebra::{BitDomain, BitSemiring};
use crate::backend::{BitShape, MatrixShape};
use crate::container::{BitInput, BitOutput, BitPlanes, Threshold};
use crate::error::{Error, Result};
use crate::storage::bits::bit_words;
use crate::storage::{BitLayout, BitMatrix};

#[cfg(doc)]
use crate::backend::Backend;

/// A dense bit matrix in device memory: the host [`BitMatrix`]'s words
/// (line `l` at words `l * stride ..`, bit `p` of a line at word `p / 64`,
/// bit `p % 64`; read as `u32` words, bit `p % 32` of word `p / 32`), with
/// the same zero padding after each line.
///
/// ```no_run
/// use bitgraphblas::{backend::cuda::CudaBackend, Backend};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let gpu = CudaBackend::new(0)?;
/// let m = BitMatrix::from_fn(3, 100, BitLayout::RowMajor, |i, j| (i + j) % 3 == 0)?;
/// let d = gpu.upload_bits(&m)?;
/// assert_eq!(gpu.download_bits(&d)?, m);
/// let z = gpu.bits_new(4, 4, BitLayout::ColMajor)?; // zeros, on the device
/// # let _ = z;
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub struct CudaBits {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) layout: BitLayout,
    /// `u64` words per line.
    pub(crate) stride: usize,
    /// `lines * stride` words.
    pub(crate) data: DBuf<u64>,
}

impl MatrixShape for CudaBits {
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
}

impl BitShape for CudaBits {
    fn layout(&self) -> BitLayout {
        self.layout
    }
}

impl CudaBits {
    /// Total words (`lines * stride`).
    pub(crate) fn words(&self) -> usize {
        self.layout.lines_of(self.nrows, self.ncols).0 * self.stride
    }
    /// The device address of the words, for benchmarks and interop.
    pub fn device_ptr(&self) -> u64 {
        self.data.ptr().addr()
    }
}

impl CudaBackend {
    /// The `upload_bits` entry point.
    pub(crate) fn upload_bits_op(&self, m: &BitMatrix) -> Result<CudaBits> {
        Ok(CudaBits {
            nrows: m.nrows(),
            ncols: m.ncols(),
            layout: m.layout(),
            stride: m.stride(),
            data: self.dev.upload(m.words())?,
        })
    }

    /// The `download_bits` entry point.
    pub(crate) fn download_bits_op(&self, m: &CudaBits) -> Result<BitMatrix> {
        let words = self.dev.download_vec(&m.data, m.words())?;
        BitMatrix::from_words(m.nrows, m.ncols, m.layout, words)
    }

    /// The `bits_new` entry point: all zero.
    pub(crate) fn bits_new_op(
        &self,
        nrows: usize,
        ncols: usize,
        layout: BitLayout,
    ) -> Result<CudaBits> {
        let (stride, n) = bit_words(nrows, ncols, layout)?;
        Ok(CudaBits {
            nrows,
            ncols,
            layout,
            stride,
            data: self.dev.zeros::<u64>(n)?,
        })
    }

    /// The entry points without a device kernel yet.
    pub(crate) fn bits_no_kernel(&self, op: &'static str) -> Error {
        no_kernel(op, "dense bits (no device kernel yet)")
    }

    pub(crate) fn binarize_op(
        &self,
        _out: &mut CudaBits,
        _x: &super::CudaDense<f32>,
        _threshold: Threshold<'_, CudaBackend>,
    ) -> Result<()> {
        Err(self.bits_no_kernel("binarize"))
    }
    pub(crate) fn mean_abs_op(
        &self,
        _out: &mut super::CudaDense<f32>,
        _x: &super::CudaDense<f32>,
        _rows: bool,
    ) -> Result<()> {
        Err(self.bits_no_kernel("mean_abs"))
    }
    pub(crate) fn unpack_bits_op(
        &self,
        _out: &mut super::CudaDense<f32>,
        _b: &CudaBits,
        _domain: BitDomain,
    ) -> Result<()> {
        Err(self.bits_no_kernel("unpack_bits"))
    }
    pub(crate) fn bit_transpose_op(&self, _out: &mut CudaBits, _b: &CudaBits) -> Result<()> {
        Err(self.bits_no_kernel("bit_transpose"))
    }
    pub(crate) fn quantize_op(
        &self,
        _out: &mut BitPlanes<CudaBackend>,
        _x: &super::CudaDense<f32>,
    ) -> Result<()> {
        Err(self.bits_no_kernel("quantize"))
    }
    pub(crate) fn dequantize_op(
        &self,
        _out: &mut super::CudaDense<f32>,
        _p: &BitPlanes<CudaBackend>,
    ) -> Result<()> {
        Err(self.bits_no_kernel("dequantize"))
    }
    pub(crate) fn bmm_op(
        &self,
        _out: BitOutput<'_, CudaBackend>,
        _semiring: BitSemiring,
        _a: BitInput<'_, CudaBackend>,
        _w: &CudaBits,
    ) -> Result<()> {
        Err(self.bits_no_kernel("bmm"))
    }
    pub(crate) fn bspmm_op(
        &self,
        _out: BitOutput<'_, CudaBackend>,
        _semiring: BitSemiring,
        _a: &super::CudaMatrix<bool>,
        _x: &CudaBits,
    ) -> Result<()> {
        Err(self.bits_no_kernel("bspmm"))
    }
    pub(crate) fn bmm_planes_op(
        &self,
        _out: BitOutput<'_, CudaBackend>,
        _a: &BitPlanes<CudaBackend>,
        _w: &BitPlanes<CudaBackend>,
    ) -> Result<()> {
        Err(self.bits_no_kernel("bmm_planes"))
    }
    pub(crate) fn bspmm_planes_op(
        &self,
        _out: BitOutput<'_, CudaBackend>,
        _a: &super::CudaMatrix<bool>,
        _x: &BitPlanes<CudaBackend>,
    ) -> Result<()> {
        Err(self.bits_no_kernel("bspmm_planes"))
    }
}
