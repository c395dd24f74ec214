//! Betweenness centrality: batched Brandes, several sources at once.

use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::ext::{self, BackendExt};
use bitgraphblas::{Error, Result};

use crate::graph::Graph;

/// How many sources one batch carries (the width of the dense multi-vectors).
pub const BATCH: usize = 32;

/// `k` sources spread evenly over `0..n` (`i · n / k`), all of them when `k >= n`.
///
/// ```
/// assert_eq!(bitgraphblas_algorithms::even_sources(10, 4), vec![0, 2, 5, 7]);
/// ```
pub fn even_sources(n: usize, k: usize) -> Vec<usize> {
    let k = k.min(n);
    (0..k).map(|i| i * n / k).collect()
}

/// Betweenness centrality restricted to `sources`: `bc(v) = Σ_{s ∈ sources} δ_s(v)`,
/// Brandes' dependency `δ_s(v) = Σ_{t ≠ s, v} σ_st(v) / σ_st` (not normalised;
/// on an undirected graph every path is counted from both ends when both are
/// sources, as in LAGraph). With every vertex as a source this is the exact
/// betweenness; with a subset it is exact for that subset.
///
/// Sources are processed [`BATCH`] at a time, each batch one fused
/// [`ext::brandes`] on `A` and `A'` ([`Graph::a_f64`], [`Graph::at_f64`],
/// in [`Graph::value_format`]): the sources are the columns of dense `n × k`
/// matrices; forward, `N = A' (+.×) F` (`mxm_dense`, `f64` path counts), then
/// `F<¬σ, replace> = N` (only pairs not yet reached from that column's
/// source), `σ += F`, level by level; backward, from the deepest level,
/// `T = (1 + δ) / σ` on level `d`, `U = A (+.×) T`, `δ += σ ⊙ U` on level
/// `d - 1`. `bc` is the row sum of `δ` (on the host).
///
/// Where the element-wise work runs is the backend's choice: on the CPU
/// only the products are backend operations and `σ`, `δ` and each level's
/// (vertex, source) pairs stay in host arrays, read and written in place in
/// the products' operand and result (a level costs its products, one scan
/// of the forward product and work in the size of the level); by default
/// (the CUDA backend) every step is a backend operation on flattened `n · k`
/// vectors, with one frontier kept per level.
///
/// **Semiring**: `PLUS.TIMES` (`f64`). **Cost**: per batch, two dense products
/// per level, `O(k · (m + n))` each at most (on the CPU, rows of the operand
/// that are all zero cost one bit test per edge), `O(k · (m + n) · depth)` in
/// all; memory `O(k · n · depth)` for the per-level frontiers by default,
/// `O(k · n)` on the CPU.
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::{betweenness, Graph};
/// // The path 0 - 1 - 2: vertex 1 is on the paths 0..2 and 2..0.
/// let e = vec![(0, 1, true), (1, 0, true), (1, 2, true), (2, 1, true)];
/// let g = Graph::new(&Cpu, Matrix::from_triplets(3, 3, e).unwrap(), None, Format::B2sr(TileSize::T4)).unwrap();
/// assert_eq!(betweenness(&g, &[0, 1, 2]).unwrap(), vec![0.0, 2.0, 0.0]);
/// ```
pub fn betweenness<B>(g: &Graph<'_, B>, sources: &[usize]) -> Result<Vec<f64>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let n = g.nvertices();
    if let Some(&s) = sources.iter().find(|&&s| s >= n) {
        return Err(Error::IndexOutOfBounds {
            op: "betweenness",
            index: s,
            len: n,
        });
    }
    let b = g.backend();
    let (a, at) = (g.a_f64()?, g.at_f64()?);
    let mut bc = vec![0.0; n];
    for batch in sources.chunks(BATCH) {
        let delta = b.download_vector_owned(ext::brandes(b, a, at, batch)?)?;
        let k = batch.len();
        for (i, row) in delta.into_vec(0.0).chunks(k).enumerate() {
            bc[i] += row.iter().sum::<f64>();
        }
    }
    Ok(bc)
}
