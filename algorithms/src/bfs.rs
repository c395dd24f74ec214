//! Breadth-first search: levels, and parents on request.

use bitgraphblas::algebra::Semiring;
use bitgraphblas::algebra::{FlippedSemiring, MinSecond};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::container::MaskArg;
use bitgraphblas::ext::{self, BackendExt, PushLimits, Pushed};
use bitgraphblas::storage::BitVec;
use bitgraphblas::{ops, Desc, Error, Result, Vector, VectorFormat};

use crate::graph::Graph;

/// What [`bfs`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct BfsResult {
    /// Level of every vertex: 0 at the source, -1 where unreachable.
    pub levels: Vec<i64>,
    /// Parent of every vertex in the BFS tree (the smallest-numbered vertex of
    /// the previous level with an edge to it); the source is its own parent;
    /// -1 where unreachable. `None` unless asked for.
    pub parents: Option<Vec<i64>>,
}

/// Which way the steps of [`bfs_with`] go.
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::{bfs_with, Direction, Graph};
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (1, 2, true)]).unwrap();
/// let g = Graph::new(&Cpu, a, None, Format::B2sr(TileSize::T4)).unwrap();
/// for d in [Direction::Auto, Direction::Push, Direction::Pull] {
///     assert_eq!(bfs_with(&g, 0, false, d).unwrap().levels, vec![0, 1, 2]);
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Push while the frontier is small, pull once it is large (Beamer's rule).
    #[default]
    Auto,
    /// Always push (`vxm(frontier, A)`).
    Push,
    /// Always pull (`mxv(A', frontier)` masked by the unvisited vertices).
    Pull,
}

/// Beamer's threshold: pull once the frontier is more than `1/ALPHA` of the unvisited vertices.
const ALPHA: usize = 14;

/// True when the next step should pull (masked product over the unvisited
/// vertices) rather than push (scatter from the frontier).
pub(crate) fn pull_step(frontier: usize, unvisited: usize, n: usize) -> bool {
    frontier * ALPHA > unvisited || frontier * 16 >= n
}

/// Breadth-first search from `source`, direction-optimising.
///
/// **Semiring**: `ANY.PAIR` on packed-bit frontiers for levels; `MIN.SECOND`
/// on `u64` vertex ids when `parents` is asked (the parent is then the
/// smallest-numbered vertex of the previous level with an edge to the vertex).
///
/// **Masks**: every step is `next<¬visited, replace> = frontier ⊕.⊗ A`
/// with the visited set as a complemented structural mask, so discovered
/// vertices are never recomputed.
///
/// **Direction**: while the frontier is small the step *pushes*
/// (`vxm(frontier, A)`: the tile rows of `A` holding frontier vertices OR their
/// bits into the result); once the frontier exceeds 1/14 of the unvisited
/// vertices (Beamer's α) it *pulls* (`mxv(A', frontier)`: each unvisited row
/// ORs its tiles' bits with the packed frontier).
///
/// **Levels only** (every backend, one body): the level vector itself is
/// the visited set (its structure, complemented, is the mask). Runs of push
/// levels are one [`ext::bfs_push`] each, on `A` in CSR
/// ([`Graph::a_bool_csr`]: a pushed vertex reads its own row; on the CPU a
/// vertex queue, `O(frontier out-edges)` a level; on the CUDA backend the
/// levels of small frontiers run in one thread block, those of large ones on
/// the whole device, with one host round trip per run and per hand-over back
/// to the block), and a run stops where Beamer's rule, on edges (the
/// frontier's out-edges `· α` against the unvisited vertices' out-edges),
/// says to pull; a pulled level is one [`ext::bfs_pull`] (`next<¬level> = A'
/// ANY.PAIR frontier` and `level<next> = depth`: each unvisited vertex stops
/// at its first in-neighbour in the frontier; [`bfs_on_backend`] leaves the
/// levels there, this function downloads them).
///
/// **With parents**, every level is a product on `u64` ids,
/// `next<¬struct(level), replace> = frontier min.second A` (pushed through
/// `vxm` where the backend pushes, [`Backend::pushes`], else pulled
/// through `A'`), then `level<next> = depth`, `parent = parent ∪ next` and
/// the next frontier `next ⊙ ids` (one [`ext::bfs_record`]), with the frontier size read back every 1
/// to 16 levels.
///
/// **Cost**: `O(n + m)` work over the whole search plus `O(n / 64)` words per
/// level for the bit masks; a push reads the rows of the frontier's vertices
/// and the frontier (as a vertex queue while it is small, on the CUDA
/// backend: `O(frontier out-edges)` per level; else its `O(n / 32)` words;
/// `cuda/visit.cu` and `cuda/push.cu`).
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::{bfs, Graph};
/// // 0 -> 1 -> 2, and 3 alone.
/// let a = Matrix::from_triplets(4, 4, vec![(0, 1, true), (1, 2, true)]).unwrap();
/// let g = Graph::new(&Cpu, a, None, Format::B2sr(TileSize::T4)).unwrap();
/// let r = bfs(&g, 0, true).unwrap();
/// assert_eq!(r.levels, vec![0, 1, 2, -1]);
/// assert_eq!(r.parents.unwrap(), vec![0, 0, 1, -1]);
/// ```
pub fn bfs<B>(g: &Graph<'_, B>, source: usize, parents: bool) -> Result<BfsResult>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    bfs_with(g, source, parents, Direction::Auto)
}

