//! Dense bit matrices on the device ([`CudaBits`]) and the dense-bit entry
//! points of the CUDA backend (issue 17), one job per file:
//!
//! - here: the container, its transfers, and the choice of BMM path;
//! - `convert`: binarize, mean_abs, unpack, bit transpose, quantize, dequantize
//!   (`cuda/bits_convert.cu`);
//! - `epilogue`: what a [`BitOutput`] asks for, as the kernels' epilogue
//!   parameters (the semiring's linear form, scales, threshold);
//! - `bmm`: BMM, bits or f32 times bits (`cuda/bits_bmm.cu`): the 1-bit
//!   tensor cores, plain popcounts for thin shapes, CUDA cores for f32;
//! - `bspmm`: B2SR or CSR times bits (`cuda/bits_bspmm.cu`);
//! - `planes`: the bit-plane products through the same kernels.
//!
//! Every kernel writes every element or word of its output (padding bits as
//! 0), so outputs need no clearing first.

mod bmm;
mod bspmm;
mod convert;
mod epilogue;
mod planes;

use std::sync::atomic::Ordering;

use super::device::DBuf;
use super::CudaBackend;
use crate::backend::{BitShape, MatrixShape};
use crate::error::{Error, Result};
use crate::storage::bits::bit_words;
use crate::storage::{BitLayout, BitMatrix};

#[cfg(doc)]
use crate::backend::Backend;
#[cfg(doc)]
use crate::container::BitOutput;

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
        self.lines() * self.stride
    }
    /// Number of lines (rows for row-major, columns for column-major).
    pub(crate) fn lines(&self) -> usize {
        self.layout.lines_of(self.nrows, self.ncols).0
    }
    /// `u32` words per line (what the kernels index).
    pub(crate) fn w32(&self) -> u64 {
        2 * self.stride as u64
    }
    /// The device address of the words, for benchmarks and interop.
    pub fn device_ptr(&self) -> u64 {
        self.data.ptr().addr()
    }
}

/// Which kernel family runs a BMM of bits ([`CudaBackend::set_bmm_path`]):
/// the choice by shape, or one forced (tests run both on the same inputs).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BmmPath {
    /// The 1-bit tensor cores, except where `m` or `n` is at most 32
    /// (popcounts): the thin-k kernel where it applies, else the larger
    /// block tile where there are blocks enough.
    Auto,
    /// The tensor cores, 128-row block tiles (2 warps along m).
    Tc2,
    /// The tensor cores, 256-row block tiles (4 warps along m).
    Tc4,
    /// The tensor cores for thin k (`w` in shared memory, 16-row strips a
    /// warp) where `w` fits there (bit planes: and `k` is at most 1024
    /// bits); `Tc2` otherwise.
    Thin,
    /// Plain popcounts.
    Popcount,
    /// Hopper's warpgroup tensor cores (`wgmma`, 128 x 256 block tiles) for
    /// plain products on an sm_90a device; `Tc2` for bit planes or
    /// elsewhere.
    Wg,
}

/// `Err(InvalidArgument)` for `op` unless `ok`.
pub(crate) fn need(op: &'static str, ok: bool, what: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(op, what()))
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

    /// The `bits_new` entry point (`zero`: all zero) and the
    /// `bits_for_output` one (no fill: the words are the allocator's).
    pub(crate) fn bits_new_op(
        &self,
        nrows: usize,
        ncols: usize,
        layout: BitLayout,
        zero: bool,
    ) -> Result<CudaBits> {
        let (stride, n) = bit_words(nrows, ncols, layout)?;
        let data = if zero {
            self.dev.zeros::<u64>(n)?
        } else {
            self.dev.alloc::<u64>(n)?
        };
        Ok(CudaBits {
            nrows,
            ncols,
            layout,
            stride,
            data,
        })
    }

    /// Forces the kernel family of bit BMMs (tests; [`BmmPath::Auto`] by default).
    #[doc(hidden)]
    pub fn set_bmm_path(&self, path: BmmPath) {
        let v = match path {
            BmmPath::Auto => 0,
            BmmPath::Tc2 => 1,
            BmmPath::Tc4 => 2,
            BmmPath::Popcount => 3,
            BmmPath::Thin => 4,
            BmmPath::Wg => 5,
        };
        self.dev.bmm_path.store(v, Ordering::Relaxed);
    }

    /// The kernel family of bit BMMs now asked for.
    pub(crate) fn bmm_path(&self) -> BmmPath {
        match self.dev.bmm_path.load(Ordering::Relaxed) {
            1 => BmmPath::Tc2,
            2 => BmmPath::Tc4,
            3 => BmmPath::Popcount,
            4 => BmmPath::Thin,
            5 => BmmPath::Wg,
            _ => BmmPath::Auto,
        }
    }

    /// Fills every word of `b`, padding included, with 1 bits: a test
    /// poisons an output this way before a product, so a word the product
    /// leaves unwritten shows (as set padding bits, refused by the download).
    #[doc(hidden)]
    pub fn poison_bits(&self, b: &mut CudaBits) -> Result<()> {
        self.dev.memset(&b.data, 0xff)
    }
}
