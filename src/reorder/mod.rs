//! Vertex reorderings that make B2SR tiles fuller.
//!
//! A graph in a poor vertex order scatters its entries over many nearly empty
//! `k x k` tiles; renumbering the vertices so that neighbours get nearby ids
//! packs the same entries into fewer, fuller tiles. This module computes such a
//! renumbering (a [`Permutation`]) with one of several [`Order`]s, applies it to
//! a matrix ([`Permutation::permute_symmetric`]: `P A P'`, rows and columns
//! alike) and maps per-vertex results back to the original ids
//! ([`Permutation::to_original`]).
//!
//! * [`Order::Rcm`]: reverse Cuthill-McKee, a bandwidth-reducing BFS order
//!   (meshes, road networks, banded matrices).
//! * [`Order::Degree`]: decreasing degree, hubs first (power-law graphs with a
//!   dense core).
//! * [`Order::Locality`]: a hierarchical community order, a tile-aligned
//!   cousin of Rabbit order's agglomeration: vertices are paired with the
//!   vertex they share the most neighbours with, the pairs paired again on
//!   the contracted graph, and so on for 7 levels; the pairing tree is laid
//!   out depth first, so every cluster of `2^l` vertices is an aligned block
//!   of ids, and the clusters' order follows a breadth-first walk of the
//!   contracted graph. Each merge of two clusters with `c` common neighbours
//!   saves `c` tiles, which is what the pairing maximises.
//!
//! Every order works on the symmetrised pattern of a square matrix (values,
//! self loops and edge directions are ignored) and is deterministic. RCM and
//! degree order take `O(nnz log d)`, locality `O(nnz + n * 16384)` at worst
//! per level (common neighbours are counted only through vertices of degree
//! at most 256). Measured tile fill: `docs/locality-reordering.md`.
//!
//! ```
//! use bitgraphblas::reorder::Order;
//! use bitgraphblas::{ops, algebra::PlusTimes, Cpu, Desc, Matrix, Vector};
//! // A path 0 - 2 - 4 - 1 - 3 numbered badly.
//! let e = [(0, 2), (2, 4), (4, 1), (1, 3)];
//! let t: Vec<_> = e.iter().flat_map(|&(i, j)| [(i, j, 1.0f64), (j, i, 1.0)]).collect();
//! let a = Matrix::from_triplets(5, 5, t)?;
//! let p = Order::Rcm.compute(&a.as_csr())?;
//! let b = p.permute_symmetric(&a)?;
//! // In the new order the path runs along the diagonal.
//! let c = b.as_csr();
//! assert!((0..5).all(|i| c.row(i).0.iter().all(|&j| (j as i64 - i as i64).abs() == 1)));
//! // A product on the reordered matrix, mapped back, is the product on the original.
//! let u = Vector::from_dense(vec![1.0, 2.0, 3.0, 4.0, 5.0]);
//! let (mut w, mut wp) = (Vector::empty(5), Vector::empty(5));
//! ops::mxv(&Cpu::new(), &mut w, PlusTimes::<f64>::new(), &a, &u, &Desc::new())?;
//! ops::mxv(&Cpu::new(), &mut wp, PlusTimes::<f64>::new(), &b, &p.to_permuted(&u)?, &Desc::new())?;
//! assert_eq!(p.to_original(&wp)?, w);
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

mod degree;
mod graph;
mod locality;
mod rcm;

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use crate::container::{MatrixRepr, VectorRepr};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::{B2sr, Csr};
use crate::{Matrix, Vector};

use graph::symmetrised_pattern;

/// A renumbering of the vertices `0..n`: vertex `old` becomes `p(old)`.
///
/// Always a bijection on `0..n` (checked by [`Permutation::from_old_to_new`]
/// and [`Permutation::from_new_to_old`]).
///
/// ```
/// use bitgraphblas::reorder::Permutation;
/// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
/// assert_eq!(p.old_to_new(), &[2, 0, 1]);
/// assert_eq!(p.new_to_old(), &[1, 2, 0]);
/// assert!(Permutation::from_old_to_new(vec![0, 0, 1]).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutation {
    old_to_new: Vec<u32>,
    new_to_old: Vec<u32>,
}

