//! `apply` (a unary operator on every present entry, or a positional
//! operator: the entry's row, column or diagonal) and `select` (keep the
//! entries an index-unary predicate accepts), on vectors and matrices.
//!
//! The positional `apply` is written on other entry points (element-wise
//! multiply or diagonal scaling by a vector of index numbers, see
//! `positions`), so every backend runs it.

use super::check::{check_unary_matrix, check_unary_vector, shape_of};
use super::compose::{new_matrix, vector_from_fn};
use crate::algebra::{
    First, Identity, IndexOp, IndexUnaryOp, Lxor, Plus, PositionalOp, Second, UnaryOp,
};
use crate::backend::{Backend, EwiseKind, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, Flags, MaskArg, MatrixMaskArg, NoAccum};
use crate::error::Result;
use crate::scalar::{Scalar, ScalarType};

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

/// `w<mask> = accum(w, p(u))`: every present `u_i` replaced by the positional
/// operator's number for row `i`, column 0 (GraphBLAS `GrB_apply` with
/// `GrB_ROWINDEX` and a thunk: `i + k`; `ColIndex(k)` gives `k`,
/// `DiagIndex(k)` gives `k - i`) in `T` ([`PositionalOp::number`]). Absent
/// entries stay absent.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, PositionalOp, Vector};
/// let u = Vector::from_entries(5, vec![(1, 9.5f64), (4, -1.0)])?;
/// let mut w = Vector::empty(5);
/// ops::apply_index(&Cpu::new(), &mut w, PositionalOp::RowIndex(1), &u, &Desc::new())?;
/// assert_eq!(w.entries(), vec![(1, 2.0), (4, 5.0)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn apply_index<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    op: PositionalOp,
    u: &B::Vector<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    check_unary_vector("apply_index", desc.mask_arg(), w.len(), u.len())?;
    let d = vector_from_fn(b, u.len(), |i| op.number::<T>(i, 0))?;
    let mask = desc.mask_arg().vector_mask();
    b.ewise_vector(
        w,
        mask,
        desc.accum_op(),
        EwiseKind::Mult,
        Second,
        u,
        &d,
        desc.flags(),
    )
}

/// `C<mask> = accum(C, p(A))` (`p(A')` with `desc.transpose_a()`): every
/// stored `a_ij` replaced by `i + k` (`RowIndex(k)`), `j + k` (`ColIndex(k)`)
/// or `j - i + k` (`DiagIndex(k)`) in `T` ([`PositionalOp::number`]; for
/// floats `DiagIndex` is `(j + k) - i` in floating point). The result is CSR.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Format, Matrix, PositionalOp, TileSize};
/// let a = Matrix::from_triplets(3, 3, vec![(0, 2, 1i32), (2, 0, 1), (1, 1, 1)])?
///     .to_format(Format::B2sr(TileSize::T4))?;
/// let mut c = Matrix::empty(3, 3);
/// ops::apply_index_matrix(&Cpu::new(), &mut c, PositionalOp::DiagIndex(0), &a, &Desc::new())?;
/// assert_eq!((c.get(0, 2), c.get(2, 0), c.get(1, 1)), (Some(2), Some(-2), Some(0)));
/// ops::apply_index_matrix(&Cpu::new(), &mut c, PositionalOp::ColIndex(10), &a, &Desc::new())?;
/// assert_eq!((c.get(0, 2), c.get(2, 0)), (Some(12), Some(10)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn apply_index_matrix<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    op: PositionalOp,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let flags = desc.flags();
    let op_name = "apply_index_matrix";
    check_unary_matrix(op_name, desc.mask_arg(), shape_of(c), a, flags.transpose_a)?;
    let at;
    let src = if flags.transpose_a {
        let (m, n) = shape_of(a);
        let mut t = new_matrix(b, n, m)?;
        b.transpose(&mut t, None, NoAccum, a, Flags::default())?;
        at = t;
        &at
    } else {
        a
    };
    let t = positions(b, op, src)?;
    let flags = Flags {
        transpose_a: false,
        ..flags
    };
    b.apply_matrix(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        Identity,
        &t,
        flags,
    )
}

/// The pattern of `a` with each value replaced by `op`'s number, by diagonal
/// scalings: by the row numbers (`First`), by the column numbers (`Second`),
/// or for `DiagIndex` the column numbers `j + k` then plus `-i` per row
/// (integers wrap, so this is the `i64` number's low bits). On
/// bool, where plus is OR, `DiagIndex` is "off the diagonal `j = i - k`":
/// ones, with the entries on that diagonal XORed back to false.
fn positions<B: Backend, T: Scalar>(
    b: &B,
    op: PositionalOp,
    a: &B::Matrix<T>,
) -> Result<B::Matrix<T>> {
    let (m, n) = shape_of(a);
    let numbers = |len, f: &dyn Fn(usize) -> T| vector_from_fn(b, len, f);
    let by_col = |c: &mut B::Matrix<T>, d: &B::Vector<T>| b.scale(c, Second, d, a, false);
    let mut t = new_matrix(b, m, n)?;
    match op {
        PositionalOp::RowIndex(_) => {
            let d = numbers(m, &|i| op.number(i, 0))?;
            b.scale(&mut t, First, &d, a, true)?;
        }
        PositionalOp::ColIndex(_) => by_col(&mut t, &numbers(n, &|j| op.number(0, j))?)?,
        PositionalOp::DiagIndex(k) if T::TYPE == ScalarType::Bool => {
            let mut ones = new_matrix(b, m, n)?;
            by_col(&mut ones, &numbers(n, &|_| T::one())?)?;
            let mut diag = new_matrix(b, m, n)?;
            let on = IndexOp::Diag(k.wrapping_neg());
            b.select_matrix(&mut diag, None, NoAccum, on, &ones, Flags::default())?;
            let f = Flags::default();
            b.ewise_matrix(&mut t, None, NoAccum, EwiseKind::Add, Lxor, &ones, &diag, f)?;
        }
        PositionalOp::DiagIndex(k) => {
            let mut cols = new_matrix(b, m, n)?;
            by_col(
                &mut cols,
                &numbers(n, &|j| PositionalOp::ColIndex(k).number(0, j))?,
            )?;
            let d = numbers(m, &|i| T::from_i64((i as i64).wrapping_neg()))?;
            b.scale(&mut t, Plus, &d, &cols, true)?;
        }
    }
    Ok(t)
}
