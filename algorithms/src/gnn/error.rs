//! What can go wrong when a GNN is loaded or run.

use std::path::Path;

/// A GNN error: the library's own, or a problem with a dataset or weights
/// file that names the file (and the tensor).
///
/// ```
/// use bitgraphblas_algorithms::gnn::GnnError;
/// let e = GnnError::tensor("w.safetensors", "conv1.weight", "missing");
/// assert_eq!(e.to_string(), "w.safetensors: tensor conv1.weight: missing");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum GnnError {
    /// From the library (shapes, kernels, devices, files it reads).
    #[error(transparent)]
    Library(#[from] bitgraphblas::Error),
    /// A dataset or weights file that cannot be used as it is.
    #[error("{file}: {detail}")]
    File {
        /// The file's path as given.
        file: String,
        /// What is wrong with it.
        detail: String,
    },
    /// A tensor of a weights file that is missing or does not fit.
    #[error("{file}: tensor {tensor}: {detail}")]
    Tensor {
        /// The weights file.
        file: String,
        /// The tensor's name.
        tensor: String,
        /// What is wrong with it.
        detail: String,
    },
    /// A model name `--model` does not know.
    #[error("unknown model {0:?} (the models: {list})", list = super::Model::names().join(", "))]
    UnknownModel(String),
}

impl GnnError {
    /// A [`GnnError::File`].
    pub fn file(file: impl AsRef<Path>, detail: impl Into<String>) -> Self {
        GnnError::File {
            file: file.as_ref().display().to_string(),
            detail: detail.into(),
        }
    }

    /// A [`GnnError::Tensor`].
    pub fn tensor(file: impl AsRef<Path>, tensor: &str, detail: impl Into<String>) -> Self {
        GnnError::Tensor {
            file: file.as_ref().display().to_string(),
            tensor: tensor.to_string(),
            detail: detail.into(),
        }
    }
}

/// The result of GNN calls.
pub type GnnResult<T> = std::result::Result<T, GnnError>;
