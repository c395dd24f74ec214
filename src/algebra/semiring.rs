//! Semirings: an additive [`Monoid`] and a multiplicative [`BinaryOp`].

use std::marker::PhantomData;

use super::binary::{Any, BinaryOp, Land, Lor, Max, Min, Monoid, Pair, Plus, Second, Times};
use crate::scalar::{Scalar, ScalarType};

/// The built-in semiring families a backend may specialise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SemiringKind {
    /// `LOR.LAND` on bool: reachability.
    LorLand,
    /// `ANY.PAIR`: "is there any path", value 1.
    AnyPair,
    /// `PLUS.TIMES`: ordinary arithmetic.
    PlusTimes,
    /// `PLUS.PAIR`: counting (triangle counting, degrees).
    PlusPair,
    /// `MIN.PLUS`: tropical, shortest paths.
    MinPlus,
    /// `MAX.TIMES`: most reliable path.
    MaxTimes,
    /// `MIN.SECOND`: smallest neighbour value (parents in BFS, FastSV).
    MinSecond,
    /// `MAX.MIN`: bottleneck paths.
    MaxMin,
}

impl SemiringKind {
    /// The snake-case family name (`"min_plus"`).
    pub fn name(self) -> &'static str {
        match self {
            SemiringKind::LorLand => "lor_land",
            SemiringKind::AnyPair => "any_pair",
            SemiringKind::PlusTimes => "plus_times",
            SemiringKind::PlusPair => "plus_pair",
            SemiringKind::MinPlus => "min_plus",
            SemiringKind::MaxTimes => "max_times",
            SemiringKind::MinSecond => "min_second",
            SemiringKind::MaxMin => "max_min",
        }
    }
}

/// Identifies a built-in semiring at a given element type. Only this crate can
/// make one, so a user semiring can never claim a specialised kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId {
    kind: SemiringKind,
    ty: ScalarType,
}

impl KernelId {
    pub(crate) const fn new(kind: SemiringKind, ty: ScalarType) -> Self {
        KernelId { kind, ty }
    }
    /// The semiring family.
    pub fn kind(self) -> SemiringKind {
        self.kind
    }
    /// The element type.
    pub fn scalar_type(self) -> ScalarType {
        self.ty
    }
}

/// A semiring over one element type `T`: `add` is a commutative monoid whose
/// identity is the value of absent entries, `mul` combines a matrix entry with a
/// vector entry (`mul(a_ij, u_j)`).
///
/// ```
/// use bitgraphblas::algebra::{MinPlus, Semiring};
/// let s = MinPlus::<f32>::new();
/// assert_eq!(s.zero(), f32::INFINITY);
/// assert_eq!(s.add(3.0, 2.0), 2.0);
/// assert_eq!(s.mul(1.0, 2.0), 3.0);
/// ```
pub trait Semiring: Copy + Send + Sync {
    /// The element type of inputs and outputs.
    type T: Scalar;
    /// The additive monoid.
    type Add: Monoid<Self::T>;
    /// The multiplicative operator.
    type Mul: BinaryOp<Self::T>;
    /// Name used in errors, logs and benchmark ids (`"min_plus_fp32"`).
    const NAME: &'static str;
    /// The built-in identity of this semiring, `None` for user semirings.
    const KERNEL: Option<KernelId> = None;
    /// The additive monoid.
    fn add_op(&self) -> Self::Add;
    /// The multiplicative operator.
    fn mul_op(&self) -> Self::Mul;
    /// The additive identity.
    #[inline]
    fn zero(&self) -> Self::T {
        self.add_op().identity()
    }
    /// `a ⊕ b`.
    #[inline]
    fn add(&self, a: Self::T, b: Self::T) -> Self::T {
        self.add_op().apply(a, b)
    }
    /// `a ⊗ b`.
    #[inline]
    fn mul(&self, a: Self::T, b: Self::T) -> Self::T {
        self.mul_op().apply(a, b)
    }
    /// The additive terminal value, if any.
    #[inline]
    fn terminal(&self) -> Option<Self::T> {
        self.add_op().terminal()
    }
}

