//! Connected components by FastSV (Zhang, Azad and Hu, 2020), as in LAGraph.

use bitgraphblas::algebra::{Max, Min, MinSecond, Minus};
use bitgraphblas::backend::{Backend, MatrixShape, VectorShape};
use bitgraphblas::container::VectorRepr;
use bitgraphblas::storage::Csr;
use bitgraphblas::{ops, Desc, Matrix, Result, Vector, VectorFormat};

use crate::graph::Graph;

/// The weakly connected component of every vertex, named by its smallest vertex.
///
/// Directed graphs are symmetrised first (`A + A'`, self loops dropped:
/// [`Graph::sym_u64`]), so the components are the weak ones.
///
/// FastSV keeps a parent vector `f` (initially `f_i = i`) and its grandparents
/// `gp = f[f]`; each round:
/// 1. `mngp = min(mngp, A min.second gp)`: the smallest grandparent among the
///    neighbours (semiring `MIN.SECOND` on `u64`, accumulator `MIN`);
/// 2. stochastic hooking `f[f_u] = min(f[f_u], mngp_u)`: a scatter-min, done as
///    `f = min(f, P' min.second mngp)` with `P` the parent matrix (`P(u, f_u) = 1`,
///    built on the host from `f` each round: one entry a row, no sort; the
///    product is taken transposed, which the backends push from `mngp`);
/// 3. aggressive hooking `f = min(f, mngp)` and shortcutting `f = min(f, gp)`
///    (one accumulated `ewise_add`);
/// 4. `gp = f[f]` (`extract`); stop when `gp` no longer changes (the largest
///    wrapping difference `gp_new - gp` is zero: one product and one reduction).
///
/// No mask is needed. **Cost**: `O(m + n)` per round (one `mxv` over `A`, one over
/// the `n`-entry `P`); the number of rounds is `O(log n)` in practice. Each round
/// reads `f` back to the host once, after hooking: the index list of the extract,
/// and of `P` in the next round (`f` does not change in between).
///
/// ```
/// use bitgraphblas::{Cpu, Format, Matrix};
/// use bitgraphblas_algorithms::{connected_components, Graph};
/// // 2 -> 0 and 3 -> 4: components {0, 2}, {1}, {3, 4}.
/// let a = Matrix::from_triplets(5, 5, vec![(2, 0, true), (3, 4, true)]).unwrap();
/// let g = Graph::new(&Cpu, a, None, Format::Csr).unwrap();
/// assert_eq!(connected_components(&g).unwrap(), vec![0, 1, 0, 3, 3]);
/// ```
pub fn connected_components<B>(g: &Graph<'_, B>) -> Result<Vec<u64>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let b = g.backend();
    let n = g.nvertices();
    let a = g.sym_u64()?;
    let s = MinSecond::<u64>::new();
    let ids = Vector::from_dense((0..n as u64).collect());
    let mut f: B::Vector<u64> = b.upload_vector(&ids)?;
    let mut gp: B::Vector<u64> = b.upload_vector(&ids)?;
    let mut mngp: B::Vector<u64> = b.upload_vector(&ids)?;
    let mut gp_new: B::Vector<u64> = b.vector_new(n, None, VectorFormat::Dense)?;
    let mut diff: B::Vector<u64> = b.vector_new(n, None, VectorFormat::Dense)?;
    // `f` on the host: only hooking changes `f`, so the copy read for the
    // grandparents at the end of a round still holds at the start of the next.
    let mut fh: Vec<usize> = (0..n).collect();
    loop {
        ops::mxv(b, &mut mngp, s, a, &gp, &Desc::new().accum(Min))?;
        // Stochastic hooking through the parent matrix: f = min(f, P' mngp).
        let p = b.upload_matrix_owned(parent_matrix(n, &fh)?)?;
        ops::mxv(
            b,
            &mut f,
            s,
            &p,
            &mngp,
            &Desc::new().transpose_a().accum(Min),
        )?;
        // Aggressive hooking and shortcutting in one pass: f = min(f, mngp, gp).
        ops::ewise_add(b, &mut f, Min, &mngp, &gp, &Desc::new().accum(Min))?;
        // Grandparents.
        fh = parents_on_host(b, &f)?;
        ops::extract(b, &mut gp_new, &f, &fh, &Desc::new())?;
        // Unchanged exactly when every (wrapping) difference is zero.
        ops::ewise_mult(b, &mut diff, Minus, &gp_new, &gp, &Desc::new())?;
        std::mem::swap(&mut gp, &mut gp_new);
        if ops::reduce(b, Max, &diff)? == 0 {
            break;
        }
    }
    Ok(b.download_vector(&f)?.to_vec(0))
}

fn parents_on_host<B: Backend>(b: &B, f: &B::Vector<u64>) -> Result<Vec<usize>> {
    let f = b.download_vector(f)?;
    Ok(match f.repr() {
        VectorRepr::Dense {
            values,
            present: None,
        } => values.iter().map(|&p| p as usize).collect(),
        _ => f.to_vec(0).into_iter().map(|p| p as usize).collect(),
    })
}

/// The parent matrix `P` with `P(u, f_u) = 1`: one entry a row, so its row
/// offsets are `0..=n` and its column indices are `f` itself (`O(n)`, no sort).
fn parent_matrix(n: usize, f: &[usize]) -> Result<Matrix<u64>> {
    Ok(Matrix::from_csr(Csr::try_new(
        n,
        n,
        (0..=n).collect(),
        f.iter().map(|&p| p as u32).collect(),
        vec![1u64; n],
    )?))
}
