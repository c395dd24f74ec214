//! # bitgraphblas
//!
//! GraphBLAS-style sparse linear algebra whose core storage is **B2SR**
//! (bit-block compressed sparse rows: a CSR over the non-empty `k x k` tiles of
//! a pattern matrix, each tile packed as bits), on a multithreaded CPU backend
//! and (feature `cuda`) an NVIDIA GPU backend.
//!
//! ```
//! use bitgraphblas::{ops, algebra::PlusTimes, Cpu, Desc, Format, Matrix, TileSize, Vector};
//! let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0f32), (1, 2, 1.0), (2, 0, 1.0)])?
//!     .to_format(Format::B2sr(TileSize::T8))?;
//! let u = Vector::from_dense(vec![1.0f32, 2.0, 3.0]);
//! let mut w = Vector::empty(3);
//! ops::mxv(&Cpu::new(), &mut w, PlusTimes::<f32>::new(), &a, &u, &Desc::new())?;
//! assert_eq!(w.to_vec(0.0), vec![2.0, 3.0, 1.0]);
//! # Ok::<(), bitgraphblas::Error>(())
//! ```
//!
//! **When B2SR pays.** Graphs whose non-zeros cluster (meshes, road networks,
//! grids, web crawls in crawl order) fill tiles well; B2SR then stores several
//! times fewer bytes than CSR and moves fewer bytes per product. Random or
//! power-law graphs in random order leave tiles nearly empty: there
//! [`Format::Auto`] keeps CSR. [`storage::b2sr::Profile`] tells before converting.
//!
//! Layers: [`algebra`] (operators, monoids, semirings) and [`storage`] (CSR,
//! B2SR, bits) under [`container`] (Matrix, Vector, masks, descriptors), under
//! [`ops`] (the operations), which dispatch to a [`backend::Backend`]; [`ext`]
//! holds the fused operations beside them ([`ext::BackendExt`]).

#![warn(missing_docs)]

pub mod algebra;
pub mod backend;
pub mod container;
mod error;
pub mod ext;
pub mod generate;
pub mod io;
pub mod ops;
pub mod reorder;
mod scalar;
pub mod storage;

pub use algebra::{IndexOp, PositionalOp, Semiring};
#[cfg(feature = "cuda")]
pub use backend::cuda::CudaBackend;
pub use backend::{Backend, Cpu};
pub use container::{
    BitInput, BitOutput, BitPlanes, Desc, Format, Mask, Matrix, MatrixMask, Scales, Threshold,
    Vector, VectorFormat,
};
pub use error::{Error, Result};
pub use ext::BackendExt;
pub use scalar::{Scalar, ScalarType};

/// Set (to anything) to have start-up costs reported on standard error: on
/// the CUDA backend each kernel module's and kernel's first use in a process
/// (its size, and the milliseconds spent keying, reading or compiling and
/// loading it); the command line adds its own phases (opening the device,
/// building the graph, preparing it for the algorithm).
pub const TRACE_ENV: &str = "BITGRAPHBLAS_TRACE";

/// Whether [`TRACE_ENV`] is set.
pub fn tracing() -> bool {
    std::env::var_os(TRACE_ENV).is_some()
}
pub use storage::{BitLayout, BitMatrix, DenseMatrix, TileSize};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
