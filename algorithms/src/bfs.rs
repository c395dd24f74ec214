//! Breadth-first search: levels, and parents on request.

use bitgraphblas::algebra::Semiring;
use bitgraphblas::algebra::{First, MinSecond, Second};
use bitgraphblas::backend::{Backend, MatrixShape, PushLimits, Pushed, VectorShape};
use bitgraphblas::container::MaskArg;
use bitgraphblas::storage::BitVec;
use bitgraphblas::{ops, Desc, Error, Result, Scalar, Vector, VectorFormat};

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
/// **Semiring**: `LOR.LAND` on packed-bit frontiers for levels; `MIN.SECOND`
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
/// **Where the state lives**: on a backend whose vectors live in host memory
/// (the CPU) each level's new vertices are read back as packed bits (a copy of
/// `n / 64` words) and their levels and parents written on the host in
/// `O(new vertices)`, with the visited set kept as packed bits. On a device
/// backend the level vector itself is the visited set (its structure,
/// complemented, is the mask). Levels only: runs of push levels are one
/// [`ops::bfs_push`] each, on `A` in CSR ([`Graph::a_bool_csr`]: a pushed
/// vertex reads its own row; on the CUDA backend the levels of small
/// frontiers run in one thread block, those of large ones on the whole
/// device, with one host round trip per run and per hand-over back to the
/// block), and a run stops where Beamer's rule, on edges (the
/// frontier's out-edges `· α` against the unvisited vertices' out-edges), says
/// to pull; a pulled level is one [`ops::bfs_pull`] (`next<¬level> = A' ANY.PAIR
/// frontier` and `level<next> = depth`: each unvisited vertex stops at its
/// first in-neighbour in the frontier; [`bfs_on_backend`] leaves the levels
/// there, this function downloads them). With
/// parents, every level is a product, `level<next> = depth`,
/// `parent = parent ∪ next` and the next frontier `next ⊙ ids`, with the
/// frontier size read back every 1 to 16 levels.
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
    B: Backend,
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
    B: Backend,
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
    search(g, source, MinSecond::<u64>::new(), a, at, true, direction)
}

/// The levels of a breadth-first search left on the backend ([`bfs_on_backend`]).
pub struct BfsDevice<B: Backend> {
    /// Level of every reached vertex (0 at the source); no entry where the
    /// vertex is unreachable.
    pub levels: B::Vector<i64>,
    /// The largest level (0 when only the source is reached).
    pub depth: i64,
}

/// The levels of [`bfs_with`] (without parents), left on the backend: on a
/// device backend the search's own level vector, with no download (download
/// it with [`Backend::download_vector`]; [`bfs`] is this and one download).
/// On a backend whose vectors live in host memory the search runs as in
/// [`bfs_with`] and its levels become the vector.
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
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    check_source(g.nvertices(), source)?;
    if !B::HOST_MEMORY {
        return levels_fused(g, source, direction);
    }
    let levels = bfs_with(g, source, false, direction)?.levels;
    let reached: Vec<(usize, i64)> = levels
        .iter()
        .enumerate()
        .filter(|&(_, &l)| l >= 0)
        .map(|(v, &l)| (v, l))
        .collect();
    Ok(BfsDevice {
        depth: reached.iter().map(|&(_, l)| l).max().unwrap_or(0),
        levels: g
            .backend()
            .upload_vector(&Vector::from_entries(g.nvertices(), reached)?)?,
    })
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

/// `w = u ⊕.⊗ A` pushed (`vxm`); where the backend has no kernel for the push
/// form, the same product pulled through `A'` (`mxv(A', u)`).
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
    B: Backend,
    B::MaskSource: VectorShape,
    S: Semiring,
    M: MaskArg<B>,
{
    match ops::vxm(b, w, s, u, a, d) {
        Err(Error::NoKernel { .. }) => ops::mxv(b, w, s, at, u, d),
        r => r,
    }
}

/// The most out-edges of a frontier that [`ops::bfs_push`] pushes (beyond,
/// one warp per row would be too unbalanced: the level is pulled).
const PUSH_MAX_EDGES: u64 = 1 << 15;

/// Frontiers with at most this many out-edges are pushed whatever Beamer's
/// rule says (the tail of a high-diameter search: a pulled level costs a few
/// launches and a host round trip, a pushed one a few microseconds in the
/// fused run).
const PULL_MIN_EDGES: u64 = 1 << 12;

