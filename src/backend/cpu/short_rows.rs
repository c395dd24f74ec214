//! Branch-free sums of short CSR rows for `PLUS.TIMES` on `f64`, the
//! product of PageRank and of most numeric `mxv` calls.
//!
//! A loop over a row's entries exits at the row's length: on rows of 2 to 8
//! entries whose lengths vary (road networks: 1-4, meshes: 3-10) that exit
//! is mispredicted about once a row, which costs more than the row's
//! arithmetic and memory reads together. Here a row of at most `W` entries
//! (4 or 8, by the matrix's mean row length) is read as a window of `W`
//! column indices from its start: every lane gathers its `u_j` (a lane past
//! the row's end reads a later row's column, still a column of the matrix)
//! and the lanes past the end are cleared to `+0.0` by a bit mask, so no
//! branch depends on the row's length. Plain loads and masks: on the Zen 3
//! machine this is measured on, AVX2 masked gathers (the kernel before this
//! one) were 1.4-1.7x slower on USA-road-d.NY. Longer rows, and the last
//! rows whose window would run past the end of the arrays, take the scalar
//! [`row_dot_by`] (for a pattern of ones, [`sum_gathered`]: the same sum
//! without the multiply by one or bounds tests). Terms are added left to
//! right, as the scalar path adds a short row, so the result equals it (a
//! padding lane adds `+0.0`, which can only turn a `-0.0` sum into `0.0`).

use std::any::TypeId;

use super::generic::{row_dot_by, LANE_ROW};
use crate::algebra::{PlusTimes, Semiring, SemiringKind};
use crate::scalar::Scalar;
use crate::storage::Csr;

/// `x` seen as a slice of `U`, when `T` is `U` (`None` otherwise).
pub(crate) fn same_type<T: 'static, U: 'static>(x: &[T]) -> Option<&[U]> {
    (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
        // SAFETY: `T` and `U` are the same type, so the pointer, length and
        // lifetime describe a valid `[U]`.
        unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<U>(), x.len()) }
    })
}

/// `x` seen as a mutable slice of `U`, when `T` is `U` (`None` otherwise).
pub(crate) fn same_type_mut<T: 'static, U: 'static>(x: &mut [T]) -> Option<&mut [U]> {
    (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
        // SAFETY: `T` and `U` are the same type, so the pointer, length and
        // lifetime describe a valid `[U]`, borrowed as `x` was.
        unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<U>(), x.len()) }
    })
}

/// The window for a CSR matrix with `nnz` entries in `nrows` rows: 4
/// entries when rows average at most 3 (nearly every row then fits), else 8
/// (meshes; and power-law graphs, whose many short rows then take no
/// mispredicted exit while the long rows hold most entries).
fn window_width(nnz: usize, nrows: usize) -> usize {
    if nnz <= 3 * nrows {
        4
    } else {
        8
    }
}

/// `LIVE[len][l]`: all ones where lane `l` lies in a row of `len` entries.
const LIVE: [[u64; 8]; 9] = {
    let mut m = [[0u64; 8]; 9];
    let mut len = 0;
    while len <= 8 {
        let mut l = 0;
        while l < len {
            m[len][l] = u64::MAX;
            l += 1;
        }
        len += 1;
    }
    m
};

/// A `PLUS.TIMES` product over `f64` of a CSR matrix with short rows and a
/// full vector `u` (or `d ⊙ u`, for the affine product), row by row (see the
/// module documentation).
pub(crate) struct ShortRows<'a> {
    cols: &'a [u32],
    /// The column scale `d` of `A (d ⊙ u)`, when there is one.
    d: Option<&'a [f64]>,
    /// The values, or `None` for an iso-valued matrix (`iso` then).
    vals: Option<&'a [f64]>,
    iso: f64,
    u: &'a [f64],
    width: usize,
}

impl<'a> ShortRows<'a> {
    /// The product of `a` and the full `u`, when `S` is `PLUS.TIMES` over
    /// `f64`; `None` (use the scalar path) otherwise.
    pub(crate) fn new<S: Semiring>(a: &'a Csr<S::T>, u: &'a [S::T]) -> Option<Self> {
        Self::scaled::<S>(a, None, u)
    }

