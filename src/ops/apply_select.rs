//! `apply` (a unary operator on every present entry) and `select` (keep the
//! entries an index-unary predicate accepts), on vectors and matrices.

use super::check::{check_unary_matrix, check_unary_vector, shape_of};
use crate::algebra::{IndexUnaryOp, UnaryOp};
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, MaskArg, MatrixMaskArg};
use crate::error::Result;
use crate::scalar::Scalar;

/// `apply` and `select` on vectors: `w<mask> = accum(w, t)` with `t` from `u`
/// by the operator `$f` of kind `$Bound` (its type parameter `$F`), through
/// the backend's `$backend`.
macro_rules! unary_vector_fn {
    ($(#[$doc:meta])* $name:ident, $f:ident: $F:ident: $Bound:ident, $backend:ident) => {
        $(#[$doc])*
        pub fn $name<B, T, $F, M, A>(
            b: &B,
            w: &mut B::Vector<T>,
            $f: $F,
            u: &B::Vector<T>,
            desc: &Desc<M, A>,
        ) -> Result<()>
        where
            B: Backend,
            B::MaskSource: VectorShape,
            T: Scalar,
            $F: $Bound<T>,
            M: MaskArg<B>,
            A: Accumulate<T>,
        {
            check_unary_vector(stringify!($name), desc.mask_arg(), w.len(), u.len())?;
            b.$backend(w, desc.mask_arg().vector_mask(), desc.accum_op(), $f, u, desc.flags())
        }
    };
}

/// The matrix forms: `C<mask> = accum(C, t)` with `t` from `A` (`A'` with
/// `desc.transpose_a()`).
macro_rules! unary_matrix_fn {
    ($(#[$doc:meta])* $name:ident, $f:ident: $F:ident: $Bound:ident, $backend:ident) => {
        $(#[$doc])*
        pub fn $name<B, T, $F, M, A>(
            b: &B,
            c: &mut B::Matrix<T>,
            $f: $F,
            a: &B::Matrix<T>,
            desc: &Desc<M, A>,
        ) -> Result<()>
        where
            B: Backend,
            B::MatrixMaskSource: MatrixShape,
            T: Scalar,
            $F: $Bound<T>,
            M: MatrixMaskArg<B>,
            A: Accumulate<T>,
        {
            let transpose = desc.flags().transpose_a;
            check_unary_matrix(stringify!($name), desc.mask_arg(), shape_of(c), a, transpose)?;
            b.$backend(c, desc.mask_arg().matrix_mask(), desc.accum_op(), $f, a, desc.flags())
        }
    };
}

unary_vector_fn!(
    /// `w<mask> = accum(w, f(u))`: `f` on every present entry; absent ones stay absent.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Abs, Cpu, Desc, Vector};
    /// let u = Vector::from_entries(4, vec![(0, -2i32), (3, 5)])?;
    /// let mut w = Vector::empty(4);
    /// ops::apply(&Cpu::new(), &mut w, Abs, &u, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(0, 2), (3, 5)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    apply, f: F: UnaryOp, apply_vector
);
unary_matrix_fn!(
    /// `C<mask> = accum(C, f(A))` (`f(A')` with `desc.transpose_a()`).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::{BindSecond, Times}, Cpu, Desc, Matrix};
    /// let a = Matrix::from_triplets(2, 3, vec![(0, 2, 4.0f64), (1, 0, 2.0)])?;
    /// // Halve every entry of A', a 3x2 result.
    /// let mut c = Matrix::empty(3, 2);
    /// ops::apply_matrix(&Cpu::new(), &mut c, BindSecond(Times, 0.5), &a, &Desc::new().transpose_a())?;
    /// assert_eq!(c.get(2, 0), Some(2.0));
    /// assert_eq!(c.get(0, 1), Some(1.0));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    apply_matrix, f: F: UnaryOp, apply_matrix
);
unary_vector_fn!(
    /// `w<mask> = accum(w, select(u))`: the entries of `u` the predicate keeps.
    /// For a vector the predicate sees the index as the row and 0 as the column.
    ///
    /// ```
    /// use bitgraphblas::{ops, Cpu, Desc, IndexOp, Vector};
    /// let u = Vector::from_dense(vec![0.5f32, 2.0, 3.0, 1.0]);
    /// let mut w = Vector::empty(4);
    /// ops::select(&Cpu::new(), &mut w, IndexOp::ValueGt(1.0), &u, &Desc::new())?;
    /// assert_eq!(w.entries(), vec![(1, 2.0), (2, 3.0)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    select, pred: P: IndexUnaryOp, select_vector
);
unary_matrix_fn!(
    /// `C<mask> = accum(C, select(A))`.
    ///
    /// ```
    /// use bitgraphblas::{ops, Cpu, Desc, IndexOp, Matrix};
    /// // The strictly upper triangle of a 3x3 all-ones matrix.
    /// let ones = (0..3).flat_map(|i| (0..3).map(move |j| (i, j, 1u32))).collect();
    /// let a = Matrix::from_triplets(3, 3, ones)?;
    /// let mut u = Matrix::empty(3, 3);
    /// ops::select_matrix(&Cpu::new(), &mut u, IndexOp::Triu(1), &a, &Desc::new())?;
    /// assert_eq!(u.nvals(), 3);
    /// assert_eq!((u.get(0, 2), u.get(1, 1)), (Some(1), None));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    select_matrix, pred: P: IndexUnaryOp, select_matrix
);
