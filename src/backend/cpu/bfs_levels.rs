//! Levels of a breadth-first search on the CPU.
//!
//! - Pushed ([`crate::ext::bfs_push`]): a vertex queue, so a level costs the
//!   out-edges of its frontier, not a pass over every vertex (the tail of a
//!   high-diameter search, or a search that reaches few vertices of a large
//!   graph, runs many levels of a few vertices each).
//! - Pulled ([`crate::ext::bfs_pull`]): the packed-bit masked product, each
//!   unvisited row stopping at its first hit, then `O(new frontier)` updates.

use super::bfs_record::take_dense;
use super::Cpu;
use crate::algebra::AnyPair;
use crate::backend::Backend;
use crate::container::{Flags, Matrix, NoAccum, Vector, VectorRepr};
use crate::error::Result;
use crate::ext::{PushLimits, Pushed};
use crate::storage::{BitVec, Csr};

/// Frontiers with at most `n / SPARSE_BELOW` vertices leave as sorted
/// indices, larger ones as packed bits (what a pulled level reads).
const SPARSE_BELOW: usize = 64;

/// The out-degree of `v` in `degree` (absent: 0), as [`crate::ext::bfs_push`]
/// counts edges.
fn degree_of(degree: &Vector<f64>, v: usize) -> u64 {
    match degree.repr() {
        VectorRepr::Dense {
            values,
            present: None,
        } => values[v] as u64,
        _ => degree.get(v).unwrap_or(0.0) as u64,
    }
}

/// The sum of `degree` over the vertices not in `visited`. A full dense
/// `degree` (how the CPU keeps a degree vector with every entry) is summed
/// as `f64` in four lanes, less its sum over `visited` (`O(n)` reads, no
/// per-vertex test or conversion; exact for whole-number degrees below
/// 2^53, which is what out-edge counts are); other layouts vertex by vertex.
fn unvisited_degree(degree: &Vector<f64>, visited: &BitVec) -> u64 {
    match degree.repr() {
        VectorRepr::Dense {
            values,
            present: None,
        } => {
            let mut lanes = [0.0f64; 4];
            let body = values.chunks_exact(4);
            let tail: f64 = body.remainder().iter().sum();
            for c in body {
                for (l, &x) in lanes.iter_mut().zip(c) {
                    *l += x;
                }
            }
            let all = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail;
            let seen: f64 = visited.iter_ones().map(|i| values[i]).sum();
            (all - seen) as u64
        }
        _ => (0..degree.len())
            .filter(|&i| !visited.get(i))
            .map(|i| degree_of(degree, i))
            .sum(),
    }
}

/// The vertices of a frontier (its pattern), in any order.
fn vertices(frontier: &Vector<bool>) -> Vec<u32> {
    match frontier.repr() {
        VectorRepr::Sparse { indices, .. } => indices.clone(),
        _ => frontier.pattern().iter_ones().map(|i| i as u32).collect(),
    }
}

/// The levels a push writes: dense values with visited bits, or, while the
/// search has reached few vertices and `level` came sparse
/// ([`crate::ext::BackendExt::bfs_level_format`]), the visited bits and a
/// list of the reached entries, made dense once they pass `n /
/// SPARSE_BELOW`. A search that reaches few vertices of a large graph then
/// costs those vertices and `n / 8` bytes of bits, not `n` values.
struct Levels {
    visited: BitVec,
    dense: Option<Vec<i64>>,
    reached: Vec<(u32, i64)>,
}

impl Levels {
    /// `level`'s entries, taken out of it (`level` is left empty).
    fn take(level: &mut Vector<i64>) -> Result<Self> {
        let n = level.len();
        if let VectorRepr::Sparse { indices, .. } = level.repr() {
            if indices.len() * SPARSE_BELOW <= n {
                let old = std::mem::replace(level, Vector::empty(n));
                let VectorRepr::Sparse { indices, values } = old.into_repr() else {
                    unreachable!("matched sparse above")
                };
                let visited = BitVec::from_indices(n, indices.iter().map(|&i| i as usize));
                return Ok(Levels {
                    visited,
                    dense: None,
                    reached: indices.into_iter().zip(values).collect(),
                });
            }
        }
        let (values, visited) = take_dense(level)?;
        Ok(Levels {
            visited,
            dense: Some(values),
            reached: Vec::new(),
        })
    }

