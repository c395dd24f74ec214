//! Vectors with GraphBLAS semantics: each index holds a value or is absent.

use crate::algebra::BinaryOp;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::BitVec;

/// How a [`Vector`] stores its entries.
///
/// ```
/// use bitgraphblas::{Vector, VectorFormat};
/// let u = Vector::from_entries(100, vec![(3, 1u32), (70, 1)])?;
/// assert_eq!(u.format(), VectorFormat::Sparse);
/// let bits = u.to_format(VectorFormat::Bits)?; // only entries equal to one
/// assert_eq!((bits.format(), bits.get(70)), (VectorFormat::Bits, Some(1)));
/// assert_eq!(u.to_format(VectorFormat::Dense)?.entries(), u.entries());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorFormat {
    /// A value per index plus an optional presence bitmap.
    Dense,
    /// Packed bits: present (with value one) where the bit is set.
    Bits,
    /// Sorted indices and their values.
    Sparse,
}

/// The storage of a [`Vector`].
///
/// ```
/// use bitgraphblas::{container::VectorRepr, Vector};
/// let u = Vector::from_repr(4, VectorRepr::Sparse { indices: vec![1, 3], values: vec![5i32, 6] })?;
/// assert_eq!(u.to_vec(0), vec![0, 5, 0, 6]);
/// // Indices must be strictly increasing.
/// let bad = VectorRepr::Sparse { indices: vec![3, 1], values: vec![5i32, 6] };
/// assert!(Vector::from_repr(4, bad).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum VectorRepr<T> {
    /// `values[i]` for every `i`; `present` marks the stored entries (`None`: all stored).
    /// Values at absent positions are unspecified.
    Dense {
        /// One value per index.
        values: Vec<T>,
        /// The present indices (`None`: all).
        present: Option<BitVec>,
    },
    /// Entry `i` is present with value one exactly where bit `i` is set
    /// (a frontier, a visited set, a boolean mask).
    Bits(BitVec),
    /// Strictly increasing indices and their values.
    Sparse {
        /// The present indices, strictly increasing.
        indices: Vec<u32>,
        /// The value at each of `indices`.
        values: Vec<T>,
    },
}

/// A vector of length `len` whose entries are present or absent.
///
/// ```
/// use bitgraphblas::Vector;
/// let u = Vector::from_entries(5, vec![(1, 2.0f32), (3, 4.0)]).unwrap();
/// assert_eq!(u.nvals(), 2);
/// assert_eq!(u.get(3), Some(4.0));
/// assert_eq!(u.get(0), None);
/// let d = Vector::filled(3, 1u32);
/// assert_eq!(d.to_vec(0), vec![1, 1, 1]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Vector<T> {
    len: usize,
    repr: VectorRepr<T>,
}

