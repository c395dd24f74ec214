//! [`Graph`]: a graph on a backend, with the derived matrices algorithms need
//! built once and cached (the idea of LAGraph's `LAGraph_Graph` properties).
//!
//! A graph is held as its host pattern (CSR, `A(i, j)` present for an edge
//! `i -> j`), optional edge weights, and whether the pattern is symmetric.
//! Backend matrices are made on first use and kept:
//!
//! - `A` and `A'` as boolean patterns in the chosen [`Format`] (B2SR: `A` for
//!   the push products of BFS, `A'` for the pull products);
//! - the same patterns with `u64` and `f64` iso values (BFS parents, PageRank,
//!   betweenness, unweighted shortest paths);
//! - (the weights stay on the host; SSSP splits and uploads them per run);
//! - the symmetrised pattern without self loops and its strict lower triangle
//!   (connected components, triangle counting).
//!
//! For a symmetric pattern `A' = A` and no transpose is stored.
//! [`Graph::prepare`] builds what one algorithm needs ahead of time, so a
//! benchmark can time the algorithm alone.

use std::cell::OnceCell;

use bitgraphblas::algebra::{IndexOp, Lor};
use bitgraphblas::backend::{auto_formats, Backend, Product};
use bitgraphblas::{ops, Cpu, Desc, Error, Format, Matrix, Result, Scalar, Vector};

use bitgraphblas::ext::DeltaEdges;

/// True when `Σ_{(i,j) ∈ L} deg_L(j) <= 64 · nnz(L)`.
fn tc_work_light(l: &Matrix<u64>) -> bool {
    let c = l.as_csr();
    let rp = c.row_ptr();
    let work: usize = c
        .col_idx()
        .iter()
        .map(|&j| rp[j as usize + 1] - rp[j as usize])
        .sum();
    work <= 64 * c.nnz()
}

/// Which algorithm [`Graph::prepare`] prepares for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Breadth-first search (levels, and parents when asked).
    Bfs,
    /// Single-source shortest paths.
    Sssp,
    /// PageRank.
    PageRank,
    /// Connected components.
    Cc,
    /// Triangle counting.
    Tc,
    /// Betweenness centrality.
    Bc,
}

/// A graph on backend `B` with lazily built, cached backend matrices.
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::Graph;
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (1, 2, true)]).unwrap();
/// let g = Graph::new(&Cpu, a, None, Format::B2sr(TileSize::T8)).unwrap();
/// assert_eq!(g.nvertices(), 3);
/// assert!(!g.is_symmetric());
/// ```
pub struct Graph<'b, B: Backend> {
    backend: &'b B,
    format: Format,
    value_format: Format,
    host: Matrix<bool>,
    host_t: Option<Matrix<bool>>,
    weights: Option<Matrix<f64>>,
    a_bool: OnceCell<B::Matrix<bool>>,
    a_bool_csr: OnceCell<B::Matrix<bool>>,
    at_bool: OnceCell<B::Matrix<bool>>,
    a_u64_csr: OnceCell<B::Matrix<u64>>,
    at_u64: OnceCell<B::Matrix<u64>>,
    a_f64: OnceCell<B::Matrix<f64>>,
    at_f64: OnceCell<B::Matrix<f64>>,
    sym_u64: OnceCell<B::Matrix<u64>>,
    tril_u64: OnceCell<B::Matrix<u64>>,
    out_degree: OnceCell<B::Vector<f64>>,
    out_degree_full: OnceCell<B::Vector<f64>>,
    pagerank_scale: OnceCell<(f64, B::Vector<f64>)>,
    dangling: OnceCell<Option<B::Vector<f64>>>,
    weight_range: OnceCell<(f64, f64)>,
    delta_edges: OnceCell<DeltaEdges<B>>,
}

fn cached<T>(cell: &OnceCell<T>, make: impl FnOnce() -> Result<T>) -> Result<&T> {
    if let Some(x) = cell.get() {
        return Ok(x);
    }
    let x = make()?;
    Ok(cell.get_or_init(|| x))
}

