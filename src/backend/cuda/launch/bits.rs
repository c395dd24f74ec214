//! Typed launches of the dense-bit modules (`cuda/bits_convert.cu`,
//! `cuda/bits_bmm.cu`, `cuda/bits_bspmm.cu`), and the argument groups they
//! share: [`Planes`] (up to eight bit planes, `PLANES_PARAM` in
//! `cuda/bits_common.cuh`) and [`Epi`] (the epilogue, `EPI_PARAMS`).

use super::super::device::{Arg, DevPtr};
use super::KernelArg;

/// An `f32` scalar: the kernels take it by value (4 bytes).
impl KernelArg for f32 {
    fn push_to(self, args: &mut Vec<Arg>) {
        args.push(Arg::U32(self.to_bits()));
    }
}

/// Up to eight bit planes' words, in plane order (NULL past the last), as
/// kernels take them (`PLANES_PARAM(x)`: one 64-byte `struct Planes` of eight
/// pointers, which the kernels index at run time in place).
#[derive(Clone, Copy)]
pub(crate) struct Planes(pub [DevPtr<u64>; 8]);

impl Planes {
    /// The planes at `ptrs` (at most eight).
    pub(crate) fn of(ptrs: impl IntoIterator<Item = DevPtr<u64>>) -> Planes {
        let mut p = [DevPtr::null(); 8];
        for (slot, x) in p.iter_mut().zip(ptrs) {
            *slot = x;
        }
        Planes(p)
    }
}

impl KernelArg for Planes {
    fn push_to(self, args: &mut Vec<Arg>) {
        args.push(Arg::Ptrs8(self.0.map(|p| p.addr())));
    }
}

/// The epilogue of a bit product (`struct Epi` in `cuda/bits_common.cuh`):
/// the semiring's linear form, the scales, the threshold and the
/// dequantisation parameters. Absent arrays are NULL.
#[derive(Clone, Copy)]
pub(crate) struct Epi {
    /// `v = alpha c + beta popc(a) + gamma popc(w) + dk`, or `min(c, 1)` where `clamp`.
    pub alpha: i32,
    pub beta: i32,
    pub gamma: i32,
    pub dk: i32,
    pub clamp: bool,
    /// `s = v row_i col_j + bias_j`.
    pub row: DevPtr<f32>,
    pub col: DevPtr<f32>,
    pub bias: DevPtr<f32>,
    /// The bit output's threshold: `tcol[j]`, else `t`.
    pub t: f32,
    pub tcol: DevPtr<f32>,
    /// Dequantisation: the left operand's per-tensor scale and zero point
    /// (1 x 1), the right operand's (per column where `wcol`), `k`.
    pub sa: DevPtr<f32>,
    pub za: DevPtr<f32>,
    pub sw: DevPtr<f32>,
    pub zw: DevPtr<f32>,
    pub wcol: bool,
    pub kf: f64,
}

impl KernelArg for Epi {
    fn push_to(self, args: &mut Vec<Arg>) {
        for x in [self.alpha, self.beta, self.gamma, self.dk] {
            x.push_to(args);
        }
        self.clamp.push_to(args);
        for p in [self.row, self.col, self.bias] {
            p.push_to(args);
        }
        self.t.push_to(args);
        for p in [self.tcol, self.sa, self.za, self.sw, self.zw] {
            p.push_to(args);
        }
        self.wcol.push_to(args);
        args.push(Arg::U64(self.kf.to_bits()));
    }
}

/// `bits_convert`: conversions between f32 and bits, and between layouts.
pub(crate) mod convert {
    use super::super::super::device::DevPtr;
    use super::super::super::kernels::ModuleId;
    use super::Planes;

