//! The algebra: binary and unary operators, monoids and semirings.
//!
//! Operators are zero-sized types implementing [`BinaryOp`] (or small structs for
//! user closures); a [`Monoid`] is an associative, commutative operator with an
//! identity; a [`Semiring`] pairs an additive monoid with a multiplicative operator.
//! Built-in ones carry a [`BuiltinOp`] / [`KernelId`] tag so a backend can pick a
//! specialised kernel at compile time; user-defined ones leave it `None` and run on
//! the generic CPU path, and on the GPU where they give their operators as CUDA
//! source ([`DeviceOps`]; without it a GPU backend refuses them with
//! [`Error::NoKernel`]).
//!
//! [`Error::NoKernel`]: crate::Error::NoKernel

mod binary;
pub mod bits;
mod semiring;
mod unary;

pub use binary::{
    AbsDiff, Any, BinaryFn, BinaryOp, BuiltinOp, Div, First, Flipped, Land, Lor, Lxor, Max, Min,
    Minus, Monoid, Pair, Plus, Second, Times,
};
pub use bits::{BitDomain, BitSemiring};
pub use semiring::{
    AnyPair, DeviceOps, FlippedSemiring, KernelId, LorLand, MaxMin, MaxTimes, MinFirst, MinPlus,
    MinSecond, PlusPair, PlusTimes, Semiring, SemiringFrom, SemiringKind,
};
pub use unary::{
    Abs, Ainv, BindFirst, BindSecond, BuiltinUnary, Identity, IndexOp, IndexUnaryOp, Lnot, One,
    PositionalOp, UnaryFn, UnaryOp,
};