impl Permutation {
    /// The identity on `0..n` (an `Err` when `n` exceeds 32-bit vertex ids).
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::identity(3)?;
    /// assert_eq!(p.old_to_new(), &[0, 1, 2]);
    /// assert!(p.is_identity());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn identity(n: usize) -> Result<Self> {
        crate::storage::csr_check_u32("permutation", n)?;
        let v: Vec<u32> = (0..n as u32).collect();
        Ok(Permutation {
            old_to_new: v.clone(),
            new_to_old: v,
        })
    }

    /// From `p[old] = new`; an `Err` unless `p` is a bijection on `0..p.len()`.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::from_old_to_new(vec![1, 0])?;
    /// assert_eq!(p.vertex_to_new(0)?, 1);
    /// assert!(Permutation::from_old_to_new(vec![0, 2]).is_err()); // 2 is out of range
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_old_to_new(p: Vec<usize>) -> Result<Self> {
        let old_to_new = to_u32(p, "Permutation::from_old_to_new")?;
        let new_to_old = invert(&old_to_new, "Permutation::from_old_to_new")?;
        Ok(Permutation {
            old_to_new,
            new_to_old,
        })
    }

    /// From `q[new] = old` (the order in which the old vertices are listed);
    /// an `Err` unless `q` is a bijection on `0..q.len()`.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// // list vertex 2 first, then 0, then 1
    /// let p = Permutation::from_new_to_old(vec![2, 0, 1])?;
    /// assert_eq!(p.old_to_new(), &[1, 2, 0]);
    /// assert!(Permutation::from_new_to_old(vec![1, 1]).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_new_to_old(q: Vec<usize>) -> Result<Self> {
        let new_to_old = to_u32(q, "Permutation::from_new_to_old")?;
        let old_to_new = invert(&new_to_old, "Permutation::from_new_to_old")?;
        Ok(Permutation {
            old_to_new,
            new_to_old,
        })
    }

    /// From an order of this module (`order[new] = old`), checked all the same.
    fn from_order(new_to_old: Vec<u32>, n: usize) -> Result<Self> {
        if new_to_old.len() != n || new_to_old.iter().any(|&v| v as usize >= n) {
            return Err(Error::invalid(
                "Order::compute",
                "the order is not a permutation (a bug)",
            ));
        }
        let old_to_new = invert(&new_to_old, "Order::compute")?;
        Ok(Permutation {
            old_to_new,
            new_to_old,
        })
    }

    /// Computes the permutation `order` gives for the square matrix `csr`
    /// (the same as [`Order::compute`]).
    ///
    /// ```
    /// use bitgraphblas::reorder::{Order, Permutation};
    /// let a = bitgraphblas::generate::grid_2d::<bool>(4);
    /// let p = Permutation::compute(Order::Degree, &a.as_csr())?;
    /// assert_eq!(p.len(), 16);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn compute<T: Scalar>(order: Order, csr: &Csr<T>) -> Result<Self> {
        order.compute(csr)
    }

    /// Number of vertices.
    ///
    /// ```
    /// assert_eq!(bitgraphblas::reorder::Permutation::identity(4)?.len(), 4);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.old_to_new.len()
    }

    /// True for the permutation of no vertices.
    ///
    /// ```
    /// assert!(bitgraphblas::reorder::Permutation::identity(0)?.is_empty());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.old_to_new.is_empty()
    }

    /// True when every vertex keeps its id.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// assert!(!Permutation::from_old_to_new(vec![1, 0])?.is_identity());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn is_identity(&self) -> bool {
        self.old_to_new
            .iter()
            .enumerate()
            .all(|(i, &p)| i == p as usize)
    }

    /// `p[old] = new`.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// assert_eq!(Permutation::from_new_to_old(vec![1, 2, 0])?.old_to_new(), &[2, 0, 1]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn old_to_new(&self) -> &[u32] {
        &self.old_to_new
    }

    /// `q[new] = old`: the original vertices in their new order.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// assert_eq!(Permutation::from_old_to_new(vec![2, 0, 1])?.new_to_old(), &[1, 2, 0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn new_to_old(&self) -> &[u32] {
        &self.new_to_old
    }

    /// The inverse renumbering (new ids back to old ones).
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// assert_eq!(p.inverse().old_to_new(), p.new_to_old());
    /// assert_eq!(p.inverse().inverse(), p);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn inverse(&self) -> Permutation {
        Permutation {
            old_to_new: self.new_to_old.clone(),
            new_to_old: self.old_to_new.clone(),
        }
    }

    /// The new id of the original vertex `old` (an `Err` out of range): how a
    /// source vertex enters a reordered graph.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// assert_eq!(p.vertex_to_new(0)?, 2);
    /// assert!(p.vertex_to_new(3).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn vertex_to_new(&self, old: usize) -> Result<usize> {
        self.old_to_new
            .get(old)
            .map(|&v| v as usize)
            .ok_or(Error::IndexOutOfBounds {
                op: "Permutation::vertex_to_new",
                index: old,
                len: self.len(),
            })
    }

    /// The original id of the new vertex `new` (an `Err` out of range).
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// assert_eq!(p.vertex_to_original(2)?, 0);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn vertex_to_original(&self, new: usize) -> Result<usize> {
        self.new_to_old
            .get(new)
            .map(|&v| v as usize)
            .ok_or(Error::IndexOutOfBounds {
                op: "Permutation::vertex_to_original",
                index: new,
                len: self.len(),
            })
    }

    /// `P A P'`: entry `(i, j)` moves to `(p(i), p(j))`, values kept. A CSR
    /// matrix stays CSR; a B2SR matrix is packed again at its tile size. An
    /// `Err` unless `a` is `n x n`.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// use bitgraphblas::{Format, Matrix, TileSize};
    /// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 5i32), (2, 2, 7)])?;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// let b = p.permute_symmetric(&a)?;
    /// assert_eq!((b.get(2, 0), b.get(1, 1), b.nvals()), (Some(5), Some(7), 2));
    /// let t = a.to_pattern(Format::B2sr(TileSize::T8), 1)?;
    /// assert_eq!(p.permute_symmetric(&t)?.format(), Format::B2sr(TileSize::T8));
    /// assert_eq!(p.inverse().permute_symmetric(&b)?, a);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn permute_symmetric<T: Scalar>(&self, a: &Matrix<T>) -> Result<Matrix<T>> {
        match a.repr() {
            MatrixRepr::Csr(c) => Ok(Matrix::from_csr(self.permute_csr(c)?)),
            MatrixRepr::B2sr { pattern, value } => {
                let c = self.permute_csr(&pattern.to_csr(*value)?)?;
                Ok(Matrix::from_b2sr(
                    B2sr::from_csr(&c, pattern.tile_size())?,
                    *value,
                ))
            }
        }
    }

    /// [`Permutation::permute_symmetric`] on CSR storage.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// use bitgraphblas::storage::Csr;
    /// let a = Csr::from_triplets(2, 2, vec![(0, 1, 3u32)], |x, _| x)?;
    /// let b = Permutation::from_old_to_new(vec![1, 0])?.permute_csr(&a)?;
    /// assert_eq!(b.get(1, 0), Some(3));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn permute_csr<T: Scalar>(&self, a: &Csr<T>) -> Result<Csr<T>> {
        let n = self.len();
        if a.nrows() != n || a.ncols() != n {
            return Err(Error::dims(
                "Permutation::permute_symmetric",
                format!(
                    "the matrix is {}x{}, the permutation has {n} vertices",
                    a.nrows(),
                    a.ncols()
                ),
            ));
        }
        let rp = a.row_ptr();
        let mut row_ptr = vec![0usize; n + 1];
        for (new, &old) in self.new_to_old.iter().enumerate() {
            let old = old as usize;
            row_ptr[new + 1] = row_ptr[new] + (rp[old + 1] - rp[old]);
        }
        let nnz = a.nnz();
        let mut col_idx = vec![0u32; nnz];
        let mut values = vec![T::default(); nnz];
        // Rows in parallel blocks of about equal size.
        let blocks = row_blocks(&row_ptr, 1 << 16);
        let mut parts = Vec::with_capacity(blocks.len());
        let (mut cs, mut vs) = (&mut col_idx[..], &mut values[..]);
        for w in blocks.windows(2) {
            let len = row_ptr[w[1]] - row_ptr[w[0]];
            let (c, crest) = cs.split_at_mut(len);
            let (v, vrest) = vs.split_at_mut(len);
            parts.push((w[0], w[1], c, v));
            cs = crest;
            vs = vrest;
        }
        parts.into_par_iter().for_each(|(r0, r1, c, v)| {
            let base = row_ptr[r0];
            let mut pairs: Vec<(u32, T)> = Vec::new();
            for (new, &old) in self.new_to_old.iter().enumerate().take(r1).skip(r0) {
                let (cols, vals) = a.row(old as usize);
                pairs.clear();
                pairs.extend(
                    cols.iter()
                        .zip(vals)
                        .map(|(&j, &x)| (self.old_to_new[j as usize], x)),
                );
                pairs.sort_unstable_by_key(|e| e.0);
                let s = row_ptr[new] - base;
                for (k, &(j, x)) in pairs.iter().enumerate() {
                    c[s + k] = j;
                    v[s + k] = x;
                }
            }
        });
        Ok(Csr::from_parts_unchecked(n, n, row_ptr, col_idx, values))
    }

    /// A vector in the original ids, in the new ids: `out[p(old)] = u[old]`
    /// (what to multiply a reordered matrix with). An `Err` on a length mismatch.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// use bitgraphblas::Vector;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// let u = Vector::from_entries(3, vec![(0, 7i32)])?;
    /// assert_eq!(p.to_permuted(&u)?.entries(), vec![(2, 7)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn to_permuted<T: Scalar>(&self, u: &Vector<T>) -> Result<Vector<T>> {
        self.check_len(u.len(), "Permutation::to_permuted")?;
        map_vector(u, &self.old_to_new, &self.new_to_old)
    }

    /// A per-vertex result of the reordered graph, in the original ids:
    /// `out[old] = w[p(old)]`. An `Err` on a length mismatch.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// use bitgraphblas::Vector;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// let w = Vector::from_dense(vec![10, 11, 12]);
    /// assert_eq!(p.to_original(&w)?.to_vec(0), vec![12, 10, 11]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn to_original<T: Scalar>(&self, w: &Vector<T>) -> Result<Vector<T>> {
        self.check_len(w.len(), "Permutation::to_original")?;
        map_vector(w, &self.new_to_old, &self.old_to_new)
    }

    /// [`Permutation::to_original`] on a slice of any element type (levels,
    /// ranks, output lines): `out[old] = w[p(old)]`.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// assert_eq!(p.slice_to_original(&["a", "b", "c"])?, vec!["c", "a", "b"]);
    /// assert!(p.slice_to_original(&[1, 2]).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn slice_to_original<T: Clone>(&self, w: &[T]) -> Result<Vec<T>> {
        self.check_len(w.len(), "Permutation::slice_to_original")?;
        Ok(self
            .old_to_new
            .iter()
            .map(|&new| w[new as usize].clone())
            .collect())
    }

    /// [`Permutation::to_permuted`] on a slice: `out[p(old)] = u[old]`.
    ///
    /// ```
    /// use bitgraphblas::reorder::Permutation;
    /// let p = Permutation::from_old_to_new(vec![2, 0, 1])?;
    /// assert_eq!(p.slice_to_permuted(&[1.0, 2.0, 3.0])?, vec![2.0, 3.0, 1.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn slice_to_permuted<T: Clone>(&self, u: &[T]) -> Result<Vec<T>> {
        self.check_len(u.len(), "Permutation::slice_to_permuted")?;
        Ok(self
            .new_to_old
            .iter()
            .map(|&old| u[old as usize].clone())
            .collect())
    }

    fn check_len(&self, len: usize, op: &'static str) -> Result<()> {
        if len != self.len() {
            return Err(Error::dims(
                op,
                format!(
                    "a vector of length {len}, a permutation of {} vertices",
                    self.len()
                ),
            ));
        }
        Ok(())
    }
}

