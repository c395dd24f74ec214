//! BSpMM on the device (`cuda/bits_bspmm.cu`): a sparse pattern (B2SR at
//! tile sizes 4 to 32, or CSR) times row-major bits, over a bit semiring,
//! into any [`BitOutput`].
//!
//! One launch per call, no allocation, no host sync (but at a CSR matrix's
//! first product): a warp per (tile row, chunk of feature words) on B2SR
//! (BitGNN's tile product: the tile's lines bit-transposed across the warp,
//! then a popcount per (row, feature)); on CSR, lines of one u64 word by
//! lanes (a lane an entry, a few lanes a row, the warp's lines
//! bit-transposed and counted the same way), longer lines by vertical
//! counters (a few lanes a row, a u32 word of the features each, the
//! neighbours' words summed by carry-save adders); in both, rows longer
//! than a few times the mean a block each, listed at the matrix's first
//! product and kept with it; over bit planes a warp per (row, chunk of 128
//! features).

use super::super::device::{DBuf, DevPtr};
use super::super::launch::bits::bspmm::{
    self as k, SpmmKernel, SpmmRowsKernel, SpmmThenKernel, SpmmTiledKernel,
};
use super::super::launch::bits::Planes;
use super::super::launch::Tiles;
use super::super::mem::{LongRows, Parts};
use super::super::{CudaBackend, CudaMatrix};
use super::epilogue::{Dequant, Kind, Linear, Target};
use super::{need, CudaBits};
use crate::algebra::{BitDomain, BitSemiring};
use crate::container::{BitInput, BitOutput};
use crate::error::Result;
use crate::storage::BitLayout;
use std::sync::OnceLock;

/// `[plain, planes][output kind]`.
const TILED: [[SpmmTiledKernel; 3]; 2] = [
    [
        k::bits_bspmm_counts,
        k::bits_bspmm_scaled,
        k::bits_bspmm_bits,
    ],
    [
        k::bits_bspmm_counts_planes,
        k::bits_bspmm_scaled_planes,
        k::bits_bspmm_bits_planes,
    ],
];
/// CSR by vertical counters, by output kind.
const CSR_ROWS: [SpmmRowsKernel; 3] = [
    k::bits_bspmm_csr_counts,
    k::bits_bspmm_csr_scaled,
    k::bits_bspmm_csr_bits,
];
/// CSR into bits then a BMM, by the BMM's output kind (counts, scaled).
const CSR_THEN: [SpmmThenKernel; 2] = [
    k::bits_bspmm_csr_bits_then_counts,
    k::bits_bspmm_csr_bits_then_scaled,
];
/// CSR by lanes (lines of one u64 word), by output kind.
const CSR_LANES: [SpmmRowsKernel; 3] = [
    k::bits_bspmm_lanes_counts,
    k::bits_bspmm_lanes_scaled,
    k::bits_bspmm_lanes_bits,
];
/// CSR by lanes into bits then a BMM, by the BMM's output kind.
const CSR_LANES_THEN: [SpmmThenKernel; 2] = [
    k::bits_bspmm_lanes_bits_then_counts,
    k::bits_bspmm_lanes_bits_then_scaled,
];
/// The most columns of `w` the fused BSpMM-then-BMM takes: each lane of a
/// row's group walks its share of them. At 7 and 16 columns (64 bits of
/// `h`) the fused kernel took 1.05-1.3x less time than the BSpMM and the
/// popcount BMM on an H200; at 41 it took up to 1.4x more.
const THEN_MAX_COLS: usize = 16;
/// CSR over bit planes, by output kind.
const CSR_PLANES: [SpmmKernel; 3] = [
    k::bits_bspmm_csr_counts_planes,
    k::bits_bspmm_csr_scaled_planes,
    k::bits_bspmm_csr_bits_planes,
];

/// Threads a block of the CSR product by vertical counters (`ROWS_BLOCK`
/// in `cuda/bits_bspmm.cu`).
const ROWS_BLOCK: usize = 256;
/// The most entries a row handled by one group of lanes may have: eight
/// lines a batch, at most 255 batches (`VC_BATCHES`) before its byte
/// counters are read.
const SHORT_ROW_MAX: usize = 8 * 255;

