//! The integer codes shared by the Rust side and the CUDA kernels: binary
//! operators, accumulators, unary operators and select predicates.
//!
//! The codes are defined once, in `codes_table.rs` (included here), from which
//! `build.rs` generates `$OUT_DIR/codes.cuh` for the kernels. The binary codes
//! are `BuiltinOp as i32`; the tests below check the table against it.

use super::mem::no_kernel;
use crate::algebra::{BinaryOp, BuiltinUnary, IndexOp, UnaryOp};
use crate::container::Accumulate;
use crate::error::Result;
use crate::scalar::Scalar;

include!("codes_table.rs");

pub(crate) fn op_code<T: Scalar, Op: BinaryOp<T>>(op: &'static str) -> Result<i32> {
    Op::BUILTIN
        .map(|b| b as i32)
        .ok_or_else(|| no_kernel(op, format!("user operator {}", Op::NAME)))
}

pub(crate) fn accum_code<T: Scalar, A: Accumulate<T>>(op: &'static str) -> Result<i32> {
    if !A::ACTIVE {
        return Ok(ACCUM_NONE);
    }
    A::BUILTIN
        .map(|b| b as i32)
        .ok_or_else(|| no_kernel(op, "a user-defined accumulator"))
}

pub(crate) fn unary_code<T: Scalar, F: UnaryOp<T>>(f: &F, op: &'static str) -> Result<(i32, T)> {
    Ok(match f.builtin() {
        Some(BuiltinUnary::Identity) => (UNARY_IDENTITY, T::zero()),
        Some(BuiltinUnary::Ainv) => (UNARY_AINV, T::zero()),
        Some(BuiltinUnary::Abs) => (UNARY_ABS, T::zero()),
        Some(BuiltinUnary::Lnot) => (UNARY_LNOT, T::zero()),
        Some(BuiltinUnary::One) => (UNARY_ONE, T::zero()),
        Some(BuiltinUnary::BindFirst(op, x)) => (UNARY_BIND_FIRST + op as i32, T::from_f64(x)),
        Some(BuiltinUnary::BindSecond(op, x)) => (UNARY_BIND_SECOND + op as i32, T::from_f64(x)),
        None => return Err(no_kernel(op, format!("user operator {}", F::NAME))),
    })
}

pub(crate) fn select_code<T: Scalar>(p: IndexOp<T>) -> (i32, i64, T) {
    let z = T::zero();
    match p {
        IndexOp::Tril(k) => (SELECT_TRIL, k, z),
        IndexOp::Triu(k) => (SELECT_TRIU, k, z),
        IndexOp::Diag(k) => (SELECT_DIAG, k, z),
        IndexOp::OffDiag(k) => (SELECT_OFFDIAG, k, z),
        IndexOp::RowLe(k) => (SELECT_ROW_LE, k, z),
        IndexOp::RowGt(k) => (SELECT_ROW_GT, k, z),
        IndexOp::ColLe(k) => (SELECT_COL_LE, k, z),
        IndexOp::ColGt(k) => (SELECT_COL_GT, k, z),
        IndexOp::ValueEq(x) => (SELECT_VALUE_EQ, 0, x),
        IndexOp::ValueNe(x) => (SELECT_VALUE_NE, 0, x),
        IndexOp::ValueGt(x) => (SELECT_VALUE_GT, 0, x),
        IndexOp::ValueGe(x) => (SELECT_VALUE_GE, 0, x),
        IndexOp::ValueLt(x) => (SELECT_VALUE_LT, 0, x),
        IndexOp::ValueLe(x) => (SELECT_VALUE_LE, 0, x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::BuiltinOp;

    /// Every built-in operator and its name in the table (an exhaustive match:
    /// a new operator fails to compile here until the table has it).
    fn binary_name(b: BuiltinOp) -> &'static str {
        match b {
            BuiltinOp::Plus => "OP_PLUS",
            BuiltinOp::Minus => "OP_MINUS",
            BuiltinOp::Times => "OP_TIMES",
            BuiltinOp::Div => "OP_DIV",
            BuiltinOp::Min => "OP_MIN",
            BuiltinOp::Max => "OP_MAX",
            BuiltinOp::Lor => "OP_LOR",
            BuiltinOp::Land => "OP_LAND",
            BuiltinOp::Lxor => "OP_LXOR",
            BuiltinOp::First => "OP_FIRST",
            BuiltinOp::Second => "OP_SECOND",
            BuiltinOp::Pair => "OP_PAIR",
            BuiltinOp::Any => "OP_ANY",
            BuiltinOp::AbsDiff => "OP_ABSDIFF",
        }
    }

    const ALL_BINARY: [BuiltinOp; 14] = [
        BuiltinOp::Plus,
        BuiltinOp::Minus,
        BuiltinOp::Times,
        BuiltinOp::Div,
        BuiltinOp::Min,
        BuiltinOp::Max,
        BuiltinOp::Lor,
        BuiltinOp::Land,
        BuiltinOp::Lxor,
        BuiltinOp::First,
        BuiltinOp::Second,
        BuiltinOp::Pair,
        BuiltinOp::Any,
        BuiltinOp::AbsDiff,
    ];

    #[test]
    fn binary_codes_are_builtin_op_as_i32() {
        // enum -> table
        for b in ALL_BINARY {
            let name = binary_name(b);
            let code = BINARY_CODES.iter().find(|(n, _)| *n == name).map(|e| e.1);
            assert_eq!(code, Some(b as i32), "{name}");
        }
        // table -> enum: every code is one operator's, in the enum's order
        assert_eq!(BINARY_CODES.len(), ALL_BINARY.len());
        for (i, &(name, code)) in BINARY_CODES.iter().enumerate() {
            assert_eq!(code, i as i32, "{name}");
            assert_eq!(binary_name(ALL_BINARY[i]), name);
        }
    }

    #[test]
    fn unary_and_select_codes() {
        // a bound operator never collides with a plain unary code or the other binding
        let max_op = BINARY_CODES.iter().map(|e| e.1).max().unwrap_or(0);
        assert!(UNARY_BIND_FIRST > UNARY_ONE && UNARY_BIND_FIRST + max_op < UNARY_BIND_SECOND);
        // select codes in IndexOp's order, index predicates first
        let ops: [IndexOp<i32>; 14] = [
            IndexOp::Tril(0),
            IndexOp::Triu(0),
            IndexOp::Diag(0),
            IndexOp::OffDiag(0),
            IndexOp::RowLe(0),
            IndexOp::RowGt(0),
            IndexOp::ColLe(0),
            IndexOp::ColGt(0),
            IndexOp::ValueEq(0),
            IndexOp::ValueNe(0),
            IndexOp::ValueGt(0),
            IndexOp::ValueGe(0),
            IndexOp::ValueLt(0),
            IndexOp::ValueLe(0),
        ];
        assert_eq!(SELECT_CODES.len(), ops.len());
        for (i, p) in ops.into_iter().enumerate() {
            assert_eq!(select_code(p).0, SELECT_CODES[i].1);
            assert_eq!(SELECT_CODES[i].1, i as i32);
        }
        assert_eq!(ACCUM_NONE, -1);
    }
}
