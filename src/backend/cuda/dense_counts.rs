//! [`crate::ext::mxm_counts_scaled`] on the GPU: the CSR product of `i32`
//! counts read as `f32` (`cuda/csr_counts.cu`), its rows of counts read
//! directly or, where each is gathered many times, packed into bytes first.

use super::csr::CsrRef;
use super::device::DevPtr;
use super::launch::dense;
use super::launch::dense::rows::CountsProduct;
use super::mem::DMat;
use super::mxv::full_vals;
use super::{CudaBackend, CudaDense, CudaMatrix, CudaVector};
use crate::error::Result;
use crate::ext::scaled::{mxm_counts_scaled_generic, DenseScales};

/// The counts are packed into bytes (`counts_pack`) where `A` has at least
/// this many entries a row of `V` on average and a packed row takes fewer
/// sectors than an `i32` one ([`packing_shrinks_rows`]): each packed row then
/// serves that many gathers of two sectors where its `i32` row (41 columns:
/// 164 bytes, six sectors) would have been read, for one pass over `V`. On a
/// graph of a few entries a row the pass would cost more than it saves, and
/// its launch would lengthen the forward pass of a small graph.
const PACK_MEAN_GATHERS: usize = 8;

/// Threads of a block of the counts kernels (`COUNTS_LONG_NT`).
const COUNTS_BLOCK: usize = 256;

/// Columns of a long row a block of `csr_mxm_counts` takes (`COUNTS_LONG_FC`).
const LONG_ROW_COLUMNS: usize = 16;

/// Words a packed row of `nf` counts takes: `r_j`, the mode and two unused
/// words, a byte a count, rounded up to 16 bytes.
fn packed_stride(nf: usize) -> usize {
    (16 + nf).div_ceil(16) * 4
}

/// Whether a packed row of `nf` counts spans fewer 32-byte sectors than its
/// `i32` row. Where it does not (7 columns: 28 bytes against 32), the pass
/// only adds a launch and a copy of `V`: on the Flickr-size graph (11
/// entries a row, 7 columns) the product reading `V` took 34.6 µs, the pass
/// and the packed product 36.0 µs, H200, `scripts/gpu-counts-check.py graphs`.
fn packing_shrinks_rows(nf: usize) -> bool {
    (packed_stride(nf) * 4).div_ceil(32) < (4 * nf).div_ceil(32)
}

/// Lanes a row of `C` (a power of two, at most 32) where each lane takes
/// `per_lane` columns: 16 of packed counts, one of `V` read directly.
fn row_lanes(nf: usize, per_lane: usize) -> u32 {
    nf.div_ceil(per_lane).next_power_of_two().clamp(1, 32) as u32
}

impl CudaBackend {
    /// [`crate::ext::mxm_counts_scaled`]: one kernel (`csr_mxm_counts`)
    /// where `A` is CSR and the given vectors are full; where rows of `V`
    /// are gathered [`PACK_MEAN_GATHERS`] times or more on average and
    /// packing shrinks them ([`packing_shrinks_rows`]), a pass packing them
    /// first (`counts_pack`, then `csr_mxm_counts_packed`, or
    /// `csr_mxm_counts_packed_ones` where `A` is an iso matrix of ones);
    /// [`mxm_counts_scaled_generic`] otherwise. The same values either way.
    /// Long rows of `A` a block each ([`CudaBackend::counts_launch`]).
    pub(crate) fn mxm_counts_scaled_op(
        &self,
        c: &mut CudaDense<f32>,
        a: &CudaMatrix<f32>,
        v: &CudaDense<i32>,
        scales: DenseScales<'_, CudaBackend, f32>,
    ) -> Result<()> {
        let full = |x: Option<&CudaVector<f32>>| x.map_or(Some(DevPtr::null()), full_vals);
        let (DMat::Csr { .. }, Some(left), Some(right), Some(col), Some(bias)) = (
            &a.repr,
            full(scales.left),
            full(scales.right),
            full(scales.col),
            full(scales.bias),
        ) else {
            return mxm_counts_scaled_generic(self, c, a, v, scales);
        };
        let r = self.csr_product_input(a, false)?;
        let (k, nf) = (v.nrows, v.ncols);
        self.dense_output(c, r.nrows, nf)?;
        if r.nrows == 0 || nf == 0 {
            return Ok(());
        }
        let product = |v: DevPtr<i32>, packed, stride, g| CountsProduct {
            rowptr: r.rowptr,
            colidx: r.colidx,
            vals: r.vals,
            isobits: r.isobits,
            m: r.nrows as u64,
            v,
            packed,
            stride,
            nf: nf as u64,
            g,
            left,
            right,
            col,
            bias,
            c: c.data.ptr(),
        };
        if r.nnz < PACK_MEAN_GATHERS * k.max(1) || !packing_shrinks_rows(nf) {
            let g = row_lanes(nf, 1);
            let p = product(v.data.ptr(), DevPtr::null(), 0, g);
            return self.counts_launch(dense::rows::csr_mxm_counts, a, &r, p);
        }
        let stride = packed_stride(nf);
        let packed = self.dev.alloc::<u32>(k * stride)?;
        dense::rows::counts_pack(
            v.data.ptr(),
            k as u64,
            nf as u64,
            right,
            stride as u64,
            packed.ptr(),
        )
        .run(&self.dev, k * 32)?;
        let ones = r.vals.is_null() && r.isobits == u64::from(1.0f32.to_bits());
        let kernel = if ones {
            dense::rows::csr_mxm_counts_packed_ones
        } else {
            dense::rows::csr_mxm_counts_packed
        };
        let p = product(v.data.ptr(), packed.ptr(), stride as u64, row_lanes(nf, 16));
        self.counts_launch(kernel, a, &r, p)
    }

