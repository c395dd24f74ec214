//! Element types: `bool`, `i32`, `u32`, `i64`, `u64`, `f32`, `f64`.
//!
//! [`Scalar`] carries the primitive arithmetic the built-in operators need, with
//! GraphBLAS meanings: integer `plus` and `times` wrap, `bool` `plus` is OR and
//! `times` is AND, float `min`/`max` ignore a NaN operand (as C's `fmin`).

use std::fmt::Debug;

/// The run-time name of an element type.
///
/// ```
/// use bitgraphblas::{Scalar, ScalarType};
/// assert_eq!(<f32 as Scalar>::TYPE, ScalarType::F32);
/// assert_eq!(ScalarType::U64.name(), "uint64");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl ScalarType {
    /// The GraphBLAS-style short name (`"bool"`, `"fp32"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "int32",
            ScalarType::U32 => "uint32",
            ScalarType::I64 => "int64",
            ScalarType::U64 => "uint64",
            ScalarType::F32 => "fp32",
            ScalarType::F64 => "fp64",
        }
    }
}

/// An element type of matrices and vectors.
///
/// ```
/// use bitgraphblas::Scalar;
/// assert_eq!(<u32 as Scalar>::plus(u32::MAX, 1), 0); // integers wrap
/// assert!(<bool as Scalar>::plus(true, false));         // bool plus is OR
/// assert_eq!(<f32 as Scalar>::min_of(f32::NAN, 2.0), 2.0);
/// ```
pub trait Scalar: Copy + Send + Sync + PartialEq + PartialOrd + Debug + Default + 'static {
    /// Which type this is, at run time.
    const TYPE: ScalarType;
    /// True for `f32` and `f64`.
    const IS_FLOAT: bool;
    /// Additive identity (false for bool).
    fn zero() -> Self;
    /// Multiplicative identity (true for bool).
    fn one() -> Self;
    /// The least value (`-inf` for floats, `false` for bool).
    fn lowest() -> Self;
    /// The greatest value (`+inf` for floats, `true` for bool).
    fn highest() -> Self;
    /// Addition (wrapping for integers, OR for bool).
    fn plus(a: Self, b: Self) -> Self;
    /// Subtraction (wrapping for integers, XOR for bool).
    fn minus(a: Self, b: Self) -> Self;
    /// Multiplication (wrapping for integers, AND for bool).
    fn times(a: Self, b: Self) -> Self;
    /// Division; integer division by zero gives 0 (bool: `a`).
    fn div(a: Self, b: Self) -> Self;
    /// The smaller operand (a NaN operand is ignored).
    fn min_of(a: Self, b: Self) -> Self;
    /// The larger operand (a NaN operand is ignored).
    fn max_of(a: Self, b: Self) -> Self;
    /// True where the value is not zero (how a valued mask reads an entry).
    fn is_nonzero(self) -> bool;
    /// Cast from `f64` (saturating for integers, `!= 0` for bool).
    fn from_f64(v: f64) -> Self;
    /// Cast to `f64` (bool: 0 or 1).
    fn to_f64(self) -> f64;
    /// Cast from a count (saturating; bool: `n != 0`).
    fn from_usize(n: usize) -> Self;
    /// Cast from `i64` as C casts: integers wrap (keep the low bits), floats
    /// round, bool is `v != 0` (the values of the positional operators,
    /// [`crate::algebra::PositionalOp`]).
    ///
    /// ```
    /// use bitgraphblas::Scalar;
    /// assert_eq!(<u32 as Scalar>::from_i64(-1), u32::MAX);
    /// assert_eq!(<i64 as Scalar>::from_i64(i64::MIN), i64::MIN);
    /// assert!(<bool as Scalar>::from_i64(-3));
    /// ```
    fn from_i64(v: i64) -> Self;
    /// True where `self` and `other` hold the same value, NaN counting as one
    /// value (how iso-valued storage tells that all entries are alike: a
    /// matrix of NaNs is iso NaN).
    ///
    /// ```
    /// use bitgraphblas::Scalar;
    /// assert!(f64::NAN.same_value(f64::NAN));
    /// assert!(!f64::NAN.same_value(1.0));
    /// assert!(3u32.same_value(3));
    /// ```
    #[inline]
    #[allow(clippy::eq_op)] // `x != x` is the type-generic NaN test
    fn same_value(self, other: Self) -> bool {
        self == other || (self != self && other != other)
    }
}