/// `out[to[i]] = u[i]` (`from` is the inverse of `to`), keeping the format.
fn map_vector<T: Scalar>(u: &Vector<T>, to: &[u32], from: &[u32]) -> Result<Vector<T>> {
    let n = u.len();
    let repr = match u.repr() {
        VectorRepr::Dense { values, present } => VectorRepr::Dense {
            values: from.iter().map(|&i| values[i as usize]).collect(),
            present: present.as_ref().map(|p| {
                crate::storage::BitVec::from_indices(n, p.iter_ones().map(|i| to[i] as usize))
            }),
        },
        VectorRepr::Bits(b) => VectorRepr::Bits(crate::storage::BitVec::from_indices(
            n,
            b.iter_ones().map(|i| to[i] as usize),
        )),
        VectorRepr::Sparse { indices, values } => {
            let mut e: Vec<(u32, T)> = indices
                .iter()
                .zip(values)
                .map(|(&i, &v)| (to[i as usize], v))
                .collect();
            e.sort_unstable_by_key(|x| x.0);
            let (indices, values) = e.into_iter().unzip();
            VectorRepr::Sparse { indices, values }
        }
    };
    Vector::from_repr(n, repr)
}

fn to_u32(p: Vec<usize>, op: &'static str) -> Result<Vec<u32>> {
    crate::storage::csr_check_u32("permutation", p.len())?;
    let n = p.len();
    p.into_iter()
        .map(|v| {
            if v < n {
                Ok(v as u32)
            } else {
                Err(Error::IndexOutOfBounds {
                    op,
                    index: v,
                    len: n,
                })
            }
        })
        .collect()
}