    /// Launches a counts kernel: `a`'s long rows (its list, as the `f32`
    /// product's, where its rows are short on average) a block each for
    /// every [`LONG_ROW_COLUMNS`] columns, in the grid's first blocks, then
    /// blocks for the other rows, `product.g` lanes a row.
    fn counts_launch(
        &self,
        kernel: CountsKernel,
        a: &CudaMatrix<f32>,
        r: &CsrRef<f32>,
        product: CountsProduct,
    ) -> Result<()> {
        let nf = product.nf as usize;
        let long = self.spmm_long_rows(a, r, false)?;
        let (rows, nlong, long_min) = long.map_or((DevPtr::null(), 0, 0), |l| {
            (l.rows.ptr(), l.count, l.long_min)
        });
        let long_blocks = nlong * nf.div_ceil(LONG_ROW_COLUMNS);
        let short_blocks = (r.nrows * product.g as usize)
            .div_ceil(COUNTS_BLOCK)
            .clamp(1, self.dev.sm_count as usize * 16);
        let too_many = || crate::error::Error::TooLarge {
            what: "matrix",
            detail: format!("{nlong} long rows by {nf} columns"),
        };
        let grid = u32::try_from(long_blocks + short_blocks).map_err(|_| too_many())?;
        let nlong = u32::try_from(nlong).map_err(|_| too_many())?;
        kernel(product, rows, nlong, long_min).grid(&self.dev, grid, COUNTS_BLOCK as u32)
    }
}

/// A counts kernel's typed launch ([`dense::rows`]).
type CountsKernel = fn(CountsProduct, DevPtr<u32>, u32, u32) -> super::launch::Launch;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rows_hold_their_header_and_bytes_in_whole_16_byte_units() {
        for nf in [1, 7, 8, 9, 16, 41, 56, 57, 130] {
            let words = packed_stride(nf);
            assert_eq!(words % 4, 0, "{nf}");
            // the four words a lane reads (columns 16l .. 16l + 15) lie inside
            assert!(4 + 4 * nf.div_ceil(16) <= words, "{nf}");
            assert!(words * 4 < 16 + nf + 16, "{nf}");
        }
        assert_eq!(packed_stride(41), 16); // 64 bytes: two sectors
    }

    #[test]
    fn counts_are_packed_only_where_a_row_takes_fewer_sectors() {
        assert!(!packing_shrinks_rows(1));
        assert!(!packing_shrinks_rows(7));
        assert!(!packing_shrinks_rows(8));
        assert!(packing_shrinks_rows(9)); // 36 bytes: two sectors; packed 32
        assert!(packing_shrinks_rows(41)); // six sectors against two
        assert!(packing_shrinks_rows(130));
    }

    #[test]
    fn a_row_takes_the_lanes_its_columns_need() {
        assert_eq!(row_lanes(41, 16), 4);
        assert_eq!(row_lanes(7, 16), 1);
        assert_eq!(row_lanes(7, 1), 8);
        assert_eq!(row_lanes(41, 1), 32);
        assert_eq!(row_lanes(1000, 16), 32);
    }
}