/// [`bfs`] with the direction of its steps fixed (or [`Direction::Auto`]:
/// direction-optimising, as [`bfs`]); the results do not depend on it.
pub fn bfs_with<B>(
    g: &Graph<'_, B>,
    source: usize,
    parents: bool,
    direction: Direction,
) -> Result<BfsResult>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    check_source(g.nvertices(), source)?;
    if !parents {
        let d = levels_fused(g, source, direction)?;
        return Ok(BfsResult {
            levels: g.backend().download_vector_owned(d.levels)?.into_vec(-1),
            parents: None,
        });
    }
    let (a, at) = (g.a_u64_csr()?, g.at_u64()?);
    search(g, source, a, at, direction)
}

/// The levels of a breadth-first search left on the backend ([`bfs_on_backend`]).
pub struct BfsDevice<B: Backend> {
    /// Level of every reached vertex (0 at the source); no entry where the
    /// vertex is unreachable.
    pub levels: B::Vector<i64>,
    /// The largest level (0 when only the source is reached).
    pub depth: i64,
}

/// The levels of [`bfs_with`] (without parents), left on the backend: the
/// search's own level vector, with no download (download it with
/// [`Backend::download_vector`]; [`bfs`] is this and one download).
///
/// ```
/// use bitgraphblas::{Backend, Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::{bfs_on_backend, Direction, Graph};
/// // 0 -> 1 -> 2, and 3 alone.
/// let a = Matrix::from_triplets(4, 4, vec![(0, 1, true), (1, 2, true)]).unwrap();
/// let g = Graph::new(&Cpu, a, None, Format::B2sr(TileSize::T4)).unwrap();
/// let d = bfs_on_backend(&g, 0, Direction::Auto).unwrap();
/// assert_eq!(d.depth, 2);
/// assert_eq!(Cpu.download_vector(&d.levels).unwrap().to_vec(-1), vec![0, 1, 2, -1]);
/// ```
pub fn bfs_on_backend<B>(
    g: &Graph<'_, B>,
    source: usize,
    direction: Direction,
) -> Result<BfsDevice<B>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    check_source(g.nvertices(), source)?;
    levels_fused(g, source, direction)
}

/// `Err` unless `source` is a vertex of a graph with `n` vertices.
fn check_source(n: usize, source: usize) -> Result<()> {
    if source >= n {
        return Err(Error::IndexOutOfBounds {
            op: "bfs",
            index: source,
            len: n,
        });
    }
    Ok(())
}