/// The inverse of `p`, or an `Err` where `p` repeats a value (values are `< n`).
fn invert(p: &[u32], op: &'static str) -> Result<Vec<u32>> {
    const UNSET: u32 = u32::MAX;
    let mut inv = vec![UNSET; p.len()];
    for (i, &v) in p.iter().enumerate() {
        let slot = &mut inv[v as usize];
        if *slot != UNSET {
            return Err(Error::invalid(
                op,
                format!(
                    "not a permutation: {v} is given twice (at {} and {i})",
                    *slot
                ),
            ));
        }
        *slot = i as u32;
    }
    Ok(inv)
}

/// Row boundaries `0 = b0 < b1 < ... = n` cutting `row_ptr` into blocks of
/// about `target` entries (and at most 4096 rows each).
pub(crate) fn row_blocks(row_ptr: &[usize], target: usize) -> Vec<usize> {
    let n = row_ptr.len() - 1;
    let mut b = vec![0];
    let mut start = 0;
    for i in 0..n {
        if row_ptr[i + 1] - row_ptr[start] >= target || i + 1 - start >= 4096 {
            b.push(i + 1);
            start = i + 1;
        }
    }
    if *b.last().expect("starts at 0") != n {
        b.push(n);
    }
    b
}

/// A vertex order ([`Order::compute`] turns it into a [`Permutation`]).
/// Parses from and prints as `none`, `rcm`, `degree`, `locality`.
///
/// ```
/// use bitgraphblas::reorder::Order;
/// let o: Order = "locality".parse()?;
/// assert_eq!(o, Order::Locality);
/// assert_eq!(Order::Rcm.to_string(), "rcm");
/// assert!("gorder".parse::<Order>().is_err());
/// assert_eq!(Order::ALL.len(), 4);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// The identity: the given order.
    #[default]
    None,
    /// Reverse Cuthill-McKee: breadth first from a pseudo-peripheral vertex of
    /// each component, neighbours by increasing degree, the whole order reversed.
    Rcm,
    /// Decreasing degree, ties by original id.
    Degree,
    /// Hierarchical pairing by common neighbours, laid out depth first (see the module docs).
    Locality,
}

