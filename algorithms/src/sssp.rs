//! Single-source shortest paths: delta-stepping on real weights, and the
//! levels of a breadth-first search for unweighted graphs.

use bitgraphblas::algebra::{Identity, IndexOp, Min, MinPlus, Minus};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::ext::BackendExt;
use bitgraphblas::{ops, Cpu, Desc, Error, Matrix, Result, VectorFormat};

use crate::bfs::{levels_fused, push_or_pull, Direction};
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
/// **Weighted graphs** use delta-stepping (Meyer and Sanders) in the
/// LAGraph formulation, on CSR with `MIN.PLUS` (`f64`). The edges split into
/// light (`w <= Δ`) and heavy (`w > Δ`) by `select`. A bucket holds the
/// unsettled vertices with tentative distance in `[m, m + Δ)` (`m` the smallest
/// unsettled distance); its vertices relax their light edges until no distance in
/// the bucket improves (`t_req = t_B min.+ A_L`, improvements found by
/// `select(t_req - t < 0)`), then every vertex the bucket settled relaxes its heavy
/// edges once. `Δ` defaults to the mean edge weight, and is raised where it
/// would make more than [`MAX_BUCKETS`] buckets ([`delta_for`]). Cost: `O(n + m)` per
/// bucket pass in the worst case, near `O((n + m) (1 + L / Δ))` in practice
/// (`L` the largest distance).
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
        Some(w) => {
            let delta = delta_for(w, delta)?;
            delta_stepping(g, source, delta)
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
    let delta = delta.unwrap_or(if mean > 0.0 { mean } else { 1.0 });
    if !(delta.is_finite() && delta > 0.0) {
        return Err(Error::InvalidArgument {
            op: "sssp",
            detail: format!("delta must be positive and finite, not {delta}"),
        });
    }
    let longest = (w.nrows().saturating_sub(1) as f64 * max).min(f64::MAX);
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
    let Some(w) = g.weights() else {
        return Ok(Vec::new());
    };
    let max = w.as_csr().values().iter().fold(0.0f64, |m, &x| m.max(x));
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
    let levels = g.backend().download_vector_owned(d.levels)?;
    // One pass over the distances; the levels are read where present only
    // (a search that reaches few vertices costs those).
    let mut dist = vec![f64::INFINITY; g.nvertices()];
    for (v, l) in levels.entries() {
        dist[v] = l as f64;
    }
    Ok(dist)
}

/// The light and heavy parts of a host weight matrix (split on the host with
/// the CPU backend's `select`), uploaded.
fn split<B: Backend>(
    b: &B,
    w: &Matrix<f64>,
    delta: f64,
) -> Result<(B::Matrix<f64>, B::Matrix<f64>)> {
    let (cpu, n) = (Cpu::new(), w.nrows());
    let mut light = Matrix::<f64>::empty(n, n);
    let mut heavy = Matrix::<f64>::empty(n, n);
    ops::select_matrix(&cpu, &mut light, IndexOp::ValueLe(delta), w, &Desc::new())?;
    ops::select_matrix(&cpu, &mut heavy, IndexOp::ValueGt(delta), w, &Desc::new())?;
    Ok((b.upload_matrix(&light)?, b.upload_matrix(&heavy)?))
}

/// Relaxation `t_req = t_B min.+ A`: push along the CSR rows of `A` while
/// `t_B` is sparse, pull on `A'` otherwise.
struct Relax<B: Backend> {
    a: B::Matrix<f64>,
    at: Option<B::Matrix<f64>>,
}

impl<B: BackendExt> Relax<B>
where
    B::MaskSource: VectorShape,
{
    fn run(&self, b: &B, out: &mut B::Vector<f64>, t: &B::Vector<f64>, nvals: usize) -> Result<()> {
        let s = MinPlus::<f64>::new();
        match &self.at {
            Some(at) if nvals * 16 >= t.len() => ops::mxv(b, out, s, at, t, &Desc::new()),
            None if nvals * 16 >= t.len() => ops::mxv(b, out, s, &self.a, t, &Desc::new()),
            _ => push_or_pull(
                b,
                out,
                s,
                t,
                &self.a,
                self.at.as_ref().unwrap_or(&self.a),
                &Desc::new(),
            ),
        }
    }
    fn nvals(&self, b: &B) -> Result<usize> {
        b.matrix_nvals(&self.a)
    }
}