    /// Gives `j` level `d` unless it is visited; true when it was not.
    #[inline]
    fn claim(&mut self, j: usize, d: i64) -> bool {
        if self.visited.get(j) {
            return false;
        }
        self.visited.set(j, true);
        match &mut self.dense {
            Some(values) => values[j] = d,
            None => {
                self.reached.push((j as u32, d));
                if self.reached.len() * SPARSE_BELOW > self.visited.len() {
                    let mut values = vec![0; self.visited.len()];
                    for &(i, l) in &self.reached {
                        values[i as usize] = l;
                    }
                    self.reached = Vec::new();
                    self.dense = Some(values);
                }
            }
        }
        true
    }

    /// Puts the levels back into `level`: sorted entries or dense values.
    fn put(mut self, level: &mut Vector<i64>) -> Result<()> {
        match self.dense {
            Some(values) => put_dense(level, values, self.visited),
            None => {
                self.reached.sort_unstable_by_key(|e| e.0);
                let (indices, values) = self.reached.into_iter().unzip();
                *level =
                    Vector::from_repr(self.visited.len(), VectorRepr::Sparse { indices, values })?;
                Ok(())
            }
        }
    }
}

/// [`crate::ext::bfs_push`] on a CSR `a` (checked arguments): `level` is
/// kept sparse while the search is small and it came sparse, else made
/// dense with a presence mask (in place when it already is); each level
/// walks the rows of the frontier's vertices and claims the unvisited
/// columns, and the new frontier leaves as sorted indices or packed bits.
pub(crate) fn bfs_push(
    level: &mut Vector<i64>,
    frontier: &mut Vector<bool>,
    a: &Csr<bool>,
    degree: &Vector<f64>,
    depth: i64,
    limits: PushLimits,
) -> Result<Pushed> {
    let n = level.len();
    let mut levels = Levels::take(level)?;
    let mut cur = vertices(frontier);
    let mut out = Pushed {
        levels: 0,
        nvals: cur.len(),
        edges: cur.iter().map(|&v| degree_of(degree, v as usize)).sum(),
        unvisited_edges: limits
            .unvisited_edges
            .unwrap_or_else(|| unvisited_degree(degree, &levels.visited)),
    };
    let (rp, ci) = (a.row_ptr(), a.col_idx());
    let mut next: Vec<u32> = Vec::new();
    while out.levels < limits.max_levels {
        out.levels += 1;
        let d = depth + out.levels as i64;
        next.clear();
        for &v in &cur {
            let v = v as usize;
            for &j in &ci[rp[v]..rp[v + 1]] {
                if levels.claim(j as usize, d) {
                    next.push(j);
                }
            }
        }
        std::mem::swap(&mut cur, &mut next);
        out.nvals = cur.len();
        out.edges = cur.iter().map(|&v| degree_of(degree, v as usize)).sum();
        out.unvisited_edges = out.unvisited_edges.saturating_sub(out.edges);
        if out.nvals == 0
            || out.edges.saturating_mul(limits.alpha) > out.unvisited_edges
            || out.edges > limits.max_edges
        {
            break;
        }
    }
    levels.put(level)?;
    if out.levels > 0 {
        *frontier = if cur.len() * SPARSE_BELOW <= n {
            cur.sort_unstable();
            let values = vec![true; cur.len()];
            Vector::from_repr(
                n,
                VectorRepr::Sparse {
                    indices: cur,
                    values,
                },
            )?
        } else {
            Vector::from_bits(BitVec::from_indices(n, cur.iter().map(|&v| v as usize)))
        };
    }
    Ok(out)
}