/// `w = A' ⊕.⊗ u` (`mxv` semantics: `⊗(a_ji, u_j)`), pushed from `u` along
/// the rows of `A` (`vxm` over the flipped semiring) where the backend pushes
/// on `A` for this semiring ([`Backend::pushes`]), else pulled through `at`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_or_pull<B, S, M>(
    b: &B,
    w: &mut B::Vector<S::T>,
    s: S,
    u: &B::Vector<S::T>,
    a: &B::Matrix<S::T>,
    at: &B::Matrix<S::T>,
    d: &Desc<M>,
) -> Result<()>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    S: Semiring,
    M: MaskArg<B>,
{
    if b.pushes(&s, a) {
        ops::vxm(b, w, FlippedSemiring(s), u, a, d)
    } else {
        ops::mxv(b, w, s, at, u, d)
    }
}

/// The most out-edges of a frontier that [`ext::bfs_push`] pushes (beyond,
/// one warp per row would be too unbalanced: the level is pulled).
const PUSH_MAX_EDGES: u64 = 1 << 15;

/// Frontiers with at most this many out-edges are pushed whatever Beamer's
/// rule says (the tail of a high-diameter search: a pulled level costs a few
/// launches and a host round trip, a pushed one a few microseconds in the
/// fused run).
const PULL_MIN_EDGES: u64 = 1 << 12;

/// Levels (on every backend; on the CPU a push level is a vertex queue in
/// `O(frontier out-edges)`): runs of push levels fused into one
/// [`ext::bfs_push`] each (on `A` in CSR; a host round trip per run), and
/// pulled levels ([`ext::bfs_pull`] on `A'`: each unvisited vertex stops at
/// its first in-neighbour in the frontier; one launch and one round trip)
/// where Beamer's rule on edges says so (`frontier edges · α > unvisited
/// edges`, for frontiers with more than [`PULL_MIN_EDGES`] out-edges) or
/// the frontier is too heavy to push ([`PUSH_MAX_EDGES`]).
pub(crate) fn levels_fused<B>(
    g: &Graph<'_, B>,
    source: usize,
    direction: Direction,
) -> Result<BfsDevice<B>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
{
    let b = g.backend();
    let n = g.nvertices();
    // pushes read single rows (CSR), pulls whole tile rows (the graph's format)
    let (a, at) = (g.a_bool_csr()?, g.at_bool()?);
    // full and dense: the fused kernels read degrees in place
    let degree = g.out_degree_full()?;
    // The source alone, at level 0, in the format the backend's fused levels
    // grow in place (absent entries are the unvisited vertices).
    let mut level: B::Vector<i64> = b.vector_new(n, None, b.bfs_level_format())?;
    ops::assign_scalar(b, &mut level, 0, Some(&[source]), &Desc::new())?;
    let mut frontier: B::Vector<bool> =
        b.upload_vector(&Vector::from_bits(BitVec::from_indices(n, [source])))?;
    let alpha = ALPHA as u64;
    let pull_next = |p: &Pushed| match direction {
        Direction::Auto => {
            (p.edges > PULL_MIN_EDGES && p.edges.saturating_mul(alpha) > p.unvisited_edges)
                || p.edges > PUSH_MAX_EDGES
        }
        Direction::Push => false,
        Direction::Pull => true,
    };
    // Where a push run stops: with few unvisited edges left no frontier can
    // make Beamer's rule pull (see `pull_next`), so the run goes on to the end.
    let run = |max_levels, p: &Pushed| match direction {
        Direction::Push => PushLimits {
            max_levels,
            alpha: 0,
            max_edges: u64::MAX,
            unvisited_edges: Some(p.unvisited_edges),
        },
        _ => PushLimits {
            max_levels,
            alpha: if p.unvisited_edges <= alpha * PULL_MIN_EDGES {
                0
            } else {
                alpha
            },
            max_edges: PUSH_MAX_EDGES,
            unvisited_edges: Some(p.unvisited_edges),
        },
    };
    // `depth`: the level of the frontier
    let mut depth = 0i64;
    // What a measuring push (`max_levels` 0) would report for the source
    // alone, from the host pattern (no pass over the vertices, no round
    // trip): its out-edges, and every other edge unvisited.
    let csr = g.pattern().as_csr();
    let edges = (csr.row_ptr()[source + 1] - csr.row_ptr()[source]) as u64;
    let mut st = Pushed {
        levels: 0,
        nvals: 1,
        edges,
        unvisited_edges: g.nedges() as u64 - edges,
    };
    while st.nvals > 0 {
        st = if pull_next(&st) {
            ext::bfs_pull(b, &mut level, &mut frontier, at, degree, depth)?
        } else {
            let limits = run(usize::MAX, &st);
            ext::bfs_push(b, &mut level, &mut frontier, a, degree, depth, limits)?
        };
        depth += st.levels as i64;
    }
    // the last level run found no vertex
    Ok(BfsDevice {
        levels: level,
        depth: (depth - 1).max(0),
    })
}

