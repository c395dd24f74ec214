//! Brandes' dependencies for a batch of sources on the primitives: the
//! generic default of [`super::BackendExt::brandes`], every step a backend
//! operation on flattened `n × k` vectors and dense `n × k` products.

use crate::algebra::{BindFirst, Div, Identity, IndexOp, Plus, PlusTimes, Times};
use crate::backend::{Backend, EwiseKind};
use crate::container::{Accum, Flags, NoAccum, Vector, VectorFormat};
use crate::error::Result;
use crate::storage::DenseMatrix;

/// Flattened row-major `n × k` vector to a dense matrix (absent entries 0).
fn to_dense<B: Backend>(b: &B, v: &B::Vector<f64>, n: usize, k: usize) -> Result<B::Dense<f64>> {
    let h = b.download_vector(v)?.to_vec(0.0);
    b.upload_dense(&DenseMatrix::from_vec(n, k, h)?)
}

/// A dense matrix flattened row-major into a vector (every entry present).
fn to_flat<B: Backend>(b: &B, d: &B::Dense<f64>) -> Result<B::Vector<f64>> {
    b.upload_vector(&Vector::from_dense(b.download_dense(d)?.into_vec()))
}

/// [`super::BackendExt::brandes`] from the other entry points (checked
/// arguments, at least one source). Forward: `N = A' (+.×) F`
/// (`mxm_dense`), `F<¬σ, replace> = N` where `N > 0`, `σ += F`, one `F`
/// kept per level; backward from the deepest level: `T = (1 + δ) / σ` on
/// level `d`, `U = A (+.×) T`, `δ<F_{d-1}> += σ ⊙ U`. Memory `O(k · n ·
/// depth)` for the per-level frontiers.
///
/// ```
/// use bitgraphblas::ext::bc::brandes_generic;
/// use bitgraphblas::{Backend, Cpu, Matrix};
/// // The path 0 - 1 - 2 from source 0: vertex 1 is on the path to 2.
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)]).unwrap();
/// let cpu = Cpu::new();
/// let d = brandes_generic(&cpu, &a, &a, &[0]).unwrap();
/// assert_eq!(cpu.download_vector(&d).unwrap().to_vec(0.0), vec![0.0, 1.0, 0.0]);
/// ```
pub fn brandes_generic<B: Backend>(
    b: &B,
    a: &B::Matrix<f64>,
    at: &B::Matrix<f64>,
    sources: &[usize],
) -> Result<B::Vector<f64>> {
    use crate::backend::MatrixShape;
    let (n, k) = (a.nrows(), sources.len());
    let s = PlusTimes::<f64>::new();
    let flags = Flags::default();
    let replace = Flags {
        replace: true,
        ..flags
    };
    let nk = n * k;
    let mut init = vec![0.0; nk];
    for (j, &src) in sources.iter().enumerate() {
        init[src * k + j] = 1.0;
    }
    let mut sigma: B::Vector<f64> = b.upload_vector(&Vector::from_dense(init.clone()))?;
    let mut frontier: B::Dense<f64> = b.upload_dense(&DenseMatrix::from_vec(n, k, init)?)?;
    let mut levels: Vec<B::Vector<f64>> = vec![b.convert_vector(&sigma, VectorFormat::Sparse)?];
    let mut next: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    let mut masked: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Sparse)?;
    loop {
        b.mxm_dense(&mut next, NoAccum, s, at, &frontier, flags)?;
        let flat = to_flat(b, &next)?;
        let unreached = B::mask(&sigma).complement();
        b.apply_vector(
            &mut masked,
            Some(unreached),
            NoAccum,
            Identity,
            &flat,
            replace,
        )?;
        let mut level: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Sparse)?;
        let positive = IndexOp::ValueGt(0.0);
        b.select_vector(&mut level, None, NoAccum, positive, &masked, flags)?;
        if b.vector_nvals(&level)? == 0 {
            break;
        }
        b.apply_vector(&mut sigma, None, Accum(Plus), Identity, &level, flags)?;
        frontier = to_dense(b, &level, n, k)?;
        levels.push(level);
    }
    let mut delta: B::Vector<f64> = b.vector_new(nk, Some(0.0), VectorFormat::Dense)?;
    let mut t: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Sparse)?;
    let mut u: B::Dense<f64> = b.dense_new(n, k, 0.0)?;
    let mut su: B::Vector<f64> = b.vector_new(nk, None, VectorFormat::Dense)?;
    let mult = EwiseKind::Mult;
    // Level 0 holds the sources, whose own dependency is not counted.
    for d in (2..levels.len()).rev() {
        let on_d = B::mask(&levels[d]).structure();
        b.apply_vector(
            &mut t,
            Some(on_d),
            NoAccum,
            BindFirst(Plus, 1.0),
            &delta,
            replace,
        )?;
        let tt = std::mem::replace(&mut t, b.vector_new(nk, None, VectorFormat::Sparse)?);
        b.ewise_vector(&mut t, None, NoAccum, mult, Div, &tt, &sigma, flags)?;
        b.mxm_dense(&mut u, NoAccum, s, a, &to_dense(b, &t, n, k)?, flags)?;
        b.ewise_vector(
            &mut su,
            None,
            NoAccum,
            mult,
            Times,
            &sigma,
            &to_flat(b, &u)?,
            flags,
        )?;
        let on_prev = B::mask(&levels[d - 1]).structure();
        b.apply_vector(&mut delta, Some(on_prev), Accum(Plus), Identity, &su, flags)?;
    }
    Ok(delta)
}