/// Rows longer than this (`long_min`) get a block each: four times the
/// mean degree, within 32..=`SHORT_ROW_MAX`, so that a group's row takes a
/// few batches where the graph is sparse and no row holds up its block
/// much longer than the typical row where it is dense. (The floor was 64:
/// at 32, on an H200, the binary aggregation of Cora, CiteSeer and PubMed
/// at 64 feature bits took 0.6-1.0 µs less, and the f32 one by
/// `csr_mxm_dense_long`, which shares the list, up to 1.6 µs less; the
/// Flickr-size graph's bound is 124 either way: docs/gpu-gnn-forward-profile.md.)
fn long_row_min(nnz: usize, m: usize) -> u32 {
    (4 * nnz / m.max(1)).clamp(32, SHORT_ROW_MAX) as u32
}

/// Warps a product by lanes may take an SM: three waves of the 32 that its
/// launch bounds (256 threads, 4 blocks an SM) keep resident at least.
/// Past that the product has work enough to hide its latency and the
/// vertical counters, fewer instructions an entry, are faster (H200,
/// standalone, 64-bit lines, `(A + I)` with 7 columns after: Cora 7.5 ->
/// 2.9 µs, CiteSeer 7.7 -> 3.2, PubMed 11.7 -> 8.1 at 16 lanes a row, the
/// Flickr-size graph 25.5 against 28.1 at its best width:
/// docs/gpu-gnn-forward-profile.md).
const LANES_WARPS_PER_SM: usize = 96;

/// How a CSR product by dense bits runs: which kernel family, lanes a row
/// and feature chunks a row (a block task each).
struct CsrShape {
    /// By lanes (an entry a lane), else by vertical counters (a u32 word of
    /// the chunk a lane).
    by_lanes: bool,
    lanes: usize,
    chunks: usize,
}

impl CsrShape {
    /// For lines of `stride` u64 words of which the output spans `words`
    /// u32 words, over `nnz` entries in `m` rows, on `sms` multiprocessors.
    /// Lines of one word go by lanes where the rows are few (a product
    /// bound by its chain of loads, not its instructions): the most lanes
    /// a row, 32 down to the mean row rounded up to a power of two (at
    /// least 4), that keep to [`LANES_WARPS_PER_SM`]. Else vertical
    /// counters, the fewest lanes (a power of two, at most a warp) that
    /// cover the output's words.
    fn of(stride: usize, words: usize, nnz: usize, m: usize, sms: usize) -> Self {
        if stride == 1 {
            let budget = LANES_WARPS_PER_SM * sms;
            let mean = nnz.div_ceil(m.max(1)).next_power_of_two().clamp(4, 32);
            let warps = |lanes: usize| m.div_ceil(32 / lanes);
            let mut lanes = 32;
            while lanes > mean && warps(lanes) > budget {
                lanes /= 2;
            }
            if warps(lanes) <= budget {
                return CsrShape {
                    by_lanes: true,
                    lanes,
                    chunks: 1,
                };
            }
        }
        let lanes = words.next_power_of_two().min(32);
        CsrShape {
            by_lanes: false,
            lanes,
            chunks: words.div_ceil(lanes),
        }
    }

    /// Blocks of `ROWS_BLOCK` threads for `m` rows and `long` long rows
    /// (each a block for each chunk).
    fn blocks(&self, m: usize, long: usize) -> u32 {
        let b = (m.div_ceil(ROWS_BLOCK / self.lanes) + long) * self.chunks;
        b.min(1 << 24) as u32
    }
}

impl CudaBackend {
    /// The CSR matrix's long rows, listed at its first BSpMM (the row
    /// pointers read back once) and kept with it.
    pub(crate) fn long_rows<'a>(
        &self,
        cell: &'a OnceLock<LongRows>,
        rowptr: &DBuf<u32>,
        nnz: usize,
        m: usize,
    ) -> Result<&'a LongRows> {
        if let Some(l) = cell.get() {
            return Ok(l);
        }
        let long_min = long_row_min(nnz, m);
        let ptr = self.dev.download_vec(rowptr, m + 1)?;
        let rows: Vec<u32> = (0..m as u32)
            .filter(|&i| ptr[i as usize + 1] - ptr[i as usize] > long_min)
            .collect();
        // one slot at least: a kernel argument never points at nothing
        let buf = self
            .dev
            .upload(if rows.is_empty() { &[0] } else { &rows })?;
        let long = LongRows {
            long_min,
            rows: buf,
            count: rows.len(),
        };
        Ok(cell.get_or_init(|| long))
    }
}

