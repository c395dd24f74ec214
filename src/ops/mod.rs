//! The GraphBLAS operations. Each checks shapes (a mismatch is an
//! [`Error::DimensionMismatch`] and leaves the output unchanged), then calls the
//! backend's entry point.
//!
//! Outputs follow the descriptor's rule `w<mask> = accum(w, t)` (see
//! [`Desc`](crate::Desc)): the operation computes `t`, the accumulator (if any)
//! merges it with the old output, and the mask decides which entries change.
//! A backend that cannot run an operation with a given semiring, operator or
//! storage format returns [`Error::NoKernel`] and computes nothing; the CPU
//! backend runs every combination.
//!
//! | family | operations |
//! |---|---|
//! | products | [`mxv`], [`vxm`], [`mxm`], [`mxm_reduce`], [`mxm_dense`] |
//! | element-wise | [`ewise_add`], [`ewise_mult`], [`ewise_union`] and their `_matrix` forms |
//! | apply, select | [`apply`], [`apply_matrix`], [`apply_index`], [`apply_index_matrix`], [`select`], [`select_matrix`] |
//! | reductions | [`reduce`], [`reduce_rows`], [`reduce_matrix`], [`reduce_scalar`], [`reduce_matrix_scalar`] |
//! | extract, assign | [`extract`], [`extract_matrix`], [`extract_col`], [`assign`], [`assign_scalar`], [`assign_matrix`], [`assign_matrix_scalar`], [`assign_row`], [`assign_col`] |
//! | sub-assign | [`subassign`], [`subassign_scalar`], [`subassign_matrix`], [`subassign_matrix_scalar`] |
//! | transpose, scaling | [`transpose`], [`scale_rows`], [`scale_cols`], [`scale_dense_rows`] |
//! | dense matrices | [`dense_mxm`], [`apply_dense`], [`ewise_dense`], [`scale_dense_cols`], [`argmax_rows`], [`log_softmax_rows`] |
//! | dense bits | [`bmm`], [`bspmm`], [`bmm_planes`], [`bspmm_planes`], [`binarize`], [`mean_abs`], [`unpack_bits`], [`bit_transpose`], [`quantize`], [`dequantize`] |
//!
//! ```
//! use bitgraphblas::{ops, algebra::LorLand, Cpu, Desc, Format, Matrix, TileSize, Vector};
//! // 0 -> 1 -> 2
//! let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (1, 2, true)]).unwrap()
//!     .to_format(Format::B2sr(TileSize::T4)).unwrap();
//! let frontier = Vector::from_entries(3, vec![(0, true)]).unwrap();
//! let mut next = Vector::empty(3);
//! // next = A' frontier: the out-neighbours of the frontier.
//! ops::vxm(&Cpu::new(), &mut next, LorLand, &frontier, &a, &Desc::new()).unwrap();
//! assert_eq!(next.get(1), Some(true));
//! assert_eq!(next.nvals(), 1);
//! ```
//!
//! [`Error::DimensionMismatch`]: crate::Error::DimensionMismatch
//! [`Error::NoKernel`]: crate::Error::NoKernel

mod apply_select;
mod bits;
mod check;
mod compose;
mod dense;
mod elementwise;
mod extract_assign;
mod lines;
mod product;
mod reduce;
mod subassign;
mod transpose_scale;

pub use apply_select::{
    apply, apply_index, apply_index_matrix, apply_matrix, select, select_matrix,
};
pub use bits::{
    binarize, bit_transpose, bmm, bmm_planes, bspmm, bspmm_planes, dequantize, mean_abs, quantize,
    unpack_bits,
};
pub(crate) use bits::{check_bmm, check_bspmm};
pub(crate) use check::need;
pub use dense::{
    apply_dense, argmax_rows, dense_mxm, ewise_dense, log_softmax_rows, scale_dense_cols,
};
pub use elementwise::{
    ewise_add, ewise_add_matrix, ewise_mult, ewise_mult_matrix, ewise_union, ewise_union_matrix,
};
pub use extract_assign::{
    assign, assign_matrix, assign_matrix_scalar, assign_scalar, extract, extract_matrix,
};
pub use lines::{assign_col, assign_row, extract_col};
pub use product::{mxm, mxm_dense, mxm_reduce, mxv, vxm};
pub use reduce::{reduce, reduce_matrix, reduce_matrix_scalar, reduce_rows, reduce_scalar};
pub use subassign::{subassign, subassign_matrix, subassign_matrix_scalar, subassign_scalar};
pub use transpose_scale::{scale_cols, scale_dense_rows, scale_rows, transpose};
