//! Containers: [`Matrix`] (CSR with values or B2SR iso-valued pattern),
//! [`Vector`] (dense, packed bits or sparse), and the descriptor vocabulary
//! ([`Desc`], [`Mask`], accumulators).

mod desc;
mod matrix;
mod vector;

pub use desc::{
    Accum, Accumulate, Desc, Flags, Mask, MaskArg, MatrixMask, MatrixMaskArg, NoAccum, NoMask,
};
pub use matrix::{Format, Matrix, MatrixRepr};
pub use vector::{Vector, VectorFormat, VectorRepr};
