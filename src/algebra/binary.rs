//! Binary operators and monoids.

use crate::scalar::Scalar;

/// Which built-in operator a [`BinaryOp`] is, so a backend can specialise on it.
///
/// ```
/// use bitgraphblas::algebra::{BinaryFn, BinaryOp, BuiltinOp, Min};
/// assert_eq!(<Min as BinaryOp<i32>>::BUILTIN, Some(BuiltinOp::Min));
/// assert_eq!(<BinaryFn<i32> as BinaryOp<i32>>::BUILTIN, None); // user operators have no tag
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinOp {
    /// [`Plus`].
    Plus,
    /// [`Minus`].
    Minus,
    /// [`Times`].
    Times,
    /// [`Div`].
    Div,
    /// [`Min`].
    Min,
    /// [`Max`].
    Max,
    /// [`Lor`].
    Lor,
    /// [`Land`].
    Land,
    /// [`Lxor`].
    Lxor,
    /// [`First`].
    First,
    /// [`Second`].
    Second,
    /// [`Pair`].
    Pair,
    /// [`Any`].
    Any,
    /// [`AbsDiff`].
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
    /// `value ⊕ value ⊕ ... ⊕ value` (`count` terms, folded from the left,
    /// stopping at the terminal value), or the identity when `count` is 0:
    /// the sum of an iso-valued container. The identity never enters a
    /// non-empty fold (ANY has no true identity).
    ///
    /// ```
    /// use bitgraphblas::algebra::{Any, Monoid, Plus};
    /// assert_eq!(Monoid::<u32>::fold_repeated(&Plus, 3, 4), 12);
    /// assert_eq!(Monoid::<u32>::fold_repeated(&Plus, 3, 0), 0);
    /// assert_eq!(Monoid::<u32>::fold_repeated(&Any, 7, 2), 7);
    /// ```
    fn fold_repeated(&self, value: T, count: usize) -> T {
        if count == 0 {
            return self.identity();
        }
        let mut acc = value;
        for _ in 1..count {
            if self.terminal() == Some(acc) {
                break;
            }
            acc = self.apply(acc, value);
        }
        acc
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

builtin_binary!(/// `x + y` (wrapping for integers, OR for bool). As a monoid: identity 0.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Monoid, Plus};
    /// assert_eq!(BinaryOp::<u32>::apply(&Plus, u32::MAX, 2), 1); // wraps
    /// assert!(BinaryOp::<bool>::apply(&Plus, true, true)); // OR
    /// assert_eq!(Monoid::<f64>::identity(&Plus), 0.0);
    /// ```
    Plus, "plus", Plus, |x, y| T::plus(x, y));
builtin_binary!(/// `x - y` (wrapping for integers, XOR for bool). Not a monoid.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Minus};
    /// assert_eq!(BinaryOp::<i32>::apply(&Minus, 2, 5), -3);
    /// assert_eq!(BinaryOp::<u32>::apply(&Minus, 2, 5), u32::MAX - 2); // wraps
    /// assert!(!BinaryOp::<bool>::apply(&Minus, true, true)); // XOR
    /// ```
    Minus, "minus", Minus, |x, y| T::minus(x, y));
builtin_binary!(/// `x * y` (wrapping for integers, AND for bool). As a monoid: identity 1,
    /// and 0 is terminal for integers and bool (not for floats, where `0 * NaN` is NaN).
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Monoid, Times};
    /// assert_eq!(BinaryOp::<i64>::apply(&Times, -3, 4), -12);
    /// assert_eq!(Monoid::<u32>::identity(&Times), 1);
    /// assert_eq!(Monoid::<u32>::terminal(&Times), Some(0));
    /// assert_eq!(Monoid::<f32>::terminal(&Times), None);
    /// ```
    Times, "times", Times, |x, y| T::times(x, y));
builtin_binary!(/// `x / y` (integer division truncates; integer division by zero gives 0).
    /// Not a monoid.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Div};
    /// assert_eq!(BinaryOp::<i32>::apply(&Div, 7, 2), 3);
    /// assert_eq!(BinaryOp::<i32>::apply(&Div, 7, 0), 0);
    /// assert_eq!(BinaryOp::<f64>::apply(&Div, 7.0, 2.0), 3.5);
    /// ```
    Div, "div", Div, |x, y| T::div(x, y));
builtin_binary!(/// The smaller of `x` and `y` (for floats a NaN operand is ignored). As a
    /// monoid: identity the type's largest value (`+inf` for floats), terminal its smallest.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Min, Monoid};
    /// assert_eq!(BinaryOp::<i32>::apply(&Min, -4, 3), -4);
    /// assert_eq!(BinaryOp::<f64>::apply(&Min, f64::NAN, 1.0), 1.0);
    /// assert_eq!(Monoid::<f32>::identity(&Min), f32::INFINITY);
    /// assert_eq!(Monoid::<u32>::terminal(&Min), Some(0));
    /// ```
    Min, "min", Min, |x, y| T::min_of(x, y));
builtin_binary!(/// The larger of `x` and `y` (for floats a NaN operand is ignored). As a
    /// monoid: identity the type's smallest value (`-inf` for floats), terminal its largest.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Max, Monoid};
    /// assert_eq!(BinaryOp::<i32>::apply(&Max, -4, 3), 3);
    /// assert_eq!(Monoid::<i64>::identity(&Max), i64::MIN);
    /// assert_eq!(Monoid::<f64>::identity(&Max), f64::NEG_INFINITY);
    /// ```
    Max, "max", Max, |x, y| T::max_of(x, y));
builtin_binary!(/// Logical OR of `x != 0` and `y != 0`, as 1 or 0. As a monoid: identity 0,
    /// terminal 1 (a reduction stops at the first nonzero).
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Lor, Monoid};
    /// assert_eq!(BinaryOp::<i32>::apply(&Lor, 0, 5), 1);
    /// assert_eq!(BinaryOp::<i32>::apply(&Lor, 0, 0), 0);
    /// assert_eq!(Monoid::<bool>::terminal(&Lor), Some(true));
    /// ```
    Lor, "lor", Lor, |x, y| if x.is_nonzero() || y.is_nonzero() { T::one() } else { T::zero() });
