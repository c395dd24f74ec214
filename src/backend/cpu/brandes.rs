//! Brandes' dependencies for a batch of sources on the CPU
//! ([`crate::ext::brandes`]): the products are the backend's `mxm_dense`,
//! everything else works in place in their host operand and result.

use super::Cpu;
use crate::algebra::PlusTimes;
use crate::backend::Backend;
use crate::container::{Flags, Matrix, NoAccum, Vector};
use crate::error::Result;
use crate::storage::DenseMatrix;

/// [`crate::ext::BackendExt::brandes`] on the CPU (checked arguments): the
/// dependencies `δ` of one batch, flattened `n × k`, with the element-wise
/// work on the host, in place in the products' operand and result.
///
/// Every (vertex, source) pair is reached at one level; the pairs of each
/// level are listed as they are found, so that besides the products (whose
/// rows of `B` that are all zero cost one bit test per edge) a level costs
/// one scan of the forward product for the newly reached pairs and otherwise
/// work in the size of the level: clearing and setting the operand, and the
/// backward updates, touch only the pairs of one level. `σ` and `δ` are host
/// arrays, `O(k · n)` in all.
pub(crate) fn brandes(
    cpu: &Cpu,
    a: &Matrix<f64>,
    at: &Matrix<f64>,
    sources: &[usize],
) -> Result<Vector<f64>> {
    let (n, k) = (a.nrows(), sources.len());
    let s = PlusTimes::<f64>::new();
    let flags = Flags::default();
    // The products' operand (a frontier, then T) and result.
    let mut fd = DenseMatrix::from_vec(n, k, vec![0.0; n * k])?;
    let mut prod = DenseMatrix::from_vec(n, k, vec![0.0; n * k])?;
    // σ, zero where the pair is not reached yet; the pairs (index i · k + j)
    // by level: level d is pairs[starts[d]..starts[d + 1]].
    let mut sigma = vec![0.0; n * k];
    let mut pairs: Vec<usize> = Vec::new();
    let mut starts = vec![0];
    let f = fd.as_mut_slice();
    for (j, &src) in sources.iter().enumerate() {
        let p = src * k + j;
        (sigma[p], f[p]) = (1.0, 1.0);
        pairs.push(p);
    }
    starts.push(pairs.len());
    // Forward: N = A' F; F = N on the pairs not reached yet where N > 0.
    loop {
        cpu.mxm_dense(&mut prod, NoAccum, s, at, &fd, flags)?;
        let (f, nx) = (fd.as_mut_slice(), prod.as_mut_slice());
        let last = starts[starts.len() - 2];
        for &p in &pairs[last..] {
            f[p] = 0.0;
        }
        for (i, row) in nx.chunks_exact(k).enumerate() {
            if !row.iter().fold(false, |acc, &x| acc | (x > 0.0)) {
                continue;
            }
            for (j, &x) in row.iter().enumerate() {
                let p = i * k + j;
                if x > 0.0 && sigma[p] == 0.0 {
                    (sigma[p], f[p]) = (x, x);
                    pairs.push(p);
                }
            }
        }
        if pairs.len() == starts[starts.len() - 1] {
            break;
        }
        starts.push(pairs.len());
    }
    // Backward, from the deepest level (F is all zero again): T = (1 + δ) / σ
    // on level d, U = A T, δ += σ ⊙ U on level d - 1 (level 0, the sources,
    // not counted).
    let mut delta = vec![0.0; n * k];
    let depth = starts.len() - 1;
    let level = |d: usize| &pairs[starts[d]..starts[d + 1]];
    for d in (2..depth).rev() {
        let t = fd.as_mut_slice();
        if d + 1 < depth {
            for &p in level(d + 1) {
                t[p] = 0.0;
            }
        }
        for &p in level(d) {
            t[p] = (1.0 + delta[p]) / sigma[p];
        }
        cpu.mxm_dense(&mut prod, NoAccum, s, a, &fd, flags)?;
        let u = prod.as_mut_slice();
        for &p in level(d - 1) {
            delta[p] += sigma[p] * u[p];
        }
    }
    Ok(Vector::from_dense(delta))
}
