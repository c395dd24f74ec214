//! Specialised CPU kernels on B2SR (the paper's schemes). Each returns `None`
//! or falls back to [`super::generic`] where it has no kernel for the input.

use super::generic;
use super::{count_generic, MatrixMask};
use crate::algebra::Semiring;
use crate::container::{Flags, Matrix, Vector};
use crate::error::Result;
use crate::storage::{B2sr, BitVec, DenseMatrix};

/// `t = A ⊕.⊗ u` for a B2SR `A` with iso value `value`.
pub(crate) fn mxv<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    u: &Vector<S::T>,
    allowed: Option<&BitVec>,
) -> Vector<S::T> {
    count_generic();
    generic::mxv_b2sr(s, a, value, u, allowed)
}

/// The unmasked product of two B2SR matrices with a B2SR result, where a kernel exists.
pub(crate) fn mxm_pattern<S: Semiring>(
    _s: S,
    _a: &Matrix<S::T>,
    _b: &Matrix<S::T>,
    _flags: Flags,
) -> Option<Result<Matrix<S::T>>> {
    None
}

/// The fused masked product and reduction, where a kernel exists.
pub(crate) fn mxm_reduce<S: Semiring>(
    _s: S,
    _mask: MatrixMask<'_, super::Cpu>,
    _a: &Matrix<S::T>,
    _b: &Matrix<S::T>,
    _flags: Flags,
) -> Option<Result<S::T>> {
    None
}

/// `A ⊕.⊗ B` with `B` dense row-major.
pub(crate) fn mxm_dense<S: Semiring>(
    s: S,
    a: &B2sr,
    value: S::T,
    b: &DenseMatrix<S::T>,
) -> DenseMatrix<S::T> {
    count_generic();
    generic::mxm_dense_csr(s, &a.to_csr(value).expect("valid B2SR"), b)
}
