//! The CPU's fused operations ([`BackendExt`]): pushed BFS levels as a vertex
//! queue over CSR rows, pulled levels stopping at the first frontier
//! in-neighbour, the levels of a search with parents recorded in one pass,
//! the affine product as one pass over CSR rows, Brandes' dependencies with
//! the element-wise work in place on the host, and delta-stepping over a
//! sorted map of buckets.

use super::dense_view::dense_view;
use super::Cpu;
use crate::algebra::Semiring;
use crate::container::{Matrix, MatrixRepr, Vector, VectorFormat, VectorRepr};
use crate::error::Result;
use crate::ext::{affine, bfs, sssp, BackendExt, DeltaEdges, PushLimits, Pushed};

impl BackendExt for Cpu {
    /// Sparse: the vertex-queue push grows it in place and makes it dense
    /// once the search reaches a sixty-fourth of the vertices.
    fn bfs_level_format(&self) -> VectorFormat {
        VectorFormat::Sparse
    }

    fn bfs_push(
        &self,
        level: &mut Vector<i64>,
        frontier: &mut Vector<bool>,
        a: &Matrix<bool>,
        degree: &Vector<f64>,
        depth: i64,
        limits: PushLimits,
    ) -> Result<Pushed> {
        match a.repr() {
            // A vertex queue over the rows of the frontier's vertices.
            MatrixRepr::Csr(c) => {
                super::bfs_levels::bfs_push(level, frontier, c, degree, depth, limits)
            }
            // B2SR: the levels as masked products.
            MatrixRepr::B2sr { .. } => {
                bfs::bfs_push_generic(self, level, frontier, a, degree, depth, limits)
            }
        }
    }

    fn bfs_pull(
        &self,
        level: &mut Vector<i64>,
        frontier: &mut Vector<bool>,
        at: &Matrix<bool>,
        degree: &Vector<f64>,
        depth: i64,
    ) -> Result<Pushed> {
        super::bfs_levels::bfs_pull(self, level, frontier, at, degree, depth)
    }

    /// CSR with full `d` and `u`: one fused pass over the rows
    /// (`affine`); otherwise the generic default.
    fn mxv_affine<S: Semiring>(
        &self,
        w: &mut Vector<S::T>,
        semiring: S,
        c: S::T,
        a: &Matrix<S::T>,
        d: &Vector<S::T>,
        u: &Vector<S::T>,
    ) -> Result<()> {
        let full = |v: &Vector<S::T>| matches!(v.repr(), VectorRepr::Dense { present: None, .. });
        let (MatrixRepr::Csr(m), true) = (a.repr(), full(d) && full(u)) else {
            return affine::mxv_affine_generic(self, w, semiring, c, a, d, u);
        };
        // Borrowed views: both vectors are dense with every entry present.
        let (dv, uv) = (dense_view(d), dense_view(u));
        // Every entry of `w` is written: its buffer is reused when dense.
        let old = std::mem::replace(w, Vector::empty(m.nrows()));
        let mut values = match old.into_repr() {
            VectorRepr::Dense { values, .. } if values.len() == m.nrows() => values,
            _ => vec![c; m.nrows()],
        };
        super::affine::mxv_affine_csr(semiring, c, m, &dv.values, &uv.values, &mut values);
        *w = Vector::from_dense(values);
        Ok(())
    }

    /// One pass over `next`'s entries (`bfs_record`).
    fn bfs_record(
        &self,
        level: &mut Vector<i64>,
        parent: &mut Vector<u64>,
        frontier: &mut Vector<u64>,
        next: &Vector<u64>,
        _ids: &Vector<u64>,
        depth: i64,
    ) -> Result<()> {
        super::bfs_record::bfs_record(level, parent, frontier, next, depth)
    }

    /// The products on the backend, `σ`, `δ` and the pairs of each level in
    /// host arrays (`brandes`).
    fn brandes(&self, a: &Matrix<f64>, at: &Matrix<f64>, sources: &[usize]) -> Result<Vector<f64>> {
        super::brandes::brandes(self, a, at, sources)
    }

    /// CSR light and heavy edges (what [`DeltaEdges::new`] makes): the
    /// host search of `sssp.rs`, buckets in a sorted map, large passes over
    /// rayon's threads; otherwise the generic default.
    fn delta_stepping(&self, edges: &DeltaEdges<Self>, sources: &[usize]) -> Result<Vector<f64>> {
        match (edges.light().repr(), edges.heavy().repr()) {
            (MatrixRepr::Csr(light), MatrixRepr::Csr(heavy)) => Ok(Vector::from_dense(
                super::sssp::delta_stepping(light, heavy, edges.delta(), sources),
            )),
            _ => sssp::delta_stepping_generic(self, edges, sources),
        }
    }
}