/// The most levels between two reads of the frontier size while pushing.
const MAX_CHECK_INTERVAL: usize = 16;

/// The one search loop with parents, on `MIN.SECOND` ids: the level vector
/// (absent = unvisited, so its structure is the visited set), the parent
/// vector and the vertex ids live on the backend; per level
/// `next<¬struct(level), replace> = frontier min.second A` (pushed, or
/// pulled through `A'`), `level<struct(next)> = depth`, `parent = parent ∪
/// next` and the next frontier `next ⊙ ids`, with the frontier size read
/// back every 1 to [`MAX_CHECK_INTERVAL`] levels.
fn search<B>(
    g: &Graph<'_, B>,
    source: usize,
    a: &B::Matrix<u64>,
    at: &B::Matrix<u64>,
    direction: Direction,
) -> Result<BfsResult>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let s = MinSecond::<u64>::new();
    let seed = Vector::from_entries(n, vec![(source, source as u64)])?;
    let mut frontier: B::Vector<u64> = b.upload_vector(&seed)?;
    let mut next: B::Vector<u64> = b.vector_new(n, None, VectorFormat::Dense)?;
    let mut level: B::Vector<i64> = b.vector_new(n, None, VectorFormat::Dense)?;
    ops::assign_scalar(b, &mut level, 0, Some(&[source]), &Desc::new())?;
    let mut parent: B::Vector<u64> = b.upload_vector(&seed)?;
    let ids: B::Vector<u64> = b.upload_vector(&Vector::from_dense((0..n as u64).collect()))?;
    let (mut nf, mut nvisited, mut depth) = (1usize, 1usize, 0i64);
    let (mut since_check, mut interval) = (0usize, 1usize);
    loop {
        depth += 1;
        let pulled = match direction {
            Direction::Auto => pull_step(nf, n.saturating_sub(nvisited), n),
            Direction::Push => false,
            Direction::Pull => true,
        };
        let d = Desc::new()
            .mask(B::mask(&level).structure().complement())
            .replace();
        if pulled {
            ops::mxv(b, &mut next, s, at, &frontier, &d)?;
        } else {
            push_or_pull(b, &mut next, s, &frontier, a, at, &d)?;
        }
        since_check += 1;
        if pulled || since_check >= interval {
            let count = b.vector_nvals(&next)?;
            if count == 0 {
                break;
            }
            interval = if pulled || count >= 2 * nf {
                1
            } else {
                (interval * 2).min(MAX_CHECK_INTERVAL)
            };
            (nf, since_check) = (count, 0);
        }
        nvisited += nf;
        ext::bfs_record(
            b,
            &mut level,
            &mut parent,
            &mut frontier,
            &next,
            &ids,
            depth,
        )?;
    }
    let parents = b.download_vector(&parent)?.entries().into_iter().fold(
        vec![-1i64; n],
        |mut out, (v, x)| {
            out[v] = x as i64;
            out
        },
    );
    Ok(BfsResult {
        levels: b.download_vector(&level)?.into_vec(-1),
        parents: Some(parents),
    })
}
