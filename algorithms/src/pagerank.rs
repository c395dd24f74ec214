//! PageRank by power iteration, with NetworkX's definition.

use bitgraphblas::algebra::{AbsDiff, Plus, PlusTimes, Times};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::ext::{self, BackendExt};
use bitgraphblas::{ops, Desc, Error, Result, VectorFormat};

use crate::graph::Graph;

/// Options of [`pagerank`] (NetworkX's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankOptions {
    /// Damping factor `α` (0.85).
    pub damping: f64,
    /// Stop when `Σ_i |x_i - x_i'| < n · tol` (1e-6).
    pub tol: f64,
    /// Iteration limit (100).
    pub max_iters: usize,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            tol: 1e-6,
            max_iters: 100,
        }
    }
}

/// What [`pagerank`] computed.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRank {
    /// The rank of every vertex (they sum to 1).
    pub ranks: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// False when the iteration limit was reached before the tolerance.
    pub converged: bool,
}

/// What [`pagerank_on_backend`] computed: the ranks left on the backend (on
/// the GPU, in device memory), for a caller that goes on computing with them
/// or reads only some of them.
pub struct PageRankDevice<B: Backend> {
    /// The rank of every vertex (a full vector: every vertex has an entry).
    pub ranks: B::Vector<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// False when the iteration limit was reached before the tolerance.
    pub converged: bool,
}

/// PageRank of every vertex: the same definition as NetworkX's `pagerank`
/// (uniform personalisation, the mass of dangling vertices spread uniformly,
/// `x_0 = 1/n`, stop at `‖x - x'‖₁ < n · tol`); [`pagerank_on_backend`]
/// followed by one download of the ranks.
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::{pagerank, Graph, PageRankOptions};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, true), (1, 0, true)]).unwrap();
/// let g = Graph::new(&Cpu, a, None, Format::B2sr(TileSize::T4)).unwrap();
/// let pr = pagerank(&g, &PageRankOptions::default()).unwrap();
/// assert!((pr.ranks[0] - 0.5).abs() < 1e-12);
/// ```
pub fn pagerank<B>(g: &Graph<'_, B>, opts: &PageRankOptions) -> Result<PageRank>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let d = pagerank_on_backend(g, opts)?;
    Ok(PageRank {
        // Every vertex has a rank: the values are taken as they are (no copy).
        ranks: g.backend().download_vector_owned(d.ranks)?.into_vec(0.0),
        iterations: d.iterations,
        converged: d.converged,
    })
}

