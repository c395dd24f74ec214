//! The output phase shared by every CPU operation:
//! `w<mask> = accum(w, t)` with replace, for vectors and CSR matrices.

use crate::container::{Accumulate, Mask, MatrixMask, Vector, VectorRepr};
use crate::scalar::Scalar;
use crate::storage::{BitVec, Csr};

use super::dense_view::{dense_from_fn, dense_view, for_chunks_mut};
use super::Cpu;

/// The positions a vector mask allows (complement applied).
pub(crate) fn allowed_bits(mask: Option<Mask<'_, Cpu>>) -> Option<BitVec> {
    mask.map(|m| {
        let mut b = m.source.mask_bits(m.structural);
        if m.complemented {
            b.negate();
        }
        b
    })
}

/// A resolved matrix mask: the mask's pattern per row (value or structure) and
/// whether it is complemented.
pub(crate) struct RowMask {
    pub pattern: Csr<bool>,
    pub complemented: bool,
}

impl RowMask {
    pub fn resolve(mask: Option<MatrixMask<'_, Cpu>>) -> Option<RowMask> {
        mask.map(|m| RowMask {
            pattern: m.source.mask_pattern(m.structural),
            complemented: m.complemented,
        })
    }
    /// True when the mask allows `(i, j)`.
    #[inline]
    pub fn allows(&self, i: usize, j: u32) -> bool {
        self.pattern.row(i).0.binary_search(&j).is_ok() != self.complemented
    }
}

/// `w<mask> = accum(w, t)`, replacing `w`.
pub(crate) fn write_vector<T: Scalar, A: Accumulate<T>>(
    w: &mut Vector<T>,
    t: Vector<T>,
    allowed: Option<&BitVec>,
    accum: A,
    replace: bool,
) {
    let n = w.len();
    if allowed.is_none() && !A::ACTIVE {
        *w = t;
        return;
    }
    // Fast path: packed bits, no accumulator.
    if !A::ACTIVE {
        if let (VectorRepr::Bits(tb), Some(m)) = (t.repr(), allowed) {
            let old = match (replace, w.repr()) {
                (true, _) => Some(None),
                (false, VectorRepr::Bits(wb)) => Some(Some(wb)),
                _ => None,
            };
            if let Some(old) = old {
                let mut out = tb.clone();
                out.and_assign(m);
                if let Some(wb) = old {
                    let mut keep = wb.clone();
                    keep.and_not_assign(m);
                    out.or_assign(&keep);
                }
                *w = Vector::from_bits(out);
                return;
            }
        }
    }
    // A dense result written with replace and no accumulator: its values,
    // present where it and the mask are (`O(n / 64)` words).
    if let (false, true, Some(m), VectorRepr::Dense { .. }) =
        (A::ACTIVE, replace, allowed, t.repr())
    {
        let VectorRepr::Dense { values, present } = t.into_repr() else {
            unreachable!("matched above")
        };
        let mut present = present.unwrap_or_else(|| BitVec::ones(n));
        present.and_assign(m);
        let all = present.count_ones() == n;
        *w = Vector::from_repr(
            n,
            VectorRepr::Dense {
                values,
                present: (!all).then_some(present),
            },
        )
        .expect("a dense vector keeps its length");
        return;
    }
    // A sparse result written with replace and no accumulator: its entries the
    // mask allows, in `O(nnz(t))` (a frontier stays sparse).
    if let (false, true, Some(m), VectorRepr::Sparse { indices, values }) =
        (A::ACTIVE, replace, allowed, t.repr())
    {
        let (indices, values) = indices
            .iter()
            .zip(values)
            .filter(|(&i, _)| m.get(i as usize))
            .map(|(&i, &x)| (i, x))
            .unzip();
        *w = Vector::from_repr(n, VectorRepr::Sparse { indices, values })
            .expect("a subset of a valid sparse vector");
        return;
    }
    // No mask, an accumulator, every entry of `w` present: in place.
    if allowed.is_none() && matches!(w.repr(), VectorRepr::Dense { present: None, .. }) {
        let old = std::mem::replace(w, Vector::empty(n));
        if let VectorRepr::Dense { mut values, .. } = old.into_repr() {
            let tv = dense_view(&t);
            for_chunks_mut(&mut values, 4096, n, |c, ch| {
                for (k, o) in ch.iter_mut().enumerate() {
                    if let Some(x) = tv.get(c * 4096 + k) {
                        *o = accum.combine(*o, x);
                    }
                }
            });
            *w = Vector::from_dense(values);
            return;
        }
    }
    // General path: one parallel pass over dense views.
    let (tv, wv) = (dense_view(&t), dense_view(w));
    let z = dense_from_fn(n, |i| {
        let (new, old) = (tv.get(i), wv.get(i));
        let z = match (A::ACTIVE, new, old) {
            (true, Some(x), Some(o)) => Some(accum.combine(o, x)),
            (true, None, o) => o,
            (_, x, _) => x,
        };
        if allowed.is_none_or(|m| m.get(i)) {
            z
        } else if !replace {
            old
        } else {
            None
        }
    });
    drop(wv);
    *w = z;
}

