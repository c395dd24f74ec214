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
/// **Where the state lives**: on a backend whose dense matrices are host
/// memory ([`Backend::dense_host_mut`], the CPU), only the products run on
/// the backend; `σ`, `δ` and the (vertex, source) pairs of every level stay in
/// host arrays, and the products' operand and result are read and written in
/// place: each forward level is one scan of `N` for the newly reached pairs
/// (`F_{d+1} = N` there, recording `σ` and the level's pair list), each
/// backward level touches only its pairs (`T = (1 + δ) / σ` on level `d`,
/// `δ += σ ⊙ U` on level `d - 1`), instead of a chain of masked vector
/// operations each writing an `n · k` result. On a device backend every step
/// is a backend operation as above.
///
/// **Semiring**: `PLUS.TIMES` (`f64`). **Cost**: per batch, two dense products
/// per level, `O(k · (m + n))` each at most (on the CPU, rows of the operand
/// that are all zero cost one bit test per edge), `O(k · (m + n) · depth)` in
/// all; memory `O(k · n · depth)` for the per-level frontiers on a device
/// backend, `O(k · n)` on the host.
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
    let on_host =
        B::HOST_MEMORY && B::dense_host_mut(&mut g.backend().dense_new(0, 0, 0.0)?).is_some();
    for batch in sources.chunks(BATCH) {
        let delta = if on_host {
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

/// The host storage of a backend dense matrix ([`Backend::dense_host_mut`]).
fn host<B: Backend>(d: &mut B::Dense<f64>) -> Result<&mut [f64]> {
    B::dense_host_mut(d)
        .map(DenseMatrix::as_mut_slice)
        .ok_or_else(|| Error::InvalidArgument {
            op: "betweenness",
            detail: "the backend gives no host view of its dense matrices".into(),
        })
}

/// The dependencies `δ` of one batch, flattened `n × k`, with the element-wise
/// work on the host, in place in the products' operand and result (backends
/// whose dense matrices are host memory, [`Backend::dense_host_mut`]).
///
/// Every (vertex, source) pair is reached at one level; the pairs of each
/// level are listed as they are found, so that besides the products (whose
/// rows of `B` that are all zero cost one bit test per edge on the CPU) a
/// level costs one scan of the forward product for the newly reached pairs and
/// otherwise work in the size of the level: clearing and setting the operand,
/// and the backward updates, touch only the pairs of one level.
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
    // The products' operand (a frontier, then T) and result.
    let mut fd: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    let mut prod: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    // σ, zero where the pair is not reached yet; the pairs (index i · k + j)
    // by level: level d is pairs[starts[d]..starts[d + 1]].
    let mut sigma = vec![0.0; n * k];
    let mut pairs: Vec<usize> = Vec::new();
    let mut starts = vec![0];
    let f = host::<B>(&mut fd)?;
    for (j, &src) in sources.iter().enumerate() {
        let p = src * k + j;
        (sigma[p], f[p]) = (1.0, 1.0);
        pairs.push(p);
    }
    starts.push(pairs.len());
    // Forward: N = A' F; F = N on the pairs not reached yet where N > 0.
    loop {
        ops::mxm_dense(b, &mut prod, s, at, &fd, &Desc::new())?;
        let (f, nx) = (host::<B>(&mut fd)?, host::<B>(&mut prod)?);
        let last = starts[starts.len() - 2];
        for &p in &pairs[last..] {
            f[p] = 0.0;
        }
        for (i, row) in nx.chunks_exact(k).enumerate() {
            if !row.iter().fold(false, |acc, &x| acc | (x > 0.0)) {
                continue;
            }
            for (j, &x) in row.iter().enumerate() {
                let p = i * k + j;
                if x > 0.0 && sigma[p] == 0.0 {
                    (sigma[p], f[p]) = (x, x);
                    pairs.push(p);
                }
            }
        }
        if pairs.len() == starts[starts.len() - 1] {
            break;
        }
        starts.push(pairs.len());
    }
    // Backward, from the deepest level (F is all zero again): T = (1 + δ) / σ
    // on level d, U = A T, δ += σ ⊙ U on level d - 1 (level 0, the sources,
    // not counted).
    let mut delta = vec![0.0; n * k];
    let depth = starts.len() - 1;
    let level = |d: usize| &pairs[starts[d]..starts[d + 1]];
    for d in (2..depth).rev() {
        let t = host::<B>(&mut fd)?;
        if d + 1 < depth {
            for &p in level(d + 1) {
                t[p] = 0.0;
            }
        }
        for &p in level(d) {
            t[p] = (1.0 + delta[p]) / sigma[p];
        }
        ops::mxm_dense(b, &mut prod, s, a, &fd, &Desc::new())?;
        let u = host::<B>(&mut prod)?;
        for &p in level(d - 1) {
            delta[p] += sigma[p] * u[p];
        }
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
