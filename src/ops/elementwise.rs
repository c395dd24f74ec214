//! Element-wise operations on two vectors or two matrices: on the union of
//! their patterns (`add`, `union`) or on the intersection (`mult`).

use super::check::{check_mmask, check_vmask, dims_of, need, shape_of};
use crate::algebra::BinaryOp;
use crate::backend::{Backend, EwiseKind, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, MaskArg, MatrixMaskArg};
use crate::error::Result;
use crate::scalar::Scalar;

macro_rules! ewise_vector_fn {
    ($(#[$doc:meta])* $name:ident, $kind:expr, $opname:literal $(, $alpha:ident, $beta:ident)?) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name<B, T, Op, M, A>(
            b: &B,
            w: &mut B::Vector<T>,
            op: Op,
            u: &B::Vector<T>,
            $($alpha: T,)?
            v: &B::Vector<T>,
            $($beta: T,)?
            desc: &Desc<M, A>,
        ) -> Result<()>
        where
            B: Backend,
            B::MaskSource: VectorShape,
            T: Scalar,
            Op: BinaryOp<T>,
            M: MaskArg<B>,
            A: Accumulate<T>,
        {
            need($opname, u.len() == v.len() && w.len() == u.len(), || {
                format!("w has length {}, u {}, v {}", w.len(), u.len(), v.len())
            })?;
            check_vmask($opname, desc.mask_arg(), w.len())?;
            b.ewise_vector(w, desc.mask_arg().vector_mask(), desc.accum_op(), $kind, op, u, v, desc.flags())
        }
    };
}

ewise_vector_fn!(
    /// `w<mask> = accum(w, u ⊕ v)` on the union of patterns: `op(u_i, v_i)`
    /// where both are present, the present one where only one is.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Plus, Cpu, Desc, Vector};
    /// let u = Vector::from_entries(4, vec![(0, 1i32), (2, 5)])?;
    /// let v = Vector::from_entries(4, vec![(1, 2i32), (2, 3)])?;
    /// let mut w = Vector::empty(4);
    /// ops::ewise_add(&Cpu::new(), &mut w, Plus, &u, &v, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(0, 1), (1, 2), (2, 8)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ewise_add, EwiseKind::Add, "ewise_add");
ewise_vector_fn!(
    /// `w<mask> = accum(w, u ⊗ v)` on the intersection of patterns.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Times, Cpu, Desc, Vector};
    /// let u = Vector::from_entries(4, vec![(0, 1.5f32), (2, 5.0)])?;
    /// let v = Vector::from_entries(4, vec![(1, 2.0f32), (2, 3.0)])?;
    /// let mut w = Vector::empty(4);
    /// ops::ewise_mult(&Cpu::new(), &mut w, Times, &u, &v, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(2, 15.0)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ewise_mult, EwiseKind::Mult, "ewise_mult");
ewise_vector_fn!(
    /// `w<mask> = accum(w, op(u or alpha, v or beta))` on the union of patterns:
    /// a missing `u_i` reads as `alpha`, a missing `v_i` as `beta` (each scalar
    /// follows its operand: `u, alpha, v, beta`, the C API's and python-graphblas'
    /// order).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Minus, Cpu, Desc, Vector};
    /// let u = Vector::from_entries(3, vec![(0, 1i64), (2, 5)])?;
    /// let v = Vector::from_entries(3, vec![(1, 2i64), (2, 3)])?;
    /// let mut w = Vector::empty(3);
    /// // u - v with absent entries as 0 (ewise_add would keep v_1 = 2 unchanged).
    /// ops::ewise_union(&Cpu::new(), &mut w, Minus, &u, 0, &v, 0, &Desc::new())?;
    /// assert_eq!(w.to_vec(0), vec![1, -2, 2]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ewise_union, EwiseKind::Union { alpha, beta }, "ewise_union", alpha, beta);

macro_rules! ewise_matrix_fn {
    ($(#[$doc:meta])* $name:ident, $kind:expr, $opname:literal $(, $alpha:ident, $beta:ident)?) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name<B, T, Op, M, A>(
            b: &B,
            c: &mut B::Matrix<T>,
            op: Op,
            a: &B::Matrix<T>,
            $($alpha: T,)?
            bm: &B::Matrix<T>,
            $($beta: T,)?
            desc: &Desc<M, A>,
        ) -> Result<()>
        where
            B: Backend,
            B::MatrixMaskSource: MatrixShape,
            T: Scalar,
            Op: BinaryOp<T>,
            M: MatrixMaskArg<B>,
            A: Accumulate<T>,
        {
            let sa = dims_of(a, desc.flags().transpose_a);
            let sb = dims_of(bm, desc.flags().transpose_b);
            let sc = shape_of(c);
            need($opname, sa == sb && sa == sc, || format!("C is {sc:?}, A {sa:?}, B {sb:?}"))?;
            check_mmask($opname, desc.mask_arg(), sc)?;
            b.ewise_matrix(c, desc.mask_arg().matrix_mask(), desc.accum_op(), $kind, op, a, bm, desc.flags())
        }
    };
}

ewise_matrix_fn!(
    /// `C<mask> = accum(C, A ⊕ B)` on the union of patterns.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Lor, Cpu, Desc, Matrix};
    /// // Symmetrise a directed graph: A ∪ A'.
    /// let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (1, 2, true)])?;
    /// let mut s = Matrix::empty(3, 3);
    /// ops::ewise_add_matrix(&Cpu::new(), &mut s, Lor, &a, &a, &Desc::new().transpose_b())?;
    /// assert_eq!(s.nvals(), 4);
    /// assert_eq!(s.get(2, 1), Some(true));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ewise_add_matrix, EwiseKind::Add, "ewise_add_matrix");
ewise_matrix_fn!(
    /// `C<mask> = accum(C, A ⊗ B)` on the intersection of patterns.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Min, Cpu, Desc, Matrix};
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 4u32), (0, 1, 7), (1, 1, 2)])?;
    /// let b = Matrix::from_triplets(2, 2, vec![(0, 1, 3u32), (1, 0, 9), (1, 1, 8)])?;
    /// let mut c = Matrix::empty(2, 2);
    /// ops::ewise_mult_matrix(&Cpu::new(), &mut c, Min, &a, &b, &Desc::new())?;
    /// assert_eq!(c.nvals(), 2); // only (0, 1) and (1, 1) are in both
    /// assert_eq!((c.get(0, 1), c.get(1, 1)), (Some(3), Some(2)));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ewise_mult_matrix, EwiseKind::Mult, "ewise_mult_matrix");
ewise_matrix_fn!(
    /// `C<mask> = accum(C, op(A or alpha, B or beta))` on the union of patterns
    /// (each scalar follows its operand: `A, alpha, B, beta`).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Div, Cpu, Desc, Matrix};
    /// let a = Matrix::from_triplets(1, 3, vec![(0, 0, 6.0f64), (0, 1, 8.0)])?;
    /// let b = Matrix::from_triplets(1, 3, vec![(0, 1, 4.0f64), (0, 2, 5.0)])?;
    /// let mut c = Matrix::empty(1, 3);
    /// // A / B with a missing A as 10 and a missing B as 2.
    /// ops::ewise_union_matrix(&Cpu::new(), &mut c, Div, &a, 10.0, &b, 2.0, &Desc::new())?;
    /// assert_eq!((c.get(0, 0), c.get(0, 1), c.get(0, 2)), (Some(3.0), Some(2.0), Some(2.0)));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ewise_union_matrix, EwiseKind::Union { alpha, beta }, "ewise_union_matrix", alpha, beta);