/// `t<improved> = t_req` where `t_req < t`; returns the improved entries (values of `t_req`).
fn improve<B: Backend>(
    b: &B,
    t: &mut B::Vector<f64>,
    t_req: &B::Vector<f64>,
) -> Result<B::Vector<f64>>
where
    B::MaskSource: VectorShape,
{
    let n = t.len();
    let mut diff: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::ewise_mult(b, &mut diff, Minus, t_req, t, &Desc::new())?;
    let mut better: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::select(b, &mut better, IndexOp::ValueLt(0.0), &diff, &Desc::new())?;
    let mut out: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::apply(
        b,
        &mut out,
        Identity,
        t_req,
        &Desc::new().mask(B::mask(&better).structure()).replace(),
    )?;
    ops::apply(
        b,
        t,
        Identity,
        &out,
        &Desc::new().mask(B::mask(&out).structure()),
    )?;
    Ok(out)
}

fn delta_stepping<B>(g: &Graph<'_, B>, source: usize, delta: f64) -> Result<Vec<f64>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let w = g.weights().ok_or_else(|| Error::InvalidArgument {
        op: "sssp",
        detail: "delta-stepping needs edge weights".into(),
    })?;
    let (al, ah) = split(b, w, delta)?;
    let (alt, aht) = if g.weights_symmetric() {
        (None, None)
    } else {
        let (l, h) = split(b, &Matrix::from_csr(w.as_csr().transpose()), delta)?;
        (Some(l), Some(h))
    };
    let light = Relax::<B> { a: al, at: alt };
    let heavy = Relax::<B> { a: ah, at: aht };
    let has_heavy = heavy.nvals(b)? > 0;

    let mut t: B::Vector<f64> = b.vector_new(n, Some(f64::INFINITY), VectorFormat::Dense)?;
    ops::assign_scalar(b, &mut t, 0.0, Some(&[source]), &Desc::new())?;
    let mut lo = 0.0f64;
    let mut t_b: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut tmp: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut t_req: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    loop {
        // lo + delta moves past lo (delta_for keeps delta above lo's precision);
        // should it not, the bucket still holds lo itself.
        let hi = match lo + delta {
            hi if hi > lo => hi,
            _ if lo == 0.0 => f64::from_bits(1),
            _ => f64::from_bits(lo.to_bits() + 1),
        };
        // The bucket: unsettled vertices with lo <= t < hi (all smaller ones are settled).
        ops::select(b, &mut tmp, IndexOp::ValueGe(lo), &t, &Desc::new())?;
        ops::select(b, &mut t_b, IndexOp::ValueLt(hi), &tmp, &Desc::new())?;
        let mut settled: B::Vector<bool> = b.vector_new(n, None, VectorFormat::Bits)?;
        let mut nb = b.vector_nvals(&t_b)?;
        while nb > 0 {
            ops::assign_scalar(
                b,
                &mut settled,
                true,
                None,
                &Desc::new().mask(B::mask(&t_b).structure()),
            )?;
            light.run(b, &mut t_req, &t_b, nb)?;
            let better = improve(b, &mut t, &t_req)?;
            ops::select(b, &mut t_b, IndexOp::ValueLt(hi), &better, &Desc::new())?;
            nb = b.vector_nvals(&t_b)?;
        }
        if has_heavy {
            let mut t_s: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
            ops::apply(
                b,
                &mut t_s,
                Identity,
                &t,
                &Desc::new().mask(B::mask(&settled).structure()).replace(),
            )?;
            let ns = b.vector_nvals(&t_s)?;
            heavy.run(b, &mut t_req, &t_s, ns)?;
            improve(b, &mut t, &t_req)?;
        }
        // The next bucket starts at the smallest finite distance >= hi.
        ops::select(b, &mut tmp, IndexOp::ValueGe(hi), &t, &Desc::new())?;
        ops::select(
            b,
            &mut t_b,
            IndexOp::ValueLt(f64::INFINITY),
            &tmp,
            &Desc::new(),
        )?;
        if b.vector_nvals(&t_b)? == 0 {
            break;
        }
        lo = ops::reduce(b, Min, &t_b)?;
    }
    Ok(b.download_vector(&t)?.to_vec(f64::INFINITY))
}