impl<T: Scalar> Vector<T> {
    /// `len` absent entries.
    pub fn empty(len: usize) -> Self {
        Vector {
            len,
            repr: VectorRepr::Sparse {
                indices: vec![],
                values: vec![],
            },
        }
    }
    /// Every entry present with `value`.
    pub fn filled(len: usize, value: T) -> Self {
        Vector {
            len,
            repr: VectorRepr::Dense {
                values: vec![value; len],
                present: None,
            },
        }
    }
    /// Every entry present, from `values`.
    pub fn from_dense(values: Vec<T>) -> Self {
        Vector {
            len: values.len(),
            repr: VectorRepr::Dense {
                values,
                present: None,
            },
        }
    }
    /// Entries present where the bit is set, each with value one.
    pub fn from_bits(bits: BitVec) -> Self {
        Vector {
            len: bits.len(),
            repr: VectorRepr::Bits(bits),
        }
    }
    /// From `(index, value)` pairs in any order; a repeated or out-of-range index is an error.
    pub fn from_entries(len: usize, entries: Vec<(usize, T)>) -> Result<Self> {
        Self::build(len, entries, "Vector::from_entries", None::<fn(T, T) -> T>)
    }
    /// From `(index, value)` pairs in any order, combining the values of a
    /// repeated index with `dup` in input order (a left fold, as SuiteSparse's
    /// `GrB_Vector_build`). An index out of range is an
    /// [`Error::IndexOutOfBounds`].
    ///
    /// ```
    /// use bitgraphblas::{algebra::{First, Max}, Vector};
    /// let e = vec![(3, 1.5f64), (0, 2.0), (3, 4.0), (3, 0.5)];
    /// assert_eq!(Vector::from_entries_dup(4, e.clone(), Max)?.entries(), vec![(0, 2.0), (3, 4.0)]);
    /// assert_eq!(Vector::from_entries_dup(4, e, First)?.get(3), Some(1.5)); // the first given
    /// assert!(Vector::from_entries_dup(4, vec![(4, 1.0f64)], Max).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_entries_dup(
        len: usize,
        entries: Vec<(usize, T)>,
        dup: impl BinaryOp<T>,
    ) -> Result<Self> {
        let f = move |a, b| dup.apply(a, b);
        Self::build(len, entries, "Vector::from_entries_dup", Some(f))
    }
    /// The entries sorted by index (a stable sort: repeats stay in input
    /// order), repeats folded with `dup` or, without one, an error.
    fn build(
        len: usize,
        mut entries: Vec<(usize, T)>,
        op: &'static str,
        dup: Option<impl Fn(T, T) -> T>,
    ) -> Result<Self> {
        crate::storage::csr_check_u32("vector", len)?;
        entries.sort_by_key(|e| e.0);
        if dup.is_none() {
            if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(Error::invalid(op, format!("index {} given twice", w[0].0)));
            }
        }
        if let Some(&(i, _)) = entries.last() {
            if i >= len {
                return Err(Error::IndexOutOfBounds { op, index: i, len });
            }
        }
        let mut indices: Vec<u32> = Vec::with_capacity(entries.len());
        let mut values: Vec<T> = Vec::with_capacity(entries.len());
        for (i, v) in entries {
            match (&dup, indices.last() == Some(&(i as u32))) {
                (Some(f), true) => {
                    let last = values.last_mut().expect("an entry per index");
                    *last = f(*last, v);
                }
                _ => {
                    indices.push(i as u32);
                    values.push(v);
                }
            }
        }
        Ok(Vector {
            len,
            repr: VectorRepr::Sparse { indices, values },
        })
    }
    /// From a representation, validated.
    pub fn from_repr(len: usize, repr: VectorRepr<T>) -> Result<Self> {
        let v = Vector { len, repr };
        v.validate()?;
        Ok(v)
    }
    /// Checks the representation's invariants.
    pub fn validate(&self) -> Result<()> {
        let bad = |d: String| Err(Error::storage("vector", d));
        match &self.repr {
            VectorRepr::Dense { values, present } => {
                if values.len() != self.len || present.as_ref().is_some_and(|p| p.len() != self.len)
                {
                    return bad(format!("dense storage does not have length {}", self.len));
                }
            }
            VectorRepr::Bits(b) => {
                if b.len() != self.len {
                    return bad(format!("{} bits for length {}", b.len(), self.len));
                }
            }
            VectorRepr::Sparse { indices, values } => {
                if indices.len() != values.len() {
                    return bad("indices and values differ in length".into());
                }
                if indices.windows(2).any(|w| w[0] >= w[1])
                    || indices.last().is_some_and(|&i| i as usize >= self.len)
                {
                    return bad("indices not strictly increasing and in range".into());
                }
            }
        }
        Ok(())
    }
    /// Length (number of indices, present or not).
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Number of present entries.
    pub fn nvals(&self) -> usize {
        match &self.repr {
            VectorRepr::Dense { present: None, .. } => self.len,
            VectorRepr::Dense {
                present: Some(p), ..
            } => p.count_ones(),
            VectorRepr::Bits(b) => b.count_ones(),
            VectorRepr::Sparse { indices, .. } => indices.len(),
        }
    }
    /// The storage.
    pub fn repr(&self) -> &VectorRepr<T> {
        &self.repr
    }
    /// The storage, consumed.
    pub fn into_repr(self) -> VectorRepr<T> {
        self.repr
    }
    /// The format.
    pub fn format(&self) -> VectorFormat {
        match &self.repr {
            VectorRepr::Dense { .. } => VectorFormat::Dense,
            VectorRepr::Bits(_) => VectorFormat::Bits,
            VectorRepr::Sparse { .. } => VectorFormat::Sparse,
        }
    }
    /// Entry `i`, or `None` where absent or out of range.
    pub fn get(&self, i: usize) -> Option<T> {
        if i >= self.len {
            return None;
        }
        match &self.repr {
            VectorRepr::Dense { values, present } => {
                present.as_ref().is_none_or(|p| p.get(i)).then(|| values[i])
            }
            VectorRepr::Bits(b) => b.get(i).then(T::one),
            VectorRepr::Sparse { indices, values } => {
                indices.binary_search(&(i as u32)).ok().map(|k| values[k])
            }
        }
    }
    /// Present entries as `(index, value)`, ascending.
    pub fn entries(&self) -> Vec<(usize, T)> {
        match &self.repr {
            VectorRepr::Dense {
                values,
                present: None,
            } => values.iter().copied().enumerate().collect(),
            VectorRepr::Dense {
                values,
                present: Some(p),
            } => p.iter_ones().map(|i| (i, values[i])).collect(),
            VectorRepr::Bits(b) => b.iter_ones().map(|i| (i, T::one())).collect(),
            VectorRepr::Sparse { indices, values } => indices
                .iter()
                .zip(values)
                .map(|(&i, &v)| (i as usize, v))
                .collect(),
        }
    }
    /// Values for every index, `fill` where absent.
    ///
    /// ```
    /// use bitgraphblas::Vector;
    /// let v = Vector::from_entries(4, vec![(1, 7i64), (3, 9)]).unwrap();
    /// assert_eq!(v.to_vec(-1), vec![-1, 7, -1, 9]);
    /// ```
    pub fn to_vec(&self, fill: T) -> Vec<T> {
        match &self.repr {
            VectorRepr::Dense { values, present } => {
                let mut out = values.clone();
                if let Some(p) = present {
                    fill_absent(&mut out, p, fill);
                }
                out
            }
            _ => {
                let mut out = vec![fill; self.len];
                for (i, v) in self.entries() {
                    out[i] = v;
                }
                out
            }
        }
    }
    /// The set of present indices, taking the vector (no copy where it holds
    /// its pattern as bits already).
    ///
    /// ```
    /// use bitgraphblas::Vector;
    /// let v = Vector::from_entries(4, vec![(1, 2.0), (3, 5.0)]).unwrap();
    /// assert_eq!(v.into_pattern().iter_ones().collect::<Vec<_>>(), vec![1, 3]);
    /// ```
    pub fn into_pattern(self) -> BitVec {
        match self.repr {
            VectorRepr::Dense {
                present: Some(p), ..
            }
            | VectorRepr::Bits(p) => p,
            _ => self.pattern(),
        }
    }
    /// [`Vector::to_vec`], consuming the vector: dense storage is returned in
    /// place (absent entries overwritten with `fill`), with no copy of the
    /// values.
    ///
    /// ```
    /// use bitgraphblas::Vector;
    /// let v = Vector::from_entries(3, vec![(0, 2.5f64)]).unwrap();
    /// assert_eq!(v.into_vec(0.0), vec![2.5, 0.0, 0.0]);
    /// ```
    pub fn into_vec(self, fill: T) -> Vec<T> {
        match self.repr {
            VectorRepr::Dense {
                mut values,
                present,
            } => {
                if let Some(p) = &present {
                    fill_absent(&mut values, p, fill);
                }
                values
            }
            repr => Vector {
                len: self.len,
                repr,
            }
            .to_vec(fill),
        }
    }
    /// `f` of every value, `absent` where no entry is stored: [`Vector::into_vec`]
    /// and a map in one pass (in parallel over dense storage).
    ///
    /// ```
    /// use bitgraphblas::Vector;
    /// let levels = Vector::from_entries(4, vec![(0, 0i64), (2, 3)]).unwrap();
    /// let dist = levels.map_into_vec(f64::INFINITY, |l| l as f64);
    /// assert_eq!(dist, vec![0.0, f64::INFINITY, 3.0, f64::INFINITY]);
    /// ```
    pub fn map_into_vec<U: Scalar>(self, absent: U, f: impl Fn(T) -> U + Sync) -> Vec<U> {
        use rayon::prelude::*;
        match self.repr {
            VectorRepr::Dense { values, present } => values
                .par_iter()
                .enumerate()
                .map(|(i, &v)| match &present {
                    Some(p) if !p.get(i) => absent,
                    _ => f(v),
                })
                .collect(),
            repr => {
                let v = Vector {
                    len: self.len,
                    repr,
                };
                let mut out = vec![absent; v.len];
                for (i, x) in v.entries() {
                    out[i] = f(x);
                }
                out
            }
        }
    }
    /// The set of present indices.
    pub fn pattern(&self) -> BitVec {
        match &self.repr {
            VectorRepr::Dense { present: None, .. } => BitVec::ones(self.len),
            VectorRepr::Dense {
                present: Some(p), ..
            } => p.clone(),
            VectorRepr::Bits(b) => b.clone(),
            VectorRepr::Sparse { indices, .. } => {
                BitVec::from_indices(self.len, indices.iter().map(|&i| i as usize))
            }
        }
    }
    /// The present indices whose value is nonzero (how a valued mask reads the vector).
    pub fn nonzero_pattern(&self) -> BitVec {
        match &self.repr {
            VectorRepr::Bits(b) => b.clone(),
            _ => BitVec::from_indices(
                self.len,
                self.entries()
                    .into_iter()
                    .filter(|e| e.1.is_nonzero())
                    .map(|e| e.0),
            ),
        }
    }
    /// The same entries in another format. `Bits` needs every present value to be one.
    pub fn to_format(&self, format: VectorFormat) -> Result<Self> {
        let repr = match format {
            VectorFormat::Dense => match &self.repr {
                VectorRepr::Dense { .. } => self.repr.clone(),
                _ => {
                    let p = self.pattern();
                    let all = p.count_ones() == self.len;
                    VectorRepr::Dense {
                        values: self.to_vec(T::zero()),
                        present: (!all).then_some(p),
                    }
                }
            },
            VectorFormat::Bits => {
                if self.entries().iter().any(|e| e.1 != T::one()) {
                    return Err(Error::invalid(
                        "Vector::to_format",
                        "packed bits hold only entries equal to one",
                    ));
                }
                VectorRepr::Bits(self.pattern())
            }
            VectorFormat::Sparse => {
                let (indices, values) = self
                    .entries()
                    .into_iter()
                    .map(|(i, v)| (i as u32, v))
                    .unzip();
                VectorRepr::Sparse { indices, values }
            }
        };
        Ok(Vector {
            len: self.len,
            repr,
        })
    }
    /// Replaces the whole contents (length included).
    pub fn assign_from(&mut self, other: Vector<T>) {
        *self = other;
    }
}

/// `values[i] = fill` wherever bit `i` of `present` is clear: a word at a
/// time (a full word is skipped with one test), split across threads for
/// long vectors.
fn fill_absent<T: Scalar>(values: &mut [T], present: &BitVec, fill: T) {
    use rayon::prelude::*;
    /// Words per parallel chunk (4096 values).
    const CHUNK_WORDS: usize = 64;
    values
        .par_chunks_mut(64 * CHUNK_WORDS)
        .zip(present.words().par_chunks(CHUNK_WORDS))
        .for_each(|(vals, words)| {
            for (vs, &w) in vals.chunks_mut(64).zip(words) {
                if w == u64::MAX {
                    continue;
                }
                for (b, v) in vs.iter_mut().enumerate() {
                    if (w >> b) & 1 == 0 {
                        *v = fill;
                    }
                }
            }
        });
}