/// `make()`, and with `BITGRAPHBLAS_TRACE` set how long it took, on standard
/// error ([`Graph::prepare`]'s steps).
fn traced<T>(what: &str, make: impl FnOnce() -> Result<T>) -> Result<T> {
    if !bitgraphblas::tracing() {
        return make();
    }
    let t0 = std::time::Instant::now();
    let r = make();
    eprintln!("prepare {what}: {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    r
}

impl<'b, B: Backend> Graph<'b, B> {
    /// A graph from a square host matrix whose stored entries are the edges
    /// (`pattern(i, j)` present: an edge `i -> j`), optional weights with the same
    /// pattern, and the format for the backend's pull matrices ([`Format::Auto`]
    /// lets the sampling profile choose, and may keep CSR).
    pub fn new(
        backend: &'b B,
        pattern: Matrix<bool>,
        weights: Option<Matrix<f64>>,
        format: Format,
    ) -> Result<Self> {
        if pattern.nrows() != pattern.ncols() {
            return Err(Error::DimensionMismatch {
                op: "Graph::new",
                detail: format!(
                    "an adjacency matrix is square, this one is {}x{}",
                    pattern.nrows(),
                    pattern.ncols()
                ),
            });
        }
        if let Some(w) = &weights {
            if w.nvals() != pattern.nvals()
                || (w.nrows(), w.ncols()) != (pattern.nrows(), pattern.ncols())
            {
                return Err(Error::DimensionMismatch {
                    op: "Graph::new",
                    detail: "the weights and the pattern differ in shape or entry count".into(),
                });
            }
        }
        let host = match pattern.format() {
            Format::Csr => pattern,
            _ => pattern.to_format(Format::Csr)?,
        };
        // Auto is resolved here, on the host, from the sampling profile: the
        // backend says which format it wants for each kind of product
        // ([`Backend::auto_format`]: on the CPU valued products run on CSR,
        // on the CUDA backend a model of its kernels weighs CSR against 4x4
        // and 8x8 tiles). An explicit format or tile size is obeyed for every product.
        let (format, value_format) =
            auto_formats(backend, format, &host.as_csr(), Product::ByVector);
        let t = Matrix::from_csr(host.as_csr().transpose());
        let host_t = (t != host).then_some(t);
        Ok(Graph {
            backend,
            format,
            value_format,
            host,
            host_t,
            weights: weights.map(|w| w.to_format(Format::Csr)).transpose()?,
            a_bool: OnceCell::new(),
            a_bool_csr: OnceCell::new(),
            at_bool: OnceCell::new(),
            a_u64_csr: OnceCell::new(),
            at_u64: OnceCell::new(),
            a_f64: OnceCell::new(),
            at_f64: OnceCell::new(),
            sym_u64: OnceCell::new(),
            tril_u64: OnceCell::new(),
            out_degree: OnceCell::new(),
            out_degree_full: OnceCell::new(),
            pagerank_scale: OnceCell::new(),
            dangling: OnceCell::new(),
            weight_range: OnceCell::new(),
            delta_edges: OnceCell::new(),
        })
    }

    /// A graph from a valued host matrix: the stored entries are the edges and
    /// their values the weights.
    pub fn from_weighted(backend: &'b B, a: Matrix<f64>, format: Format) -> Result<Self> {
        let pattern = Matrix::from_csr(a.as_csr().map(|_| true));
        Graph::new(backend, pattern, Some(a), format)
    }

    /// The backend.
    pub fn backend(&self) -> &'b B {
        self.backend
    }
    /// Number of vertices.
    pub fn nvertices(&self) -> usize {
        self.host.nrows()
    }
    /// Number of edges (stored entries; an undirected edge counts twice).
    pub fn nedges(&self) -> usize {
        self.host.nvals()
    }
    /// True when `A' = A` (every edge has its reverse).
    pub fn is_symmetric(&self) -> bool {
        self.host_t.is_none()
    }
    /// The format of the pull matrices (`Auto` resolved: a tile size, or CSR).
    pub fn format(&self) -> Format {
        self.format
    }
    /// The host pattern (CSR).
    pub fn pattern(&self) -> &Matrix<bool> {
        &self.host
    }
    /// The host weights, if the graph has them.
    pub fn weights(&self) -> Option<&Matrix<f64>> {
        self.weights.as_ref()
    }

    fn host_dir(&self, transposed: bool) -> &Matrix<bool> {
        match (&self.host_t, transposed) {
            (Some(t), true) => t,
            _ => &self.host,
        }
    }

    /// The pattern (`transposed`: of `A'`) with iso value one of type `T`, on the backend, in `format`.
    fn upload<T: Scalar>(&self, transposed: bool, format: Format) -> Result<B::Matrix<T>> {
        let ones = self.host_dir(transposed).as_csr().map(|_| T::one());
        self.upload_as(&Matrix::from_csr(ones), format)
    }

    /// `A` (boolean) in the graph's format.
    pub fn a_bool(&self) -> Result<&B::Matrix<bool>> {
        cached(&self.a_bool, || self.upload(false, self.format))
    }
    /// `A` (boolean) in CSR: the rows of single vertices, for the fused push
    /// levels of BFS ([`bitgraphblas::ext::bfs_push`]), whose small frontiers
    /// read a vertex's out-edges and nothing else (a B2SR tile row holds 32 rows).
    pub fn a_bool_csr(&self) -> Result<&B::Matrix<bool>> {
        if self.format == Format::Csr {
            return self.a_bool();
        }
        cached(&self.a_bool_csr, || self.upload(false, Format::Csr))
    }
    /// `A'` (boolean) in the graph's format (`A` itself when symmetric).
    pub fn at_bool(&self) -> Result<&B::Matrix<bool>> {
        if self.is_symmetric() {
            return self.a_bool();
        }
        cached(&self.at_bool, || self.upload(true, self.format))
    }
    /// `A` with `u64` ones in CSR, for push products on vertex ids.
    pub fn a_u64_csr(&self) -> Result<&B::Matrix<u64>> {
        cached(&self.a_u64_csr, || self.upload(false, Format::Csr))
    }
    /// `A'` with `u64` ones in the graph's format, for pull products on vertex ids.
    pub fn at_u64(&self) -> Result<&B::Matrix<u64>> {
        if self.is_symmetric() && self.format == Format::Csr {
            return self.a_u64_csr();
        }
        cached(&self.at_u64, || self.upload(true, self.format))
    }
    /// The format of the valued products (`f64` PageRank and betweenness, `u64`
    /// ids in connected components): the graph's format, except, when the
    /// format was left to Auto, the one the backend asks for valued products
    /// ([`Backend::auto_format`] with [`Content::Values`](bitgraphblas::backend::Content::Values): CSR on the CPU,
    /// tiles of at most 8x8 on the CUDA backend).
    pub fn value_format(&self) -> Format {
        self.value_format
    }
    /// `A` with `f64` ones in [`Graph::value_format`].
    pub fn a_f64(&self) -> Result<&B::Matrix<f64>> {
        cached(&self.a_f64, || self.upload(false, self.value_format))
    }
    /// `A'` with `f64` ones in [`Graph::value_format`] (`A` itself when symmetric).
    pub fn at_f64(&self) -> Result<&B::Matrix<f64>> {
        if self.is_symmetric() {
            return self.a_f64();
        }
        cached(&self.at_f64, || self.upload(true, self.value_format))
    }
    /// True when the weights equal their transpose (or there are none and the pattern is symmetric).
    pub fn weights_symmetric(&self) -> bool {
        match &self.weights {
            None => self.is_symmetric(),
            Some(w) => self.is_symmetric() && w.as_csr().transpose() == *w.as_csr(),
        }
    }

    /// The mean and the largest weight (`None` without weights), found once:
    /// an `Err` for a weight that is not finite and non-negative.
    pub(crate) fn weight_range(&self) -> Result<Option<(f64, f64)>> {
        let Some(w) = &self.weights else {
            return Ok(None);
        };
        cached(&self.weight_range, || crate::sssp::weight_range(w)).map(|r| Some(*r))
    }

    /// The bucket width [`crate::sssp()`] uses: `delta`, or by default the
    /// mean weight, raised as [`crate::sssp::delta_for`] says.
    pub(crate) fn default_delta(&self, delta: Option<f64>) -> Result<f64> {
        let range = self.weight_range()?.unwrap_or((1.0, 1.0));
        crate::sssp::delta_from(range, self.nvertices(), delta)
    }

    /// Delta-stepping's light and heavy edges at the bucket width `delta`:
    /// built for the first width asked for and kept on the backend; `None`
    /// for any other width (then build them with [`Graph::make_delta_edges`]).
    pub(crate) fn delta_edges(&self, delta: f64) -> Result<Option<&DeltaEdges<B>>> {
        let e = cached(&self.delta_edges, || self.make_delta_edges(delta))?;
        Ok((e.delta().to_bits() == delta.to_bits()).then_some(e))
    }

    /// [`Graph::delta_edges`] for `delta`, built now (not kept); an `Err` without weights.
    pub(crate) fn make_delta_edges(&self, delta: f64) -> Result<DeltaEdges<B>> {
        let w = self
            .weights
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument {
                op: "sssp",
                detail: "delta-stepping needs edge weights".into(),
            })?;
        DeltaEdges::new(self.backend, w, delta)
    }

    /// The undirected simple graph on the host: `A + A'` without self loops,
    /// `u64` ones, CSR (built with the CPU backend's operations).
    fn host_sym(&self) -> Result<Matrix<u64>> {
        let cpu = Cpu::new();
        let n = self.nvertices();
        let a = Matrix::from_csr(self.host.as_csr().map(|_| 1u64));
        let s = match &self.host_t {
            None => a,
            Some(_) => {
                let mut s = Matrix::<u64>::empty(n, n);
                ops::ewise_add_matrix(&cpu, &mut s, Lor, &a, &a, &Desc::new().transpose_b())?;
                s
            }
        };
        let mut out = Matrix::<u64>::empty(n, n);
        ops::select_matrix(&cpu, &mut out, IndexOp::OffDiag(0), &s, &Desc::new())?;
        Ok(out)
    }

    /// Uploads a host matrix and packs it into `format` on the backend.
    fn upload_as<T: Scalar>(&self, m: &Matrix<T>, format: Format) -> Result<B::Matrix<T>> {
        let d = self.backend.upload_matrix(m)?;
        if format == Format::Csr {
            Ok(d)
        } else {
            self.backend.convert(&d, format)
        }
    }

    /// `A + A'` without self loops (`u64` ones) in [`Graph::value_format`]: the
    /// undirected simple graph (connected components, whose `MIN.SECOND`
    /// products carry vertex ids).
    pub fn sym_u64(&self) -> Result<&B::Matrix<u64>> {
        cached(&self.sym_u64, || {
            self.upload_as(&self.host_sym()?, self.value_format)
        })
    }
    /// The strictly lower triangle `L` of the undirected simple graph
    /// (triangle counting), in the graph's format; in CSR instead when the
    /// valued products run on CSR ([`Graph::value_format`]) and the masked
    /// product is light: `Σ_{(i,j) ∈ L} deg_L(j) <= 64 · nnz(L)` (the row-marker
    /// dot product on CSR does that much work; measured faster than B2SR on
    /// the mesh, road and ego-Twitter graphs, slower on the hub-heavy
    /// cnr-2000, where B2SR stays).
    pub fn tril_u64(&self) -> Result<&B::Matrix<u64>> {
        cached(&self.tril_u64, || {
            let n = self.nvertices();
            let mut l = Matrix::<u64>::empty(n, n);
            ops::select_matrix(
                &Cpu::new(),
                &mut l,
                IndexOp::Tril(-1),
                &self.host_sym()?,
                &Desc::new(),
            )?;
            let format = if self.value_format == Format::Csr && tc_work_light(&l) {
                Format::Csr
            } else {
                self.format
            };
            self.upload_as(&l, format)
        })
    }
    /// Out-degrees (`f64`), absent where a vertex has no out-edge; built once
    /// (from the host pattern) and kept on the backend.
    pub fn out_degree(&self) -> Result<&B::Vector<f64>> {
        cached(&self.out_degree, || {
            let e = self
                .host_out_degrees()
                .into_iter()
                .enumerate()
                .filter(|&(_, d)| d > 0)
                .map(|(i, d)| (i, d as f64))
                .collect();
            self.backend
                .upload_vector(&Vector::from_entries(self.nvertices(), e)?)
        })
    }

    /// Out-degrees with every vertex present (0 where a vertex has no
    /// out-edge), dense, cached: what the fused push levels of BFS read
    /// ([`bitgraphblas::ext::bfs_push`]), without a conversion per search.
    ///
    /// ```
    /// use bitgraphblas::{Backend, Cpu, Format, Matrix};
    /// use bitgraphblas_algorithms::Graph;
    /// let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (0, 2, true)]).unwrap();
    /// let g = Graph::new(&Cpu, a, None, Format::Csr).unwrap();
    /// let d = Cpu.download_vector(g.out_degree_full().unwrap()).unwrap();
    /// assert_eq!(d.to_vec(-1.0), vec![2.0, 0.0, 0.0]);
    /// ```
    pub fn out_degree_full(&self) -> Result<&B::Vector<f64>> {
        cached(&self.out_degree_full, || {
            let d = self
                .host_out_degrees()
                .into_iter()
                .map(|d| d as f64)
                .collect();
            self.backend.upload_vector(&Vector::from_dense(d))
        })
    }

    /// PageRank's column scale `α / d_out` for the damping `alpha` (zero
    /// where a vertex has no out-edge: its column of `A'` is empty), full:
    /// built from the host pattern for the first damping asked for and kept
    /// on the backend; `None` for any other damping (then build one with
    /// [`Graph::make_pagerank_scale`]).
    pub(crate) fn pagerank_scale(&self, alpha: f64) -> Result<Option<&B::Vector<f64>>> {
        let (cached_alpha, scale) = cached(&self.pagerank_scale, || {
            Ok((alpha, self.make_pagerank_scale(alpha)?))
        })?;
        Ok((cached_alpha.to_bits() == alpha.to_bits()).then_some(scale))
    }

    /// [`Graph::pagerank_scale`] for `alpha`, built now (not kept).
    pub(crate) fn make_pagerank_scale(&self, alpha: f64) -> Result<B::Vector<f64>> {
        let s = self
            .host_out_degrees()
            .into_iter()
            .map(|d| match d {
                0 => 0.0,
                d => alpha / d as f64,
            })
            .collect();
        self.backend.upload_vector(&Vector::from_dense(s))
    }

    /// The vertices without an out-edge (PageRank's dangling vertices) as a
    /// sparse vector of ones, `None` when every vertex has one; built once
    /// from the host pattern and kept on the backend.
    pub(crate) fn dangling(&self) -> Result<Option<&B::Vector<f64>>> {
        let d = cached(&self.dangling, || {
            let e: Vec<(usize, f64)> = self
                .host_out_degrees()
                .into_iter()
                .enumerate()
                .filter(|&(_, d)| d == 0)
                .map(|(i, _)| (i, 1.0))
                .collect();
            if e.is_empty() {
                return Ok(None);
            }
            // Sparse (indices and values): the dangling mass reads these alone.
            let ones = Vector::from_entries(self.nvertices(), e)?;
            Ok(Some(self.backend.upload_vector(&ones)?))
        })?;
        Ok(d.as_ref())
    }

    /// Every vertex's out-degree, from the host pattern's row pointers.
    fn host_out_degrees(&self) -> Vec<usize> {
        let c = self.host.as_csr();
        c.row_ptr().windows(2).map(|r| r[1] - r[0]).collect()
    }

    /// Builds what [`crate::sssp()`] with the bucket width `delta` uses
    /// ([`Graph::prepare`] for `Sssp` is this with the default width): on a
    /// weighted graph the light and heavy edges, kept for that width.
    pub fn prepare_sssp(&self, delta: Option<f64>) -> Result<()> {
        if self.weights.is_none() {
            return self.prepare(Algorithm::Bfs);
        }
        let delta = self.default_delta(delta)?;
        traced("light and heavy edges", || self.delta_edges(delta))?;
        Ok(())
    }

    /// Builds the matrices `alg` uses, so that running it times the algorithm alone.
    /// With `BITGRAPHBLAS_TRACE` set, says on standard error how long each took.
    pub fn prepare(&self, alg: Algorithm) -> Result<()> {
        match alg {
            Algorithm::Bfs => {
                traced("A", || self.a_bool())?;
                traced("A'", || self.at_bool())?;
                traced("A in CSR", || self.a_bool_csr())?;
                traced("out-degrees", || self.out_degree_full())?;
            }
            // unit weights: the levels of a breadth-first search
            Algorithm::Sssp if self.weights.is_none() => self.prepare(Algorithm::Bfs)?,
            Algorithm::Sssp => self.prepare_sssp(None)?,
            Algorithm::PageRank => {
                traced("A' (f64)", || self.at_f64())?;
                let damping = crate::PageRankOptions::default().damping;
                traced("the column scale", || self.pagerank_scale(damping))?;
                traced("the dangling vertices", || self.dangling())?;
            }
            Algorithm::Cc => {
                traced("A + A' (u64)", || self.sym_u64())?;
            }
            Algorithm::Tc => {
                traced("tril(A + A') (u64)", || self.tril_u64())?;
            }
            Algorithm::Bc => {
                traced("A (f64)", || self.a_f64())?;
                traced("A' (f64)", || self.at_f64())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_edges_are_kept_for_the_first_width_only() {
        let w = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0), (1, 2, 3.0)]).unwrap();
        let g = Graph::from_weighted(&Cpu, w, Format::Csr).unwrap();
        assert_eq!(g.weight_range().unwrap(), Some((2.0, 3.0)));
        assert_eq!(g.default_delta(None).unwrap(), 2.0);
        g.prepare(Algorithm::Sssp).unwrap();
        let kept = g
            .delta_edges(2.0)
            .unwrap()
            .expect("the prepared width is kept");
        assert_eq!((kept.delta(), kept.heavy_edges()), (2.0, 1));
        assert!(g.delta_edges(0.5).unwrap().is_none());
        let unweighted = Graph::new(&Cpu, g.pattern().clone(), None, Format::Csr).unwrap();
        assert_eq!(unweighted.weight_range().unwrap(), None);
        assert!(unweighted.delta_edges(1.0).is_err());
    }
}
