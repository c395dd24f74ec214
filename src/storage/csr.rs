//! Compressed sparse rows with values: the general-purpose storage, used for
//! valued matrices, user semirings and as the exchange form with `sprs`.

use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A CSR matrix. Invariants (checked by [`Csr::try_new`] and [`Csr::validate`]):
/// `row_ptr` has `nrows + 1` non-decreasing entries from 0 to `nnz`; column
/// indices in each row are strictly increasing and `< ncols`.
///
/// ```
/// use bitgraphblas::storage::Csr;
/// // [[0, 2], [3, 0]]
/// let a = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![2.0f32, 3.0]).unwrap();
/// assert_eq!(a.nnz(), 2);
/// assert_eq!(a.row(1), (&[0u32][..], &[3.0f32][..]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Csr<T> {
    nrows: usize,
    ncols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
    values: Vec<T>,
    iso: IsoCache<T>,
}

/// Whether every stored value is the same nonzero value (and which), computed
/// on first use by [`Csr::iso_value`] and kept; ignored by equality.
#[derive(Clone, Debug)]
struct IsoCache<T>(std::sync::OnceLock<Option<T>>);

impl<T> Default for IsoCache<T> {
    fn default() -> Self {
        IsoCache(std::sync::OnceLock::new())
    }
}

impl<T> PartialEq for IsoCache<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T: Scalar> Csr<T> {
    /// The matrix of these arrays, not validated (every constructor builds
    /// through here; the public ones validate).
    fn assemble(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        Csr {
            nrows,
            ncols,
            row_ptr,
            col_idx,
            values,
            iso: IsoCache::default(),
        }
    }

