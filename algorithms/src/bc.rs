//! Betweenness centrality: batched Brandes, several sources at once.

use bitgraphblas::algebra::{BindFirst, Div, Identity, IndexOp, Plus, PlusTimes, Times};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::{ops, DenseMatrix, Desc, Error, Result, Vector, VectorFormat};

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
/// Sources are processed [`BATCH`] at a time as the columns of dense `n × k`
/// matrices, flattened row-major into vectors for the element-wise steps.
/// Forward: `N = A' (+.×) F` (`mxm_dense`, `A'` in B2SR, `f64` path counts),
/// then `F<¬σ, replace> = N` (valued, complemented mask: only vertices not yet
/// reached from that column's source), `σ += F`, one `F` kept per level.
/// Backward, from the deepest level: `T = (1 + δ) / σ` on level `d`
/// (structural mask of `F_d`), `U = A (+.×) T`, `δ<F_{d-1}> += σ ⊙ U`.
/// `bc` is the row sum of `δ`.
///
/// **Semiring**: `PLUS.TIMES` (`f64`). **Cost**: per batch, two dense products
/// per level, `O(k · (m + n))` each, `O(k · (m + n) · depth)` in all; memory
/// `O(k · n · depth)` for the per-level frontiers.
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
    B: Backend,
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
    let mut bc = vec![0.0; n];
    for batch in sources.chunks(BATCH) {
        let delta = brandes_batch(g, batch)?;
        let k = batch.len();
        for (i, row) in delta.chunks(k).enumerate() {
            bc[i] += row.iter().sum::<f64>();
        }
    }
    Ok(bc)
}

/// Flattened row-major `n × k` vector to a dense matrix (absent entries 0).
fn to_dense<B: Backend>(b: &B, v: &B::Vector<f64>, n: usize, k: usize) -> Result<B::Dense<f64>> {
    let h = b.download_vector(v)?.to_vec(0.0);
    b.upload_dense(&DenseMatrix::from_vec(n, k, h)?)
}

/// A dense matrix flattened row-major into a vector (every entry present).
fn to_flat<B: Backend>(b: &B, d: &B::Dense<f64>) -> Result<B::Vector<f64>> {
    b.upload_vector(&Vector::from_dense(b.download_dense(d)?.into_vec()))
}

/// The dependencies `δ` of one batch, flattened `n × k`.
fn brandes_batch<B>(g: &Graph<'_, B>, sources: &[usize]) -> Result<Vec<f64>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let (n, k) = (g.nvertices(), sources.len());
    let (a, at) = (g.a_f64()?, g.at_f64()?);
    let s = PlusTimes::<f64>::new();
    let nk = n * k;
    let mut init = vec![0.0; nk];
    for (j, &src) in sources.iter().enumerate() {
        init[src * k + j] = 1.0;
    }
    let mut sigma: B::Vector<f64> = b.upload_vector(&Vector::from_dense(init.clone()))?;
    let mut frontier: B::Dense<f64> = b.upload_dense(&DenseMatrix::from_vec(n, k, init)?)?;
    let mut levels: Vec<B::Vector<f64>> = vec![b.convert_vector(&sigma, VectorFormat::Sparse)?];
    let mut next: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    let mut masked: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Sparse)?;
    loop {
        ops::mxm_dense(b, &mut next, s, at, &frontier, &Desc::new())?;
        let flat = to_flat(b, &next)?;
        ops::apply(
            b,
            &mut masked,
            Identity,
            &flat,
            &Desc::new().mask(B::mask(&sigma).complement()).replace(),
        )?;
        let mut level: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Sparse)?;
        ops::select(b, &mut level, IndexOp::ValueGt(0.0), &masked, &Desc::new())?;
        if b.vector_nvals(&level)? == 0 {
            break;
        }
        ops::apply(b, &mut sigma, Identity, &level, &Desc::new().accum(Plus))?;
        frontier = to_dense(b, &level, n, k)?;
        levels.push(level);
    }
    let mut delta: B::Vector<f64> = b.vector_new(nk, Some(0.0), VectorFormat::Dense)?;
    let mut t: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Sparse)?;
    let mut u: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    let mut su: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Dense)?;
    // Level 0 holds the sources, whose own dependency is not counted.
    for d in (2..levels.len()).rev() {
        ops::apply(
            b,
            &mut t,
            BindFirst(Plus, 1.0),
            &delta,
            &Desc::new().mask(B::mask(&levels[d]).structure()).replace(),
        )?;
        let tt = std::mem::replace(&mut t, b.vector_new(nk, None, VectorFormat::Sparse)?);
        ops::ewise_mult(b, &mut t, Div, &tt, &sigma, &Desc::new())?;
        ops::mxm_dense(b, &mut u, s, a, &to_dense(b, &t, n, k)?, &Desc::new())?;
        ops::ewise_mult(b, &mut su, Times, &sigma, &to_flat(b, &u)?, &Desc::new())?;
        ops::apply(
            b,
            &mut delta,
            Identity,
            &su,
            &Desc::new()
                .mask(B::mask(&levels[d - 1]).structure())
                .accum(Plus),
        )?;
    }
    Ok(b.download_vector(&delta)?.to_vec(0.0))
}
