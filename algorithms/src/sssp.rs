//! Single-source shortest paths: delta-stepping on real weights, and the
//! levels of a breadth-first search for unweighted graphs.

use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::container::VectorRepr;
use bitgraphblas::ext::{self, BackendExt};
use bitgraphblas::{Error, Matrix, Result, Vector};

use crate::bfs::{levels_fused, Direction};
use crate::graph::Graph;

/// Shortest-path distances from `source` (`f64::INFINITY` where unreachable,
/// and where the distance is larger than `f64::MAX`: [`overflowed`] tells them apart).
///
/// Edge weights come from the graph ([`Graph::weights`]); a graph without
/// weights weighs every edge 1. Weights must be non-negative and finite.
///
/// **Unweighted graphs** (every weight 1): with unit weights the distance
/// of a vertex is its breadth-first level, so the search is the levels of
/// [`crate::bfs()`] (direction-optimising: runs of pushed levels
/// [`bitgraphblas::ext::bfs_push`] on `A` in CSR, pulled levels
/// [`bitgraphblas::ext::bfs_pull`] on `A'` in the graph's format, the
/// complemented structure of the level vector as the mask), read back once
/// as `f64` distances. It is the level-synchronous `MIN.PLUS` search (`t<¬settled,
/// replace> = f min.+ A`, `d = min(d, t)`, `f = t`) with the values dropped:
/// every entry of the frontier `f` equals the step's distance, so the
/// product's pattern (`ANY.PAIR`) carries all it computes. Cost `O(n + m)`
/// over the search.
///
/// **Weighted graphs** use delta-stepping (Meyer and Sanders),
/// [`bitgraphblas::ext::delta_stepping`]: the edges split into light
/// (`w <= Δ`) and heavy (`w > Δ`) ([`bitgraphblas::ext::DeltaEdges`], made
/// once per graph by [`Graph::prepare`] and kept), a bucket holds the
/// unsettled vertices with tentative distance in `[m, m + Δ)` (`m` the
/// smallest unsettled distance), its vertices relax their light edges until no
/// distance in the bucket improves, then every vertex the bucket settled
/// relaxes its heavy edges once. On the CPU that is the LAGraph formulation
/// (`MIN.PLUS` products and `select`); the CUDA backend runs it as a few
/// kernels per bucket. `Δ` defaults to the mean edge weight, and is raised
/// where it would make more than [`MAX_BUCKETS`] buckets ([`delta_for`]).
/// Cost: `O(n + m)` per bucket pass in the worst case, near
/// `O((n + m) (1 + L / Δ))` in practice (`L` the largest distance).
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix};
/// use bitgraphblas_algorithms::{sssp, Graph};
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 5.0), (0, 2, 1.0), (2, 1, 2.0)]).unwrap();
/// let g = Graph::from_weighted(&Cpu, a, Format::Csr).unwrap();
/// assert_eq!(sssp(&g, 0, None).unwrap(), vec![0.0, 3.0, 1.0]);
/// ```
pub fn sssp<B>(g: &Graph<'_, B>, source: usize, delta: Option<f64>) -> Result<Vec<f64>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let n = g.nvertices();
    if source >= n {
        return Err(Error::IndexOutOfBounds {
            op: "sssp",
            index: source,
            len: n,
        });
    }
    match g.weights() {
        None => sssp_unweighted(g, source),
        Some(_) => {
            let delta = g.default_delta(delta)?;
            let b = g.backend();
            let d = match g.delta_edges(delta)? {
                Some(edges) => ext::delta_stepping(b, edges, &[source])?,
                None => ext::delta_stepping(b, &g.make_delta_edges(delta)?, &[source])?,
            };
            Ok(b.download_vector_owned(d)?.into_vec(f64::INFINITY))
        }
    }
}

/// The most buckets delta-stepping may step through: a `Δ` so small that the
/// longest possible distance spans more buckets is raised (see [`delta_for`]).
pub const MAX_BUCKETS: f64 = 16_777_216.0;

