//! Vector operations that keep per-call work proportional to the vector's
//! bit words and never build host index lists (the per-level steps of
//! device-resident graph algorithms).

use super::device::{bits_of, Arg};
use super::kernels::ModuleId;
use super::mem::{bit_words, DVec};
use super::{CudaBackend, CudaVector};
use crate::container::Mask;
use crate::error::Result;
use crate::scalar::Scalar;

impl CudaBackend {
    /// `w<mask> = accum(w, value)` at every index (`accum < 0`: none), in
    /// place: one kernel over the bit words of `w`. The mask is read straight
    /// from the source's bits where it can be (packed bits, or the presence
    /// bits of a structural mask), with the complement applied in the kernel.
    pub(super) fn assign_all_scalar<T: Scalar>(
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
                    self.dev.run(
                        ModuleId::Vec(T::TYPE),
                        "vec_fill",
                        None,
                        n,
                        &[vals.arg(), Arg::U64(n as u64), Arg::U64(bits_of(value))],
                    )?;
                } else {
                    // `w` full: `w(i) = accum(w(i), value)` everywhere.
                    let all = self.ones_bits(n)?;
                    self.dev.run(
                        ModuleId::Vec(T::TYPE),
                        "vec_assign_all",
                        None,
                        bit_words(n) * 32,
                        &[
                            Arg::U64(bits_of(value)),
                            Arg::U64(0),
                            Arg::I32(0),
                            Arg::I32(accum),
                            Arg::I32(replace as i32),
                            Arg::U64(n as u64),
                            vals.arg(),
                            all.arg(),
                        ],
                    )?;
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
            (None, _) => (0, false),
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
        self.dev.run(
            ModuleId::Vec(T::TYPE),
            "vec_assign_all",
            None,
            bit_words(n) * 32,
            &[
                Arg::U64(bits_of(value)),
                Arg::U64(mask_ptr),
                Arg::I32(comp as i32),
                Arg::I32(accum),
                Arg::I32(replace as i32),
                Arg::U64(n as u64),
                vals.arg(),
                pres.arg(),
            ],
        )?;
        drop(resolved);
        Ok(())
    }

    /// The intersection `u ⊙ v` where one operand is sparse and the other
    /// full (dense without presence bits): a sparse result with the sparse
    /// operand's pattern, gathered in `O(nnz)` (no pass over the length,
    /// which the general element-wise kernel makes twice, with a scatter of
    /// the sparse operand first). `None` for other operand formats.
    pub(super) fn ewise_mult_gather<T: Scalar>(
        &self,
        op: i32,
        u: &CudaVector<T>,
        v: &CudaVector<T>,
    ) -> Result<Option<CudaVector<T>>> {
        let full = |x: &CudaVector<T>| match &x.repr {
            DVec::Dense { vals, pres: None } => Some(vals.ptr()),
            _ => None,
        };
        let (sparse, f_vals, swap) = match (&u.repr, full(v), full(u)) {
            (DVec::Sparse { .. }, Some(f), _) => (u, f, false),
            (_, _, Some(f)) if matches!(v.repr, DVec::Sparse { .. }) => (v, f, true),
            _ => return Ok(None),
        };
        let DVec::Sparse { idx, vals, nnz } = &sparse.repr else {
            unreachable!("matched a sparse operand above")
        };
        let nnz = *nnz;
        let out_idx = self.dev.copy(idx)?;
        let out_vals = self.dev.alloc::<T>(nnz)?;
        if nnz > 0 {
            self.dev.run(
                ModuleId::Vec(T::TYPE),
                "vec_ewise_gather",
                None,
                nnz,
                &[
                    Arg::I32(op),
                    Arg::I32(swap as i32),
                    idx.arg(),
                    vals.arg(),
                    Arg::U64(nnz as u64),
                    Arg::U64(f_vals),
                    out_vals.arg(),
                ],
            )?;
        }
        Ok(Some(CudaVector {
            len: u.len,
            repr: DVec::Sparse {
                idx: out_idx,
                vals: out_vals,
                nnz,
            },
        }))
    }
}
