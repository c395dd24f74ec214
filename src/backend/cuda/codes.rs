//! The integer codes shared by the Rust side and the CUDA kernels: binary
//! operators, accumulators, unary operators and select predicates.

use super::mem::no_kernel;
use crate::algebra::{BinaryOp, BuiltinUnary, IndexOp, UnaryOp};
use crate::container::Accumulate;
use crate::error::Result;
use crate::scalar::Scalar;

pub(crate) fn op_code<T: Scalar, Op: BinaryOp<T>>(op: &'static str) -> Result<i32> {
    Op::BUILTIN
        .map(|b| b as i32)
        .ok_or_else(|| no_kernel(op, format!("user operator {}", Op::NAME)))
}

pub(crate) fn accum_code<T: Scalar, A: Accumulate<T>>(op: &'static str) -> Result<i32> {
    if !A::ACTIVE {
        return Ok(-1);
    }
    A::BUILTIN
        .map(|b| b as i32)
        .ok_or_else(|| no_kernel(op, "a user-defined accumulator"))
}

pub(crate) fn unary_code<T: Scalar, F: UnaryOp<T>>(f: &F) -> Result<(i32, T)> {
    Ok(match f.builtin() {
        Some(BuiltinUnary::Identity) => (0, T::zero()),
        Some(BuiltinUnary::Ainv) => (1, T::zero()),
        Some(BuiltinUnary::Abs) => (2, T::zero()),
        Some(BuiltinUnary::Lnot) => (3, T::zero()),
        Some(BuiltinUnary::One) => (4, T::zero()),
        Some(BuiltinUnary::BindFirst(op, x)) => (100 + op as i32, T::from_f64(x)),
        Some(BuiltinUnary::BindSecond(op, x)) => (200 + op as i32, T::from_f64(x)),
        None => return Err(no_kernel("apply", format!("user operator {}", F::NAME))),
    })
}

pub(crate) fn select_code<T: Scalar>(p: IndexOp<T>) -> (i32, i64, T) {
    let z = T::zero();
    match p {
        IndexOp::Tril(k) => (0, k, z),
        IndexOp::Triu(k) => (1, k, z),
        IndexOp::Diag(k) => (2, k, z),
        IndexOp::OffDiag(k) => (3, k, z),
        IndexOp::RowLe(k) => (4, k, z),
        IndexOp::RowGt(k) => (5, k, z),
        IndexOp::ValueEq(x) => (6, 0, x),
        IndexOp::ValueNe(x) => (7, 0, x),
        IndexOp::ValueGt(x) => (8, 0, x),
        IndexOp::ValueGe(x) => (9, 0, x),
        IndexOp::ValueLt(x) => (10, 0, x),
        IndexOp::ValueLe(x) => (11, 0, x),
    }
}
