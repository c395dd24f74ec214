//! Triangle counting: the masked product of the lower triangle with its
//! transpose, fused with the reduction.

use bitgraphblas::algebra::PlusPair;
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::{ops, Desc, Result};

use crate::graph::Graph;

/// The number of triangles of the undirected simple graph (symmetrised, self
/// loops dropped: [`Graph::tril_u64`]).
///
/// `count = Σ (L ·(+.pair) L')<L>`, with `L` the strictly lower triangle: every
/// triangle `k < j < i` is counted once, at `(i, j)`, through `k`.
///
/// **Semiring**: `PLUS.PAIR` (`u64`). **Mask**: the structure of `L` itself,
/// not complemented. The product is never stored (`mxm_reduce`: on B2SR each
/// masked tile pair becomes AND and popcount of bit rows). **Cost**:
/// `O(Σ_{(i,j) ∈ L} (deg_L(i) + deg_L(j)))` word operations at most, `O(m^{3/2})`.
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix, TileSize};
/// use bitgraphblas_algorithms::{triangle_count, Graph};
/// // A 4-clique has 4 triangles; the edges are given one way only.
/// let e = vec![(0, 1, true), (0, 2, true), (0, 3, true), (1, 2, true), (1, 3, true), (2, 3, true)];
/// let g = Graph::new(&Cpu, Matrix::from_triplets(4, 4, e).unwrap(), None, Format::B2sr(TileSize::T8)).unwrap();
/// assert_eq!(triangle_count(&g).unwrap(), 4);
/// ```
pub fn triangle_count<B>(g: &Graph<'_, B>) -> Result<u64>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let l = g.tril_u64()?;
    let d = Desc::new()
        .mask(B::matrix_mask(l).structure())
        .transpose_b();
    ops::mxm_reduce(b, PlusPair::<u64>::new(), l, l, &d)
}