    /// The product of `a` and `d ⊙ u` (`u` when `d` is `None`), each term
    /// `a_ij · (d_j · u_j)` rounded as the element-wise product and then the
    /// product would round it; `None` as [`ShortRows::new`].
    pub(crate) fn scaled<S: Semiring>(
        a: &'a Csr<S::T>,
        d: Option<&'a [S::T]>,
        u: &'a [S::T],
    ) -> Option<Self> {
        if S::KERNEL?.kind() != SemiringKind::PlusTimes {
            return None;
        }
        let width = window_width(a.nnz(), a.nrows());
        // The gathers are unchecked: `u` and `d` must cover every column.
        if u.len() < a.ncols() {
            return None;
        }
        let u = same_type::<S::T, f64>(u)?;
        let d = match d {
            Some(d) if d.len() < a.ncols() => return None,
            Some(d) => Some(same_type::<S::T, f64>(d)?),
            None => None,
        };
        let (vals, iso) = match a.iso_value() {
            Some(v) => (None, v.to_f64()),
            None => (Some(same_type::<S::T, f64>(a.values())?), 0.0),
        };
        Some(ShortRows {
            cols: a.col_idx(),
            d,
            vals,
            iso,
            u,
            width,
        })
    }

    /// `out[k] = put(out[k], t_k, has_k)` for every row `k` of the rows whose
    /// pointers are `rp` (`rp.len() - 1 == out.len()` rows, a window of the
    /// matrix's row pointers): `has_k` says whether row `k` has an entry, and
    /// then `t_k` is its product with `u` (else `t_k` is `+0.0`).
    pub(crate) fn rows_into(
        &self,
        rp: &[usize],
        out: &mut [f64],
        put: impl Fn(f64, f64, bool) -> f64,
    ) {
        debug_assert_eq!(rp.len(), out.len() + 1);
        match self.d {
            None => self.with_gather(Plain(self.u), rp, out, put),
            Some(d) => self.with_gather(Scaled(d, self.u), rp, out, put),
        }
    }

    /// [`ShortRows::rows_into`] for the gather `g`: the kernel for the
    /// matrix's values.
    fn with_gather<G: Gather>(
        &self,
        g: G,
        rp: &[usize],
        out: &mut [f64],
        put: impl Fn(f64, f64, bool) -> f64,
    ) {
        match self.vals {
            None if self.iso == 1.0 => self.with_term(g, Ones, rp, out, put),
            None => self.with_term(g, Iso(self.iso), rp, out, put),
            Some(v) => self.with_term(g, Vals(v), rp, out, put),
        }
    }

    /// [`ShortRows::rows_into`] for the gather `g` and the values `v`: the
    /// kernel for the window's width.
    fn with_term<G: Gather, V: Term>(
        &self,
        g: G,
        v: V,
        rp: &[usize],
        out: &mut [f64],
        put: impl Fn(f64, f64, bool) -> f64,
    ) {
        match self.width {
            4 => self.rows_window::<4, G, V>(g, v, rp, out, put),
            _ => self.rows_window::<8, G, V>(g, v, rp, out, put),
        }
    }