/// [`pagerank`] with the ranks left on the backend: only scalars cross to
/// the host (the dangling mass, when some vertex has no out-edge, and the L1
/// change, when `tol > 0`), once per iteration.
///
/// Each iteration is one affine product ([`ext::mxv_affine`]):
/// `x' = c + A' (+.×) (s ⊙ x)` with `s = α / d_out` (zero at vertices
/// without out-edges, whose columns of `A'` are empty) and the constant
/// `c = (1 - α)/n + α · Σ_{dangling} x / n`.
///
/// **Semiring**: `PLUS.TIMES` (`f64`) with `A'` in [`Graph::value_format`]
/// (B2SR with iso value 1: the column-stochastic scaling lives in `w`, so the
/// bit matrix holds no weights; CSR on the CPU when the format is Auto, and
/// CSR with all-one values, which the CUDA backend's product does not read,
/// on the GPU where Auto keeps CSR).
/// **Masks**: none. The dangling vertices are a sparse vector of ones, and
/// `s` a full vector, both built once from the host pattern and kept by the
/// graph (`s` for the first damping asked for); the dangling mass is the
/// reduced product of that vector and `x` (`O(#dangling)`, skipped when every
/// vertex has an out-edge). **Cost**: one affine product (`O(m)`; on the
/// CUDA backend one pass that reads `x`, `s` and `A'` and writes `x'`, for
/// CSR and B2SR with tiles of at most 8x8; elsewhere an element-wise
/// product, a fill of `x'` with `c` and an accumulated `mxv`; two iterate
/// buffers alternate);
/// `‖x - x'‖₁` is one element-wise [`AbsDiff`] and a reduction (`O(n)`), made
/// only where it can stop the iteration (`tol > 0`: with `tol = 0` the test
/// `‖x - x'‖₁ < 0` never holds, and exactly `max_iters` iterations run).
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas::Backend;
/// use bitgraphblas_algorithms::{pagerank_on_backend, Graph, PageRankOptions};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, true), (1, 0, true)]).unwrap();
/// let cpu = Cpu;
/// let g = Graph::new(&cpu, a, None, Format::B2sr(TileSize::T4)).unwrap();
/// let pr = pagerank_on_backend(&g, &PageRankOptions::default()).unwrap();
/// let ranks = cpu.download_vector(&pr.ranks).unwrap();
/// assert!((ranks.get(1).unwrap() - 0.5).abs() < 1e-12);
/// ```
pub fn pagerank_on_backend<B>(g: &Graph<'_, B>, opts: &PageRankOptions) -> Result<PageRankDevice<B>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let alpha = opts.damping;
    if !((0.0..=1.0).contains(&alpha) && opts.tol.is_finite() && opts.tol >= 0.0) {
        return Err(Error::InvalidArgument {
            op: "pagerank",
            detail: format!(
                "damping must be in [0, 1] and tol non-negative; got {alpha} and {}",
                opts.tol
            ),
        });
    }
    let b = g.backend();
    let n = g.nvertices();
    if n == 0 {
        return Ok(PageRankDevice {
            ranks: b.vector_new(0, Some(0.0), VectorFormat::Dense)?,
            iterations: 0,
            converged: true,
        });
    }
    let nf = n as f64;
    let at = g.at_f64()?;
    // `α / d_out`, and zero at dangling vertices (their columns of `A'` are
    // empty, so the zero never enters a product): a full vector, so that
    // the affine product reads `scale ⊙ x` without presence tests. Built
    // from the host pattern and kept by the graph (for the first damping
    // asked for), as the dangling vertices are.
    let other;
    let scale = match g.pagerank_scale(alpha)? {
        Some(s) => s,
        None => {
            other = g.make_pagerank_scale(alpha)?;
            &other
        }
    };
    // Dangling vertices (no out-edge) as a sparse vector of ones: their
    // mass is `Σ x ⊙ dangling`, `O(#dangling)` per iteration.
    let dangling = g.dangling()?;
    let mut x: B::Vector<f64> = b.vector_new(n, Some(1.0 / nf), VectorFormat::Dense)?;
    let mut xn: B::Vector<f64> = b.vector_new(n, Some(0.0), VectorFormat::Dense)?;
    let mut dx: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let mut diff: B::Vector<f64> = b.vector_new(n, None, VectorFormat::Dense)?;
    let (mut iterations, mut converged) = (0, false);
    // With `tol = 0` the stopping test can never hold: the change is not measured.
    let measure = opts.tol > 0.0;
    while iterations < opts.max_iters {
        iterations += 1;
        let dsum = match dangling {
            Some(d) => {
                ops::ewise_mult(b, &mut dx, Times, d, &x, &Desc::new())?;
                ops::reduce(b, Plus, &dx)?
            }
            None => 0.0,
        };
        let c = (1.0 - alpha) / nf + alpha * dsum / nf;
        // `x' = c + A' (scale ⊙ x)`, into the buffer of the iterate before last.
        ext::mxv_affine(b, &mut xn, PlusTimes::<f64>::new(), c, at, scale, &x)?;
        std::mem::swap(&mut x, &mut xn);
        if measure {
            // The L1 change, on the backend (only a scalar comes back).
            ops::ewise_add(b, &mut diff, AbsDiff, &x, &xn, &Desc::new())?;
            if ops::reduce(b, Plus, &diff)? < nf * opts.tol {
                converged = true;
                break;
            }
        }
    }
    Ok(PageRankDevice {
        ranks: x,
        iterations,
        converged,
    })
}