/// The methods the integer and float impls share: `min_of`, `max_of` (the
/// type's own `min`, `max`) and the `as` casts from and to `f64`.
macro_rules! numeric_common {
    ($t:ty) => {
        #[inline]
        fn min_of(a: Self, b: Self) -> Self {
            a.min(b)
        }
        #[inline]
        fn max_of(a: Self, b: Self) -> Self {
            a.max(b)
        }
        #[inline]
        fn from_f64(v: f64) -> Self {
            v as $t
        }
        #[inline]
        fn to_f64(self) -> f64 {
            self as f64
        }
        #[inline]
        fn from_i64(v: i64) -> Self {
            v as $t
        }
    };
}

macro_rules! int_scalar {
    ($t:ty, $tag:ident) => {
        impl Scalar for $t {
            const TYPE: ScalarType = ScalarType::$tag;
            const IS_FLOAT: bool = false;
            #[inline]
            fn zero() -> Self {
                0
            }
            #[inline]
            fn one() -> Self {
                1
            }
            #[inline]
            fn lowest() -> Self {
                <$t>::MIN
            }
            #[inline]
            fn highest() -> Self {
                <$t>::MAX
            }
            #[inline]
            fn plus(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            #[inline]
            fn minus(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
            #[inline]
            fn times(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            #[inline]
            fn div(a: Self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            numeric_common!($t);
            #[inline]
            fn is_nonzero(self) -> bool {
                self != 0
            }
            #[inline]
            fn from_usize(n: usize) -> Self {
                <$t>::try_from(n).unwrap_or(<$t>::MAX)
            }
        }
    };
}
int_scalar!(i32, I32);
int_scalar!(u32, U32);
int_scalar!(i64, I64);
int_scalar!(u64, U64);

macro_rules! float_scalar {
    ($t:ty, $tag:ident) => {
        impl Scalar for $t {
            const TYPE: ScalarType = ScalarType::$tag;
            const IS_FLOAT: bool = true;
            #[inline]
            fn zero() -> Self {
                0.0
            }
            #[inline]
            fn one() -> Self {
                1.0
            }
            #[inline]
            fn lowest() -> Self {
                <$t>::NEG_INFINITY
            }
            #[inline]
            fn highest() -> Self {
                <$t>::INFINITY
            }
            #[inline]
            fn plus(a: Self, b: Self) -> Self {
                a + b
            }
            #[inline]
            fn minus(a: Self, b: Self) -> Self {
                a - b
            }
            #[inline]
            fn times(a: Self, b: Self) -> Self {
                a * b
            }
            #[inline]
            fn div(a: Self, b: Self) -> Self {
                a / b
            }
            numeric_common!($t);
            #[inline]
            fn is_nonzero(self) -> bool {
                self != 0.0
            }
            #[inline]
            fn from_usize(n: usize) -> Self {
                n as $t
            }
        }
    };
}
float_scalar!(f32, F32);
float_scalar!(f64, F64);

impl Scalar for bool {
    const TYPE: ScalarType = ScalarType::Bool;
    const IS_FLOAT: bool = false;
    #[inline]
    fn zero() -> Self {
        false
    }
    #[inline]
    fn one() -> Self {
        true
    }
    #[inline]
    fn lowest() -> Self {
        false
    }
    #[inline]
    fn highest() -> Self {
        true
    }
    #[inline]
    fn plus(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline]
    fn minus(a: Self, b: Self) -> Self {
        a ^ b
    }
    #[inline]
    fn times(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline]
    fn div(a: Self, _b: Self) -> Self {
        a
    }
    #[inline]
    fn min_of(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline]
    fn max_of(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline]
    fn is_nonzero(self) -> bool {
        self
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline]
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    #[inline]
    fn from_usize(n: usize) -> Self {
        n != 0
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}
