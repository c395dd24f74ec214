//! Binary operators and monoids.

use crate::scalar::Scalar;

/// Which built-in operator a [`BinaryOp`] is, so a backend can specialise on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinOp {
    Plus,
    Minus,
    Times,
    Div,
    Min,
    Max,
    Lor,
    Land,
    Lxor,
    First,
    Second,
    Pair,
    Any,
    AbsDiff,
}

/// A binary operator `z = f(x, y)` on one element type.
///
/// ```
/// use bitgraphblas::algebra::{BinaryOp, Min, Plus};
/// assert_eq!(BinaryOp::<i32>::apply(&Plus, 2, 3), 5);
/// assert_eq!(BinaryOp::<f32>::apply(&Min, 2.0, 3.0), 2.0);
/// ```
pub trait BinaryOp<T: Scalar>: Copy + Send + Sync {
    /// Name used in errors, logs and kernel names (`"plus"`).
    const NAME: &'static str;
    /// The built-in tag, `None` for user operators.
    const BUILTIN: Option<BuiltinOp> = None;
    /// Apply the operator.
    fn apply(&self, x: T, y: T) -> T;
}

/// A commutative, associative [`BinaryOp`] with an identity; optionally a
/// terminal (absorbing) value after which a reduction may stop early.
///
/// ```
/// use bitgraphblas::algebra::{Lor, Monoid, Plus};
/// assert_eq!(Monoid::<u32>::identity(&Plus), 0);
/// assert_eq!(Monoid::<bool>::terminal(&Lor), Some(true));
/// ```
pub trait Monoid<T: Scalar>: BinaryOp<T> {
    /// `apply(identity, x) == x` for every `x`.
    fn identity(&self) -> T;
    /// `apply(terminal, x) == terminal` for every `x`, where such a value exists.
    fn terminal(&self) -> Option<T> {
        None
    }
}

macro_rules! builtin_binary {
    ($(#[$doc:meta])* $name:ident, $str:literal, $tag:ident, |$x:ident, $y:ident| $body:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl<T: Scalar> BinaryOp<T> for $name {
            const NAME: &'static str = $str;
            const BUILTIN: Option<BuiltinOp> = Some(BuiltinOp::$tag);
            #[inline]
            fn apply(&self, $x: T, $y: T) -> T {
                $body
            }
        }
    };
}

builtin_binary!(/// `x + y` (wrapping for integers, OR for bool).
    Plus, "plus", Plus, |x, y| T::plus(x, y));
builtin_binary!(/// `x - y` (wrapping for integers, XOR for bool).
    Minus, "minus", Minus, |x, y| T::minus(x, y));
builtin_binary!(/// `x * y` (wrapping for integers, AND for bool).
    Times, "times", Times, |x, y| T::times(x, y));
builtin_binary!(/// `x / y` (integer division by zero gives 0).
    Div, "div", Div, |x, y| T::div(x, y));
builtin_binary!(/// The smaller of `x` and `y`.
    Min, "min", Min, |x, y| T::min_of(x, y));
builtin_binary!(/// The larger of `x` and `y`.
    Max, "max", Max, |x, y| T::max_of(x, y));
builtin_binary!(/// Logical OR of `x != 0` and `y != 0`, as 1 or 0.
    Lor, "lor", Lor, |x, y| if x.is_nonzero() || y.is_nonzero() { T::one() } else { T::zero() });
builtin_binary!(/// Logical AND of `x != 0` and `y != 0`, as 1 or 0.
    Land, "land", Land, |x, y| if x.is_nonzero() && y.is_nonzero() { T::one() } else { T::zero() });
builtin_binary!(/// Logical XOR of `x != 0` and `y != 0`, as 1 or 0.
    Lxor, "lxor", Lxor, |x, y| if x.is_nonzero() != y.is_nonzero() { T::one() } else { T::zero() });
builtin_binary!(/// `x`.
    First, "first", First, |x, _y| x);
builtin_binary!(/// `y`.
    Second, "second", Second, |_x, y| y);
builtin_binary!(/// `1`, whatever the operands (GraphBLAS `PAIR`, also called `ONEB`).
    Pair, "pair", Pair, |_x, _y| T::one());
