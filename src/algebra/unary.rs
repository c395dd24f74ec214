//! Unary operators (for `apply`) and index-unary operators (for `select`).

use super::binary::BinaryOp;
use crate::scalar::Scalar;

/// Which built-in unary operator a [`UnaryOp`] is.
///
/// ```
/// use bitgraphblas::algebra::{Abs, BindSecond, BuiltinOp, BuiltinUnary, Times, UnaryFn, UnaryOp};
/// assert_eq!(UnaryOp::<i32>::builtin(&Abs), Some(BuiltinUnary::Abs));
/// let half = BindSecond(Times, 0.5f32);
/// assert_eq!(half.builtin(), Some(BuiltinUnary::BindSecond(BuiltinOp::Times, 0.5)));
/// assert_eq!(UnaryFn::<f32>(|x| x * x).builtin(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BuiltinUnary {
    /// [`Identity`].
    Identity,
    /// [`Ainv`].
    Ainv,
    /// [`Abs`].
    Abs,
    /// [`Lnot`].
    Lnot,
    /// [`One`].
    One,
    /// A built-in binary operator with its first operand bound (value as f64).
    BindFirst(super::BuiltinOp, f64),
    /// A built-in binary operator with its second operand bound (value as f64).
    BindSecond(super::BuiltinOp, f64),
}

/// A unary operator `z = f(x)`.
///
/// ```
/// use bitgraphblas::algebra::{Ainv, UnaryOp};
/// assert_eq!(UnaryOp::<i32>::apply(&Ainv, 3), -3);
/// ```
pub trait UnaryOp<T: Scalar>: Copy + Send + Sync {
    /// Name for errors and logs.
    const NAME: &'static str;
    /// The built-in tag of this operator, `None` for user closures.
    fn builtin(&self) -> Option<BuiltinUnary> {
        None
    }
    /// Apply the operator.
    fn apply(&self, x: T) -> T;
}

macro_rules! builtin_unary {
    ($(#[$doc:meta])* $name:ident, $str:literal, $tag:ident, |$x:ident| $body:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl<T: Scalar> UnaryOp<T> for $name {
            const NAME: &'static str = $str;
            fn builtin(&self) -> Option<BuiltinUnary> {
                Some(BuiltinUnary::$tag)
            }
            #[inline]
            fn apply(&self, $x: T) -> T {
                $body
            }
        }
    };
}

builtin_unary!(/// `x`. With [`apply`](crate::ops::apply) and a mask: copy the allowed entries.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Identity, Cpu, Desc, Vector};
    /// let u = Vector::from_dense(vec![1.5f64, 2.5, 3.5]);
    /// let keep = Vector::from_entries(3, vec![(0, true), (2, true)])?;
    /// let mut w = Vector::empty(3);
    /// ops::apply(&Cpu::new(), &mut w, Identity, &u, &Desc::new().mask(keep.as_mask()))?;
    /// assert_eq!(w.entries(), vec![(0, 1.5), (2, 3.5)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    Identity, "identity", Identity, |x| x);
builtin_unary!(/// `-x` (`0 - x`, wrapping; bool: `x`): the additive inverse.
    ///
    /// ```
    /// use bitgraphblas::algebra::{Ainv, UnaryOp};
    /// assert_eq!(UnaryOp::<f64>::apply(&Ainv, 2.5), -2.5);
    /// assert_eq!(UnaryOp::<u32>::apply(&Ainv, 1), u32::MAX); // wraps
    /// assert!(UnaryOp::<bool>::apply(&Ainv, true));
    /// ```
    Ainv, "ainv", Ainv, |x| if T::TYPE == crate::ScalarType::Bool { x } else { T::minus(T::zero(), x) });
builtin_unary!(/// `|x|`.
    ///
    /// ```
    /// use bitgraphblas::algebra::{Abs, UnaryOp};
    /// assert_eq!(UnaryOp::<i64>::apply(&Abs, -7), 7);
    /// assert_eq!(UnaryOp::<f32>::apply(&Abs, -0.5), 0.5);
    /// ```
    Abs, "abs", Abs, |x| if x < T::zero() { T::minus(T::zero(), x) } else { x });
builtin_unary!(/// `!(x != 0)`, as 1 or 0.
    ///
    /// ```
    /// use bitgraphblas::algebra::{Lnot, UnaryOp};
    /// assert_eq!(UnaryOp::<i32>::apply(&Lnot, 0), 1);
    /// assert_eq!(UnaryOp::<i32>::apply(&Lnot, -5), 0);
    /// assert!(!UnaryOp::<bool>::apply(&Lnot, true));
    /// ```
    Lnot, "lnot", Lnot, |x| if x.is_nonzero() { T::zero() } else { T::one() });
builtin_unary!(/// `1`: turns a valued matrix into its pattern of ones.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::One, Cpu, Desc, Matrix};
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 0.3f32), (1, 0, 7.0)])?;
    /// let mut p = Matrix::empty(2, 2);
    /// ops::apply_matrix(&Cpu::new(), &mut p, One, &a, &Desc::new())?;
    /// assert_eq!(p.iso_value(), Some(1.0));
    /// assert_eq!(p.nvals(), 2);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    One, "one", One, |_x| T::one());

