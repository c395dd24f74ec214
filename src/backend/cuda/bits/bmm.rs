//! BMM on the device (`cuda/bits_bmm.cu`): row-major bits (or f32) times
//! column-major bits, over a bit semiring, into any [`BitOutput`].
//!
//! Paths, by shape ([`BmmPath::Auto`]):
//! - `m <= 32` or `n <= 32` (thin): `bits_bmm_popc_*`, a warp per 8 rows x
//!   32 columns of plain popcounts (the tensor-core tiles would be mostly empty);
//! - all of `w` (every plane) in at most 64 KB of shared memory (a GNN
//!   layer's weights; bit planes with `k` at most 1024 bits):
//!   `bits_bmm_thin_*`, the 1-bit tensor cores with `w` copied into each
//!   block's shared memory once and 16-row strips of `a` loaded straight into
//!   the mma fragments, 1024 bits of `k` and 64 output columns at a time
//!   (few registers a warp, so
//!   two blocks of eight warps an SM hide the loads and the stores: on an
//!   H200, 232,965 x 602 by 602 x 128 bits out 0.037 ms against the general
//!   kernel's 0.045, two-bit planes 0.10 against 0.23 ms);
//! - otherwise the 1-bit tensor cores on a persistent grid (as many blocks
//!   as fit on the device at once, each taking every grid-th tile):
//!   `bits_bmm_tc2_*` (128 x 128 output tiles, two blocks per
//!   multiprocessor), or `bits_bmm_tc4_*` (256 x 128 tiles, one block) where
//!   `n` fits one tile column and the tiles are at least one per
//!   multiprocessor: that shape writes far more than it computes, and the
//!   taller tiles measured 5% faster there on an H100 (and no faster on
//!   square products);
//! - plain products (not bit planes) with `n` past one tile column of
//!   `bits_bmm_tc4_*`, on an sm_90a device (H100, H200): `bits_bmm_wg_*`,
//!   Hopper's warpgroup MMA (`wgmma`, 128 x 256 tiles, operands read by the
//!   tensor cores from shared memory): on an H200 at 16384^3 about 1.9x the
//!   mma.sync kernel (`docs/gpu-bmm-square-profile.md`);
//! - f32 activations: `bits_bmm_f32_*` on the CUDA cores.
//!
//! The bit-plane BMM (`planes.rs`) runs through [`CudaBackend::bmm_launch`]
//! with the `_planes` kernels (warp tiles of 64 x 32: blocks of 128 x 64 or
//! 256 x 64).

use super::super::device::DevPtr;
use super::super::launch::bits::bmm::{self as k, BmmKernel};
use super::super::launch::bits::{Epi, Planes};
use super::super::launch::Launch;
use super::super::{CudaBackend, CudaDense};
use super::epilogue::{Dequant, Kind, Linear, Target};
use super::{need, BmmPath, CudaBits};
use crate::algebra::{BitDomain, BitSemiring};
use crate::backend::MatrixShape;
use crate::container::{BitInput, BitOutput};
use crate::error::Result;
use crate::storage::BitLayout;

/// Rows of a warp in the popcount and f32 kernels (`POPC_R`).
const POPC_R: usize = 8;
/// Stages of the tensor-core pipeline (`TC_STAGES`) and bytes of a line per stage.
const TC_STAGES: usize = 3;
const TC_LINE: usize = 128;
/// The thin-k kernel: `u64` words of a k block (`4 THIN_KS`: bit planes take
/// one block), threads a block (`32 THIN_WARPS`), bytes of a k block of a
/// column of `w` in shared memory (16 words), and the most shared memory `w`
/// may take there.
const THIN_WORDS: usize = 16;
const THIN_THREADS: u32 = 256;
const THIN_LINE: usize = 128;
const THIN_W_BYTES: usize = 64 << 10;

/// The kernel family a product runs on.
enum Family {
    /// `bits_bmm_popc_*`.
    Popcount,
    /// `bits_bmm_thin_*`.
    Thin,
    /// `bits_bmm_tc<WM>_*` with WM warps along m.
    Tc(usize),
    /// `bits_bmm_wg_*`.
    Wg,
}

/// `[plain, planes][output kind]`.
const TC2: [[BmmKernel; 3]; 2] = [
    [
        k::bits_bmm_tc2_counts,
        k::bits_bmm_tc2_scaled,
        k::bits_bmm_tc2_bits,
    ],
    [
        k::bits_bmm_tc2_counts_planes,
        k::bits_bmm_tc2_scaled_planes,
        k::bits_bmm_tc2_bits_planes,
    ],
];
const TC4: [[BmmKernel; 3]; 2] = [
    [
        k::bits_bmm_tc4_counts,
        k::bits_bmm_tc4_scaled,
        k::bits_bmm_tc4_bits,
    ],
    [
        k::bits_bmm_tc4_counts_planes,
        k::bits_bmm_tc4_scaled_planes,
        k::bits_bmm_tc4_bits_planes,
    ],
];
const THIN: [[BmmKernel; 3]; 2] = [
    [
        k::bits_bmm_thin_counts,
        k::bits_bmm_thin_scaled,
        k::bits_bmm_thin_bits,
    ],
    [
        k::bits_bmm_thin_counts_planes,
        k::bits_bmm_thin_scaled_planes,
        k::bits_bmm_thin_bits_planes,
    ],
];
/// An entry of the warpgroup kernel (`bits_bmm_wg_*`).
type WgKernel =
    fn(Planes, Planes, u64, u64, u64, u64, DevPtr<u8>, DevPtr<u32>, DevPtr<u32>, Epi) -> Launch;