/// B2SR products with fewer warps than this at the wide chunk take one
/// feature word per warp.
const NARROW_BELOW: usize = 8192;

/// The right operand of a BSpMM kernel: `nb` planes of `k x n` row-major
/// bits, `stride` words per line.
pub(super) struct Features {
    pub x: Planes,
    pub nb: usize,
    pub n: usize,
    pub stride: usize,
    pub planes: bool,
    /// Count the rows' degrees (the semiring or the dequantisation reads them).
    pub need_deg: bool,
}

impl CudaBackend {
    /// The `bspmm` entry point.
    pub(crate) fn bspmm_op(
        &self,
        out: BitOutput<'_, CudaBackend>,
        semiring: BitSemiring,
        a: &CudaMatrix<bool>,
        x: &CudaBits,
    ) -> Result<()> {
        const OP: &str = "bspmm";
        need(OP, semiring.left() == BitDomain::Binary, || {
            format!("{semiring}: the left operand is a sparse pattern, its domain must be Binary")
        })?;
        need(OP, x.layout == BitLayout::RowMajor, || {
            "x must be row-major".into()
        })?;
        need(OP, a.ncols == x.nrows, || {
            format!("A has {} columns, x {} rows", a.ncols, x.nrows)
        })?;
        let lin = Linear::of(semiring, a.ncols);
        let t = Target::of(OP, out, (a.nrows, x.ncols), lin, Dequant::none())?;
        let f = Features {
            x: Planes::of([x.data.ptr()]),
            nb: 1,
            n: x.ncols,
            stride: x.stride,
            planes: false,
            need_deg: lin.beta != 0,
        };
        self.bspmm_launch(&t, a, &f)
    }