impl Order {
    /// Every order, `None` first.
    pub const ALL: [Order; 4] = [Order::None, Order::Rcm, Order::Degree, Order::Locality];

    /// The name (`"none"`, `"rcm"`, `"degree"`, `"locality"`).
    ///
    /// ```
    /// assert_eq!(bitgraphblas::reorder::Order::Degree.name(), "degree");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Order::None => "none",
            Order::Rcm => "rcm",
            Order::Degree => "degree",
            Order::Locality => "locality",
        }
    }

    /// The permutation this order gives for the square matrix `csr` (its
    /// pattern, symmetrised; values and self loops are ignored). An `Err` when
    /// `csr` is not square.
    ///
    /// ```
    /// use bitgraphblas::reorder::Order;
    /// let a = bitgraphblas::generate::rmat::<bool>(8, 8, 1);
    /// for o in Order::ALL {
    ///     assert_eq!(o.compute(&a.as_csr())?.len(), 256);
    /// }
    /// let r = bitgraphblas::storage::Csr::<bool>::empty(2, 3);
    /// assert!(Order::Rcm.compute(&r).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn compute<T: Scalar>(self, csr: &Csr<T>) -> Result<Permutation> {
        if csr.nrows() != csr.ncols() {
            return Err(Error::dims(
                "Order::compute",
                format!(
                    "a vertex order needs a square matrix, this one is {}x{}",
                    csr.nrows(),
                    csr.ncols()
                ),
            ));
        }
        crate::storage::csr_check_u32("graph", csr.nrows())?;
        if self == Order::None {
            return Permutation::identity(csr.nrows());
        }
        let g = symmetrised_pattern(csr);
        let order = match self {
            Order::None => unreachable!("handled above"),
            Order::Rcm => rcm::rcm(&g),
            Order::Degree => degree::by_degree(&g),
            Order::Locality => locality::locality(&g),
        };
        Permutation::from_order(order, csr.nrows())
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Order {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Order::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "Order::from_str",
                    format!("'{s}' is not an order (none, rcm, degree or locality)"),
                )
            })
    }
}
