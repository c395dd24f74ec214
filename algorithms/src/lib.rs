//! # bitgraphblas-algorithms
//!
//! Graph algorithms written against the public API of [`bitgraphblas`] only,
//! generic over the [`Backend`](bitgraphblas::Backend), so each runs on the CPU
//! and on the GPU: [`bfs()`], [`sssp()`], [`pagerank()`], [`connected_components`],
//! [`triangle_count`] and [`betweenness`]. Each states its semiring, masks and
//! cost in its documentation.
//!
//! A [`Graph`] holds the adjacency pattern (and weights) and builds the backend
//! matrices an algorithm needs once (`A'` in B2SR for pull products, `A` in CSR
//! for push products, the lower triangle for triangle counting, ...).
//!
//! Conventions: vertices are numbered from 0; a stored entry `(i, j)` is an edge
//! from `i` to `j`.
//!
//! ```
//! use bitgraphblas::{Cpu, Format, Matrix, TileSize};
//! use bitgraphblas_algorithms::{bfs, triangle_count, Graph};
//! let e = vec![(0, 1, true), (1, 0, true), (1, 2, true), (2, 1, true), (0, 2, true), (2, 0, true)];
//! let cpu = Cpu::new();
//! let g = Graph::new(&cpu, Matrix::from_triplets(3, 3, e).unwrap(), None, Format::B2sr(TileSize::T4)).unwrap();
//! assert_eq!(bfs(&g, 0, false).unwrap().levels, vec![0, 1, 1]);
//! assert_eq!(triangle_count(&g).unwrap(), 1);
//! ```

#![warn(missing_docs)]

pub mod bc;
pub mod bfs;
pub mod cc;
pub mod gnn;
pub mod graph;
pub mod load;
pub mod pagerank;
pub mod sssp;
pub mod tc;

pub use bc::{betweenness, even_sources};
pub use bfs::{bfs, bfs_on_backend, bfs_with, BfsDevice, BfsResult, Direction};
pub use cc::connected_components;
pub use graph::{Algorithm, Graph};
pub use pagerank::{pagerank, pagerank_on_backend, PageRank, PageRankDevice, PageRankOptions};
pub use sssp::sssp;
pub use tc::triangle_count;
