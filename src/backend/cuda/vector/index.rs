//! Indexed vector operations: `extract` (gather), `assign` at listed indices
//! (scatter) and `assign` of a scalar at every index (one in-place kernel
//! over the bit words, the per-level step of device-resident searches).

use super::super::codes::{accum_code, ACCUM_NONE};
use super::super::device::{bits_of, DevPtr};
use super::super::launch::vec;
use super::super::mem::{bit_words, no_kernel, DVec};
use super::super::{CudaBackend, CudaVector};
use crate::container::{Accumulate, Flags, Mask};
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// The `extract_vector` entry point: `w<mask> = accum(w, u(indices))`.
    pub(crate) fn extract_vector_op<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        u: &CudaVector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("extract")?;
        let allowed = self.allowed(mask)?;
        let m = indices.len();
        let idx = self.upload_indices(indices, u.len)?;
        let uv = self.view(u)?;
        let vals = self.dev.alloc::<T>(m)?;
        let pres = self.dev.alloc::<u32>(bit_words(m))?;
        vec::vec_gather(
            uv.vals,
            uv.pres,
            idx.ptr(),
            m as u64,
            vals.ptr(),
            pres.ptr(),
        )
        .run(&self.dev, bit_words(m) * 32)?;
        drop(uv);
        let t = self.dense_vec(m, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    /// The `assign_vector` entry points: `z(indices) = accum(z(indices), u
    /// or scalar)`, then `w<mask> = z` (`indices: None`: every index, by
    /// [`Self::assign_all_scalar`]).
    pub(crate) fn assign_vector_op<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        u: Option<&CudaVector<T>>,
        scalar: T,
        indices: Option<&[usize]>,
        flags: Flags,
    ) -> Result<()> {
        let acc = accum_code::<T, A>("assign")?;
        let Some(indices) = indices else {
            return self.assign_all_scalar(w, mask, acc, scalar, flags.replace);
        };
        let mut seen = vec![false; w.len];
        for &i in indices {
            if i < w.len && std::mem::replace(&mut seen[i], true) {
                return Err(no_kernel("assign", "repeated indices"));
            }
        }
        let allowed = self.allowed(mask)?;
        let (zv, zp) = self.owned_dense(w)?;
        let idx = self.upload_indices(indices, w.len)?;
        let uv = u.map(|u| self.view(u)).transpose()?;
        vec::vec_scatter(
            uv.as_ref().map_or(DevPtr::null(), |v| v.vals),
            uv.as_ref().map_or(DevPtr::null(), |v| v.pres),
            bits_of(scalar),
            u.is_none(),
            idx.ptr(),
            indices.len() as u64,
            acc,
            zv.ptr(),
            zp.ptr(),
        )
        .run(&self.dev, indices.len())?;
        drop(uv);
        let z = self.dense_vec(w.len, zv, zp);
        self.write_vector(w, z, allowed.as_ref(), ACCUM_NONE, flags.replace)
    }

    /// `w<mask> = accum(w, value)` at every index (`accum < 0`: none), in
    /// place: one kernel over the bit words of `w`. The mask is read straight
    /// from the source's bits where it can be (packed bits, or the presence
    /// bits of a structural mask), with the complement applied in the kernel.
    pub(crate) fn assign_all_scalar<T: Scalar>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: i32,
        value: T,
        replace: bool,
    ) -> Result<()> {
        let n = w.len;
        if mask.is_none() {
            // Every index is written: the result is full (no presence bits),
            // in place where `w` is dense.
            if accum < 0 || matches!(w.repr, DVec::Dense { pres: None, .. }) {
                if !matches!(w.repr, DVec::Dense { .. }) {
                    w.repr = DVec::Dense {
                        vals: self.dev.alloc::<T>(n)?,
                        pres: None,
                    };
                }
                let DVec::Dense { vals, pres } = &mut w.repr else {
                    unreachable!("made dense above")
                };
                if accum < 0 {
                    vec::vec_fill(vals.ptr(), n as u64, bits_of(value)).run(&self.dev, n)?;
                } else {
                    // `w` full: `w(i) = accum(w(i), value)` everywhere.
                    let all = self.ones_bits(n)?;
                    vec::vec_assign_all(
                        bits_of(value),
                        DevPtr::null(),
                        false,
                        accum,
                        replace,
                        n as u64,
                        vals.ptr(),
                        all.ptr(),
                    )
                    .run(&self.dev, bit_words(n) * 32)?;
                }
                *pres = None;
                return Ok(());
            }
        }
        let direct = mask.as_ref().map(|m| {
            (
                m.source.pattern_words(m.structural),
                m.complemented,
                m.structural,
            )
        });
        // Bits the kernel reads: the source's own, or a resolved copy.
        let resolved = match (&mask, direct) {
            (Some(m), Some((None, comp, structural))) => {
                Some(m.source.allowed_bits(self, structural, comp).map(|b| b.0)?)
            }
            _ => None,
        };
        let (mask_ptr, comp) = match (direct, &resolved) {
            (None, _) => (DevPtr::null(), false),
            (Some((Some(p), comp, _)), _) => (p, comp),
            (Some((None, _, _)), Some(r)) => (r.ptr(), false),
            (Some((None, _, _)), None) => unreachable!("resolved above"),
        };
        if !matches!(w.repr, DVec::Dense { pres: Some(_), .. }) {
            let (vals, pres) = self.owned_dense(w)?;
            w.repr = DVec::Dense {
                vals,
                pres: Some(pres),
            };
        }
        let DVec::Dense {
            vals,
            pres: Some(pres),
        } = &w.repr
        else {
            unreachable!("made dense with presence bits above")
        };
        vec::vec_assign_all(
            bits_of(value),
            mask_ptr,
            comp,
            accum,
            replace,
            n as u64,
            vals.ptr(),
            pres.ptr(),
        )
        .run(&self.dev, bit_words(n) * 32)?;
        drop(resolved);
        Ok(())
    }
}
