//! The undirected simple graph every order works on: the pattern of `A + A'`
//! without self loops, as sorted adjacency lists.

use rayon::prelude::*;

use super::row_blocks;
use crate::scalar::Scalar;
use crate::storage::Csr;

/// Adjacency lists (sorted, no self loops, no repeats) of an undirected graph.
pub(crate) struct SymGraph {
    pub(crate) ptr: Vec<usize>,
    pub(crate) adj: Vec<u32>,
}

impl SymGraph {
    pub(crate) fn n(&self) -> usize {
        self.ptr.len() - 1
    }
    #[inline]
    pub(crate) fn neighbours(&self, v: usize) -> &[u32] {
        &self.adj[self.ptr[v]..self.ptr[v + 1]]
    }
    #[inline]
    pub(crate) fn degree(&self, v: usize) -> usize {
        self.ptr[v + 1] - self.ptr[v]
    }
}

/// Fills `out` (laid out by `row_ptr`) row by row in parallel: `f(i, row_i)`.
pub(crate) fn fill_rows(row_ptr: &[usize], out: &mut [u32], f: impl Fn(usize, &mut [u32]) + Sync) {
    let blocks = row_blocks(row_ptr, 1 << 16);
    let mut parts = Vec::with_capacity(blocks.len());
    let mut rest = out;
    for w in blocks.windows(2) {
        let (a, b) = rest.split_at_mut(row_ptr[w[1]] - row_ptr[w[0]]);
        parts.push((w[0], w[1], a));
        rest = b;
    }
    parts.into_par_iter().for_each(|(r0, r1, mut s)| {
        for i in r0..r1 {
            let (row, tail) = s.split_at_mut(row_ptr[i + 1] - row_ptr[i]);
            f(i, row);
            s = tail;
        }
    });
}

/// The symmetrised pattern of the square matrix `a`.
pub(crate) fn symmetrised_pattern<T: Scalar>(a: &Csr<T>) -> SymGraph {
    let n = a.nrows();
    // The transpose's pattern (a counting sort: rows come out sorted).
    let mut tptr = vec![0usize; n + 1];
    for &j in a.col_idx() {
        tptr[j as usize + 1] += 1;
    }
    for j in 0..n {
        tptr[j + 1] += tptr[j];
    }
    let mut tadj = vec![0u32; a.nnz()];
    {
        let mut next = tptr.clone();
        for i in 0..n {
            for &j in a.row(i).0 {
                let p = &mut next[j as usize];
                tadj[*p] = i as u32;
                *p += 1;
            }
        }
    }
    let rp = a.row_ptr();
    let ci = a.col_idx();
    // Merges row i of A and of A', skipping i, calling `emit` per neighbour.
    let merge = |i: usize, emit: &mut dyn FnMut(u32)| {
        let x = &ci[rp[i]..rp[i + 1]];
        let y = &tadj[tptr[i]..tptr[i + 1]];
        let (mut p, mut q) = (0, 0);
        let me = i as u32;
        while p < x.len() || q < y.len() {
            let v = if q == y.len() || (p < x.len() && x[p] < y[q]) {
                p += 1;
                x[p - 1]
            } else if p == x.len() || y[q] < x[p] {
                q += 1;
                y[q - 1]
            } else {
                p += 1;
                q += 1;
                x[p - 1]
            };
            if v != me {
                emit(v);
            }
        }
    };
    let deg: Vec<usize> = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut c = 0;
            merge(i, &mut |_| c += 1);
            c
        })
        .collect();
    let mut ptr = vec![0usize; n + 1];
    for i in 0..n {
        ptr[i + 1] = ptr[i] + deg[i];
    }
    drop(deg);
    let mut adj = vec![0u32; ptr[n]];
    fill_rows(&ptr, &mut adj, |i, row| {
        let mut k = 0;
        merge(i, &mut |v| {
            row[k] = v;
            k += 1;
        });
    });
    SymGraph { ptr, adj }
}