/// Plain products only, by output kind.
const WG: [WgKernel; 3] = [
    k::bits_bmm_wg_counts,
    k::bits_bmm_wg_scaled,
    k::bits_bmm_wg_bits,
];
/// The warpgroup kernel's stages (`WG_STAGES`) and block tile (rows, columns).
const WG_STAGES: usize = 4;
const WG_TILE: (usize, usize) = (128, 256);
const POPC: [[BmmKernel; 3]; 2] = [
    [
        k::bits_bmm_popc_counts,
        k::bits_bmm_popc_scaled,
        k::bits_bmm_popc_bits,
    ],
    [
        k::bits_bmm_popc_counts_planes,
        k::bits_bmm_popc_scaled_planes,
        k::bits_bmm_popc_bits_planes,
    ],
];

/// The operands of a BMM kernel: planes of `a` (row-major, `m` lines) and of
/// `w` (column-major, `n` lines), `stride` words per line, `k` bits.
pub(super) struct Operands {
    pub a: Planes,
    pub w: Planes,
    pub nb: usize,
    pub nc: usize,
    pub stride: usize,
    /// Count popc(a_i) / popc(w_j) (or the code sums, for planes).
    pub need_pa: bool,
    pub need_pw: bool,
    pub planes: bool,
}

impl CudaBackend {
    /// The `bmm` entry point.
    pub(crate) fn bmm_op(
        &self,
        out: BitOutput<'_, CudaBackend>,
        semiring: BitSemiring,
        a: BitInput<'_, CudaBackend>,
        w: &CudaBits,
    ) -> Result<()> {
        const OP: &str = "bmm";
        need(OP, w.layout == BitLayout::ColMajor, || {
            "w must be column-major".into()
        })?;
        let (m, kk) = a.shape();
        need(OP, kk == w.nrows, || {
            format!("a has {kk} columns, w {} rows", w.nrows)
        })?;
        let lin = Linear::of(semiring, kk);
        match a {
            BitInput::Bits(a) => {
                need(OP, a.layout == BitLayout::RowMajor, || {
                    "a must be row-major".into()
                })?;
                let t = Target::of(OP, out, (m, w.ncols), lin, Dequant::none())?;
                let ops = Operands {
                    a: Planes::of([a.data.ptr()]),
                    w: Planes::of([w.data.ptr()]),
                    nb: 1,
                    nc: 1,
                    stride: w.stride,
                    need_pa: lin.beta != 0,
                    need_pw: lin.gamma != 0,
                    planes: false,
                };
                self.bmm_launch(&t, &ops)
            }
            BitInput::F32(x) => self.bmm_f32(out, semiring, x, w),
        }
    }

