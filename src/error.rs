//! The one error type of the crate.
//!
//! Every failure a caller can cause (a shape mismatch, a malformed file, an
//! operation a backend cannot run) comes back as an [`Error`]; nothing panics
//! through the public API. Outputs are left unchanged when an operation fails.

use std::path::PathBuf;

/// What went wrong.
///
/// ```
/// use bitgraphblas::Error;
/// let e = Error::DimensionMismatch { op: "mxv", detail: "A is 3x4, u has 5".into() };
/// assert!(e.to_string().contains("mxv"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Operand shapes do not fit together (GraphBLAS `GrB_DIMENSION_MISMATCH`).
    #[error("{op}: dimension mismatch: {detail}")]
    DimensionMismatch {
        /// The operation (`"mxv"`).
        op: &'static str,
        /// The shapes that disagree.
        detail: String,
    },

    /// An index is outside the object it addresses.
    #[error("{op}: index {index} out of bounds for length {len}")]
    IndexOutOfBounds {
        /// The operation.
        op: &'static str,
        /// The offending index.
        index: usize,
        /// The length it must stay below.
        len: usize,
    },

    /// An argument is not valid for the operation (empty tile size, bad option, ...).
    #[error("{op}: invalid argument: {detail}")]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// What is wrong with the argument.
        detail: String,
    },

    /// A storage object breaks its own invariants (from `validate()` or a loader).
    #[error("invalid {what}: {detail}")]
    InvalidStorage {
        /// The kind of object (`"csr"`, `"b2sr"`, `"vector"`).
        what: &'static str,
        /// The broken invariant.
        detail: String,
    },

    /// A matrix or vector is too large for 32-bit indices.
    #[error("{what} is too large: {detail}")]
    TooLarge {
        /// The kind of object.
        what: &'static str,
        /// Its size and the limit.
        detail: String,
    },

    /// A text file could not be parsed; `line` is 1-based.
    #[error("{path}: line {line}: {detail}")]
    Parse {
        /// The file.
        path: String,
        /// The 1-based line number.
        line: usize,
        /// What could not be parsed.
        detail: String,
    },

    /// A binary file is corrupt or of an unknown version.
    #[error("{path}: corrupt file: {detail}")]
    CorruptFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        detail: String,
    },

    /// An operating-system I/O error (the path shown with its control
    /// characters escaped, see [`crate::io::printable`]).
    #[error("{}: {source}", crate::io::printable(path.as_os_str().as_encoded_bytes()))]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating-system error.
        #[source]
        source: std::io::Error,
    },

    /// The backend has no kernel for this operation with this semiring or operator
    /// (a user-defined semiring on the GPU, for example). It never computes something else.
    #[error("{backend}: no kernel for {op} with {what}")]
    NoKernel {
        /// The backend (`"cuda"`).
        backend: &'static str,
        /// The operation.
        op: &'static str,
        /// The semiring, operator or format it has no kernel for.
        what: String,
    },

    /// The GPU cannot be used (no driver, no device, ...).
    #[error("GPU unavailable: {0}")]
    GpuUnavailable(String),

    /// A CUDA driver, NVRTC or cuSPARSE call failed.
    #[error("CUDA {op}: {detail}")]
    Cuda {
        /// The failing call.
        op: &'static str,
        /// The driver's message.
        detail: String,
    },

    /// Reading an input would need more memory than the reader's limit allows
    /// ([`crate::io::ReadOptions::max_bytes`]) or than the system could allocate.
    /// Raised before the allocation is made; nothing is left half-read.
    ///
    /// ```
    /// use bitgraphblas::io::{read_matrix_market_with, ReadOptions};
    /// let text = "%%MatrixMarket matrix coordinate pattern general\n1000000000 1000000000 1\n1 1\n";
    /// let opts = ReadOptions { max_bytes: 1 << 30, ..ReadOptions::default() };
    /// let e = read_matrix_market_with::<bool, _>(text.as_bytes(), "big.mtx", &opts).unwrap_err();
    /// assert!(e.to_string().contains("claims 1000000000 rows: 8.0 GB of row pointers"), "{e}");
    /// assert!(matches!(e, bitgraphblas::Error::OutOfMemory { needed: 8_000_000_008, .. }));
    /// ```
    #[error("{input}: {detail}")]
    OutOfMemory {
        /// The input being read (a path, or a name the caller gave).
        input: String,
        /// What the memory is for, how much, and the limit.
        detail: String,
        /// Bytes the allocation would need.
        needed: u64,
        /// The limit in bytes that applied.
        limit: u64,
    },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn dims(op: &'static str, detail: impl Into<String>) -> Self {
        Error::DimensionMismatch {
            op,
            detail: detail.into(),
        }
    }
    pub(crate) fn invalid(op: &'static str, detail: impl Into<String>) -> Self {
        Error::InvalidArgument {
            op,
            detail: detail.into(),
        }
    }
    pub(crate) fn storage(what: &'static str, detail: impl Into<String>) -> Self {
        Error::InvalidStorage {
            what,
            detail: detail.into(),
        }
    }
}
