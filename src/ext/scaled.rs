//! The scaled dense product `C = diag(l) (A ⊕.⊗ (diag(r) B)) diag(s) ⊕ bias`
//! on the primitives: a GCN layer's aggregation `D^-1/2 (A + I) D^-1/2 Y +
//! bias`, SAGE's mean `D^-1 A Y`, as one call; and the same product of a bit
//! product's integer counts, read as `f32` (a binary layer's `Y` is its
//! counts times a column factor, applied after the sum as `s`).

use crate::algebra::{PlusTimes, Semiring};
use crate::backend::{Backend, MatrixShape};
use crate::container::{Flags, NoAccum};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::DenseMatrix;

/// The optional diagonal scalings and bias of [`super::mxm_dense_scaled`],
/// each `None` where absent (the default: a plain product).
pub struct DenseScales<'a, B: Backend, T: Scalar> {
    /// `l`, one value per row of `A`: row `i` of the product becomes
    /// `l_i ⊗ (A ⊕.⊗ ...)_i` (rows where `l_i` is absent unchanged).
    pub left: Option<&'a B::Vector<T>>,
    /// `r`, one value per row of `B` (per column of `A`): `B`'s row `j` is
    /// read as `r_j ⊗ B_j` (rows where `r_j` is absent as they are).
    pub right: Option<&'a B::Vector<T>>,
    /// `s`, one value per column of the result: column `f` becomes
    /// `(...)_f ⊗ s_f` after the row scaling `l` (columns where `s_f` is
    /// absent unchanged).
    pub col: Option<&'a B::Vector<T>>,
    /// One value per column of the result, added (`⊕`) to every row last
    /// (columns where it is absent unchanged).
    pub bias: Option<&'a B::Vector<T>>,
}

impl<B: Backend, T: Scalar> Default for DenseScales<'_, B, T> {
    fn default() -> Self {
        DenseScales {
            left: None,
            right: None,
            col: None,
            bias: None,
        }
    }
}

impl<B: Backend, T: Scalar> Clone for DenseScales<'_, B, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Backend, T: Scalar> Copy for DenseScales<'_, B, T> {}

/// [`super::BackendExt::mxm_dense_scaled`] from the other entry points, in
/// this order: `scale_dense_rows(r, B)` with `⊗`, `mxm_dense`,
/// `scale_dense_rows(l, ·)` with `⊗`, `scale_dense_cols(·, s)` with `⊗`,
/// `scale_dense_cols(·, bias)` with `⊕` (a fused backend keeps this order of
/// operations, so its values are these).
///
/// ```
/// use bitgraphblas::ext::scaled::{mxm_dense_scaled_generic, DenseScales};
/// use bitgraphblas::{algebra::PlusTimes, Backend, Cpu, DenseMatrix, Matrix, Vector};
/// let cpu = Cpu::new();
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 1.0f32), (1, 0, 1.0)]).unwrap();
/// let y = DenseMatrix::from_vec(2, 1, vec![4.0f32, 8.0]).unwrap();
/// let (l, r) = (Vector::from_dense(vec![0.5f32, 2.0]), Vector::from_dense(vec![1.0f32, 0.25]));
/// let bias = Vector::from_dense(vec![1.0f32]);
/// let scales = DenseScales { left: Some(&l), right: Some(&r), bias: Some(&bias), col: None };
/// let mut c = cpu.dense_new(2, 1, 0.0f32).unwrap();
/// mxm_dense_scaled_generic(&cpu, &mut c, PlusTimes::<f32>::new(), &a, &y, scales).unwrap();
/// // row 0: 0.5 (0.25 · 8) + 1 = 2; row 1: 2 (1 · 4) + 1 = 9
/// assert_eq!(c.as_slice(), &[2.0, 9.0]);
/// ```
pub fn mxm_dense_scaled_generic<B: Backend, S: Semiring>(
    b: &B,
    c: &mut B::Dense<S::T>,
    semiring: S,
    a: &B::Matrix<S::T>,
    bd: &B::Dense<S::T>,
    scales: DenseScales<'_, B, S::T>,
) -> Result<()> {
    let (m, k, n) = (a.nrows(), a.ncols(), bd.ncols());
    let scaled;
    let input = match scales.right {
        Some(r) => {
            let mut t = b.dense_for_output(k, n)?;
            b.scale_dense_rows(&mut t, semiring.mul_op(), r, bd)?;
            scaled = t;
            &scaled
        }
        None => bd,
    };
    b.mxm_dense(c, NoAccum, semiring, a, input, Flags::default())?;
    if let Some(l) = scales.left {
        let mut t = b.dense_for_output(m, n)?;
        b.scale_dense_rows(&mut t, semiring.mul_op(), l, c)?;
        *c = t;
    }
    if let Some(s) = scales.col {
        let mut t = b.dense_for_output(m, n)?;
        b.scale_dense_cols(&mut t, semiring.mul_op(), c, s)?;
        *c = t;
    }
    if let Some(bias) = scales.bias {
        let mut t = b.dense_for_output(m, n)?;
        b.scale_dense_cols(&mut t, semiring.add_op(), c, bias)?;
        *c = t;
    }
    Ok(())
}

/// [`super::BackendExt::mxm_counts_scaled`] from the other entry points: the
/// counts brought to the host, read as `f32` (`v as f32`: exact below
/// `2^24`), sent back, then [`mxm_dense_scaled_generic`] over `PLUS.TIMES`.
///
/// ```
/// use bitgraphblas::ext::scaled::{mxm_counts_scaled_generic, DenseScales};
/// use bitgraphblas::{Backend, Cpu, DenseMatrix, Matrix, Vector};
/// let cpu = Cpu::new();
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f32), (0, 1, 1.0), (1, 1, 1.0)]).unwrap();
/// let v = DenseMatrix::from_vec(2, 2, vec![3i32, -1, 5, 2]).unwrap();
/// let s = Vector::from_dense(vec![0.5f32, 2.0]);
/// let scales = DenseScales { col: Some(&s), ..DenseScales::default() };
/// let mut c = cpu.dense_new(2, 2, 0.0f32).unwrap();
/// mxm_counts_scaled_generic(&cpu, &mut c, &a, &v, scales).unwrap();
/// // row 0: (3 + 5, -1 + 2) scaled by (0.5, 2); row 1: (5, 2) scaled
/// assert_eq!(c.as_slice(), &[4.0, 2.0, 2.5, 4.0]);
/// ```
pub fn mxm_counts_scaled_generic<B: Backend>(
    b: &B,
    c: &mut B::Dense<f32>,
    a: &B::Matrix<f32>,
    v: &B::Dense<i32>,
    scales: DenseScales<'_, B, f32>,
) -> Result<()> {
    let host = b.download_dense(v)?;
    let f = host.as_slice().iter().map(|&x| x as f32).collect();
    let f = b.upload_dense(&DenseMatrix::from_vec(host.nrows(), host.ncols(), f)?)?;
    mxm_dense_scaled_generic(b, c, PlusTimes::<f32>::new(), a, &f, scales)
}