/// `f(s, x)`: a binary operator with its first operand bound to a scalar.
///
/// ```
/// use bitgraphblas::algebra::{BindFirst, Minus, UnaryOp};
/// assert_eq!(BindFirst(Minus, 10i32).apply(3), 7);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BindFirst<Op, T>(pub Op, pub T);

/// `f(x, s)`: a binary operator with its second operand bound to a scalar.
///
/// ```
/// use bitgraphblas::algebra::{BindSecond, Times, UnaryOp};
/// assert_eq!(BindSecond(Times, 0.5f32).apply(3.0), 1.5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BindSecond<Op, T>(pub Op, pub T);

impl<T: Scalar, Op: BinaryOp<T>> UnaryOp<T> for BindFirst<Op, T> {
    const NAME: &'static str = "bind_first";
    fn builtin(&self) -> Option<BuiltinUnary> {
        Op::BUILTIN.map(|b| BuiltinUnary::BindFirst(b, self.1.to_f64()))
    }
    #[inline]
    fn apply(&self, x: T) -> T {
        self.0.apply(self.1, x)
    }
}

impl<T: Scalar, Op: BinaryOp<T>> UnaryOp<T> for BindSecond<Op, T> {
    const NAME: &'static str = "bind_second";
    fn builtin(&self) -> Option<BuiltinUnary> {
        Op::BUILTIN.map(|b| BuiltinUnary::BindSecond(b, self.1.to_f64()))
    }
    #[inline]
    fn apply(&self, x: T) -> T {
        self.0.apply(x, self.1)
    }
}

/// A user unary operator from a function pointer.
///
/// ```
/// use bitgraphblas::algebra::{UnaryFn, UnaryOp};
/// assert_eq!(UnaryFn::<f64>(|x| x * x).apply(3.0), 9.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct UnaryFn<T>(pub fn(T) -> T);

impl<T: Scalar> UnaryOp<T> for UnaryFn<T> {
    const NAME: &'static str = "user";
    #[inline]
    fn apply(&self, x: T) -> T {
        (self.0)(x)
    }
}