/// Levels (on every backend; on the CPU a push level is a vertex queue in
/// `O(frontier out-edges)`): runs of push levels fused into one
/// [`ops::bfs_push`] each (on `A` in CSR; a host round trip per run), and
/// pulled levels ([`ops::bfs_pull`] on `A'`: each unvisited vertex stops at
/// its first in-neighbour in the frontier; one launch and one round trip)
/// where Beamer's rule on edges says so (`frontier edges · α > unvisited
/// edges`, for frontiers with more than [`PULL_MIN_EDGES`] out-edges) or
/// the frontier is too heavy to push ([`PUSH_MAX_EDGES`]).
fn levels_fused<B>(g: &Graph<'_, B>, source: usize, direction: Direction) -> Result<BfsDevice<B>>
where
    B: Backend,
    B::MaskSource: VectorShape,
{
    let b = g.backend();
    let n = g.nvertices();
    // pushes read single rows (CSR), pulls whole tile rows (the graph's format)
    let (a, at) = (g.a_bool_csr()?, g.at_bool()?);
    // full and dense: the fused kernels read degrees in place
    let degree = g.out_degree_full()?;
    // The source alone, at level 0. On the CPU a one-entry vector (the
    // queue push makes it dense once, in place); a device backend's push
    // reads a dense level vector.
    let mut level: B::Vector<i64> = if B::HOST_MEMORY {
        b.upload_vector(&Vector::from_entries(n, vec![(source, 0)])?)?
    } else {
        let mut l = b.vector_new(n, None, VectorFormat::Dense)?;
        ops::assign_scalar(b, &mut l, 0, Some(&[source]), &Desc::new())?;
        l
    };
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
        },
        _ => PushLimits {
            max_levels,
            alpha: if p.unvisited_edges <= alpha * PULL_MIN_EDGES {
                0
            } else {
                alpha
            },
            max_edges: PUSH_MAX_EDGES,
        },
    };
    let measure = run(0, &Pushed::default());
    // `depth`: the level of the frontier
    let mut depth = 0i64;
    let mut st = if B::HOST_MEMORY {
        // What the measuring push would report for the source alone, from
        // the host pattern (no pass over the vertices): its out-edges, and
        // every other edge unvisited.
        let rp = g.pattern().as_csr().row_ptr()[source..source + 2].to_vec();
        let edges = (rp[1] - rp[0]) as u64;
        Pushed {
            levels: 0,
            nvals: 1,
            edges,
            unvisited_edges: g.nedges() as u64 - edges,
        }
    } else {
        ops::bfs_push(b, &mut level, &mut frontier, a, degree, depth, measure)?
    };
    while st.nvals > 0 {
        st = if pull_next(&st) {
            ops::bfs_pull(b, &mut level, &mut frontier, at, degree, depth)?
        } else {
            let limits = run(usize::MAX, &st);
            ops::bfs_push(b, &mut level, &mut frontier, a, degree, depth, limits)?
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

/// Where the search keeps levels, parents and the visited set.
enum Record<B: Backend, T: Scalar> {
    /// On the host (backends whose vectors live in host memory).
    Host {
        levels: Vec<i64>,
        parents: Option<Vec<i64>>,
        visited_h: BitVec,
        visited: B::Vector<bool>,
    },
    /// On the backend: the level vector (absent = unvisited, so its structure
    /// is the visited set), and with parents the parent vector and the vertex ids.
    Device {
        level: B::Vector<i64>,
        parent: Option<(B::Vector<T>, B::Vector<T>)>,
    },
}

/// The one search loop, on `LOR.LAND` bits (levels) or `MIN.SECOND` ids
/// (levels and parents).
fn search<B, S>(
    g: &Graph<'_, B>,
    source: usize,
    s: S,
    a: &B::Matrix<S::T>,
    at: &B::Matrix<S::T>,
    parents: bool,
    direction: Direction,
) -> Result<BfsResult>
where
    B: Backend,
    B::MaskSource: VectorShape,
    S: Semiring,
    S::T: Into<u64>,
{
    let b = g.backend();
    let n = g.nvertices();
    let id = |v: usize| S::T::from_usize(v);
    let (seed, fmt) = if parents {
        (
            Vector::from_entries(n, vec![(source, id(source))])?,
            VectorFormat::Dense,
        )
    } else {
        (
            Vector::from_bits(BitVec::from_indices(n, [source])),
            VectorFormat::Bits,
        )
    };
    let mut frontier: B::Vector<S::T> = b.upload_vector(&seed)?;
    let mut next: B::Vector<S::T> = b.vector_new(n, None, fmt)?;
    let mut rec: Record<B, S::T> = if B::HOST_MEMORY {
        let visited_h = BitVec::from_indices(n, [source]);
        let mut levels = vec![-1i64; n];
        levels[source] = 0;
        Record::Host {
            levels,
            parents: parents.then(|| {
                let mut p = vec![-1i64; n];
                p[source] = source as i64;
                p
            }),
            visited: b.upload_vector(&Vector::from_bits(visited_h.clone()))?,
            visited_h,
        }
    } else {
        let mut level: B::Vector<i64> = b.vector_new(n, None, VectorFormat::Dense)?;
        ops::assign_scalar(b, &mut level, 0, Some(&[source]), &Desc::new())?;
        let parent = if parents {
            let ids: Vec<S::T> = (0..n).map(id).collect();
            Some((
                b.upload_vector(&seed)?,
                b.upload_vector(&Vector::from_dense(ids))?,
            ))
        } else {
            None
        };
        Record::Device { level, parent }
    };
    let (mut nf, mut nvisited, mut depth) = (1usize, 1usize, 0i64);
    let (mut since_check, mut interval) = (0usize, 1usize);
    loop {
        depth += 1;
        let pulled = match direction {
            Direction::Auto => pull_step(nf, n.saturating_sub(nvisited), n),
            Direction::Push => false,
            Direction::Pull => true,
        };
        {
            let visited = match &rec {
                Record::Host { visited, .. } => B::mask(visited),
                Record::Device { level, .. } => B::mask(level),
            };
            let d = Desc::new().mask(visited.structure().complement()).replace();
            if pulled {
                ops::mxv(b, &mut next, s, at, &frontier, &d)?;
            } else {
                push_or_pull(b, &mut next, s, &frontier, a, at, &d)?;
            }
        }
        since_check += 1;
        let host = matches!(rec, Record::Host { .. });
        if host || pulled || since_check >= interval {
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
        match &mut rec {
            Record::Host {
                levels,
                parents,
                visited_h,
                visited,
            } => {
                let got = b.download_vector(&next)?;
                if let Some(p) = parents {
                    for (v, x) in got.entries() {
                        p[v] = Into::<u64>::into(x) as i64;
                    }
                }
                let reached = got.into_pattern();
                for v in reached.iter_ones() {
                    levels[v] = depth;
                }
                if parents.is_some() {
                    // The next frontier carries its own vertex ids.
                    let e = reached.iter_ones().map(|v| (v, id(v))).collect();
                    frontier = b.upload_vector(&Vector::from_entries(n, e)?)?;
                } else {
                    std::mem::swap(&mut frontier, &mut next);
                }
                visited_h.or_assign(&reached);
                *visited = b.upload_vector(&Vector::from_bits(visited_h.clone()))?;
            }
            Record::Device { level, parent } => {
                ops::assign_scalar(
                    b,
                    level,
                    depth,
                    None,
                    &Desc::new().mask(B::mask(&next).structure()),
                )?;
                match parent {
                    Some((parent, ids)) => {
                        // `next` is disjoint from the visited set: a union.
                        let old = std::mem::replace(parent, b.vector_new(n, None, fmt)?);
                        ops::ewise_add(b, parent, First, &old, &next, &Desc::new())?;
                        ops::ewise_mult(b, &mut frontier, Second, &next, ids, &Desc::new())?;
                    }
                    None => std::mem::swap(&mut frontier, &mut next),
                }
            }
        }
    }
    let to_i64 = |x: S::T| Into::<u64>::into(x) as i64;
    Ok(match rec {
        Record::Host {
            levels, parents, ..
        } => BfsResult { levels, parents },
        Record::Device { level, parent } => BfsResult {
            levels: b.download_vector(&level)?.into_vec(-1),
            parents: match parent {
                Some((p, _)) => Some(b.download_vector(&p)?.entries().into_iter().fold(
                    vec![-1i64; n],
                    |mut out, (v, x)| {
                        out[v] = to_i64(x);
                        out
                    },
                )),
                None => None,
            },
        },
    })
}