/// [`crate::ext::bfs_pull`] on the CPU (checked arguments): `next<¬level,
/// replace> = A' ANY.PAIR frontier` with the frontier as packed bits (the
/// B2SR tile kernel or the CSR row scan, each unvisited row stopping at its
/// first in-neighbour in the frontier), then the new vertices get level
/// `depth + 1` in place and are counted (`O(n / 64)` word passes and one
/// `O(n)` degree sum, no per-vertex test).
pub(crate) fn bfs_pull(
    cpu: &Cpu,
    level: &mut Vector<i64>,
    frontier: &mut Vector<bool>,
    at: &Matrix<bool>,
    degree: &Vector<f64>,
    depth: i64,
) -> Result<Pushed> {
    let n = level.len();
    // The packed-bit kernels read a packed-bit frontier (a queue push leaves
    // a small one as sorted indices).
    let packed = match frontier.repr() {
        VectorRepr::Bits(_) => None,
        _ => Some(Vector::from_bits(frontier.pattern())),
    };
    let mut next = Vector::from_bits(BitVec::zeros(n));
    let flags = Flags {
        replace: true,
        ..Flags::default()
    };
    let mask = Cpu::mask(level).structure().complement();
    let s = AnyPair::<bool>::new();
    cpu.mxv(
        &mut next,
        Some(mask),
        NoAccum,
        s,
        at,
        packed.as_ref().unwrap_or(frontier),
        flags,
    )?;
    let hits = match next.repr() {
        VectorRepr::Bits(b) => b.clone(),
        _ => next.pattern(),
    };
    let (mut values, mut visited) = take_dense(level)?;
    let mut out = Pushed {
        levels: 1,
        nvals: 0,
        edges: 0,
        unvisited_edges: unvisited_degree(degree, &visited),
    };
    for j in hits.iter_ones() {
        values[j] = depth + 1;
        out.nvals += 1;
        out.edges += degree_of(degree, j);
    }
    out.unvisited_edges = out.unvisited_edges.saturating_sub(out.edges);
    visited.or_assign(&hits);
    put_dense(level, values, visited)?;
    *frontier = Vector::from_bits(hits);
    Ok(out)
}

