//! The fused affine product `w = c ⊕ A ⊕.⊗ (d ⊗ u)` of a CSR matrix and full
//! vectors `d` and `u` (one PageRank iteration): one parallel pass over the
//! rows writes every `w_i` once, where the generic default
//! ([`crate::ext::affine::mxv_affine_generic`]) makes an element-wise
//! temporary, fills `w` with `c` and reads it back to accumulate.
//!
//! Each term is `a_ij ⊗ (d_j ⊗ u_j)` and each row is summed in the order of
//! the plain product, then added to `c`, so the result equals the generic
//! default's. Where columns average more than [`PRESCALE_ABOVE`] entries
//! (each `d_j ⊗ u_j` is used that often) `d ⊗ u` is computed once into a
//! temporary; elsewhere (road networks: under three entries a row) each term
//! computes its `d_j ⊗ u_j` where it gathers it. `PLUS.TIMES` over `f64`
//! takes the branch-free short rows of [`ShortRows`].

use rayon::prelude::*;

use super::dense_view::{for_chunks_mut, SEQUENTIAL_BELOW};
use super::generic::{row_dot_by, FULL_ROWS};
use super::short_rows::{same_type_mut, ShortRows};
use crate::algebra::Semiring;
use crate::scalar::Scalar;
use crate::storage::Csr;

/// Columns averaging more entries than this get a pre-scaled `d ⊗ u`.
const PRESCALE_ABOVE: usize = 2;

/// `w_i = c ⊕ ⊕_j a_ij ⊗ (d_j ⊗ u_j)` for every row `i` of `a` (`c` on an
/// empty row), into `w` (`a.nrows()` entries); `d` and `u` hold every
/// column's entry (`a.ncols()` each).
pub(crate) fn mxv_affine_csr<S: Semiring>(
    s: S,
    c: S::T,
    a: &Csr<S::T>,
    d: &[S::T],
    u: &[S::T],
    w: &mut [S::T],
) {
    debug_assert!(d.len() == a.ncols() && u.len() == a.ncols() && w.len() == a.nrows());
    let prescaled: Option<Vec<S::T>> = (a.nnz() > PRESCALE_ABOVE * a.ncols()).then(|| {
        // Written once (no copy of `u` or zero fill first).
        let scale = |(&dj, &uj): (&S::T, &S::T)| s.mul(dj, uj);
        if u.len() < SEQUENTIAL_BELOW {
            d.iter().zip(u).map(scale).collect()
        } else {
            d.par_iter().zip(u).map(scale).collect()
        }
    });
    // The vector the rows gather: `u` scaled by `d` on the fly, or `d ⊗ u`.
    let (d, u) = match &prescaled {
        Some(t) => (None, &t[..]),
        None => (Some(d), u),
    };
    let short = ShortRows::scaled::<S>(a, d, u);
    let (rp, ci, va, iso) = (a.row_ptr(), a.col_idx(), a.values(), a.iso_value());
    for_chunks_mut(w, FULL_ROWS, a.nnz() + a.nrows(), |k, wc| {
        let rp = &rp[k * FULL_ROWS..=k * FULL_ROWS + wc.len()];
        if let (Some(rows), Some(out)) = (&short, same_type_mut::<S::T, f64>(wc)) {
            // Empty rows are `c`; the others `c ⊕ t` (`ShortRows` exists
            // for `f64` alone, so `out` is `wc`).
            let c = c.to_f64();
            rows.rows_into(rp, out, |_, t, has| if has { c + t } else { c });
            return;
        }
        let x = |j: usize| match d {
            Some(d) => s.mul(d[j], u[j]),
            None => u[j],
        };
        for (wi, r) in wc.iter_mut().zip(rp.windows(2)) {
            if r[0] == r[1] {
                *wi = c;
                continue;
            }
            let cols = &ci[r[0]..r[1]];
            let t = match iso {
                Some(v) => row_dot_by(&s, cols, |_| v, x),
                None => {
                    let vals = &va[r[0]..r[1]];
                    row_dot_by(&s, cols, |p| vals[p], x)
                }
            };
            *wi = s.add(c, t);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::{MinPlus, PlusTimes};
    use crate::backend::cpu::short_rows::tests::random;
    use crate::backend::cpu::Cpu;
    use crate::container::{Matrix, Vector};
    use crate::ext::affine::mxv_affine_generic;
    use rand::{Rng, SeedableRng};

    /// The fused pass against the generic default (element-wise product,
    /// fill, accumulated `mxv`), bit for bit.
    fn check<S: Semiring<T = f64>>(s: S, a: Csr<f64>, rng: &mut rand::rngs::StdRng) {
        let n = a.ncols();
        let d: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let u: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..2.0)).collect();
        let c = rng.gen_range(-0.5..0.5);
        let mut got = vec![f64::NAN; a.nrows()];
        mxv_affine_csr(s, c, &a, &d, &u, &mut got);
        let (m, dv, uv) = (
            Matrix::from_csr(a),
            Vector::from_dense(d),
            Vector::from_dense(u),
        );
        let mut want = Vector::empty(m.nrows());
        mxv_affine_generic(&Cpu, &mut want, s, c, &m, &dv, &uv).unwrap();
        let want = want.to_vec(f64::NAN);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(g.to_bits() == w.to_bits(), "row {i}: {g} != {w}");
        }
    }

    #[test]
    fn fused_rows_equal_the_generic_default() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        // Road-like rows (gathered `d_j u_j`), mesh-like and power-law rows
        // (pre-scaled `d ⊙ u`: more than two entries a column), empty rows.
        let mixes = [
            &[0, 1, 2, 3, 4, 5][..],
            &[0, 3, 4, 5, 6, 7, 8, 9, 17],
            &[0, 1, 2, 9, 15, 16, 17, 18, 19, 40, 101],
        ];
        for shape in [(1, 1), (37, 41), (1000, 997), (5000, 300), (300, 5000)] {
            for lens in mixes {
                let iso = random(&mut rng, shape.0, shape.1, lens, |_| 1.0);
                check(PlusTimes::<f64>::new(), iso, &mut rng);
                let valued = random(&mut rng, shape.0, shape.1, lens, |p| {
                    (p % 17) as f64 / 8.0 - 1.0
                });
                check(PlusTimes::<f64>::new(), valued.clone(), &mut rng);
                // A semiring without the short-row kernel.
                check(MinPlus::<f64>::new(), valued, &mut rng);
            }
        }
    }
}
