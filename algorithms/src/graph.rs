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
//!   betweenness);
//! - the weights (CSR, `f64`) for SSSP;
//! - the symmetrised pattern without self loops and its strict lower triangle
//!   (connected components, triangle counting).
//!
//! For a symmetric pattern `A' = A` and no transpose is stored.
//! [`Graph::prepare`] builds what one algorithm needs ahead of time, so a
//! benchmark can time the algorithm alone.

use std::cell::OnceCell;

use bitgraphblas::algebra::{IndexOp, Lor};
use bitgraphblas::backend::{Backend, MatrixShape};
use bitgraphblas::{ops, Desc, Error, Format, Matrix, Result, Scalar};

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
    host: Matrix<bool>,
    host_t: Option<Matrix<bool>>,
    weights: Option<Matrix<f64>>,
    a_bool: OnceCell<B::Matrix<bool>>,
    at_bool: OnceCell<B::Matrix<bool>>,
    a_u64_csr: OnceCell<B::Matrix<u64>>,
    at_u64: OnceCell<B::Matrix<u64>>,
    a_f64: OnceCell<B::Matrix<f64>>,
    at_f64: OnceCell<B::Matrix<f64>>,
    w_csr: OnceCell<B::Matrix<f64>>,
    wt_csr: OnceCell<B::Matrix<f64>>,
    sym_u64: OnceCell<B::Matrix<u64>>,
    tril_u64: OnceCell<B::Matrix<u64>>,
}

fn cached<'a, T>(cell: &'a OnceCell<T>, make: impl FnOnce() -> Result<T>) -> Result<&'a T> {
    if let Some(x) = cell.get() {
        return Ok(x);
    }
    let x = make()?;
    Ok(cell.get_or_init(|| x))
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
            if w.nvals() != pattern.nvals() || (w.nrows(), w.ncols()) != (pattern.nrows(), pattern.ncols()) {
                return Err(Error::DimensionMismatch {
                    op: "Graph::new",
                    detail: "the weights and the pattern differ in shape or entry count".into(),
                });
            }
        }
        let host = pattern.to_format(Format::Csr)?;
        let t = Matrix::from_csr(host.as_csr().transpose());
        let host_t = (t != host).then_some(t);
        Ok(Graph {
            backend,
            format,
            host,
            host_t,
            weights: weights.map(|w| w.to_format(Format::Csr)).transpose()?,
            a_bool: OnceCell::new(),
            at_bool: OnceCell::new(),
            a_u64_csr: OnceCell::new(),
            at_u64: OnceCell::new(),
            a_f64: OnceCell::new(),
            at_f64: OnceCell::new(),
            w_csr: OnceCell::new(),
            wt_csr: OnceCell::new(),
            sym_u64: OnceCell::new(),
            tril_u64: OnceCell::new(),
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
    /// The format asked for the pull matrices.
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
        let m = self.backend.upload_matrix(&Matrix::from_csr(ones))?;
        if format == Format::Csr {
            Ok(m)
        } else {
            self.backend.convert(&m, format)
        }
    }

    /// `A` (boolean) in the graph's format.
    pub fn a_bool(&self) -> Result<&B::Matrix<bool>> {
        cached(&self.a_bool, || self.upload(false, self.format))
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
    /// `A` with `f64` ones in the graph's format.
    pub fn a_f64(&self) -> Result<&B::Matrix<f64>> {
        cached(&self.a_f64, || self.upload(false, self.format))
    }
    /// `A'` with `f64` ones in the graph's format (`A` itself when symmetric).
    pub fn at_f64(&self) -> Result<&B::Matrix<f64>> {
        if self.is_symmetric() {
            return self.a_f64();
        }
        cached(&self.at_f64, || self.upload(true, self.format))
    }
    /// The weights (CSR); ones where the graph has none.
    pub fn w_csr(&self) -> Result<&B::Matrix<f64>> {
        cached(&self.w_csr, || match &self.weights {
            Some(w) => self.backend.upload_matrix(w),
            None => self.upload(false, Format::Csr),
        })
    }
    /// The transposed weights (CSR).
    pub fn wt_csr(&self) -> Result<&B::Matrix<f64>> {
        cached(&self.wt_csr, || match &self.weights {
            Some(w) => self.backend.upload_matrix(&Matrix::from_csr(w.as_csr().transpose())),
            None => self.upload(true, Format::Csr),
        })
    }
    /// True when the weights equal their transpose (or there are none and the pattern is symmetric).
    pub fn weights_symmetric(&self) -> bool {
        match &self.weights {
            None => self.is_symmetric(),
            Some(w) => self.is_symmetric() && w.as_csr().transpose() == *w.as_csr(),
        }
    }
}

impl<B: Backend> Graph<'_, B>
where
    B::MatrixMaskSource: MatrixShape,
{
    /// `A + A'` without self loops (`u64` ones, CSR): the undirected simple graph.
    pub fn sym_u64(&self) -> Result<&B::Matrix<u64>> {
        cached(&self.sym_u64, || {
            let b = self.backend;
            let n = self.nvertices();
            let a = self.upload::<u64>(false, Format::Csr)?;
            let s = if self.is_symmetric() {
                a
            } else {
                let mut s = b.upload_matrix(&Matrix::<u64>::empty(n, n))?;
                ops::ewise_add_matrix(b, &mut s, Lor, &a, &a, &Desc::new().transpose_b())?;
                s
            };
            let mut out = b.upload_matrix(&Matrix::<u64>::empty(n, n))?;
            ops::select_matrix(b, &mut out, IndexOp::OffDiag(0), &s, &Desc::new())?;
            Ok(out)
        })
    }
    /// The strictly lower triangle `L` of [`Graph::sym_u64`], in the graph's format.
    pub fn tril_u64(&self) -> Result<&B::Matrix<u64>> {
        cached(&self.tril_u64, || {
            let b = self.backend;
            let n = self.nvertices();
            let mut l = b.upload_matrix(&Matrix::<u64>::empty(n, n))?;
            ops::select_matrix(b, &mut l, IndexOp::Tril(-1), self.sym_u64()?, &Desc::new())?;
            if self.format == Format::Csr {
                Ok(l)
            } else {
                b.convert(&l, self.format)
            }
        })
    }

    /// Builds the matrices `alg` uses, so that running it times the algorithm alone.
    pub fn prepare(&self, alg: Algorithm) -> Result<()> {
        match alg {
            Algorithm::Bfs => {
                self.a_bool()?;
                self.at_bool()?;
            }
            Algorithm::Sssp => {
                if self.weights.is_some() {
                    self.w_csr()?;
                    if !self.weights_symmetric() {
                        self.wt_csr()?;
                    }
                } else {
                    self.a_bool()?;
                    self.at_bool()?;
                }
            }
            Algorithm::PageRank => {
                self.at_f64()?;
            }
            Algorithm::Cc => {
                self.sym_u64()?;
            }
            Algorithm::Tc => {
                self.tril_u64()?;
            }
            Algorithm::Bc => {
                self.a_f64()?;
                self.at_f64()?;
            }
        }
        Ok(())
    }
}