builtin_binary!(/// Either operand (`ANY`: a reduction may keep whichever it meets first).
    /// This implementation returns `x`; results that depend on the choice are
    /// only defined up to it.
    Any, "any", Any, |x, _y| x);
builtin_binary!(/// `|x - y|`: `x - y` where `x > y`, else `y - x` (no wrap-around for
    /// unsigned integers; for bool `x != y`; a NaN operand gives NaN): the
    /// element-wise distance, whose sum is the L1 distance of two vectors
    /// (the convergence test of PageRank and other power iterations).
    ///
    /// ```
    /// use bitgraphblas::algebra::{AbsDiff, BinaryOp};
    /// assert_eq!(BinaryOp::<f64>::apply(&AbsDiff, 1.0, 3.5), 2.5);
    /// assert_eq!(BinaryOp::<u32>::apply(&AbsDiff, 2, 7), 5);
    /// ```
    AbsDiff, "absdiff", AbsDiff, |x, y| if x > y { T::minus(x, y) } else { T::minus(y, x) });

impl<T: Scalar> Monoid<T> for Plus {
    fn identity(&self) -> T {
        T::zero()
    }
    fn terminal(&self) -> Option<T> {
        // Only the boolean plus (OR) has an absorbing value.
        if T::TYPE == crate::ScalarType::Bool {
            Some(T::one())
        } else {
            None
        }
    }
}
impl<T: Scalar> Monoid<T> for Times {
    fn identity(&self) -> T {
        T::one()
    }
    fn terminal(&self) -> Option<T> {
        // Zero absorbs integer and boolean products; for floats 0 * NaN is NaN.
        if T::IS_FLOAT {
            None
        } else {
            Some(T::zero())
        }
    }
}
impl<T: Scalar> Monoid<T> for Min {
    fn identity(&self) -> T {
        T::highest()
    }
    fn terminal(&self) -> Option<T> {
        Some(T::lowest())
    }
}
impl<T: Scalar> Monoid<T> for Max {
    fn identity(&self) -> T {
        T::lowest()
    }
    fn terminal(&self) -> Option<T> {
        Some(T::highest())
    }
}
impl<T: Scalar> Monoid<T> for Lor {
    fn identity(&self) -> T {
        T::zero()
    }
    fn terminal(&self) -> Option<T> {
        Some(T::one())
    }
}
impl<T: Scalar> Monoid<T> for Land {
    fn identity(&self) -> T {
        T::one()
    }
    fn terminal(&self) -> Option<T> {
        Some(T::zero())
    }
}
impl<T: Scalar> Monoid<T> for Lxor {
    fn identity(&self) -> T {
        T::zero()
    }
}
impl<T: Scalar> Monoid<T> for Any {
    /// `ANY` has no true identity; GraphBLAS uses the type's zero, and any present
    /// value is terminal. Reductions must only combine present entries with it.
    fn identity(&self) -> T {
        T::zero()
    }
}

/// A user-defined binary operator from a function pointer.
///
/// ```
/// use bitgraphblas::algebra::{BinaryFn, BinaryOp};
/// let hypot = BinaryFn::<f64>::new(|x, y| (x * x + y * y).sqrt());
/// assert_eq!(hypot.apply(3.0, 4.0), 5.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BinaryFn<T: Scalar> {
    f: fn(T, T) -> T,
    identity: Option<T>,
}

impl<T: Scalar> BinaryFn<T> {
    /// An operator (not a monoid) from `f`.
    pub fn new(f: fn(T, T) -> T) -> Self {
        BinaryFn { f, identity: None }
    }
    /// A monoid from `f` and its identity. The caller promises that `f` is
    /// associative and commutative and that `identity` is its identity.
    pub fn monoid(f: fn(T, T) -> T, identity: T) -> Self {
        BinaryFn {
            f,
            identity: Some(identity),
        }
    }
}

impl<T: Scalar> BinaryOp<T> for BinaryFn<T> {
    const NAME: &'static str = "user";
    #[inline]
    fn apply(&self, x: T, y: T) -> T {
        (self.f)(x, y)
    }
}

impl<T: Scalar> Monoid<T> for BinaryFn<T> {
    /// The identity given to [`BinaryFn::monoid`] (zero when made with `new`).
    fn identity(&self) -> T {
        self.identity.unwrap_or_default()
    }
}
