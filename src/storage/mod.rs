//! Storage formats: CSR with values, B2SR bit tiles, packed bit vectors,
//! dense bit matrices and dense row-major matrices. Containers ([`crate::Matrix`], [`crate::Vector`])
//! wrap these; kernels work on them directly.

pub mod b2sr;
pub mod bits;
mod bitvec;
mod csr;
mod dense;

pub use b2sr::{B2sr, TileSize};
pub use bits::{BitLayout, BitMatrix};
pub use bitvec::BitVec;
pub(crate) use csr::check_u32 as csr_check_u32;
pub use csr::Csr;
pub use dense::DenseMatrix;