    /// `ext::bspmm_bmm`: one launch of `bits_bspmm_csr_bits_then_*` where
    /// `A` is stored as CSR, `h`'s line fits one group of lanes (at most 32
    /// u32 words), `w` has at most [`THEN_MAX_COLS`] columns and `y` is
    /// counts or f32; else `bspmm` then `bmm`. The fused kernel computes the
    /// terms the BMM's popcount kernel computes, so the values are the same.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bspmm_bmm_op(
        &self,
        h_out: BitOutput<'_, CudaBackend>,
        aggregate: BitSemiring,
        a: &CudaMatrix<bool>,
        x: &CudaBits,
        y_out: BitOutput<'_, CudaBackend>,
        product: BitSemiring,
        w: &CudaBits,
    ) -> Result<()> {
        const OP: &str = "bspmm_bmm";
        let BitOutput::Bits {
            out: h,
            scales,
            threshold,
        } = h_out
        else {
            return Err(crate::ext::bits::not_bits());
        };
        let (m, n) = (a.nrows, x.ncols);
        let csr = match a.repr.parts() {
            Parts::Csr((p, _)) => Some((&p.rowptr, &p.colidx, p.nnz, &p.plans)),
            Parts::B2sr(..) => None,
        };
        let fused = csr.filter(|_| {
            aggregate.left() == BitDomain::Binary
                && x.layout == BitLayout::RowMajor
                && w.layout == BitLayout::ColMajor
                && (h.nrows, h.ncols, h.stride) == (m, n, x.stride)
                && w.nrows == n
                && m > 0
                && n > 0
                && 2 * x.stride <= 32
                && w.ncols <= THEN_MAX_COLS
                && !matches!(y_out, BitOutput::Bits { .. })
        });
        let Some((rowptr, colidx, nnz, plans)) = fused else {
            let first = BitOutput::Bits {
                out: &mut *h,
                scales,
                threshold,
            };
            self.bspmm_op(first, aggregate, a, x)?;
            return self.bmm_op(y_out, product, BitInput::Bits(h), w);
        };
        let first = BitOutput::Bits {
            out: h,
            scales,
            threshold,
        };
        let t1 = Target::of(
            OP,
            first,
            (m, n),
            Linear::of(aggregate, a.ncols),
            Dequant::none(),
        )?;
        let t2 = Target::of(
            OP,
            y_out,
            (m, w.ncols),
            Linear::of(product, n),
            Dequant::none(),
        )?;
        let shape = CsrShape::of(x.stride, 2 * x.stride, nnz, m, self.dev.sm_count as usize);
        let long = self.long_rows(&plans.long_rows, rowptr, nnz, m)?;
        let table = if shape.by_lanes {
            // lane j takes column j of w, one word long
            debug_assert!(w.stride == 1 && w.ncols <= 32);
            &CSR_LANES_THEN
        } else {
            &CSR_THEN
        };
        table[t2.kind as usize](
            shape.lanes,
            rowptr.ptr(),
            colidx.ptr(),
            m as u64,
            x.data.ptr(),
            n as u64,
            x.stride as u64,
            t1.out,
            long.long_min,
            long.rows.ptr(),
            long.count as u32,
            t1.epi,
            w.data.ptr(),
            w.ncols as u64,
            w.stride as u64,
            t2.out,
            t2.epi,
        )
        .grid(&self.dev, shape.blocks(m, long.count), ROWS_BLOCK as u32)
    }

    /// Runs a BSpMM (plain or over planes): the B2SR or CSR kernel.
    pub(super) fn bspmm_launch(
        &self,
        t: &Target,
        a: &CudaMatrix<bool>,
        f: &Features,
    ) -> Result<()> {
        let (m, kk, n) = (a.nrows, a.ncols, f.n);
        if m == 0 || n == 0 {
            return Ok(());
        }
        let nz_ptr = DevPtr::null();
        // u32 words the kernel writes per row
        let words = if t.kind == Kind::Bits {
            2 * f.stride
        } else {
            n.div_ceil(32)
        };
        let (kind, planes) = (t.kind as usize, f.planes as usize);
        match a.repr.parts() {
            Parts::B2sr(pat, _) => {
                // a chunk of 1 word where the wide chunks give too few warps
                // to fill the device (flags bit 1), else 4 (2 at K = 32)
                let wide = if pat.k == 32 { 2 } else { 4 };
                let narrow = pat.tile_rows * words.div_ceil(wide) < NARROW_BELOW;
                let ch = if narrow { 1 } else { wide };
                let warps = pat.tile_rows * words.div_ceil(ch);
                let flags = u32::from(f.need_deg) | (u32::from(narrow) << 1);
                TILED[planes][kind](
                    pat.k,
                    Tiles::of(&self.dev, pat)?,
                    pat.tile_rows as u32,
                    m as u64,
                    f.x,
                    f.nb as i32,
                    n as u64,
                    f.stride as u64,
                    kk as u64,
                    t.out,
                    flags,
                    t.epi,
                )
                .run(&self.dev, warps * 32)
            }
            Parts::Csr((p, _)) if !f.planes => {
                let (rowptr, colidx) = (&p.rowptr, &p.colidx);
                let shape = CsrShape::of(f.stride, words, p.nnz, m, self.dev.sm_count as usize);
                let long = self.long_rows(&p.plans.long_rows, rowptr, p.nnz, m)?;
                let table = if shape.by_lanes {
                    &CSR_LANES
                } else {
                    &CSR_ROWS
                };
                table[kind](
                    shape.lanes,
                    rowptr.ptr(),
                    colidx.ptr(),
                    m as u64,
                    f.x.0[0],
                    n as u64,
                    f.stride as u64,
                    t.out,
                    long.long_min,
                    long.rows.ptr(),
                    long.count as u32,
                    t.epi,
                )
                .grid(&self.dev, shape.blocks(m, long.count), ROWS_BLOCK as u32)
            }
            Parts::Csr((p, _)) => {
                let warps = m * words.div_ceil(4);
                let pattern = Tiles {
                    rowptr: p.rowptr.ptr(),
                    colidx: p.colidx.ptr(),
                    tiles: DevPtr::null(),
                };
                CSR_PLANES[kind](
                    pattern,
                    0,
                    m as u64,
                    f.x,
                    f.nb as i32,
                    n as u64,
                    f.stride as u64,
                    nz_ptr,
                    t.out,
                    f.need_deg,
                    t.epi,
                )
                .run(&self.dev, warps * 32)
            }
        }
    }
}