/// The bucket width `Δ` that [`sssp`] uses on the weights `w` of an `n x n`
/// graph: `delta`, or by default the mean edge weight (a running mean, so
/// weights near `f64::MAX` do not overflow it), raised where needed to
/// `(n - 1) max(w) / MAX_BUCKETS`, so that the buckets between 0 and the
/// longest possible distance number at most [`MAX_BUCKETS`] (and `lo + Δ`
/// always moves past `lo`). Any `Δ > 0` gives the same distances; it only
/// trades bucket passes against relaxations. An `Err` for a `delta` that is
/// not positive and finite, or for weights that are not finite and non-negative.
///
/// ```
/// use bitgraphblas::Matrix;
/// use bitgraphblas_algorithms::sssp::{delta_for, MAX_BUCKETS};
/// let w = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0), (1, 2, 3.0)]).unwrap();
/// assert_eq!(delta_for(&w, None).unwrap(), 2.0); // the mean
/// assert_eq!(delta_for(&w, Some(0.5)).unwrap(), 0.5);
/// assert_eq!(delta_for(&w, Some(1e-16)).unwrap(), 2.0 * 3.0 / MAX_BUCKETS); // raised
/// assert!(delta_for(&w, Some(0.0)).is_err());
/// let huge = Matrix::from_triplets(3, 3, vec![(0, 1, 1e308), (1, 2, 1e308)]).unwrap();
/// assert_eq!(delta_for(&huge, None).unwrap(), 1e308);
/// ```
pub fn delta_for(w: &Matrix<f64>, delta: Option<f64>) -> Result<f64> {
    delta_from(weight_range(w)?, w.nrows(), delta)
}

/// The mean and the largest of the weights `w` (a running mean, so weights
/// near `f64::MAX` do not overflow it); an `Err` for a weight that is not
/// finite and non-negative.
pub(crate) fn weight_range(w: &Matrix<f64>) -> Result<(f64, f64)> {
    let vals = w.as_csr();
    let (mut mean, mut max) = (0.0f64, 0.0f64);
    for (k, &x) in vals.values().iter().enumerate() {
        if !(x.is_finite() && x >= 0.0) {
            return Err(Error::InvalidArgument {
                op: "sssp",
                detail: format!("edge weights must be finite and non-negative, found {x}"),
            });
        }
        mean += (x - mean) / (k + 1) as f64;
        max = max.max(x);
    }
    Ok((mean, max))
}

/// [`delta_for`] from the weights' [`weight_range`] on `n` vertices.
pub(crate) fn delta_from((mean, max): (f64, f64), n: usize, delta: Option<f64>) -> Result<f64> {
    let delta = delta.unwrap_or(if mean > 0.0 { mean } else { 1.0 });
    if !(delta.is_finite() && delta > 0.0) {
        return Err(Error::InvalidArgument {
            op: "sssp",
            detail: format!("delta must be positive and finite, not {delta}"),
        });
    }
    let longest = (n.saturating_sub(1) as f64 * max).min(f64::MAX);
    Ok(delta.max(longest / MAX_BUCKETS))
}