/// The inverse of [`take_dense`] on `level` (no presence mask once every vertex is visited).
fn put_dense(level: &mut Vector<i64>, values: Vec<i64>, visited: BitVec) -> Result<()> {
    let all = visited.count_ones() == visited.len();
    *level = Vector::from_repr(
        visited.len(),
        VectorRepr::Dense {
            values,
            present: (!all).then_some(visited),
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{Matrix, VectorFormat};
    use crate::ext::bfs::{bfs_pull_generic, bfs_push_generic};
    use crate::Cpu;
    use rand::{Rng, SeedableRng};

    /// A native step and the generic one agree: the counts, the levels and
    /// the new frontier's pattern.
    fn assert_same_step(
        (got, want): (Pushed, Pushed),
        lv: [&Vector<i64>; 2],
        fr: [&Vector<bool>; 2],
        (case, step): (usize, usize),
    ) {
        assert_eq!(got, want, "case {case} step {step}");
        assert_eq!(
            lv[0].to_vec(-1),
            lv[1].to_vec(-1),
            "case {case} step {step}"
        );
        assert_eq!(fr[0].pattern(), fr[1].pattern(), "case {case} step {step}");
    }

    /// A random directed graph on `n` vertices with up to `max_degree * n`
    /// distinct edges (self loops kept), in CSR (`n` at least 1).
    fn random_digraph(rng: &mut rand::rngs::StdRng, n: usize, max_degree: usize) -> Matrix<bool> {
        let m = rng.gen_range(0..max_degree * n);
        let pairs: std::collections::BTreeSet<(usize, usize)> = (0..m)
            .map(|_| (rng.gen_range(0..n), rng.gen_range(0..n)))
            .collect();
        let edges = pairs.into_iter().map(|(i, j)| (i, j, true)).collect();
        let a = Matrix::from_triplets(n, n, edges).unwrap();
        a.to_format(crate::Format::Csr).unwrap()
    }

    /// The queue push against the generic one (masked products) on random
    /// directed graphs, from random sources, with limits that stop runs
    /// early, frontiers given sparse or as bits, and degrees full or sparse.
    #[test]
    fn queue_push_matches_the_generic_push() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for case in 0..60 {
            let n = [1, 2, 63, 64, 65, 300, 1000][case % 7];
            let a = random_digraph(&mut rng, n, 4);
            let rp = a.as_csr().row_ptr().to_vec();
            let full: Vec<f64> = rp.windows(2).map(|r| (r[1] - r[0]) as f64).collect();
            let sparse = Vector::from_entries(
                n,
                full.iter()
                    .enumerate()
                    .filter(|e| *e.1 > 0.0)
                    .map(|(i, &d)| (i, d))
                    .collect(),
            )
            .unwrap();
            let degree = if case % 2 == 0 {
                Vector::from_dense(full)
            } else {
                sparse
            };
            let s = rng.gen_range(0..n);
            // sparse (grown in place, made dense past n / 64) or dense from the start
            let mut lv = Vector::from_entries(n, vec![(s, 0i64)]).unwrap();
            if case % 4 == 1 {
                lv = lv.to_format(VectorFormat::Dense).unwrap();
            }
            let seed = BitVec::from_indices(n, [s]);
            let mut fr = if case % 3 == 0 {
                Vector::from_bits(seed)
            } else {
                Vector::from_entries(n, vec![(s, true)]).unwrap()
            };
            let mut lv2 = lv.clone();
            let mut fr2 = fr.clone();
            let mut depth = 0;
            for step in 0..50 {
                let limits = PushLimits {
                    max_levels: if step == 0 { 0 } else { rng.gen_range(1..4) },
                    alpha: rng.gen_range(0..20),
                    max_edges: rng.gen_range(1..200),
                    unvisited_edges: None,
                };
                let a_repr = match a.repr() {
                    crate::container::MatrixRepr::Csr(c) => c,
                    _ => unreachable!(),
                };
                let got = bfs_push(&mut lv, &mut fr, a_repr, &degree, depth, limits).unwrap();
                let want =
                    bfs_push_generic(&Cpu, &mut lv2, &mut fr2, &a, &degree, depth, limits).unwrap();
                assert_same_step((got, want), [&lv, &lv2], [&fr, &fr2], (case, step));
                depth += got.levels as i64;
                if got.nvals == 0 {
                    break;
                }
            }
        }
    }

    /// Searches that mix queue pushes and native pulls against the generic
    /// levels (masked products) on random directed graphs, with `A'` in CSR
    /// or B2SR (tile sizes that do not divide `n`), frontiers sparse or bits.
    #[test]
    fn native_pull_matches_the_generic_pull() {
        use crate::{Format, TileSize};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let tiles = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];
        for case in 0..48 {
            let n = [1, 5, 63, 64, 65, 200, 700][case % 7];
            let a = random_digraph(&mut rng, n, 6);
            let crate::container::MatrixRepr::Csr(a_csr) = a.repr() else {
                unreachable!()
            };
            let at = Matrix::from_csr(a_csr.transpose());
            let at = match case % 5 {
                0 => at,
                i => at.to_format(Format::B2sr(tiles[i - 1])).unwrap(),
            };
            let rp = a_csr.row_ptr();
            let degree = Vector::from_dense(rp.windows(2).map(|r| (r[1] - r[0]) as f64).collect());
            let s = rng.gen_range(0..n);
            let mut lv = Vector::from_entries(n, vec![(s, 0i64)]).unwrap();
            let mut fr = Vector::from_entries(n, vec![(s, true)]).unwrap();
            let (mut lv2, mut fr2) = (lv.clone(), fr.clone());
            let mut depth = 0;
            for step in 0..40 {
                let (got, want) = if rng.gen_bool(0.5) {
                    (
                        bfs_pull(&Cpu, &mut lv, &mut fr, &at, &degree, depth).unwrap(),
                        bfs_pull_generic(&Cpu, &mut lv2, &mut fr2, &at, &degree, depth).unwrap(),
                    )
                } else {
                    // The caller's count, where given, is the true one.
                    let known = unvisited_degree(&degree, &lv.pattern());
                    let limits = PushLimits {
                        max_levels: rng.gen_range(1..3),
                        alpha: 0,
                        max_edges: u64::MAX,
                        unvisited_edges: rng.gen_bool(0.5).then_some(known),
                    };
                    (
                        bfs_push(&mut lv, &mut fr, a_csr, &degree, depth, limits).unwrap(),
                        bfs_push_generic(&Cpu, &mut lv2, &mut fr2, &a, &degree, depth, limits)
                            .unwrap(),
                    )
                };
                assert_same_step((got, want), [&lv, &lv2], [&fr, &fr2], (case, step));
                depth += got.levels as i64;
                if got.nvals == 0 {
                    break;
                }
            }
        }
    }
}