    super::super::kernels! {
        { () => ModuleId::BitsConvert }
        /// Row-major bits `x >= t` (a warp per output word).
        fn bits_binarize_rm(x: DevPtr<f32>, m: u64, n: u64, t: f32, tcol: DevPtr<f32>,
            out: DevPtr<u32>, w32: u64);
        /// Column-major bits `x >= t` (a thread per output word).
        fn bits_binarize_cm(x: DevPtr<f32>, m: u64, n: u64, t: f32, tcol: DevPtr<f32>,
            out: DevPtr<u32>, w32: u64);
        /// The mean of `|x|` per row.
        fn bits_mean_abs_rows(x: DevPtr<f32>, m: u64, n: u64, out: DevPtr<f32>);
        /// Column sums of `|x|` over chunks of `rows` rows.
        fn bits_mean_abs_part(x: DevPtr<f32>, m: u64, n: u64, rows: u64, part: DevPtr<f64>);
        /// The mean of `|x|` per column from the chunks' sums.
        fn bits_mean_abs_cols(part: DevPtr<f64>, nparts: u64, m: u64, n: u64, out: DevPtr<f32>);
        /// Bits (either layout) to f32 `zero` / `one`.
        fn bits_unpack(b: DevPtr<u32>, w32: u64, cm: bool, m: u64, n: u64, zero: f32, one: f32,
            out: DevPtr<f32>);
        /// A bit matrix in the other layout.
        fn bits_transpose(src: DevPtr<u32>, in_lines: u64, in_w32: u64, dst: DevPtr<u32>,
            out_lines: u64, out_w32: u64);
        /// `nb`-bit codes of `x` into row-major planes.
        fn bits_quantize_rm(x: DevPtr<f32>, m: u64, n: u64, scale: DevPtr<f32>, zero: DevPtr<f32>,
            percol: bool, nb: i32, p: Planes, w32: u64);
        /// `nb`-bit codes of `x` into column-major planes.
        fn bits_quantize_cm(x: DevPtr<f32>, m: u64, n: u64, scale: DevPtr<f32>, zero: DevPtr<f32>,
            percol: bool, nb: i32, p: Planes, w32: u64);
        /// `scale (code - zero)` from planes of either layout.
        fn bits_dequantize(p: Planes, nb: i32, w32: u64, cm: bool, m: u64, n: u64,
            scale: DevPtr<f32>, zero: DevPtr<f32>, percol: bool, out: DevPtr<f32>);
    }
}

/// `bits_bmm`: BMM on the tensor cores (general and thin-k), by popcounts,
/// and with f32 activations.
/// Every product entry takes the same parameters ([`BmmKernel`]).
pub(crate) mod bmm {
    use super::super::super::device::DevPtr;
    use super::super::super::kernels::ModuleId;
    use super::{Epi, Planes};

    /// A product entry of `bits_bmm` (they share one parameter list, but for
    /// the warpgroup kernel's).
    pub(crate) type BmmKernel = fn(
        Planes,
        Planes,
        i32,
        i32,
        u64,
        u64,
        u64,
        u64,
        DevPtr<u8>,
        bool,
        bool,
        Epi,
    ) -> super::super::Launch;

