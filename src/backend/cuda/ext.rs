//! The CUDA backend's fused operations ([`BackendExt`]): pushed and pulled
//! BFS levels in few launches, and the affine product in one pass.

use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::algebra::Semiring;
use crate::error::Result;
use crate::ext::{BackendExt, PushLimits, Pushed};

impl BackendExt for CudaBackend {
    fn mxv_affine<S: Semiring>(
        &self,
        w: &mut CudaVector<S::T>,
        semiring: S,
        c: S::T,
        a: &CudaMatrix<S::T>,
        d: &CudaVector<S::T>,
        u: &CudaVector<S::T>,
    ) -> Result<()> {
        self.mxv_affine_fused(w, semiring, c, a, d, u)
    }

    fn bfs_push(
        &self,
        level: &mut CudaVector<i64>,
        frontier: &mut CudaVector<bool>,
        a: &CudaMatrix<bool>,
        degree: &CudaVector<f64>,
        depth: i64,
        limits: PushLimits,
    ) -> Result<Pushed> {
        self.bfs_push_fused(level, frontier, a, degree, depth, limits)
    }

    fn bfs_pull(
        &self,
        level: &mut CudaVector<i64>,
        frontier: &mut CudaVector<bool>,
        at: &CudaMatrix<bool>,
        degree: &CudaVector<f64>,
        depth: i64,
    ) -> Result<Pushed> {
        self.bfs_pull_fused(level, frontier, at, degree, depth)
    }
}