/// `C<mask> = accum(C, T)` on CSR, returning the new `C`.
pub(crate) fn write_matrix<T: Scalar, A: Accumulate<T>>(
    c: &Csr<T>,
    t: Csr<T>,
    mask: Option<&RowMask>,
    accum: A,
    replace: bool,
) -> Csr<T> {
    if mask.is_none() && !A::ACTIVE {
        return t;
    }
    let (nrows, ncols) = (c.nrows(), c.ncols());
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0);
    let mut cols = Vec::new();
    let mut vals = Vec::new();
    for i in 0..nrows {
        let (cc, cv) = c.row(i);
        let (tc, tv) = t.row(i);
        let (mut p, mut q) = (0, 0);
        while p < cc.len() || q < tc.len() {
            let j = match (cc.get(p), tc.get(q)) {
                (Some(&a), Some(&b)) => a.min(b),
                (Some(&a), None) => a,
                (None, Some(&b)) => b,
                (None, None) => unreachable!(),
            };
            let old = (cc.get(p) == Some(&j)).then(|| cv[p]);
            let new = (tc.get(q) == Some(&j)).then(|| tv[q]);
            if old.is_some() {
                p += 1;
            }
            if new.is_some() {
                q += 1;
            }
            let z = match (A::ACTIVE, old, new) {
                (true, Some(o), Some(n)) => Some(accum.combine(o, n)),
                (true, Some(o), None) => Some(o),
                (_, _, Some(n)) => Some(n),
                _ => None,
            };
            let out = if mask.is_none_or(|m| m.allows(i, j)) {
                z
            } else if !replace {
                old
            } else {
                None
            };
            if let Some(v) = out {
                cols.push(j);
                vals.push(v);
            }
        }
        // Entries of C outside T's pattern were visited above; nothing else survives.
        row_ptr.push(cols.len());
    }
    Csr::from_parts_unchecked(nrows, ncols, row_ptr, cols, vals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{NoAccum, VectorFormat};

    /// Every layout of `t` and `w`, written with a mask and replace and no
    /// accumulator: the entries of `t` the mask allows, nothing else (the
    /// fast paths against the general one, with entries of `t` outside the
    /// mask).
    #[test]
    fn replace_without_accumulator_keeps_the_allowed_entries_of_t() {
        let n = 70;
        let allowed = BitVec::from_indices(n, (0..n).filter(|i| i % 3 != 0));
        let t_entries: Vec<(usize, f64)> = (0..n)
            .filter(|i| i % 2 == 0)
            .map(|i| (i, 2.0 + i as f64))
            .collect();
        let t_sparse = Vector::from_entries(n, t_entries.clone()).unwrap();
        let t_ones =
            Vector::from_entries(n, t_entries.iter().map(|&(i, _)| (i, 1.0)).collect()).unwrap();
        let w_old = Vector::from_entries(n, (0..n).map(|i| (i, -1.0)).collect()).unwrap();
        for (t, want_value) in [(&t_sparse, None), (&t_ones, Some(1.0))] {
            for tf in [
                VectorFormat::Dense,
                VectorFormat::Sparse,
                VectorFormat::Bits,
            ] {
                let Ok(t) = t.to_format(tf) else {
                    continue; // valued entries have no packed-bit form
                };
                for wf in [
                    VectorFormat::Dense,
                    VectorFormat::Sparse,
                    VectorFormat::Bits,
                ] {
                    let Ok(mut w) = w_old.to_format(wf) else {
                        continue;
                    };
                    write_vector(&mut w, t.clone(), Some(&allowed), NoAccum, true);
                    let want: Vec<(usize, f64)> = t_entries
                        .iter()
                        .filter(|&&(i, _)| allowed.get(i))
                        .map(|&(i, x)| (i, want_value.unwrap_or(x)))
                        .collect();
                    assert_eq!(w.entries(), want, "{tf:?} into {wf:?}");
                }
            }
        }
    }
}