    /// Runs a bit BMM (plain or over planes) on the path the shape (or
    /// [`CudaBackend::set_bmm_path`]) picks.
    pub(super) fn bmm_launch(&self, t: &Target, o: &Operands) -> Result<()> {
        let (m, n) = (t.m, t.n);
        if m == 0 || n == 0 {
            return Ok(());
        }
        // 8 NF columns per warp: NF = 8, or 4 for planes (registers)
        let bn = if o.planes { 64 } else { 128 };
        let tiles = |bm: usize| m.div_ceil(bm) * n.div_ceil(bn);
        // the thin kernel's w (every plane's columns, rounded up to 64, and
        // every k block) and then its column terms (`ThinPair`: 16 bytes a
        // column)
        let k_blocks = o.stride.div_ceil(THIN_WORDS).max(1);
        let thin_w = o.nc * k_blocks * n.next_multiple_of(64) * THIN_LINE;
        let thin = (k_blocks == 1 || !o.planes) && thin_w <= THIN_W_BYTES;
        // the warpgroup kernel: plain products on an sm_90a device
        let wg = !o.planes && self.dev.arch == "sm_90a";
        let family = match self.bmm_path() {
            BmmPath::Auto if m <= 32 || n <= 32 => Family::Popcount,
            BmmPath::Auto | BmmPath::Thin if thin => Family::Thin,
            BmmPath::Auto if n <= bn && tiles(256) >= self.dev.sm_count as usize => Family::Tc(4),
            BmmPath::Auto if wg && n > bn => Family::Wg,
            BmmPath::Wg if wg => Family::Wg,
            BmmPath::Auto | BmmPath::Thin | BmmPath::Tc2 | BmmPath::Wg => Family::Tc(2),
            BmmPath::Tc4 => Family::Tc(4),
            BmmPath::Popcount => Family::Popcount,
        };
        let (kind, planes) = (t.kind as usize, o.planes as usize);
        let args = |f: BmmKernel| {
            f(
                o.a,
                o.w,
                o.nb as i32,
                o.nc as i32,
                m as u64,
                n as u64,
                o.stride as u64,
                t.out_w64,
                t.out,
                o.need_pa,
                o.need_pw,
                t.epi,
            )
        };
        // a persistent grid of `block` threads: as many blocks as fit at once,
        // at most `work`
        let persistent = |launch: Launch, block: u32, smem: usize, work: usize| {
            let func = launch.func(&self.dev)?;
            let resident = self.dev.resident_blocks(&func, block, smem as u32)?;
            let grid = work.min(resident as usize) as u32;
            launch.shared(&self.dev, grid, block, smem as u32)
        };
        match family {
            Family::Popcount => {
                let ncb = if t.kind == Kind::Bits {
                    2 * t.out_w64 as usize
                } else {
                    n.div_ceil(32)
                };
                let warps = m.div_ceil(POPC_R) * ncb;
                args(POPC[planes][kind]).run(&self.dev, warps * 32)
            }
            Family::Thin => {
                let smem = thin_w + 16 * n.next_multiple_of(64);
                let blocks = m.div_ceil(16).div_ceil(THIN_THREADS as usize / 32);
                persistent(args(THIN[planes][kind]), THIN_THREADS, smem, blocks)
            }
            Family::Tc(wm) => {
                // the stages, then a tile's terms (`TileTerms`): two words a row, four a column
                let bm = 64 * wm;
                let smem = TC_STAGES * (bm + bn) * TC_LINE + (2 * bm + 4 * bn) * 4;
                let f = if wm == 4 { TC4 } else { TC2 };
                persistent(args(f[planes][kind]), 64 * wm as u32, smem, tiles(bm))
            }
            Family::Wg => {
                // the stages from a 1024-byte boundary (up to 1008 bytes
                // skipped), then the tile's terms
                let (bm, bn) = WG_TILE;
                let smem = 1024 + WG_STAGES * (bm + bn) * TC_LINE + (2 * bm + 4 * bn) * 4;
                let tiles = m.div_ceil(bm) * n.div_ceil(bn);
                // popc(a_i), popc(w_j) counted once here, not by every tile
                let pops = if o.need_pa || o.need_pw {
                    Some(self.dev.alloc::<u32>(m + n)?)
                } else {
                    None
                };
                let (mut pa, mut pw) = (DevPtr::null(), DevPtr::null());
                if let Some(p) = &pops {
                    if o.need_pa {
                        pa = p.ptr();
                        k::bits_line_popc(o.a, 1, m as u64, o.stride as u64, pa)
                            .run(&self.dev, m * 8)?;
                    }
                    if o.need_pw {
                        pw = p.ptr().add(m);
                        k::bits_line_popc(o.w, 1, n as u64, o.stride as u64, pw)
                            .run(&self.dev, n * 8)?;
                    }
                }
                let (s, w64) = (o.stride as u64, t.out_w64);
                let launch = WG[kind](o.a, o.w, m as u64, n as u64, s, w64, t.out, pa, pw, t.epi);
                persistent(launch, 256, smem, tiles)
            }
        }
    }

    /// f32 activations times bits: `Σ_k x_ik dr(w_kj)` in k order.
    fn bmm_f32(
        &self,
        out: BitOutput<'_, CudaBackend>,
        semiring: BitSemiring,
        x: &CudaDense<f32>,
        w: &CudaBits,
    ) -> Result<()> {
        const OP: &str = "bmm";
        need(OP, semiring != BitSemiring::LorLand, || {
            "lor_land is not defined on an f32 left operand".into()
        })?;
        let (m, n, kk) = (x.nrows(), w.ncols, x.ncols());
        let t = Target::of(OP, out, (m, n), Linear::identity(), Dequant::none())?;
        need(OP, !t.counts(), || {
            "an f32 left operand gives f32 values: ask for BitOutput::Scaled or Bits".into()
        })?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        let ncb = if t.kind == Kind::Bits {
            2 * t.out_w64 as usize
        } else {
            n.div_ceil(32)
        };
        let tasks = m.div_ceil(POPC_R) * ncb.div_ceil(4);
        let grid = tasks.clamp(1, self.dev.sm_count as usize * 16) as u32;
        let f = if t.kind == Kind::Bits {
            k::bits_bmm_f32_bits
        } else {
            k::bits_bmm_f32_scaled
        };
        f(
            x.data.ptr(),
            w.data.ptr(),
            semiring.right() == BitDomain::Signed,
            m as u64,
            n as u64,
            kk as u64,
            w.stride as u64,
            t.out_w64,
            t.out,
            t.epi,
        )
        .grid(&self.dev, grid, 128)
    }
}