/// A user-defined semiring from a monoid and an operator; always runs on the
/// generic path (even when both parts are built-in operators).
///
/// ```
/// use bitgraphblas::algebra::{Max, Plus, Semiring, SemiringFrom};
/// let max_plus = SemiringFrom::<i64, _, _>::new(Max, Plus);
/// assert_eq!(max_plus.add(2, 5), 5);
/// assert_eq!(max_plus.mul(2, 5), 7);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SemiringFrom<T, A, M> {
    add: A,
    mul: M,
    _t: PhantomData<fn() -> T>,
}

impl<T: Scalar, A: Monoid<T>, M: BinaryOp<T>> SemiringFrom<T, A, M> {
    /// Pairs an additive monoid with a multiplicative operator.
    pub fn new(add: A, mul: M) -> Self {
        SemiringFrom {
            add,
            mul,
            _t: PhantomData,
        }
    }
}

impl<T: Scalar, A: Monoid<T>, M: BinaryOp<T>> Semiring for SemiringFrom<T, A, M> {
    type T = T;
    type Add = A;
    type Mul = M;
    const NAME: &'static str = "user";
    fn add_op(&self) -> A {
        self.add
    }
    fn mul_op(&self) -> M {
        self.mul
    }
}

macro_rules! builtin_semiring {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $add:ident, $mul:ident, $prefix:literal, [$($t:ty),*]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name<T = f32>(PhantomData<fn() -> T>);
        impl<T> $name<T> {
            /// The semiring at element type `T`.
            pub const fn new() -> Self {
                $name(PhantomData)
            }
        }
        $(
            impl Semiring for $name<$t> {
                type T = $t;
                type Add = $add;
                type Mul = $mul;
                const NAME: &'static str = concat!($prefix, "_", stringify!($t));
                const KERNEL: Option<KernelId> =
                    Some(KernelId::new(SemiringKind::$kind, <$t as Scalar>::TYPE));
                #[inline] fn add_op(&self) -> $add { $add }
                #[inline] fn mul_op(&self) -> $mul { $mul }
            }
        )*
    };
}

builtin_semiring!(/// `PLUS.TIMES`: `w_i = Σ_j a_ij · u_j`.
    PlusTimes, PlusTimes, Plus, Times, "plus_times", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `PLUS.PAIR`: `w_i` = number of `j` with both `a_ij` and `u_j` present.
    PlusPair, PlusPair, Plus, Pair, "plus_pair", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MIN.PLUS`: `w_i = min_j (a_ij + u_j)`; shortest paths.
    MinPlus, MinPlus, Min, Plus, "min_plus", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MAX.TIMES`: `w_i = max_j (a_ij · u_j)`. Unsigned and float types only,
    /// where the identity (0 or -inf) behaves.
    MaxTimes, MaxTimes, Max, Times, "max_times", [u32, u64, f32, f64]);
builtin_semiring!(/// `MIN.SECOND`: `w_i = min_j u_j` over the neighbours `j` of `i`.
    MinSecond, MinSecond, Min, Second, "min_second", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `MAX.MIN`: `w_i = max_j min(a_ij, u_j)`; bottleneck paths.
    MaxMin, MaxMin, Max, Min, "max_min", [i32, u32, i64, u64, f32, f64]);
builtin_semiring!(/// `ANY.PAIR`: `w_i = 1` wherever some `j` has both `a_ij` and `u_j`.
    AnyPair, AnyPair, Any, Pair, "any_pair", [bool, i32, u32, i64, u64, f32, f64]);

/// `LOR.LAND` on bool: `w_i = ∨_j (a_ij ∧ u_j)`; the reachability semiring.
///
/// ```
/// use bitgraphblas::algebra::{LorLand, Semiring};
/// assert!(LorLand.add(true, false));
/// assert!(!LorLand.mul(true, false));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LorLand;

impl Semiring for LorLand {
    type T = bool;
    type Add = Lor;
    type Mul = Land;
    const NAME: &'static str = "lor_land_bool";
    const KERNEL: Option<KernelId> = Some(KernelId::new(SemiringKind::LorLand, ScalarType::Bool));
    #[inline]
    fn add_op(&self) -> Lor {
        Lor
    }
    #[inline]
    fn mul_op(&self) -> Land {
        Land
    }
}