/// The built-in `select` predicates (GraphBLAS index-unary operators).
/// `k` is the "thunk": a diagonal offset for the structural ones, a value for
/// the valued ones.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, IndexOp, Matrix};
/// let e = vec![(0, 0, 5i32), (0, 1, -1), (1, 1, 2), (2, 1, 8)];
/// let a = Matrix::from_triplets(3, 3, e)?;
/// let (cpu, mut diag, mut big) = (Cpu::new(), Matrix::empty(3, 3), Matrix::empty(3, 3));
/// ops::select_matrix(&cpu, &mut diag, IndexOp::Diag(0), &a, &Desc::new())?;
/// assert_eq!((diag.nvals(), diag.get(1, 1)), (2, Some(2)));
/// ops::select_matrix(&cpu, &mut big, IndexOp::ValueGe(5), &a, &Desc::new())?;
/// assert_eq!((big.get(0, 0), big.get(2, 1), big.nvals()), (Some(5), Some(8), 2));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexOp<T> {
    /// Keep `j <= i + k` (lower triangle, `k = 0` keeps the diagonal, `-1` strictly below).
    Tril(i64),
    /// Keep `j >= i + k`.
    Triu(i64),
    /// Keep `j == i + k`.
    Diag(i64),
    /// Keep `j != i + k`.
    OffDiag(i64),
    /// Keep row indices `i <= k` (for vectors: index `<= k`).
    RowLe(i64),
    /// Keep row indices `i > k`.
    RowGt(i64),
    /// Keep column indices `j <= k` (GraphBLAS `GrB_COLLE`; for vectors the
    /// column is 0: every entry when `k >= 0`, none otherwise).
    ///
    /// ```
    /// use bitgraphblas::{ops, Cpu, Desc, IndexOp, Matrix};
    /// let a = Matrix::from_triplets(2, 4, vec![(0, 0, 1i32), (0, 3, 2), (1, 1, 3), (1, 2, 4)])?;
    /// let mut left = Matrix::empty(2, 4);
    /// ops::select_matrix(&Cpu::new(), &mut left, IndexOp::ColLe(1), &a, &Desc::new())?;
    /// assert_eq!((left.nvals(), left.get(1, 1), left.get(1, 2)), (2, Some(3), None));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ColLe(i64),
    /// Keep column indices `j > k` (GraphBLAS `GrB_COLGT`).
    ///
    /// ```
    /// use bitgraphblas::{ops, Cpu, Desc, IndexOp, Matrix};
    /// let a = Matrix::from_triplets(2, 4, vec![(0, 0, 1i32), (0, 3, 2), (1, 1, 3), (1, 2, 4)])?;
    /// let mut right = Matrix::empty(2, 4);
    /// ops::select_matrix(&Cpu::new(), &mut right, IndexOp::ColGt(1), &a, &Desc::new())?;
    /// assert_eq!((right.nvals(), right.get(0, 3), right.get(1, 1)), (2, Some(2), None));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    ColGt(i64),
    /// Keep values `== k`.
    ValueEq(T),
    /// Keep values `!= k`.
    ValueNe(T),
    /// Keep values `> k`.
    ValueGt(T),
    /// Keep values `>= k`.
    ValueGe(T),
    /// Keep values `< k`.
    ValueLt(T),
    /// Keep values `<= k`.
    ValueLe(T),
}

/// The positional (index-unary) operators of `apply`: an entry's value is
/// replaced by a number made from its position and the thunk `k`, as
/// GraphBLAS `GrB_ROWINDEX`, `GrB_COLINDEX` and `GrB_DIAGINDEX`. For vectors
/// the row is the index and the column 0. The number in the element type is
/// [`PositionalOp::number`]: for integers and bool the `i64` number
/// (wrapping) cast by [`Scalar::from_i64`] (integers keep the low bits, bool
/// is `!= 0`); for floats the exact number, rounded. See
/// [`crate::ops::apply_index`].
///
/// ```
/// use bitgraphblas::algebra::PositionalOp;
/// assert_eq!(PositionalOp::RowIndex(1).value(3, 7), 4);
/// assert_eq!(PositionalOp::ColIndex(0).value(3, 7), 7);
/// assert_eq!(PositionalOp::DiagIndex(-1).value(3, 7), 3); // j - i + k
/// assert_eq!(PositionalOp::DiagIndex(-1).number::<u32>(7, 3), u32::MAX - 4); // -5 wraps
/// assert_eq!(PositionalOp::RowIndex(i64::MAX).number::<f64>(1, 0), 2f64.powi(63)); // no wrap
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PositionalOp {
    /// `i + k`.
    RowIndex(i64),
    /// `j + k`.
    ColIndex(i64),
    /// `j - i + k`: the diagonal the entry lies on, offset by `k`.
    DiagIndex(i64),
}

