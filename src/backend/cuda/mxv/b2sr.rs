//! `mxv` on B2SR (`cuda/sr.cu`): one launch for tiles of at most 8x8
//! (`b2sr_mxv_fused`: segments of long tile rows, then short tile rows);
//! short tile rows, segments and the fold of split rows for 16x16 and 32x32.

use super::super::codes::ACCUM_NONE;
use super::super::device::{bits_of, opt_ptr, DBuf, DevPtr};
use super::super::launch::{sr, NarrowCols, Segments, Sr, Tiles};
use super::super::mem::{bit_words, DVec, DevB2sr, SHORT_MAX};
use super::super::{CudaBackend, CudaVector};
use super::Io;
use crate::algebra::SemiringKind;
use crate::error::Result;
use crate::scalar::Scalar;

/// log2 of the lanes per short tile row in the one-launch `mxv` (k <= 8):
/// about the average tiles per tile row (at most [`SHORT_MAX`], at most
/// a warp), fewer while the short rows and the segments would not all fit in
/// one wave of `resident` lanes (what the device holds at once): the kernel
/// is bound by the latency of its dependent loads. On the H100 (commit
/// 2fe2c07, lanes from the average alone, two waves of lanes allowed),
/// grid-1024 on 4 lanes per tile row took 27 µs where the earlier
/// lane-per-row kernel took 11 µs, while delaunay_n14 on 16 lanes per tile
/// row went from 13.6 µs to 4.7 µs.
fn short_lanes_log(pat: &DevB2sr, resident: usize) -> u32 {
    let avg = pat
        .ntiles
        .div_ceil(pat.tile_rows.max(1))
        .clamp(1, SHORT_MAX as usize);
    let mut lanes = avg.next_power_of_two().min(32);
    let room = resident.saturating_sub(32 * pat.nseg).max(resident / 4);
    while lanes > 1 && pat.tile_rows * lanes > room {
        lanes /= 2;
    }
    lanes.trailing_zeros()
}

