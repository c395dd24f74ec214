//! Containers: [`Matrix`] (CSR with values or B2SR iso-valued pattern),
//! [`Vector`] (dense, packed bits or sparse), and the descriptor vocabulary
//! ([`Desc`], [`Mask`], accumulators), and the operands and outputs of the
//! bit products ([`BitInput`], [`BitOutput`], [`BitPlanes`]).

mod bits;
mod desc;
mod matrix;
mod vector;

pub use bits::{BitInput, BitOutput, BitPlanes, Scales, Threshold};
pub use desc::{
    Accum, Accumulate, Desc, Flags, Mask, MaskArg, MatrixMask, MatrixMaskArg, NoAccum, NoMask,
};
pub use matrix::{Format, Matrix, MatrixRepr};
pub use vector::{Vector, VectorFormat, VectorRepr};
