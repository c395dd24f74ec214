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
/// **Where the state lives**: on a backend whose memory is the host's (the
/// CPU), only the products run on the backend; `σ`, `δ` and the level of every
/// (vertex, source) pair stay in host arrays and each level's element-wise
/// work is one fused pass (`F_{d+1} = N` where the level is unset and `N > 0`,
/// recording level and `σ`; backward `T = (1 + δ) / σ` on level `d` and
/// `δ += σ ⊙ U` on level `d - 1`), instead of a chain of masked vector
/// operations each writing an `n · k` result. On a device backend every step
/// is a backend operation as above.
///
/// **Semiring**: `PLUS.TIMES` (`f64`). **Cost**: per batch, two dense products
/// per level, `O(k · (m + n))` each, `O(k · (m + n) · depth)` in all; memory
/// `O(k · n · depth)` for the per-level frontiers on a device backend,
/// `O(k · n)` on the host.
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
        let delta = if B::HOST_MEMORY {
            brandes_batch_host(g, batch)?
        } else {
            brandes_batch(g, batch)?
        };
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

/// The dependencies `δ` of one batch, flattened `n × k`, with the element-wise
/// work on the host (backends whose memory is the host's).
fn brandes_batch_host<B>(g: &Graph<'_, B>, sources: &[usize]) -> Result<Vec<f64>>
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
    const UNSET: u32 = u32::MAX;
    // level of every (vertex, source) pair, UNSET where not reached
    let mut level = vec![UNSET; nk];
    let mut sigma = vec![0.0; nk];
    let mut f = vec![0.0; nk];
    for (j, &src) in sources.iter().enumerate() {
        (level[src * k + j], sigma[src * k + j], f[src * k + j]) = (0, 1.0, 1.0);
    }
    let mut prod: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    // Forward: N = A' F; F = N where the pair is unreached and N > 0.
    let mut depth = 0u32;
    loop {
        let fd = b.upload_dense(&DenseMatrix::from_vec(n, k, f)?)?;
        ops::mxm_dense(b, &mut prod, s, at, &fd, &Desc::new())?;
        f = b.download_dense(&prod)?.into_vec();
        depth += 1;
        let mut reached = false;
        for ((x, l), sg) in f.iter_mut().zip(&mut level).zip(&mut sigma) {
            if *l == UNSET && *x > 0.0 {
                (*l, *sg, reached) = (depth, *x, true);
            } else {
                *x = 0.0;
            }
        }
        if !reached {
            break;
        }
    }
    // Backward, from the deepest level: T = (1 + δ) / σ on level d,
    // U = A T, δ += σ ⊙ U on level d - 1 (level 0, the sources, not counted).
    let mut delta = vec![0.0; nk];
    let mut t = f;
    for d in (2..depth).rev() {
        for (((x, &l), &dl), &sg) in t.iter_mut().zip(&level).zip(&delta).zip(&sigma) {
            *x = if l == d { (1.0 + dl) / sg } else { 0.0 };
        }
        let th = DenseMatrix::from_vec(n, k, t)?;
        ops::mxm_dense(b, &mut prod, s, a, &b.upload_dense(&th)?, &Desc::new())?;
        let u = b.download_dense(&prod)?.into_vec();
        for (((dl, &l), &sg), &x) in delta.iter_mut().zip(&level).zip(&sigma).zip(&u) {
            if l == d - 1 {
                *dl += sg * x;
            }
        }
        t = th.into_vec();
    }
    Ok(delta)
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