builtin_binary!(/// Logical AND of `x != 0` and `y != 0`, as 1 or 0. As a monoid: identity 1,
    /// terminal 0.
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Land, Monoid};
    /// assert_eq!(BinaryOp::<f32>::apply(&Land, 3.0, 4.0), 1.0);
    /// assert_eq!(BinaryOp::<f32>::apply(&Land, 3.0, 0.0), 0.0);
    /// assert!(Monoid::<bool>::identity(&Land));
    /// ```
    Land, "land", Land, |x, y| if x.is_nonzero() && y.is_nonzero() { T::one() } else { T::zero() });
builtin_binary!(/// Logical XOR of `x != 0` and `y != 0`, as 1 or 0. As a monoid: identity 0,
    /// no terminal (a parity reduction reads every entry).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::{BinaryOp, Lxor}, Cpu, Vector};
    /// assert!(!BinaryOp::<bool>::apply(&Lxor, true, true));
    /// // The parity of the number of set entries.
    /// let u = Vector::from_dense(vec![true, true, false, true]);
    /// assert!(ops::reduce(&Cpu::new(), Lxor, &u)?);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    Lxor, "lxor", Lxor, |x, y| if x.is_nonzero() != y.is_nonzero() { T::one() } else { T::zero() });
builtin_binary!(/// `x`. As an accumulator it keeps the old entries and only fills the gaps.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::{BinaryOp, First}, Cpu, Desc, Vector};
    /// assert_eq!(BinaryOp::<i32>::apply(&First, 1, 2), 1);
    /// let mut w = Vector::from_entries(3, vec![(0, 5i32)])?;
    /// ops::assign_scalar(&Cpu::new(), &mut w, 9, None, &Desc::new().accum(First))?;
    /// assert_eq!(w.to_vec(0), vec![5, 9, 9]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    First, "first", First, |x, _y| x);
builtin_binary!(/// `y`. As an accumulator it overwrites where the result is present and
    /// keeps the old entries elsewhere (no accumulator would delete them).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::{BinaryOp, Second}, Cpu, Desc, Vector};
    /// assert_eq!(BinaryOp::<f32>::apply(&Second, 1.0, 2.0), 2.0);
    /// let mut w = Vector::from_entries(3, vec![(0, 5i32), (2, 7)])?;
    /// let t = Vector::from_entries(3, vec![(0, 1i32), (1, 2)])?;
    /// ops::assign(&Cpu::new(), &mut w, &t, &[0, 1, 2], &Desc::new().accum(Second))?;
    /// assert_eq!(w.to_vec(0), vec![1, 2, 7]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    Second, "second", Second, |_x, y| y);
builtin_binary!(/// `1`, whatever the operands (GraphBLAS `PAIR`, also called `ONEB`): the
    /// multiplier of the counting semirings ([`PlusPair`](crate::algebra::PlusPair)).
    ///
    /// ```
    /// use bitgraphblas::algebra::{BinaryOp, Pair};
    /// assert_eq!(BinaryOp::<f64>::apply(&Pair, 7.5, -2.0), 1.0);
    /// assert!(BinaryOp::<bool>::apply(&Pair, false, false));
    /// ```
    Pair, "pair", Pair, |_x, _y| T::one());
builtin_binary!(/// Either operand (`ANY`: a reduction may keep whichever it meets first).
    /// This implementation returns `x`; results that depend on the choice are
    /// only defined up to it.
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::Any, Cpu, Vector};
    /// // Some present entry, whichever the backend meets first.
    /// let u = Vector::from_entries(6, vec![(1, 4u32), (4, 8)])?;
    /// let x = ops::reduce(&Cpu::new(), Any, &u)?;
    /// assert!(x == 4 || x == 8);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
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
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::BinaryFn, Cpu, Vector};
    /// let gcd = BinaryFn::<u64>::monoid(|mut a, mut b| { while b != 0 { (a, b) = (b, a % b); } a }, 0);
    /// let u = Vector::from_dense(vec![12u64, 18, 30]);
    /// assert_eq!(ops::reduce(&Cpu::new(), gcd, &u)?, 6);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
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

/// An operator with its operands swapped: `Flipped(op).apply(x, y) ==
/// op.apply(y, x)`. Built-in tags follow: `FIRST` and `SECOND` swap, the
/// commutative operators keep theirs, `MINUS` and `DIV` lose theirs (their
/// reverses are not built in).
///
/// ```
/// use bitgraphblas::algebra::{BinaryOp, BuiltinOp, Flipped, Minus, Second};
/// assert_eq!(BinaryOp::<i32>::apply(&Flipped(Minus), 2, 7), 5);
/// assert_eq!(<Flipped<Second> as BinaryOp<u32>>::BUILTIN, Some(BuiltinOp::First));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flipped<Op>(pub Op);

impl<T: Scalar, Op: BinaryOp<T>> BinaryOp<T> for Flipped<Op> {
    const NAME: &'static str = Op::NAME;
    const BUILTIN: Option<BuiltinOp> = match Op::BUILTIN {
        Some(BuiltinOp::First) => Some(BuiltinOp::Second),
        Some(BuiltinOp::Second) => Some(BuiltinOp::First),
        Some(BuiltinOp::Minus | BuiltinOp::Div) | None => None,
        Some(op) => Some(op),
    };
    #[inline]
    fn apply(&self, x: T, y: T) -> T {
        self.0.apply(y, x)
    }
}