    /// [`ShortRows::rows_into`] with a window of `W` (4 or 8) entries.
    #[inline]
    fn rows_window<const W: usize, G: Gather, V: Term>(
        &self,
        g: G,
        v: V,
        rp: &[usize],
        out: &mut [f64],
        put: impl Fn(f64, f64, bool) -> f64,
    ) {
        let nnz = self.cols.len();
        // Rows whose window lies in the arrays (row pointers never fall):
        // the first `safe` ones. The rest take the scalar path.
        let safe = rp[..out.len()].partition_point(|&s| s + W <= nnz);
        let (head, tail) = out.split_at_mut(safe);
        for (o, r) in head.iter_mut().zip(rp.windows(2)) {
            let (start, len) = (r[0], r[1] - r[0]);
            if len > W {
                *o = put(*o, self.long_row(g, v, start, r[1]), true);
                continue;
            }
            // SAFETY: `start + W <= nnz` for the rows below `safe`.
            let cols = unsafe { self.cols.get_unchecked(start..start + W) };
            // `len <= W <= 8`: a row of the table. An empty row's lanes are
            // all dead (its sum is `+0.0`, and `put` is told it has none).
            let live = &LIVE[len];
            let mut acc = 0.0;
            for l in 0..W {
                // SAFETY: `scaled` checked that the gathered vectors cover
                // every column of the matrix, and every column of the
                // (validated) matrix, a later row's in a dead lane too, is
                // below `ncols`; `start + l < nnz` is an entry of the matrix.
                let t = unsafe { v.term(start + l, g.at(cols[l] as usize)) };
                // A dead lane (past the row's end) adds `+0.0`, whatever it
                // read (an infinite or NaN term is cleared too). The mask is
                // loaded, not computed: a computed one was turned back into
                // a branch on the row's length.
                let t = f64::from_bits(t.to_bits() & live[l]);
                acc = if l == 0 { t } else { acc + t };
            }
            *o = put(*o, acc, len != 0);
        }
        for (o, r) in tail.iter_mut().zip(rp[safe..].windows(2)) {
            *o = match r[1] - r[0] {
                0 => put(*o, 0.0, false),
                _ => put(*o, self.long_row(g, v, r[0], r[1]), true),
            };
        }
    }

    /// The scalar sum of the non-empty row `start..end`, as the generic path
    /// adds it.
    #[inline]
    fn long_row<G: Gather, V: Term>(&self, g: G, v: V, start: usize, end: usize) -> f64 {
        let cols = &self.cols[start..end];
        // SAFETY: `scaled` checked that the gathered vectors cover every
        // column of the matrix, and the (validated) matrix's columns are
        // below `ncols`.
        let x = |j: usize| unsafe { g.at(j) };
        if V::ONES {
            // A pattern of ones: `1 * x_j` is `x_j` exactly, so the sum of
            // the gathered `x_j` in the scalar path's order is its result.
            return sum_gathered(cols, x);
        }
        // SAFETY: `start + p < end <= nnz` is an entry of the matrix.
        row_dot_by(
            &PlusTimes::<f64>::new(),
            cols,
            |p| unsafe { v.value(start + p) },
            x,
        )
    }
}

/// Where a row reads the vector's entry of column `j`: `u_j`, or `u_j · d_j`.
trait Gather: Copy {
    /// The entry of column `j`.
    ///
    /// # Safety
    /// `j` must be below the length of the vectors read.
    unsafe fn at(self, j: usize) -> f64;
}

/// The gather of `u` alone.
#[derive(Clone, Copy)]
struct Plain<'a>(&'a [f64]);

impl Gather for Plain<'_> {
    #[inline(always)]
    unsafe fn at(self, j: usize) -> f64 {
        *self.0.get_unchecked(j)
    }
}

/// The gather of `d ⊙ u` (`d`, `u`), rounded as the element-wise product.
#[derive(Clone, Copy)]
struct Scaled<'a>(&'a [f64], &'a [f64]);

impl Gather for Scaled<'_> {
    #[inline(always)]
    unsafe fn at(self, j: usize) -> f64 {
        *self.1.get_unchecked(j) * *self.0.get_unchecked(j)
    }
}

/// The matrix's values, as a row's terms `a_p · x` use them.
trait Term: Copy {
    /// Every value is one: the term is `x` itself (exactly `1 · x`).
    const ONES: bool = false;

    /// The value of the matrix's `p`-th entry.
    ///
    /// # Safety
    /// `p` must be below the matrix's number of entries.
    unsafe fn value(self, p: usize) -> f64;

    /// The term `a_p · x` of the `p`-th entry.
    ///
    /// # Safety
    /// As [`Term::value`].
    #[inline(always)]
    unsafe fn term(self, p: usize, x: f64) -> f64 {
        if Self::ONES {
            x
        } else {
            self.value(p) * x
        }
    }
}

