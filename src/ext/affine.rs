//! The generic affine product `w = c ⊕ A ⊕.⊗ (d ⊗ u)` on the primitives.

use crate::algebra::Semiring;
use crate::backend::{Backend, EwiseKind, VectorShape};
use crate::container::{Accum, Flags, NoAccum, VectorFormat};
use crate::error::Result;

/// [`super::BackendExt::mxv_affine`] from the other entry points: `t = d ⊗ u`
/// (intersection), `w = c` everywhere (a full vector), `w ⊕= A ⊕.⊗ t`.
///
/// ```
/// use bitgraphblas::ext::affine::mxv_affine_generic;
/// use bitgraphblas::{algebra::PlusTimes, Cpu, Matrix, Vector};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 3.0f64)]).unwrap();
/// let (d, u) = (Vector::from_dense(vec![1.0, 2.0]), Vector::from_dense(vec![5.0, 1.0]));
/// let mut w = Vector::empty(2);
/// mxv_affine_generic(&Cpu::new(), &mut w, PlusTimes::<f64>::new(), 0.5, &a, &d, &u).unwrap();
/// assert_eq!(w.to_vec(0.0), vec![6.5, 0.5]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn mxv_affine_generic<B: Backend, S: Semiring>(
    b: &B,
    w: &mut B::Vector<S::T>,
    semiring: S,
    c: S::T,
    a: &B::Matrix<S::T>,
    d: &B::Vector<S::T>,
    u: &B::Vector<S::T>,
) -> Result<()> {
    let flags = Flags::default();
    let mut t = b.vector_new(u.len(), None, VectorFormat::Dense)?;
    let mult = EwiseKind::Mult;
    b.ewise_vector(&mut t, None, NoAccum, mult, semiring.mul_op(), d, u, flags)?;
    b.assign_vector_scalar(w, None, NoAccum, c, None, flags)?;
    let accum = Accum(semiring.add_op());
    b.mxv(w, None, accum, semiring, a, &t, flags)
}
