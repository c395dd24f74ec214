//! Breadth-first search levels on the primitives: the limits and counts of
//! [`super::bfs_push`] and [`super::bfs_pull`], and their generic defaults
//! (each level a masked product and a masked assign, counted on the host).

use crate::algebra::{AnyPair, First, Second};
use crate::backend::{Backend, EwiseKind, VectorShape};
use crate::container::{Flags, NoAccum, Vector, VectorFormat};
use crate::error::Result;
use crate::scalar::Scalar;

/// When [`super::bfs_push`] stops pushing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushLimits {
    /// The most levels to run (0: only measure the frontier).
    pub max_levels: usize,
    /// Stop after a level whose new frontier has `edges · alpha` above the
    /// out-edges of the still unvisited vertices (Beamer's α: time to pull).
    pub alpha: u64,
    /// Stop after a level whose new frontier has more out-edges than this.
    pub max_edges: u64,
    /// The out-edges of the vertices without a level, when the caller
    /// already knows them (the `unvisited_edges` of the previous call's
    /// [`Pushed`]): a backend may use the count instead of summing the
    /// degrees again (the CPU does; a search that reaches few vertices then
    /// costs only those). `None`: counted by the backend. A wrong count
    /// changes where the levels stop and the counts returned, never the levels.
    pub unvisited_edges: Option<u64>,
}

/// Where [`super::bfs_push`] stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pushed {
    /// Levels run.
    pub levels: usize,
    /// Vertices in the frontier now.
    pub nvals: usize,
    /// Their out-edges (sum of their degrees).
    pub edges: u64,
    /// Out-edges of the vertices without a level.
    pub unvisited_edges: u64,
}

/// Sum of `degree` over the vertices where `set` is (`true`) or is not present.
fn degree_sum(set: &Vector<impl Scalar>, degree: &Vector<f64>, present: bool) -> u64 {
    let p = set.pattern();
    (0..set.len())
        .filter(|&i| p.get(i) == present)
        .map(|i| degree.get(i).unwrap_or(0.0) as u64)
        .sum()
}

/// The host's view of a search state before a level: the degrees, and the
/// counts of [`Pushed`] for `frontier` and `level` (no level run yet).
fn measure<B: Backend>(
    b: &B,
    level: &B::Vector<i64>,
    frontier: &B::Vector<bool>,
    degree: &B::Vector<f64>,
) -> Result<(Vector<f64>, Pushed)> {
    let deg = b.download_vector(degree)?;
    let f = b.download_vector(frontier)?;
    let out = Pushed {
        levels: 0,
        nvals: f.nvals(),
        edges: degree_sum(&f, &deg, true),
        unvisited_edges: degree_sum(&b.download_vector(level)?, &deg, false),
    };
    Ok((deg, out))
}

/// One level from the entry points: `next<¬struct(level), replace>` is
/// `frontier ANY.PAIR A` (`pull` false: `vxm`, pushed) or `A ANY.PAIR frontier`
/// (`pull`: `mxv` on `A = A'` of the graph), then `level<struct(next)> =
/// depth + out.levels`, `frontier = next`, and `out` counts the new frontier.
fn generic_level<B: Backend>(
    b: &B,
    (level, frontier): (&mut B::Vector<i64>, &mut B::Vector<bool>),
    a: &B::Matrix<bool>,
    pull: bool,
    (deg, depth): (&Vector<f64>, i64),
    out: &mut Pushed,
) -> Result<()> {
    let mut next = b.vector_new(frontier.len(), None, VectorFormat::Bits)?;
    let flags = Flags {
        replace: true,
        transpose_a: !pull,
        ..Flags::default()
    };
    let mask = B::mask(level).structure().complement();
    let s = AnyPair::<bool>::new();
    b.mxv(&mut next, Some(mask), NoAccum, s, a, frontier, flags)?;
    out.levels += 1;
    let reached = B::mask(&next).structure();
    let d = depth + out.levels as i64;
    b.assign_vector_scalar(level, Some(reached), NoAccum, d, None, Flags::default())?;
    let got = b.download_vector(&next)?;
    *frontier = next;
    out.nvals = got.nvals();
    out.edges = degree_sum(&got, deg, true);
    out.unvisited_edges = out.unvisited_edges.saturating_sub(out.edges);
    Ok(())
}

/// [`super::BackendExt::bfs_push`] from the other entry points (statistics on the host).
pub fn bfs_push_generic<B: Backend>(
    b: &B,
    level: &mut B::Vector<i64>,
    frontier: &mut B::Vector<bool>,
    a: &B::Matrix<bool>,
    degree: &B::Vector<f64>,
    depth: i64,
    limits: PushLimits,
) -> Result<Pushed> {
    let (deg, mut out) = measure(b, level, frontier, degree)?;
    while out.levels < limits.max_levels {
        generic_level(b, (level, frontier), a, false, (&deg, depth), &mut out)?;
        if out.nvals == 0
            || out.edges.saturating_mul(limits.alpha) > out.unvisited_edges
            || out.edges > limits.max_edges
        {
            break;
        }
    }
    Ok(out)
}

/// [`super::BackendExt::bfs_pull`] from the other entry points (statistics on the host).
pub fn bfs_pull_generic<B: Backend>(
    b: &B,
    level: &mut B::Vector<i64>,
    frontier: &mut B::Vector<bool>,
    at: &B::Matrix<bool>,
    degree: &B::Vector<f64>,
    depth: i64,
) -> Result<Pushed> {
    let (deg, mut out) = measure(b, level, frontier, degree)?;
    generic_level(b, (level, frontier), at, true, (&deg, depth), &mut out)?;
    Ok(out)
}

/// [`super::BackendExt::bfs_record`] from the other entry points: a masked
/// `assign` of `depth` into `level`, the union `parent ∪ next` (`ewise_add`
/// with `FIRST`) and `frontier = next ⊙ ids` (`ewise_mult` with `SECOND`).
#[allow(clippy::too_many_arguments)]
pub fn bfs_record_generic<B: Backend>(
    b: &B,
    level: &mut B::Vector<i64>,
    parent: &mut B::Vector<u64>,
    frontier: &mut B::Vector<u64>,
    next: &B::Vector<u64>,
    ids: &B::Vector<u64>,
    depth: i64,
) -> Result<()> {
    let flags = Flags::default();
    let reached = B::mask(next).structure();
    b.assign_vector_scalar(level, Some(reached), NoAccum, depth, None, flags)?;
    // `next` is disjoint from the visited set: a union.
    let fresh = b.vector_new(next.len(), None, VectorFormat::Dense)?;
    let old = std::mem::replace(parent, fresh);
    b.ewise_vector(
        parent,
        None,
        NoAccum,
        EwiseKind::Add,
        First,
        &old,
        next,
        flags,
    )?;
    b.ewise_vector(
        frontier,
        None,
        NoAccum,
        EwiseKind::Mult,
        Second,
        next,
        ids,
        flags,
    )
}