impl CudaBackend {
    /// The one-launch `mxv` on B2SR with tiles of at most 8x8
    /// (`b2sr_mxv_fused` in `cuda/sr.cu`): segments of long tile rows, then
    /// short tile rows. `accum >= 0`: folded into the full output in place.
    /// `affine = Some((d, c))` (the full vector `d`, bits of `c`): the affine
    /// product `out = c ⊕ A ⊕.⊗ (d ⊗ u)`, every row written, the full
    /// output not read.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn b2sr_mxv_fused<T: Scalar>(
        &self,
        m: Sr<T>,
        pat: &DevB2sr,
        vbits: u64,
        io: Io<T>,
        accum: i32,
        affine: Option<(DevPtr<T>, u64)>,
    ) -> Result<()> {
        let ((u_vals, u_pres), allowed, (out_vals, out_pres)) = (io.u, io.allowed, io.out);
        let k = pat.k;
        let (d_vals, cbits) = affine.unwrap_or((DevPtr::null(), 0));
        let scratch = if pat.nsplit > 0 {
            Some(pat.mxv_scratch(&self.dev)?)
        } else {
            None
        };
        // resident lanes of this kernel (its registers set how many)
        let narrow = pat.narrow.is_some();
        let per_sm = sr::b2sr_mxv_fused_per_sm(&self.dev, m, k, narrow, 256)?
            .map_or(8, |b| b.max(1) as usize);
        let llog = short_lanes_log(pat, 256 * per_sm * self.dev.sm_count as usize);
        let nshort = pat.tile_rows.div_ceil(32 >> llog);
        // one kernel per tile column form, the same arguments
        macro_rules! fused {
            ($kernel:path) => {
                $kernel(
                    m,
                    k,
                    Tiles::stored(pat),
                    NarrowCols::of(pat),
                    Segments::of(pat),
                    pat.tile_rows as u32,
                    SHORT_MAX,
                    llog,
                    pat.nrows as u64,
                    pat.ncols as u64,
                    vbits,
                    u_vals,
                    u_pres,
                    allowed,
                    out_vals,
                    out_pres,
                    opt_ptr(scratch.map(|s| &s.part_vals)).cast::<T>(),
                    opt_ptr(scratch.map(|s| &s.part_has)),
                    opt_ptr(scratch.map(|s| &s.counter)),
                    accum,
                    d_vals,
                    affine.is_some(),
                    cbits,
                )
            };
        }
        let launch = if narrow {
            fused!(sr::b2sr_mxv_fused_c16)
        } else {
            fused!(sr::b2sr_mxv_fused)
        };
        launch.run(&self.dev, (pat.nseg + nshort).max(1) * 32)
    }

    /// `t = A ⊕.⊗ u` on B2SR. With `into`, a vector of the result's length
    /// and representation (dense with presence, or bits for LOR.LAND on
    /// bits), the product is written into its buffers and `None` comes back:
    /// one product is then one kernel launch when no tile row is long (the
    /// short-row kernel writes every value and presence word). With
    /// `accum >= 0` and `into` a full vector (no presence) and tiles of at
    /// most 8x8, the product is folded into it in place (`w = accum(w, t)`
    /// where `t` has a value, one launch, no temporary); otherwise `accum` is
    /// ignored and the caller accumulates. (Products with `A'` are pushed:
    /// `push.rs`.)
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn b2sr_mxv<T: Scalar>(
        &self,
        m: Sr<T>,
        pat: &DevB2sr,
        value: T,
        u: &CudaVector<T>,
        allowed: Option<&DBuf<u32>>,
        into: Option<&CudaVector<T>>,
        accum: i32,
    ) -> Result<Option<CudaVector<T>>> {
        let n_out = pat.nrows;
        let k = pat.k;
        let uv = self.view(u)?;
        let lor_bits = m.kind() == Some(SemiringKind::LorLand)
            && matches!(u.repr, DVec::Bits(_))
            && value.is_nonzero();
        // (values, presence) of a reusable output
        let reuse = match into.map(|w| (w.len == n_out, &w.repr)) {
            Some((true, DVec::Bits(b))) if lor_bits => Some((DevPtr::null(), b.ptr())),
            Some((
                true,
                DVec::Dense {
                    vals,
                    pres: Some(p),
                },
            )) if !lor_bits && accum < 0 => Some((vals.ptr(), p.ptr())),
            Some((true, DVec::Dense { vals, pres: None })) if !lor_bits && accum >= 0 && k <= 8 => {
                Some((vals.ptr(), DevPtr::null()))
            }
            _ => None,
        };
        // folded in place only into a full output reused as it is
        let accum = if reuse.is_some() { accum } else { ACCUM_NONE };
        let (fresh, out_vals, out_pres) = match reuse {
            Some((v, p)) => (None, v, p),
            None => {
                let vals = if lor_bits {
                    None
                } else {
                    Some(self.dev.alloc::<T>(n_out)?)
                };
                // the short-row kernel writes every presence word itself
                let pres = self.dev.alloc::<u32>(bit_words(n_out))?;
                let (v, p) = (opt_ptr(vals.as_ref()), pres.ptr());
                (Some((vals, pres)), v, p)
            }
        };
        let vbits = bits_of(value);
        let io = Io {
            u: (uv.vals, uv.pres),
            allowed: opt_ptr(allowed),
            out: (out_vals, out_pres),
        };
        if k <= 8 {
            self.b2sr_mxv_fused(m, pat, vbits, io, accum, None)?;
        } else {
            self.b2sr_mxv_wide(m, pat, vbits, io)?;
        }
        drop(uv);
        Ok(fresh.map(|(vals, pres)| match vals {
            None => CudaVector {
                len: n_out,
                repr: DVec::Bits(pres),
            },
            Some(v) => self.dense_vec(n_out, v, pres),
        }))
    }

    /// `mxv` on 16x16 and 32x32 tiles: k lanes per short tile row, a warp
    /// per segment of a long one, and the fold of split rows' partials.
    fn b2sr_mxv_wide<T: Scalar>(
        &self,
        m: Sr<T>,
        pat: &DevB2sr,
        vbits: u64,
        io: Io<T>,
    ) -> Result<()> {
        let ((u_vals, u_pres), allowed, (out_vals, out_pres)) = (io.u, io.allowed, io.out);
        let k = pat.k;
        let tiles = Tiles::of(&self.dev, pat)?;
        let nrows = pat.nrows as u64;
        // k lanes per tile row
        let lanes = pat.tile_rows.div_ceil(32 / k) * 32;
        sr::b2sr_mxv_short(
            m,
            k,
            tiles,
            pat.tile_rows as u32,
            SHORT_MAX,
            nrows,
            pat.ncols as u64,
            vbits,
            u_vals,
            u_pres,
            allowed,
            out_vals,
            out_pres,
        )
        .run(&self.dev, lanes.max(32))?;
        if pat.nseg == 0 {
            return Ok(());
        }
        let part = if pat.nsplit > 0 {
            Some((
                self.dev.alloc::<T>(pat.nseg * k)?,
                self.dev.alloc::<u8>(pat.nseg * k)?,
            ))
        } else {
            None
        };
        let (pv, ph) = (
            opt_ptr(part.as_ref().map(|p| &p.0)),
            opt_ptr(part.as_ref().map(|p| &p.1)),
        );
        sr::b2sr_mxv(
            m,
            k,
            tiles,
            Segments::of(pat),
            nrows,
            vbits,
            u_vals,
            u_pres,
            allowed,
            out_vals,
            out_pres,
            pv,
            ph,
        )
        .run(&self.dev, pat.nseg * 32)?;
        if part.is_some() {
            sr::b2sr_mxv_fix(
                m,
                k,
                pat.split_rows.ptr(),
                pat.nsplit as u32,
                pat.seg_off.ptr(),
                nrows,
                pv,
                ph,
                out_vals,
                out_pres,
            )
            .run(&self.dev, pat.nsplit * k)?;
        }
        Ok(())
    }
}