impl PositionalOp {
    /// The number for the entry at row `i`, column `j` (wrapping arithmetic).
    ///
    /// ```
    /// use bitgraphblas::algebra::PositionalOp;
    /// assert_eq!(PositionalOp::DiagIndex(0).value(5, 2), -3);
    /// assert_eq!(PositionalOp::RowIndex(i64::MAX).value(1, 0), i64::MIN); // wraps
    /// ```
    pub fn value(self, i: usize, j: usize) -> i64 {
        let (i, j) = (i as i64, j as i64);
        match self {
            PositionalOp::RowIndex(k) => i.wrapping_add(k),
            PositionalOp::ColIndex(k) => j.wrapping_add(k),
            PositionalOp::DiagIndex(k) => j.wrapping_sub(i).wrapping_add(k),
        }
    }
    /// The number in the element type `T`: [`PositionalOp::value`] cast by
    /// [`Scalar::from_i64`] for integers and bool; for floats the exact
    /// number (no wrapping) rounded to `T`.
    ///
    /// ```
    /// use bitgraphblas::algebra::PositionalOp;
    /// assert_eq!(PositionalOp::ColIndex(-2).number::<i32>(0, 1), -1);
    /// assert!(!PositionalOp::ColIndex(-1).number::<bool>(0, 1)); // 0
    /// assert_eq!(PositionalOp::RowIndex(i64::MAX).number::<f64>(1, 0), 2f64.powi(63));
    /// ```
    pub fn number<T: Scalar>(self, i: usize, j: usize) -> T {
        if !T::IS_FLOAT {
            return T::from_i64(self.value(i, j));
        }
        let (i, j) = (i as i128, j as i128);
        let exact = match self {
            PositionalOp::RowIndex(k) => i + k as i128,
            PositionalOp::ColIndex(k) => j + k as i128,
            PositionalOp::DiagIndex(k) => j - i + k as i128,
        };
        T::from_f64(exact as f64)
    }
    /// The thunk `k`.
    ///
    /// ```
    /// use bitgraphblas::algebra::PositionalOp;
    /// assert_eq!(PositionalOp::DiagIndex(-4).thunk(), -4);
    /// ```
    pub fn thunk(self) -> i64 {
        match self {
            PositionalOp::RowIndex(k) | PositionalOp::ColIndex(k) | PositionalOp::DiagIndex(k) => k,
        }
    }
}

/// A predicate on an entry `(value, row, column)` deciding whether `select` keeps it.
/// For vectors the row is the index and the column is 0.
///
/// ```
/// use bitgraphblas::algebra::{IndexOp, IndexUnaryOp};
/// assert!(IndexOp::<f32>::Tril(0).keep(1.0, 3, 2));
/// assert!(!IndexOp::ValueGt(2.0f32).keep(1.0, 0, 0));
/// // A user predicate is a plain function.
/// let even: fn(u32, usize, usize) -> bool = |v, _, _| v % 2 == 0;
/// assert!(even.keep(4, 0, 0));
/// ```
pub trait IndexUnaryOp<T: Scalar>: Copy + Send + Sync {
    /// The built-in predicate, `None` for user closures.
    fn builtin(&self) -> Option<IndexOp<T>> {
        None
    }
    /// True where the entry is kept.
    fn keep(&self, value: T, row: usize, col: usize) -> bool;
}

impl<T: Scalar> IndexUnaryOp<T> for IndexOp<T> {
    fn builtin(&self) -> Option<IndexOp<T>> {
        Some(*self)
    }
    #[inline]
    fn keep(&self, v: T, i: usize, j: usize) -> bool {
        let (i, j) = (i as i64, j as i64);
        match *self {
            IndexOp::Tril(k) => j <= i + k,
            IndexOp::Triu(k) => j >= i + k,
            IndexOp::Diag(k) => j == i + k,
            IndexOp::OffDiag(k) => j != i + k,
            IndexOp::RowLe(k) => i <= k,
            IndexOp::RowGt(k) => i > k,
            IndexOp::ColLe(k) => j <= k,
            IndexOp::ColGt(k) => j > k,
            IndexOp::ValueEq(k) => v == k,
            IndexOp::ValueNe(k) => v != k,
            IndexOp::ValueGt(k) => v > k,
            IndexOp::ValueGe(k) => v >= k,
            IndexOp::ValueLt(k) => v < k,
            IndexOp::ValueLe(k) => v <= k,
        }
    }
}

impl<T: Scalar> IndexUnaryOp<T> for fn(T, usize, usize) -> bool {
    #[inline]
    fn keep(&self, v: T, i: usize, j: usize) -> bool {
        self(v, i, j)
    }
}