    super::super::kernels! {
        { () => ModuleId::BitsBmm }
        /// Tensor cores, 2 warps along m: counts.
        fn bits_bmm_tc2_counts(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 2 warps along m: scaled f32.
        fn bits_bmm_tc2_scaled(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 2 warps along m: bits.
        fn bits_bmm_tc2_bits(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 2 warps along m, bit planes: counts.
        fn bits_bmm_tc2_counts_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 2 warps along m, bit planes: scaled f32.
        fn bits_bmm_tc2_scaled_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 2 warps along m, bit planes: bits.
        fn bits_bmm_tc2_bits_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 4 warps along m: counts.
        fn bits_bmm_tc4_counts(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 4 warps along m: scaled f32.
        fn bits_bmm_tc4_scaled(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 4 warps along m: bits.
        fn bits_bmm_tc4_bits(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 4 warps along m, bit planes: counts.
        fn bits_bmm_tc4_counts_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 4 warps along m, bit planes: scaled f32.
        fn bits_bmm_tc4_scaled_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Tensor cores, 4 warps along m, bit planes: bits.
        fn bits_bmm_tc4_bits_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Thin k (w in shared memory, 16-row strips a warp): counts.
        fn bits_bmm_thin_counts(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Thin k: scaled f32.
        fn bits_bmm_thin_scaled(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Thin k: bits.
        fn bits_bmm_thin_bits(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Thin k, bit planes: counts.
        fn bits_bmm_thin_counts_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Thin k, bit planes: scaled f32.
        fn bits_bmm_thin_scaled_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Thin k, bit planes: bits.
        fn bits_bmm_thin_bits_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Warpgroup tensor cores (sm_90a), plain products: counts.
        fn bits_bmm_wg_counts(ap: Planes, wp: Planes, m: u64, n: u64, s: u64, out_w64: u64,
            out: DevPtr<u8>, pa: DevPtr<u32>, pw: DevPtr<u32>, epi: Epi);
        /// Warpgroup tensor cores (sm_90a), plain products: scaled f32.
        fn bits_bmm_wg_scaled(ap: Planes, wp: Planes, m: u64, n: u64, s: u64, out_w64: u64,
            out: DevPtr<u8>, pa: DevPtr<u32>, pw: DevPtr<u32>, epi: Epi);
        /// Warpgroup tensor cores (sm_90a), plain products: bits.
        fn bits_bmm_wg_bits(ap: Planes, wp: Planes, m: u64, n: u64, s: u64, out_w64: u64,
            out: DevPtr<u8>, pa: DevPtr<u32>, pw: DevPtr<u32>, epi: Epi);
        /// The popcount of each line (planes weighted by 2^p), for the
        /// warpgroup kernel's terms.
        fn bits_line_popc(p: Planes, nb: i32, lines: u64, s: u64, out: DevPtr<u32>);
        /// Popcounts (thin shapes): counts.
        fn bits_bmm_popc_counts(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Popcounts (thin shapes): scaled f32.
        fn bits_bmm_popc_scaled(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Popcounts (thin shapes): bits.
        fn bits_bmm_popc_bits(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64, s: u64,
            out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Popcounts (thin shapes), bit planes: counts.
        fn bits_bmm_popc_counts_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Popcounts (thin shapes), bit planes: scaled f32.
        fn bits_bmm_popc_scaled_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// Popcounts (thin shapes), bit planes: bits.
        fn bits_bmm_popc_bits_planes(ap: Planes, wp: Planes, nb: i32, nc: i32, m: u64, n: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, need_pa: bool, need_pw: bool, epi: Epi);
        /// f32 activations times bits: scaled f32.
        fn bits_bmm_f32_scaled(x: DevPtr<f32>, w: DevPtr<u64>, sign: bool, m: u64, n: u64, k: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, epi: Epi);
        /// f32 activations times bits: bits.
        fn bits_bmm_f32_bits(x: DevPtr<f32>, w: DevPtr<u64>, sign: bool, m: u64, n: u64, k: u64,
            s: u64, out_w64: u64, out: DevPtr<u8>, epi: Epi);
    }
}

/// `bits_bspmm`: B2SR or CSR times dense bits. The B2SR entries and the
/// CSR bit-plane entries take the same parameters ([`SpmmKernel`]; CSR
/// passes its arrays as `pattern` with NULL tiles); the CSR products by
/// vertical counters and by lanes take [`SpmmRowsKernel`]'s.
pub(crate) mod bspmm {
    use super::super::super::device::DevPtr;
    use super::super::super::kernels::ModuleId;
    use super::super::Tiles;
    use super::{Epi, Planes};

    /// A CSR product entry by vertical counters or by lanes (lanes a row first).
    pub(crate) type SpmmRowsKernel = fn(
        usize,
        DevPtr<u32>,
        DevPtr<u32>,
        u64,
        DevPtr<u64>,
        u64,
        u64,
        DevPtr<u8>,
        u32,
        DevPtr<u32>,
        u32,
        Epi,
    ) -> super::super::Launch;
    /// A fused CSR-then-BMM entry: [`SpmmRowsKernel`]'s parameters, then the
    /// second product's `w`, columns, stride, output and epilogue.
    pub(crate) type SpmmThenKernel = fn(
        usize,
        DevPtr<u32>,
        DevPtr<u32>,
        u64,
        DevPtr<u64>,
        u64,
        u64,
        DevPtr<u8>,
        u32,
        DevPtr<u32>,
        u32,
        Epi,
        DevPtr<u64>,
        u64,
        u64,
        DevPtr<u8>,
        Epi,
    ) -> super::super::Launch;
    /// A CSR bit-plane product entry (the B2SR entries' parameters).
    pub(crate) type SpmmKernel = fn(
        Tiles,
        u32,
        u64,
        Planes,
        i32,
        u64,
        u64,
        DevPtr<u32>,
        DevPtr<u8>,
        bool,
        Epi,
    ) -> super::super::Launch;
    /// A B2SR product entry (with its tile size first).
    pub(crate) type SpmmTiledKernel = fn(
        usize,
        Tiles,
        u32,
        u64,
        Planes,
        i32,
        u64,
        u64,
        u64,
        DevPtr<u8>,
        u32,
        Epi,
    ) -> super::super::Launch;

    super::super::kernels! {
        { () => ModuleId::BitsBspmm }
        /// B2SR: counts.
        fn bits_bspmm_counts[k](pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32, n: u64,
            s: u64, lines: u64, out: DevPtr<u8>, flags: u32, epi: Epi);
        /// B2SR: scaled f32.
        fn bits_bspmm_scaled[k](pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32, n: u64,
            s: u64, lines: u64, out: DevPtr<u8>, flags: u32, epi: Epi);
        /// B2SR: bits.
        fn bits_bspmm_bits[k](pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32, n: u64,
            s: u64, lines: u64, out: DevPtr<u8>, flags: u32, epi: Epi);
        /// B2SR, bit planes: counts.
        fn bits_bspmm_counts_planes[k](pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32,
            n: u64, s: u64, lines: u64, out: DevPtr<u8>, flags: u32, epi: Epi);
        /// B2SR, bit planes: scaled f32.
        fn bits_bspmm_scaled_planes[k](pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32,
            n: u64, s: u64, lines: u64, out: DevPtr<u8>, flags: u32, epi: Epi);
        /// B2SR, bit planes: bits.
        fn bits_bspmm_bits_planes[k](pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32,
            n: u64, s: u64, lines: u64, out: DevPtr<u8>, flags: u32, epi: Epi);
        /// CSR by vertical counters, `k` lanes a row: counts.
        fn bits_bspmm_csr_counts[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64, x: DevPtr<u64>,
            n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>, nlong: u32,
            epi: Epi);
        /// CSR by vertical counters: scaled f32.
        fn bits_bspmm_csr_scaled[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64, x: DevPtr<u64>,
            n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>, nlong: u32,
            epi: Epi);
        /// CSR by vertical counters: bits.
        fn bits_bspmm_csr_bits[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64, x: DevPtr<u64>,
            n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>, nlong: u32,
            epi: Epi);
        /// CSR by vertical counters into bits, then those bits times `w`
        /// (column-major, `ws` words a column, `wn` columns) into counts.
        fn bits_bspmm_csr_bits_then_counts[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi, w: DevPtr<u64>, wn: u64, ws: u64, out2: DevPtr<u8>, epi2: Epi);
        /// The same, into scaled f32.
        fn bits_bspmm_csr_bits_then_scaled[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi, w: DevPtr<u64>, wn: u64, ws: u64, out2: DevPtr<u8>, epi2: Epi);
        /// CSR by lanes (lines of one word), `k` lanes a row: counts.
        fn bits_bspmm_lanes_counts[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi);
        /// CSR by lanes: scaled f32.
        fn bits_bspmm_lanes_scaled[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi);
        /// CSR by lanes: bits.
        fn bits_bspmm_lanes_bits[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi);
        /// CSR by lanes into bits, then those bits times `w` into counts.
        fn bits_bspmm_lanes_bits_then_counts[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi, w: DevPtr<u64>, wn: u64, ws: u64, out2: DevPtr<u8>, epi2: Epi);
        /// The same, into scaled f32.
        fn bits_bspmm_lanes_bits_then_scaled[k](rowptr: DevPtr<u32>, colidx: DevPtr<u32>, m: u64,
            x: DevPtr<u64>, n: u64, s: u64, out: DevPtr<u8>, long_min: u32, long_rows: DevPtr<u32>,
            nlong: u32, epi: Epi, w: DevPtr<u64>, wn: u64, ws: u64, out2: DevPtr<u8>, epi2: Epi);
        /// CSR, bit planes: counts.
        fn bits_bspmm_csr_counts_planes(pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32,
            n: u64, s: u64, nz: DevPtr<u32>, out: DevPtr<u8>, need_deg: bool, epi: Epi);
        /// CSR, bit planes: scaled f32.
        fn bits_bspmm_csr_scaled_planes(pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32,
            n: u64, s: u64, nz: DevPtr<u32>, out: DevPtr<u8>, need_deg: bool, epi: Epi);
        /// CSR, bit planes: bits.
        fn bits_bspmm_csr_bits_planes(pattern: Tiles, tile_rows: u32, m: u64, xp: Planes, nb: i32,
            n: u64, s: u64, nz: DevPtr<u32>, out: DevPtr<u8>, need_deg: bool, epi: Epi);
    }
}
