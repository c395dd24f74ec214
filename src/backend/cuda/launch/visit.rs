//! Typed launches of the `visit` module (`cuda/visit.cu`): the fused
//! breadth-first push levels, the pulled levels, and delta-stepping's buckets.

use super::super::device::{Arg, DevPtr};
use super::super::kernels::ModuleId;
use super::KernelArg;
use super::Tiles;

/// The parameters every push-level kernel takes after the matrix
/// (`SEARCH_PARAMS` in `cuda/visit.cu`).
#[derive(Clone, Copy)]
pub(crate) struct Search {
    pub n: u64,
    pub f0: DevPtr<u32>,
    pub f1: DevPtr<u32>,
    pub vis: DevPtr<u32>,
    pub level: DevPtr<i64>,
    pub deg: DevPtr<f64>,
    pub deg_pres: DevPtr<u32>,
    pub depth: i64,
    pub max_levels: u32,
    pub alpha: u64,
    pub max_edges: u64,
    pub st: DevPtr<u64>,
    pub q0: DevPtr<u32>,
    pub q1: DevPtr<u32>,
    pub qcap: u32,
    pub block_edges: u64,
}

impl KernelArg for Search {
    fn push_to(self, args: &mut Vec<Arg>) {
        let s = self;
        s.n.push_to(args);
        s.f0.push_to(args);
        s.f1.push_to(args);
        s.vis.push_to(args);
        s.level.push_to(args);
        s.deg.push_to(args);
        s.deg_pres.push_to(args);
        s.depth.push_to(args);
        s.max_levels.push_to(args);
        s.alpha.push_to(args);
        s.max_edges.push_to(args);
        s.st.push_to(args);
        s.q0.push_to(args);
        s.q1.push_to(args);
        s.qcap.push_to(args);
        s.block_edges.push_to(args);
    }
}

/// The parameters every pull-level kernel takes after the matrix
/// (`PULL_PARAMS` in `cuda/visit.cu`).
#[derive(Clone, Copy)]
pub(crate) struct Pull {
    pub n: u64,
    pub f: DevPtr<u32>,
    pub nx: DevPtr<u32>,
    pub vis: DevPtr<u32>,
    pub level: DevPtr<i64>,
    pub deg: DevPtr<f64>,
    pub deg_pres: DevPtr<u32>,
    pub d: i64,
    pub st: DevPtr<u64>,
}

impl KernelArg for Pull {
    fn push_to(self, args: &mut Vec<Arg>) {
        let p = self;
        p.n.push_to(args);
        p.f.push_to(args);
        p.nx.push_to(args);
        p.vis.push_to(args);
        p.level.push_to(args);
        p.deg.push_to(args);
        p.deg_pres.push_to(args);
        p.d.push_to(args);
        p.st.push_to(args);
    }
}

super::kernels! {
    { () => ModuleId::Visit }
    /// The frontier's statistics and vertex queue.
    fn bfs_stats(f: DevPtr<u32>, vis: DevPtr<u32>, n: u64, deg: DevPtr<f64>, deg_pres: DevPtr<u32>,
        st: DevPtr<u64>, queue: DevPtr<u32>, qcap: u32);
    /// Pushed levels on CSR over the whole device (cooperative).
    fn bfs_push_csr(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, search: Search);
    /// Pushed levels of small frontiers on CSR in one block.
    fn bfs_block_csr(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, search: Search);
    /// A pulled level on CSR.
    fn bfs_pull_csr(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, pull: Pull);
    /// Pushed levels on B2SR over the whole device (cooperative).
    fn bfs_push_b2sr[k](pattern: Tiles, tile_rows: u32, search: Search);
    /// Pushed levels of small frontiers on B2SR in one block.
    fn bfs_block_b2sr[k](pattern: Tiles, tile_rows: u32, search: Search);
    /// A pulled level on B2SR.
    fn bfs_pull_b2sr[k](pattern: Tiles, tile_rows: u32, pull: Pull);
    /// Delta-stepping: the sources at distance 0.
    fn sssp_sources(dist: DevPtr<u64>, sources: DevPtr<u32>, nsrc: u32);
    /// Delta-stepping: bucket `b`'s vertices into the queue of launch `j`.
    fn sssp_bucket(dist: DevPtr<u64>, n: u64, delta_bits: u64, b: u32, j: u32, q: DevPtr<u32>, st: DevPtr<u64>);
    /// Delta-stepping: the light edges of launch `j - 1`'s queue, a warp a vertex.
    fn sssp_light(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, w: DevPtr<f64>, dist: DevPtr<u64>, delta_bits: u64,
        b: u32, j: u32, qin: DevPtr<u32>, qout: DevPtr<u32>, wide: DevPtr<u32>, stamp: DevPtr<u32>,
        st: DevPtr<u64>);
    /// Delta-stepping: the light edges of the wide vertices `sssp_light` set aside, the grid on each.
    fn sssp_light_wide(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, w: DevPtr<f64>, dist: DevPtr<u64>,
        delta_bits: u64, b: u32, j: u32, wide: DevPtr<u32>, qout: DevPtr<u32>, stamp: DevPtr<u32>,
        st: DevPtr<u64>);
    /// Delta-stepping: bucket `b`'s heavy edges, and the next bucket's start.
    fn sssp_heavy(rowptr: DevPtr<u32>, colidx: DevPtr<u32>, w: DevPtr<f64>, dist: DevPtr<u64>, n: u64,
        delta_bits: u64, b: u32, has_heavy: u32, st: DevPtr<u64>);
}
