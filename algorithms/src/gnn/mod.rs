//! Graph neural network inference, as a client of the library like the
//! graph algorithms: every layer is written with the public `ops` calls
//! (pattern products for aggregation, bit products for the weights,
//! element-wise calls for the rest), so each model runs unchanged on the
//! CPU and the CUDA backends.
//!
//! - [`Dataset`]: a node-classification dataset directory (`data/cora/`).
//! - [`Weights`]: a safetensors file from `scripts/gnn-train.py`
//!   (`data/weights/MODEL-DATASET.safetensors`).
//! - [`Model`], [`Network`]: the models (GCN, k-bit GCN, Bi-GCN in its full
//!   and binary-aggregation forms, GraphSAGE, GraphSAINT-style and their
//!   binary forms) and their forward pass.
//! - [`GnnGraph`]: a dataset's graph operators and features on a backend.
//!
//! ```
//! use bitgraphblas::io::{data_path, ReadOptions};
//! use bitgraphblas::{Cpu, Format};
//! use bitgraphblas_algorithms::gnn::{Dataset, GnnGraph, Model, Network, Weights};
//! let cpu = Cpu::new();
//! let opts = ReadOptions::default();
//! let cora = Dataset::load(data_path("cora"), &opts)?;
//! let model = Model::parse("gcn")?;
//! let w = Weights::load(data_path("weights/gcn-cora.safetensors"), &opts)?;
//! let net = Network::load(&cpu, model, &w, cora.features.ncols(), cora.classes())?;
//! let g = GnnGraph::upload(&cpu, &cora, model.needs(), Format::Auto)?;
//! let out = net.forward(&cpu, &g)?;
//! let predictions = net.predict(&cpu, &out.logits)?;
//! assert_eq!(predictions.len(), 2708);
//! assert!(cora.accuracy(&predictions, &cora.split.test) > 0.78);
//! # Ok::<(), bitgraphblas_algorithms::gnn::GnnError>(())
//! ```

mod dataset;
mod error;
mod graph;
mod layers;
mod models;
mod weights;

pub use dataset::{Dataset, Split};
pub use error::{GnnError, GnnResult};
pub use graph::{FeatureForm, Features, GnnGraph, Needs};
pub use layers::{Act, Bias, BinLinear, BnThreshold, Linear, QLinear};
pub use models::{Hidden, Inference, Model, Network};
pub use weights::Weights;
