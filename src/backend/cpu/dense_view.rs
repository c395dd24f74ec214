//! Read-only dense views of vectors, for kernels that look entries up by index.

use std::borrow::Cow;

use crate::container::{Vector, VectorRepr};
use crate::scalar::Scalar;
use crate::storage::BitVec;

/// `values[i]` valid where `present` (None: everywhere).
pub(crate) struct DenseView<'a, T: Clone> {
    pub values: Cow<'a, [T]>,
    pub present: Option<Cow<'a, BitVec>>,
}

impl<T: Scalar> DenseView<'_, T> {
    #[inline]
    pub fn get(&self, j: usize) -> Option<T> {
        match &self.present {
            None => Some(self.values[j]),
            Some(p) => (p.words()[j / 64] >> (j % 64) & 1 == 1).then(|| self.values[j]),
        }
    }
}

/// A dense view of `u` (borrowed when `u` is dense).
pub(crate) fn dense_view<T: Scalar>(u: &Vector<T>) -> DenseView<'_, T> {
    match u.repr() {
        VectorRepr::Dense { values, present } => DenseView {
            values: Cow::Borrowed(values),
            present: present.as_ref().map(Cow::Borrowed),
        },
        VectorRepr::Bits(b) => DenseView {
            values: Cow::Owned(vec![T::one(); u.len()]),
            present: Some(Cow::Borrowed(b)),
        },
        VectorRepr::Sparse { .. } => DenseView {
            values: Cow::Owned(u.to_vec(T::default())),
            present: Some(Cow::Owned(u.pattern())),
        },
    }
}

/// Builds a vector from per-index optional values.
pub(crate) fn vector_from_options<T: Scalar>(vals: Vec<Option<T>>) -> Vector<T> {
    let n = vals.len();
    let mut present = BitVec::zeros(n);
    let mut values = Vec::with_capacity(n);
    for (i, v) in vals.into_iter().enumerate() {
        match v {
            Some(x) => {
                present.set(i, true);
                values.push(x);
            }
            None => values.push(T::default()),
        }
    }
    let all = present.count_ones() == n;
    Vector::from_repr(
        n,
        VectorRepr::Dense {
            values,
            present: (!all).then_some(present),
        },
    )
    .expect("consistent lengths")
}