    /// From raw arrays, validated.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Result<Self> {
        let m = Csr::assemble(nrows, ncols, row_ptr, col_idx, values);
        m.validate()?;
        Ok(m)
    }

    /// From arrays the caller guarantees to be valid (checked in debug builds).
    pub(crate) fn from_parts_unchecked(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        let m = Csr::assemble(nrows, ncols, row_ptr, col_idx, values);
        debug_assert!(m.validate().is_ok(), "{:?}", m.validate());
        m
    }

    /// An `nrows x ncols` matrix with no entries.
    pub fn empty(nrows: usize, ncols: usize) -> Self {
        Csr::assemble(nrows, ncols, vec![0; nrows + 1], vec![], vec![])
    }

    /// From `(row, col, value)` triplets in any order; duplicates are combined with `dup`.
    ///
    /// ```
    /// use bitgraphblas::storage::Csr;
    /// let a = Csr::from_triplets(2, 2, vec![(1, 0, 1u32), (0, 1, 2), (1, 0, 5)], |x, y| x + y).unwrap();
    /// assert_eq!(a.row(1).1, &[6]);
    /// ```
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        triplets: impl IntoIterator<Item = (usize, usize, T)>,
        dup: impl Fn(T, T) -> T,
    ) -> Result<Self> {
        check_u32("matrix", ncols)?;
        let mut t: Vec<(usize, u32, T)> = Vec::new();
        for (i, j, v) in triplets {
            if i >= nrows {
                return Err(Error::IndexOutOfBounds {
                    op: "from_triplets",
                    index: i,
                    len: nrows,
                });
            }
            if j >= ncols {
                return Err(Error::IndexOutOfBounds {
                    op: "from_triplets",
                    index: j,
                    len: ncols,
                });
            }
            t.push((i, j as u32, v));
        }
        t.sort_by_key(|&(i, j, _)| (i, j));
        let mut row_ptr = vec![0usize; nrows + 1];
        let mut col_idx = Vec::with_capacity(t.len());
        let mut values: Vec<T> = Vec::with_capacity(t.len());
        let mut last: Option<(usize, u32)> = None;
        for (i, j, v) in t {
            if last == Some((i, j)) {
                let lv = values.last_mut().expect("a previous entry");
                *lv = dup(*lv, v);
                continue;
            }
            last = Some((i, j));
            row_ptr[i + 1] += 1;
            col_idx.push(j);
            values.push(v);
        }
        for i in 0..nrows {
            row_ptr[i + 1] += row_ptr[i];
        }
        Ok(Csr::assemble(nrows, ncols, row_ptr, col_idx, values))
    }

    /// Checks every invariant.
    pub fn validate(&self) -> Result<()> {
        let bad = |d: String| Err(Error::storage("CSR", d));
        if self.row_ptr.len() != self.nrows + 1 {
            return bad(format!(
                "row_ptr has {} entries for {} rows",
                self.row_ptr.len(),
                self.nrows
            ));
        }
        if self.row_ptr[0] != 0 || self.row_ptr[self.nrows] != self.col_idx.len() {
            return bad("row_ptr does not span the column indices".into());
        }
        if self.values.len() != self.col_idx.len() {
            return bad(format!(
                "{} values for {} indices",
                self.values.len(),
                self.col_idx.len()
            ));
        }
        if self.row_ptr.windows(2).any(|w| w[0] > w[1]) {
            return bad("row_ptr decreases".into());
        }
        if self.ncols > u32::MAX as usize {
            return bad(format!("{} columns exceed 32-bit indices", self.ncols));
        }
        for i in 0..self.nrows {
            let (s, e) = (self.row_ptr[i], self.row_ptr[i + 1]);
            if s > e {
                return bad(format!("row_ptr decreases at row {i}"));
            }
            let cols = &self.col_idx[s..e];
            for w in cols.windows(2) {
                if w[0] >= w[1] {
                    return bad(format!("row {i}: columns not strictly increasing"));
                }
            }
            if let Some(&c) = cols.last() {
                if c as usize >= self.ncols {
                    return bad(format!("row {i}: column {c} >= {}", self.ncols));
                }
            }
        }
        Ok(())
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }
    /// Row pointers (`nrows + 1`).
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }
    /// Column indices.
    pub fn col_idx(&self) -> &[u32] {
        &self.col_idx
    }
    /// Values.
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Values, mutably (the pattern stays fixed).
    pub fn values_mut(&mut self) -> &mut [T] {
        self.iso = IsoCache::default();
        &mut self.values
    }
    /// The value every stored entry holds, when there are entries and they
    /// all hold the same nonzero value (a pattern with ones, as graph
    /// algorithms build): products may then skip the value array. Computed
    /// once (`O(nnz)`) and kept with the matrix.
    ///
    /// ```
    /// use bitgraphblas::storage::Csr;
    /// let a = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![1.0f64, 1.0]).unwrap();
    /// assert_eq!(a.iso_value(), Some(1.0));
    /// let b = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![1.0f64, 2.0]).unwrap();
    /// assert_eq!(b.iso_value(), None);
    /// ```
    pub fn iso_value(&self) -> Option<T> {
        *self.iso.0.get_or_init(|| {
            let (&first, rest) = self.values.split_first()?;
            (first.is_nonzero() && rest.iter().all(|&v| v.same_value(first))).then_some(first)
        })
    }
    /// Column indices and values of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[T]) {
        let (s, e) = (self.row_ptr[i], self.row_ptr[i + 1]);
        (&self.col_idx[s..e], &self.values[s..e])
    }
    /// The value at `(i, j)`, if stored.
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        if i >= self.nrows {
            return None;
        }
        let (c, v) = self.row(i);
        c.binary_search(&(j as u32)).ok().map(|k| v[k])
    }
    /// The arrays, consumed: `(row_ptr, col_idx, values)`.
    pub fn into_parts(self) -> (Vec<usize>, Vec<u32>, Vec<T>) {
        (self.row_ptr, self.col_idx, self.values)
    }
    /// Bytes of a pattern-only CSR with 32-bit indices (`4 (nrows + 1) + 4 nnz`),
    /// the yardstick B2SR is compared against.
    pub fn pattern_bytes(&self) -> usize {
        4 * (self.nrows + 1) + 4 * self.nnz()
    }

    /// The transpose (a counting sort by column; stays sorted).
    pub fn transpose(&self) -> Csr<T> {
        let mut ptr = vec![0usize; self.ncols + 1];
        for &j in &self.col_idx {
            ptr[j as usize + 1] += 1;
        }
        for j in 0..self.ncols {
            ptr[j + 1] += ptr[j];
        }
        let mut next = ptr.clone();
        let mut col_idx = vec![0u32; self.nnz()];
        let mut values = vec![T::default(); self.nnz()];
        for i in 0..self.nrows {
            let (c, v) = self.row(i);
            for (&j, &x) in c.iter().zip(v) {
                let p = &mut next[j as usize];
                col_idx[*p] = i as u32;
                values[*p] = x;
                *p += 1;
            }
        }
        Csr::assemble(self.ncols, self.nrows, ptr, col_idx, values)
    }

    /// Same pattern, values mapped by `f`.
    pub fn map<U: Scalar>(&self, f: impl Fn(T) -> U) -> Csr<U> {
        Csr::assemble(
            self.nrows,
            self.ncols,
            self.row_ptr.clone(),
            self.col_idx.clone(),
            self.values.iter().map(|&v| f(v)).collect(),
        )
    }

    /// From a `sprs` matrix (CSR or CSC; sorted and deduplicated by sprs's invariants).
    pub fn from_sprs(m: &sprs::CsMat<T>) -> Result<Self> {
        check_u32("matrix", m.cols())?;
        let m = if m.is_csr() {
            m.view()
        } else {
            return Self::from_sprs(&m.to_csr());
        };
        let row_ptr: Vec<usize> = m.indptr().to_owned().into_raw_storage();
        let base = row_ptr[0];
        let row_ptr = row_ptr.iter().map(|p| p - base).collect();
        let col_idx = m.indices().iter().map(|&j| j as u32).collect();
        Csr::try_new(m.rows(), m.cols(), row_ptr, col_idx, m.data().to_vec())
    }

    /// To a `sprs` CSR matrix.
    pub fn to_sprs(&self) -> sprs::CsMat<T> {
        sprs::CsMat::new(
            (self.nrows, self.ncols),
            self.row_ptr.clone(),
            self.col_idx.iter().map(|&j| j as usize).collect(),
            self.values.clone(),
        )
    }
}

pub(crate) fn check_u32(what: &'static str, n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(Error::TooLarge {
            what,
            detail: format!("dimension {n} exceeds 32-bit indices"),
        });
    }
    Ok(())
}
