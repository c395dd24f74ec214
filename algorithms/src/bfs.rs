//! Breadth-first search: levels, and parents on request.

use bitgraphblas::algebra::Semiring;
use bitgraphblas::algebra::{Identity, LorLand, MinSecond, Second};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::container::MaskArg;
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
/// vertices are never recomputed; the level vector is written through the
/// structural mask of `next`.
///
/// **Direction**: while the frontier is small the step *pushes*
/// (`vxm(frontier, A)`: the tile rows of `A` holding frontier vertices OR their
/// bits into the result, `O(Σ out-degree(frontier))` bit work plus a scan of
/// the tile rows); once the frontier exceeds 1/14 of the unvisited vertices
/// (Beamer's α) it *pulls* (`mxv(A', frontier)`: each unvisited row ORs its
/// tiles' bits with the packed frontier). The level path reads each level's
/// new vertices back as packed bits, writes their level and ORs them into the
/// visited set on the host (`n / 64` words a level), then hands the visited set
/// back as the next mask; the parents path keeps everything on the backend
/// (`MIN.SECOND` on `u64`: push on the CSR copy of `A`, pull on `A'`).
///
/// **Cost**: `O(n + m)` work over the whole search plus `O(n / 64)` words per
/// level for the bit masks.
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
    let n = g.nvertices();
    if source >= n {
        return Err(Error::IndexOutOfBounds {
            op: "bfs",
            index: source,
            len: n,
        });
    }
    if parents {
        bfs_parents(g, source)
    } else {
        bfs_levels(g, source).map(|levels| BfsResult {
            levels,
            parents: None,
        })
    }
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

/// The level vector, `level<next> = depth`.
fn set_level<B: Backend>(
    b: &B,
    level: &mut B::Vector<i64>,
    next: &B::Vector<impl bitgraphblas::Scalar>,
    depth: i64,
) -> Result<()>
where
    B::MaskSource: VectorShape,
{
    ops::assign_scalar(
        b,
        level,
        depth,
        None,
        &Desc::new().mask(B::mask(next).structure()),
    )
}

pub(crate) fn bfs_levels<B>(g: &Graph<'_, B>, source: usize) -> Result<Vec<i64>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let (a, at) = (g.a_bool()?, g.at_bool()?);
    let mut levels = vec![-1i64; n];
    levels[source] = 0;
    // The visited set lives on the host too: each level's new vertices come back
    // as packed bits anyway (to write their level), and OR-ing them into the host
    // copy costs n/64 words, where a masked assign on the backend costs O(n).
    let mut visited_h = BitVec::from_indices(n, [source]);
    let mut visited: B::Vector<bool> = b.upload_vector(&Vector::from_bits(visited_h.clone()))?;
    let mut frontier = b.convert_vector(&visited, VectorFormat::Bits)?;
    let mut next: B::Vector<bool> = b.vector_new(n, None, VectorFormat::Bits)?;
    let (mut nf, mut nvisited, mut depth) = (1usize, 1usize, 0i64);
    loop {
        depth += 1;
        let d = Desc::new()
            .mask(B::mask(&visited).structure().complement())
            .replace();
        if pull_step(nf, n - nvisited, n) {
            ops::mxv(b, &mut next, LorLand, at, &frontier, &d)?;
        } else {
            push_or_pull(b, &mut next, LorLand, &frontier, a, at, &d)?;
        }
        nf = b.vector_nvals(&next)?;
        if nf == 0 {
            break;
        }
        let reached = b.download_vector(&next)?.pattern();
        for v in reached.iter_ones() {
            levels[v] = depth;
        }
        visited_h.or_assign(&reached);
        visited = b.upload_vector(&Vector::from_bits(visited_h.clone()))?;
        nvisited += nf;
        std::mem::swap(&mut frontier, &mut next);
    }
    Ok(levels)
}

fn bfs_parents<B>(g: &Graph<'_, B>, source: usize) -> Result<BfsResult>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let (at, a_csr) = (g.at_u64()?, g.a_u64_csr()?);
    let s = MinSecond::<u64>::new();
    let ids: B::Vector<u64> = b.upload_vector(&Vector::from_dense((0..n as u64).collect()))?;
    let mut level: B::Vector<i64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    ops::assign_scalar(b, &mut level, 0, Some(&[source]), &Desc::new())?;
    let start = Vector::from_entries(n, vec![(source, source as u64)])?;
    let mut parent: B::Vector<u64> = b.upload_vector(&start)?;
    let mut frontier: B::Vector<u64> = b.upload_vector(&start)?;
    let mut next: B::Vector<u64> = b.vector_new(n, None, VectorFormat::Sparse)?;
    let (mut nf, mut nvisited, mut depth) = (1usize, 1usize, 0i64);
    loop {
        depth += 1;
        let d = Desc::new()
            .mask(B::mask(&parent).structure().complement())
            .replace();
        if pull_step(nf, n - nvisited, n) {
            ops::mxv(b, &mut next, s, at, &frontier, &d)?;
        } else {
            push_or_pull(b, &mut next, s, &frontier, a_csr, at, &d)?;
        }
        nf = b.vector_nvals(&next)?;
        if nf == 0 {
            break;
        }
        set_level(b, &mut level, &next, depth)?;
        ops::apply(
            b,
            &mut parent,
            Identity,
            &next,
            &Desc::new().mask(B::mask(&next).structure()),
        )?;
        // The next frontier carries its own vertex ids.
        ops::ewise_mult(b, &mut frontier, Second, &next, &ids, &Desc::new())?;
        nvisited += nf;
    }
    let parents = b
        .download_vector(&parent)?
        .to_vec(u64::MAX)
        .into_iter()
        .map(|p| if p == u64::MAX { -1 } else { p as i64 })
        .collect();
    Ok(BfsResult {
        levels: b.download_vector(&level)?.to_vec(-1),
        parents: Some(parents),
    })
}