/// A pattern of ones.
#[derive(Clone, Copy)]
struct Ones;

impl Term for Ones {
    const ONES: bool = true;

    #[inline(always)]
    unsafe fn value(self, _: usize) -> f64 {
        1.0
    }
}

/// Every entry holds the same value.
#[derive(Clone, Copy)]
struct Iso(f64);

impl Term for Iso {
    #[inline(always)]
    unsafe fn value(self, _: usize) -> f64 {
        self.0
    }
}

/// A value per entry.
#[derive(Clone, Copy)]
struct Vals<'a>(&'a [f64]);

impl Term for Vals<'_> {
    #[inline(always)]
    unsafe fn value(self, p: usize) -> f64 {
        *self.0.get_unchecked(p)
    }
}

/// `Σ x(j)` over the columns `j` of a non-empty row, added in
/// [`row_dot_by`]'s order (left to right below its four-lane length, else
/// four interleaved lanes and a left-to-right tail): no multiply by one, no
/// bounds tests on the columns.
#[inline]
fn sum_gathered(cols: &[u32], x: impl Fn(usize) -> f64) -> f64 {
    // SAFETY: `p` is below `cols.len()` at every call below.
    let at = |p: usize| x(unsafe { *cols.get_unchecked(p) } as usize);
    if cols.len() < LANE_ROW {
        let mut acc = at(0);
        for p in 1..cols.len() {
            acc += at(p);
        }
        return acc;
    }
    let mut lanes = [at(0), at(1), at(2), at(3)];
    let body = 4 + (cols.len() - 4) / 4 * 4;
    for p in (4..body).step_by(4) {
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane += at(p + l);
        }
    }
    let mut acc = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for p in body..cols.len() {
        acc += at(p);
    }
    acc
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::backend::cpu::generic::row_dot_full;
    use rand::{Rng, SeedableRng};

    /// Row sums of the scalar path: left to right below 16 entries (a
    /// plain fold, checked here), four lanes above.
    fn reference(a: &Csr<f64>, u: &[f64]) -> Vec<Option<f64>> {
        (0..a.nrows())
            .map(|i| {
                let (c, v) = a.row(i);
                let mut it = c.iter().zip(v).map(|(&j, &x)| x * u[j as usize]);
                let first = it.next()?;
                let plain = it.fold(first, |s, t| s + t);
                let scalar = row_dot_full(&PlusTimes::<f64>::new(), c, |p| v[p], u);
                if c.len() < 16 {
                    assert!(plain == scalar || plain.is_nan() && scalar.is_nan());
                }
                Some(scalar)
            })
            .collect()
    }

    /// A random CSR matrix with row lengths drawn from `lens` (so rows
    /// below, at and above the window, and empty rows), values `value(p)`.
    pub(in crate::backend::cpu) fn random(
        rng: &mut rand::rngs::StdRng,
        nrows: usize,
        ncols: usize,
        lens: &[usize],
        value: impl Fn(usize) -> f64,
    ) -> Csr<f64> {
        let mut rp = vec![0];
        let mut ci = vec![];
        for _ in 0..nrows {
            let len = lens[rng.gen_range(0..lens.len())].min(ncols);
            let mut cols: Vec<u32> = rand::seq::index::sample(rng, ncols, len)
                .into_iter()
                .map(|j| j as u32)
                .collect();
            cols.sort_unstable();
            ci.extend(cols);
            rp.push(ci.len());
        }
        let vals = (0..ci.len()).map(value).collect();
        Csr::try_new(nrows, ncols, rp, ci, vals).unwrap()
    }

    /// The rows against `u` (`d = None`) or against `d ⊙ u`, whose terms
    /// `a_ij · (d_j · u_j)` must equal the plain product's with the
    /// element-wise `t = d ⊙ u`.
    fn check_scaled(a: &Csr<f64>, d: Option<&[f64]>, u: &[f64], chunk: usize) {
        let Some(k) = ShortRows::scaled::<PlusTimes<f64>>(a, d, u) else {
            eprintln!("SKIPPED: not PLUS.TIMES over f64");
            return;
        };
        let t: Vec<f64> = match d {
            Some(d) => d.iter().zip(u).map(|(x, y)| x * y).collect(),
            None => u.to_vec(),
        };
        let want = reference(a, &t);
        // Rows without an entry must keep what `out` held.
        let untouched = f64::from_bits(0x7ff8_dead_beef_0001);
        let mut out = vec![untouched; a.nrows()];
        let rp = a.row_ptr();
        for c0 in (0..a.nrows()).step_by(chunk) {
            let c1 = (c0 + chunk).min(a.nrows());
            k.rows_into(&rp[c0..=c1], &mut out[c0..c1], |old, t, has| {
                if has {
                    t
                } else {
                    assert_eq!(t.to_bits(), 0, "an empty row's sum is +0.0");
                    old
                }
            });
        }
        let got: Vec<Option<f64>> = (0..a.nrows())
            .map(|i| {
                let kept = out[i].to_bits() == untouched.to_bits();
                assert_eq!(kept, rp[i] == rp[i + 1], "row {i}");
                (!kept).then_some(out[i])
            })
            .collect();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            // Equal, NaN for NaN (the same terms in the same order).
            let same = match (g, w) {
                (Some(g), Some(w)) => g == w || (g.is_nan() && w.is_nan()),
                (None, None) => true,
                _ => false,
            };
            assert!(same, "row {i}: {g:?} != {w:?}");
        }
    }

    /// [`check_scaled`] against `u`, and against `d ⊙ u` for a `d` with
    /// magnitudes and signs that make `d_j · u_j` round.
    fn check(a: &Csr<f64>, u: &[f64], chunk: usize) {
        check_scaled(a, None, u, chunk);
        let d: Vec<f64> = (0..u.len())
            .map(|j| 0.85 / (1 + j % 13) as f64 - 0.01)
            .collect();
        check_scaled(a, Some(&d), u, chunk);
    }

    #[test]
    fn short_rows_match_the_scalar_path() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for (nrows, ncols) in [(1, 1), (3, 5), (37, 41), (1000, 997), (4099, 300)] {
            // Road-like (window 4), mesh-like and power-law-like (window 8)
            // length mixes, with empty rows and rows longer than the window
            // (below, at and above the scalar path's four-lane length).
            let mixes = [
                &[0, 1, 2, 3, 4, 5][..],
                &[0, 3, 4, 5, 6, 7, 8, 9, 17],
                &[0, 1, 2, 9, 15, 16, 17, 18, 19, 40, 101],
            ];
            for lens in mixes {
                let u: Vec<f64> = (0..ncols).map(|_| rng.gen_range(-1.0..1.0)).collect();
                let iso = random(&mut rng, nrows, ncols, lens, |_| 1.0);
                assert!(iso.iso_value().is_some());
                let valued = random(&mut rng, nrows, ncols, lens, |p| {
                    (p * 7919 % 1009) as f64 / 250.0 - 2.0
                });
                for chunk in [1, 7, 512] {
                    check(&iso, &u, chunk);
                    check(&valued, &u, chunk);
                }
            }
        }
    }

    #[test]
    fn dead_lanes_are_never_read_or_added() {
        // Infinite and NaN entries of `u` and of the values that lie just
        // past a row's end (in the next rows' windows) must not leak in.
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let ncols = 64;
        let mut u: Vec<f64> = (0..ncols).map(|_| rng.gen_range(0.0..1.0)).collect();
        u[5] = f64::INFINITY;
        u[9] = f64::NAN;
        let lens = [1, 2, 3, 4];
        let vals: Vec<f64> = (0..4000)
            .map(|p| match p % 7 {
                0 => f64::INFINITY,
                1 => f64::NAN,
                _ => rng.gen_range(0.5..1.5),
            })
            .collect();
        let valued = random(&mut rng, 900, ncols, &lens, |p| vals[p]);
        let iso = random(&mut rng, 900, ncols, &lens, |_| f64::INFINITY);
        for a in [&valued, &iso] {
            check(a, &u, 64);
        }
    }
}
