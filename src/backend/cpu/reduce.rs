//! Reductions on the host: a vector or a matrix to one value with a monoid,
//! in parallel chunks with independent accumulators.

use rayon::prelude::*;

use super::dense_view::fold_chunks;
use crate::algebra::Monoid;
use crate::container::{Matrix, MatrixRepr, Vector, VectorRepr};
use crate::scalar::Scalar;

/// `⊕` over the present entries of `u` (the identity when there are none).
pub(super) fn reduce_vector<T: Scalar, M: Monoid<T>>(monoid: M, u: &Vector<T>) -> T {
    // Present values are combined with each other only: the identity enters
    // only when there are none (ANY has no true identity).
    let f = |x: T, y: T| monoid.apply(x, y);
    let r = match u.repr() {
        VectorRepr::Dense {
            values,
            present: None,
        } => fold_chunks(values, 4096, |_, c| Some(fold_lanes(c, f)), f),
        VectorRepr::Dense {
            values,
            present: Some(p),
        } => {
            let words = p.words();
            fold_chunks(
                values,
                4096,
                |c, vals| {
                    let mut acc = None;
                    for (k, v64) in vals.chunks(64).enumerate() {
                        let mut bits = words[c * 64 + k];
                        while bits != 0 {
                            let x = v64[bits.trailing_zeros() as usize];
                            bits &= bits - 1;
                            acc = Some(acc.map_or(x, |a| f(a, x)));
                        }
                    }
                    acc
                },
                f,
            )
        }
        VectorRepr::Sparse { values, .. } => values.iter().copied().reduce(f),
        VectorRepr::Bits(b) => Some(monoid.fold_repeated(T::one(), b.count_ones())),
    };
    r.unwrap_or_else(|| monoid.identity())
}

/// `⊕` over the stored entries of `a` (the identity when there are none).
pub(super) fn reduce_matrix<T: Scalar, M: Monoid<T>>(monoid: M, a: &Matrix<T>) -> T {
    if let MatrixRepr::B2sr { pattern, value } = a.repr() {
        return monoid.fold_repeated(*value, pattern.nnz());
    }
    a.as_csr().values().par_iter_fold(monoid)
}

/// `f` over a non-empty slice with eight independent accumulators (no chain of
/// dependent additions; the monoid is associative and commutative).
fn fold_lanes<T: Scalar>(c: &[T], f: impl Fn(T, T) -> T) -> T {
    let mut chunks = c.chunks_exact(8);
    let Some(first) = chunks.next() else {
        return c.iter().copied().reduce(f).expect("a non-empty slice");
    };
    let mut acc: [T; 8] = first.try_into().expect("eight lanes");
    for ch in &mut chunks {
        for (a, &x) in acc.iter_mut().zip(ch) {
            *a = f(*a, x);
        }
    }
    let mut r = acc.into_iter().reduce(&f).expect("eight lanes");
    for &x in chunks.remainder() {
        r = f(r, x);
    }
    r
}

trait ParFold<T: Scalar> {
    fn par_iter_fold<M: Monoid<T>>(&self, monoid: M) -> T;
}
impl<T: Scalar> ParFold<T> for [T] {
    fn par_iter_fold<M: Monoid<T>>(&self, monoid: M) -> T {
        let f = |x: T, y: T| monoid.apply(x, y);
        self.par_chunks(4096)
            .map(|c| fold_lanes(c, f))
            .reduce_with(f)
            .unwrap_or_else(|| monoid.identity())
    }
}
