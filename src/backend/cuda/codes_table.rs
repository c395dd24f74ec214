// The integer codes shared by the Rust side and the CUDA kernels, defined
// once. No crate dependencies: `codes.rs` includes this file for the crate,
// and `build.rs` includes it to write `$OUT_DIR/codes.cuh` (one `#define` per
// code) for the kernels, which `#include "codes.cuh"` (through
// `cuda/common.cuh`). Plain `//` comments: an `include!`d file cannot carry
// inner doc comments.

/// Defines one `i32` constant per code and a table `(name, code)` of them,
/// the table in the order given (`build.rs` writes it as `#define NAME code`).
macro_rules! code_table {
    ($(#[$tm:meta])* $table:ident { $($(#[$m:meta])* $name:ident = $v:expr,)* }) => {
        $($(#[$m])* pub(crate) const $name: i32 = $v;)*
        $(#[$tm])*
        #[allow(dead_code)] // read by build.rs and the tests
        pub(crate) const $table: &[(&str, i32)] = &[$((stringify!($name), $name)),*];
    };
}

code_table! {
    /// Binary operator codes: `BuiltinOp as i32` (src/algebra/binary.rs, in its
    /// order; a test in `codes.rs` checks both directions). Semiring modules get
    /// their (add, mul) pair as `-DSR_ADD=<code> -DSR_MUL=<code>`.
    BINARY_CODES {
        /// `x + y` (bool: OR).
        OP_PLUS = 0,
        /// `x - y`.
        OP_MINUS = 1,
        /// `x * y` (bool: AND).
        OP_TIMES = 2,
        /// `x / y`.
        OP_DIV = 3,
        /// `min(x, y)`.
        OP_MIN = 4,
        /// `max(x, y)`.
        OP_MAX = 5,
        /// `x || y`.
        OP_LOR = 6,
        /// `x && y`.
        OP_LAND = 7,
        /// `x != y` on truth values.
        OP_LXOR = 8,
        /// `x`.
        OP_FIRST = 9,
        /// `y`.
        OP_SECOND = 10,
        /// `1`.
        OP_PAIR = 11,
        /// Either operand.
        OP_ANY = 12,
        /// `|x - y|`.
        OP_ABSDIFF = 13,
    }
}

code_table! {
    /// Accumulator codes: a binary operator code, or none.
    ACCUM_CODES {
        /// No accumulator (`accum < 0` in the kernels).
        ACCUM_NONE = -1,
    }
}

code_table! {
    /// Unary operator codes (`vec_apply`): the built-in unary operators, and a
    /// binary operator code plus `UNARY_BIND_FIRST` (`op(s, x)`) or
    /// `UNARY_BIND_SECOND` (`op(x, s)`) for a bound operand `s`.
    UNARY_CODES {
        /// `x`.
        UNARY_IDENTITY = 0,
        /// `-x`.
        UNARY_AINV = 1,
        /// `|x|`.
        UNARY_ABS = 2,
        /// `!x`.
        UNARY_LNOT = 3,
        /// `1`.
        UNARY_ONE = 4,
        /// Plus a binary operator code: its first operand bound.
        UNARY_BIND_FIRST = 100,
        /// Plus a binary operator code: its second operand bound.
        UNARY_BIND_SECOND = 200,
    }
}

code_table! {
    /// Select predicate codes (`IndexOp` in src/algebra/unary.rs): on the
    /// entry's row `i` and column `j` (vectors: `i` the index, `j = 0`) with
    /// the operand `k`, or on its value `x` with the threshold `th`. The index
    /// predicates come first (`code < SELECT_VALUE_EQ`).
    SELECT_CODES {
        /// `j <= i + k`.
        SELECT_TRIL = 0,
        /// `j >= i + k`.
        SELECT_TRIU = 1,
        /// `j == i + k`.
        SELECT_DIAG = 2,
        /// `j != i + k`.
        SELECT_OFFDIAG = 3,
        /// `i <= k`.
        SELECT_ROW_LE = 4,
        /// `i > k`.
        SELECT_ROW_GT = 5,
        /// `j <= k`.
        SELECT_COL_LE = 6,
        /// `j > k`.
        SELECT_COL_GT = 7,
        /// `x == th`.
        SELECT_VALUE_EQ = 8,
        /// `x != th`.
        SELECT_VALUE_NE = 9,
        /// `x > th`.
        SELECT_VALUE_GT = 10,
        /// `x >= th`.
        SELECT_VALUE_GE = 11,
        /// `x < th`.
        SELECT_VALUE_LT = 12,
        /// `x <= th`.
        SELECT_VALUE_LE = 13,
    }
}

code_table! {
    /// Delta-stepping's layout on the device (`cuda/sssp.cu` and its host
    /// loop in `src/backend/cuda/sssp.rs`).
    SSSP_CODES {
        /// The counter words: the bucket starts (two), queue lengths (three
        /// launches), wide-row counts (three launches).
        SS_WORDS = 8,
        /// The first bucket-start word (bucket `b` at `SS_LO + b % 2`).
        SS_LO = 0,
        /// The first queue-length word (launch `j` at `SS_QN + j % 3`).
        SS_QN = 2,
        /// The first wide-row count word (launch `j` at `SS_WIDE + j % 3`).
        SS_WIDE = 5,
        /// A queued vertex with more light edges than this is relaxed by the
        /// whole grid (`sssp_light_wide`), not by one group of lanes.
        SS_WIDE_ROW = 4096,
    }
}

/// Every table, with the comment `build.rs` writes above it in `codes.cuh`.
#[allow(dead_code)] // read by build.rs
pub(crate) const CODE_TABLES: [(&str, &[(&str, i32)]); 5] = [
    (
        "Binary operator codes: the order of `BuiltinOp` in src/algebra/binary.rs.",
        BINARY_CODES,
    ),
    ("Accumulator codes: a binary operator code, or none.", ACCUM_CODES),
    (
        "Unary operator codes (vec_apply): 100 + op binds op's first operand, 200 + op its second.",
        UNARY_CODES,
    ),
    (
        "Select predicate codes: index predicates (i, j, k) below SELECT_VALUE_EQ, value predicates (x, th) from it.",
        SELECT_CODES,
    ),
    (
        "Delta-stepping's counter words and wide-row bound (cuda/sssp.cu).",
        SSSP_CODES,
    ),
];
