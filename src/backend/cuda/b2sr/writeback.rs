//! The output phase of operations with a B2SR result: `C<mask> = accum(C,
//! T)` with replace on B2SR patterns (`b2sr_merge` in `cuda/mxm.cu`: count,
//! scan, fill), where the result holds one value.

use super::super::device::{DBuf, DevPtr};
use super::super::launch::{mxm, Tiles};
use super::super::mem::{no_kernel, CsrVals, DMat, DevB2sr};
use super::super::{CudaBackend, CudaMatrix};
use super::Oriented;
use crate::backend::Backend;
use crate::container::{Accumulate, Format, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::TileSize;

/// The mask of a B2SR write: none, a pattern, or a valued mask whose value is
/// zero (selects nothing).
pub(crate) enum MaskPat<'a> {
    None,
    Pattern(Oriented<'a>),
    Nothing,
}

fn tile_size(k: usize) -> TileSize {
    match k {
        4 => TileSize::T4,
        8 => TileSize::T8,
        16 => TileSize::T16,
        _ => TileSize::T32,
    }
}

impl CudaBackend {
    /// The B2SR pattern of a matrix mask at tile size `k`.
    pub(crate) fn mask_pattern<'a>(
        &self,
        op: &'static str,
        mask: &MatrixMask<'a, Self>,
        k: usize,
    ) -> Result<MaskPat<'a>> {
        let Some((pm, nonzero)) = mask.source.b2sr_mask() else {
            return Err(no_kernel(op, "a CSR mask (convert it to B2SR)"));
        };
        if !mask.structural && !nonzero {
            return Ok(MaskPat::Nothing);
        }
        Ok(MaskPat::Pattern(self.at_tile_size(&pm.0, k)?))
    }

    /// Whether [`Self::write_b2sr`] takes a write of a result with iso value
    /// `vt` into `c`: a B2SR mask or none, and, where it must read `C`, `C`'s
    /// entries holding `vt` (after the accumulator), `C` being B2SR or CSR with
    /// one value. Products ask before they compute, so a write the B2SR output
    /// phase cannot take goes to the CSR path without a wasted B2SR result.
    pub(crate) fn b2sr_output_applies<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &CudaMatrix<T>,
        vt: T,
        mask: &Option<MatrixMask<'_, Self>>,
        accum: &A,
        replace: bool,
    ) -> bool {
        if mask
            .as_ref()
            .is_some_and(|m| m.source.b2sr_mask().is_none())
        {
            return false;
        }
        if !(A::ACTIVE || (mask.is_some() && !replace)) {
            return true;
        }
        let vc = match &c.repr {
            DMat::B2sr { pat, .. } if pat.ntiles == 0 => return true,
            DMat::B2sr { value, .. } => *value,
            DMat::Csr { pat, .. } if pat.nnz == 0 => return true,
            DMat::Csr {
                vals: CsrVals::Iso(v),
                ..
            } => *v,
            DMat::Csr {
                vals: CsrVals::Each(_),
                ..
            } => return false,
        };
        vc.same_value(vt) && (!A::ACTIVE || accum.combine(vc, vt).same_value(vt))
    }

    /// `C<mask> = accum(C, T)` (with replace) for a B2SR `T` with iso value
    /// `vt`. `clean`: `T` has no zero tiles, so without a mask or accumulator
    /// it is the result as it is.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write_b2sr<T: Scalar, A: Accumulate<T>>(
        &self,
        op: &'static str,
        c: &mut CudaMatrix<T>,
        t: DevB2sr,
        vt: T,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        replace: bool,
        clean: bool,
    ) -> Result<()> {
        let (k, nrows, ncols) = (t.k, t.nrows, t.ncols);
        if mask.is_none() && !A::ACTIVE && clean {
            *c = CudaMatrix {
                nrows,
                ncols,
                repr: DMat::B2sr { pat: t, value: vt },
            };
            return Ok(());
        }
        // C's entries survive where the mask excludes them (no replace) or
        // where the accumulator keeps them.
        let need_c = A::ACTIVE || (mask.is_some() && !replace);
        let converted;
        let old: Option<(&DevB2sr, T)> = if !need_c {
            None
        } else {
            match &c.repr {
                DMat::B2sr { pat, value } if pat.k == k => Some((pat, *value)),
                _ => {
                    converted = self.convert(c, Format::B2sr(tile_size(k))).map_err(|e| {
                        no_kernel(op, format!("C as {k}x{k} B2SR with one value: {e}"))
                    })?;
                    match &converted.repr {
                        DMat::B2sr { pat, value } => Some((pat, *value)),
                        DMat::Csr { .. } => unreachable!("converted to B2SR"),
                    }
                }
            }
        };
        // The values the result can hold: T's (where T has tiles), C's
        // survivors, and where both meet under an accumulator, accum(c, t).
        let t_live = t.ntiles > 0;
        let mut values = Vec::new();
        if t_live {
            values.push(vt);
        }
        if let Some((_, vc)) = old.filter(|(p, _)| p.ntiles > 0) {
            values.push(vc);
            if A::ACTIVE && t_live {
                values.push(accum.combine(vc, vt));
            }
        }
        let value = values.first().copied().unwrap_or(vt);
        if values.iter().any(|&v| !v.same_value(value)) {
            return Err(no_kernel(
                op,
                "a result with more than one value (C's entries and the new ones differ)",
            ));
        }
        let (mode, mpat) = match &mask {
            None => (0, MaskPat::None),
            Some(m) => match self.mask_pattern(op, m, k)? {
                MaskPat::Nothing => (2, MaskPat::Nothing),
                p => (1, p),
            },
        };
        let comp = mask.as_ref().is_some_and(|m| m.complemented);
        let mp = match &mpat {
            MaskPat::Pattern(p) => Some(&**p),
            _ => None,
        };
        let tr = t.tile_rows;
        let c_old = Tiles::opt(&self.dev, old.map(|(p, _)| p))?;
        let (m_pat, t_pat) = (Tiles::opt(&self.dev, mp)?, Tiles::of(&self.dev, &t)?);
        let merge = |counts: &DBuf<u32>, out: Option<(&DBuf<u32>, &DBuf<u8>)>| {
            let (counts, out) = match out {
                None => (counts.ptr(), Tiles::null()),
                Some((colidx, tiles)) => (
                    DevPtr::null(),
                    Tiles {
                        rowptr: counts.ptr(),
                        colidx: colidx.ptr(),
                        tiles: tiles.ptr(),
                    },
                ),
            };
            mxm::b2sr_merge(
                k,
                t_pat,
                c_old,
                m_pat,
                mode,
                comp,
                A::ACTIVE,
                replace,
                tr as u32,
                counts,
                out,
            )
            .run(&self.dev, tr + 1)
        };
        let counts = self.dev.alloc::<u32>(tr + 1)?;
        merge(&counts, None)?;
        self.dev.scan(&counts, tr + 1)?;
        let nt = self.dev.read_u32(&counts, tr)? as usize;
        let colidx = self.dev.alloc::<u32>(nt)?;
        let tiles = self.dev.zeros::<u8>(nt * k * k / 8)?;
        merge(&counts, Some((&colidx, &tiles)))?;
        let pat = DevB2sr::new(&self.dev, k, nrows, ncols, nt, counts, colidx, tiles)?;
        *c = CudaMatrix {
            nrows,
            ncols,
            repr: DMat::B2sr { pat, value },
        };
        Ok(())
    }
}