/// The vertices that `source` reaches but whose distance in `dist` (as
/// [`sssp`] returned it) is infinite: their shortest distance is larger than
/// `f64::MAX`, so the sum overflowed. Empty without weights, and without a
/// search where no path can reach `f64::MAX` (`(n - 1) max(w)` well below it);
/// otherwise one breadth-first search tells overflowed from unreachable.
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix};
/// use bitgraphblas_algorithms::{sssp, sssp::overflowed, Graph};
/// let a = Matrix::from_triplets(4, 4, vec![(0, 1, 1e308), (1, 2, 1e308)]).unwrap();
/// let g = Graph::from_weighted(&Cpu, a, Format::Csr).unwrap();
/// let d = sssp(&g, 0, None).unwrap();
/// assert_eq!(d, vec![0.0, 1e308, f64::INFINITY, f64::INFINITY]);
/// assert_eq!(overflowed(&g, 0, &d).unwrap(), vec![2]); // 3 is unreachable
/// ```
pub fn overflowed<B>(g: &Graph<'_, B>, source: usize, dist: &[f64]) -> Result<Vec<usize>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let Some((_, max)) = g.weight_range()? else {
        return Ok(Vec::new());
    };
    let longest = g.nvertices().saturating_sub(1) as f64 * max;
    if longest < f64::MAX / 2.0 || dist.iter().all(|d| d.is_finite()) {
        return Ok(Vec::new());
    }
    let levels = crate::bfs::bfs(g, source, false)?.levels;
    Ok(levels
        .iter()
        .zip(dist)
        .enumerate()
        .filter(|(_, (&l, d))| l >= 0 && d.is_infinite())
        .map(|(v, _)| v)
        .collect())
}

/// Unit weights: the distances are the levels of a breadth-first search
/// ([`crate::bfs::levels_fused`]), `∞` where a vertex has no level.
fn sssp_unweighted<B>(g: &Graph<'_, B>, source: usize) -> Result<Vec<f64>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
{
    let d = levels_fused(g, source, Direction::Auto)?;
    levels_to_distances(g.backend().download_vector_owned(d.levels)?)
}

/// The levels as distances: `l as f64`, `∞` where a vertex has no level.
/// Dense levels (as a device search returns them) are converted in their
/// own buffer, in parallel, in one pass over the values and the presence
/// words: no more host work than [`crate::bfs()`]'s fill of the unreached.
fn levels_to_distances(levels: Vector<i64>) -> Result<Vec<f64>> {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    let n = levels.len();
    match levels.into_repr() {
        VectorRepr::Dense {
            mut values,
            present,
        } => {
            let words = present.as_ref().map(|p| p.words());
            let inf = f64::INFINITY.to_bits() as i64;
            values
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, vals)| {
                    for (k, x) in vals.iter_mut().enumerate() {
                        let i = c * CHUNK + k;
                        let here = words.is_none_or(|w| (w[i / 64] >> (i % 64)) & 1 == 1);
                        *x = if here {
                            (*x as f64).to_bits() as i64
                        } else {
                            inf
                        };
                    }
                });
            // the f64 bit patterns, reinterpreted (same size and alignment)
            Ok(bytemuck::allocation::cast_vec(values))
        }
        repr => Ok(Vector::from_repr(n, repr)?.map_into_vec(f64::INFINITY, |l| l as f64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitgraphblas::storage::BitVec;

    #[test]
    fn levels_become_distances_in_every_form() {
        let n = 9000; // past two parallel chunks, a partial presence word
        let level = |i: usize| (i % 3 != 1).then_some((i % 17) as i64);
        let want: Vec<f64> = (0..n)
            .map(|i| level(i).map_or(f64::INFINITY, |l| l as f64))
            .collect();
        let values: Vec<i64> = (0..n).map(|i| level(i).unwrap_or(-7)).collect();
        let present = BitVec::from_indices(n, (0..n).filter(|&i| level(i).is_some()));
        let dense = Vector::from_repr(
            n,
            VectorRepr::Dense {
                values: values.clone(),
                present: Some(present),
            },
        )
        .unwrap();
        assert_eq!(levels_to_distances(dense).unwrap(), want);
        let entries = (0..n).filter_map(|i| level(i).map(|l| (i, l))).collect();
        let sparse = Vector::from_entries(n, entries).unwrap();
        assert_eq!(levels_to_distances(sparse).unwrap(), want);
        let full = Vector::from_dense((0..n as i64).collect());
        let d = levels_to_distances(full).unwrap();
        assert!(d.iter().enumerate().all(|(i, &x)| x == i as f64));
    }
}
