//! Read-only dense views of vectors, for kernels that look entries up by index.

use std::borrow::Cow;

use rayon::prelude::*;

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

/// Elements below which an element-wise pass runs on the calling thread:
/// about 20-30 us of simple work, under which handing the job to rayon's
/// pool (waking a worker, waiting on a latch) costs more than it saves, and
/// far more on a loaded machine.
pub(crate) const SEQUENTIAL_BELOW: usize = 1 << 15;

/// `f(chunk index, chunk)` over consecutive `chunk`-element pieces of
/// `data`: in parallel, or on the calling thread when `work` (elements, or an
/// estimate in the same unit) is below [`SEQUENTIAL_BELOW`].
pub(crate) fn for_chunks_mut<T: Send>(
    data: &mut [T],
    chunk: usize,
    work: usize,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    if work < SEQUENTIAL_BELOW {
        data.chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, d)| f(c, d));
    } else {
        data.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, d)| f(c, d));
    }
}

/// `f` over consecutive `chunk`-element pieces of `data`, folded with `op`
/// (`None` for empty data); on the calling thread below [`SEQUENTIAL_BELOW`].
pub(crate) fn fold_chunks<T: Sync, R: Send>(
    data: &[T],
    chunk: usize,
    f: impl Fn(usize, &[T]) -> Option<R> + Sync + Send,
    op: impl Fn(R, R) -> R + Sync + Send,
) -> Option<R> {
    if data.len() < SEQUENTIAL_BELOW {
        data.chunks(chunk)
            .enumerate()
            .filter_map(|(c, d)| f(c, d))
            .reduce(op)
    } else {
        data.par_chunks(chunk)
            .enumerate()
            .filter_map(|(c, d)| f(c, d))
            .reduce_with(op)
    }
}

/// Builds a vector from per-index optional values.
pub(crate) fn vector_from_options<T: Scalar>(vals: Vec<Option<T>>) -> Vector<T> {
    dense_from_fn(vals.len(), |i| vals[i])
}

/// Indices per parallel task when building a dense vector (whole 64-bit
/// presence words per task).
const CHUNK: usize = 64 * 64;

/// A vector of length `n` with entry `i` equal to `f(i)` (absent where `None`),
/// computed in parallel straight into dense values and a presence bitmap
/// (the bitmap is dropped when every entry is present).
pub(crate) fn dense_from_fn<T: Scalar>(
    n: usize,
    f: impl Fn(usize) -> Option<T> + Sync,
) -> Vector<T> {
    let mut values = vec![T::default(); n];
    let mut words = vec![0u64; n.div_ceil(64)];
    let fill = |c: usize, (vals, ws): (&mut [T], &mut [u64])| {
        let base = c * CHUNK;
        for (k, (vw, word)) in vals.chunks_mut(64).zip(ws.iter_mut()).enumerate() {
            let mut bits = 0u64;
            let start = base + k * 64;
            for (b, v) in vw.iter_mut().enumerate() {
                if let Some(x) = f(start + b) {
                    *v = x;
                    bits |= 1 << b;
                }
            }
            *word = bits;
        }
    };
    if n < SEQUENTIAL_BELOW {
        values
            .chunks_mut(CHUNK)
            .zip(words.chunks_mut(CHUNK / 64))
            .enumerate()
            .for_each(|(c, p)| fill(c, p));
    } else {
        values
            .par_chunks_mut(CHUNK)
            .zip(words.par_chunks_mut(CHUNK / 64))
            .enumerate()
            .for_each(|(c, p)| fill(c, p));
    }
    dense_from_parts(values, words)
}

/// A dense vector from its values and presence words (`None` bitmap when full).
pub(crate) fn dense_from_parts<T: Scalar>(values: Vec<T>, words: Vec<u64>) -> Vector<T> {
    let n = values.len();
    let present = BitVec::from_words(n, words).expect("one word per 64 entries");
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
