//! A model's weights: a safetensors file as `scripts/gnn-train.py`
//! writes it, read whole and checked, with typed accessors that name the
//! tensor and the file when a tensor is missing or has another shape (a
//! dataset's `graph.safetensors` is read through the same accessors).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use bitgraphblas::io::ReadOptions;
use bitgraphblas::storage::{BitLayout, BitMatrix};
use bitgraphblas::DenseMatrix;
use safetensors::{Dtype, SafeTensors};

use super::error::{GnnError, GnnResult};

/// One tensor: its type, shape and where its little-endian bytes lie in
/// the file's bytes (kept once, not copied per tensor).
#[derive(Clone, Debug)]
struct Tensor {
    dtype: Dtype,
    shape: Vec<usize>,
    data: Range<usize>,
}

/// The tensors and metadata of one safetensors file.
///
/// ```
/// use bitgraphblas::io::{data_path, ReadOptions};
/// use bitgraphblas_algorithms::gnn::Weights;
/// let w = Weights::load(data_path("weights/gcn-cora.safetensors"), &ReadOptions::default())?;
/// assert_eq!(w.meta("model"), Some("gcn"));
/// let w1 = w.f32_matrix("conv1.weight", 1433, 16)?;
/// assert_eq!((w1.nrows(), w1.ncols()), (1433, 16));
/// // a tensor that is not there, or not of that shape: an error naming it
/// let e = w.f32_matrix("conv1.weight", 16, 16).unwrap_err().to_string();
/// assert!(e.contains("conv1.weight") && e.contains("[1433, 16]"));
/// assert!(w.f32_vector("conv3.bias", 7).is_err());
/// # Ok::<(), bitgraphblas_algorithms::gnn::GnnError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Weights {
    path: PathBuf,
    bytes: Vec<u8>,
    tensors: HashMap<String, Tensor>,
    metadata: HashMap<String, String>,
}

impl Weights {
    /// Reads and checks `path` (its size first, against `opts`).
    pub fn load(path: impl AsRef<Path>, opts: &ReadOptions) -> GnnResult<Weights> {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(|e| GnnError::file(path, e.to_string()))?;
        super::dataset::check_size(path, meta.len(), opts)?;
        let bytes = std::fs::read(path).map_err(|e| GnnError::file(path, e.to_string()))?;
        Weights::from_vec(bytes, path)
    }

    /// Parses the bytes of a safetensors file; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: impl AsRef<Path>) -> GnnResult<Weights> {
        Weights::from_vec(bytes.to_vec(), path)
    }

    /// Parses and keeps the bytes of a safetensors file: each tensor is a
    /// range of them.
    fn from_vec(bytes: Vec<u8>, path: impl AsRef<Path>) -> GnnResult<Weights> {
        let path = path.as_ref();
        let bad = |e: safetensors::SafeTensorError| {
            GnnError::file(path, format!("not a complete safetensors file: {e}"))
        };
        let (_, header) = SafeTensors::read_metadata(&bytes).map_err(bad)?;
        let st = SafeTensors::deserialize(&bytes).map_err(bad)?;
        let start = bytes.as_ptr() as usize;
        let tensors = st
            .tensors()
            .into_iter()
            .map(|(name, view)| {
                // the view borrows from `bytes`: its offset there
                let at = view.data().as_ptr() as usize - start;
                let t = Tensor {
                    dtype: view.dtype(),
                    shape: view.shape().to_vec(),
                    data: at..at + view.data().len(),
                };
                (name, t)
            })
            .collect();
        let metadata = header.metadata().clone().unwrap_or_default();
        Ok(Weights {
            path: path.to_path_buf(),
            bytes,
            tensors,
            metadata,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A metadata entry (`model`, `dataset`, `hidden`, `test_accuracy`, ...).
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).map(String::as_str)
    }

    /// True when the file holds a tensor called `name`.
    pub fn has(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// The shape of tensor `name`.
    pub fn shape(&self, name: &str) -> GnnResult<&[usize]> {
        Ok(&self.get(name)?.shape)
    }

    fn get(&self, name: &str) -> GnnResult<&Tensor> {
        self.tensors
            .get(name)
            .ok_or_else(|| GnnError::tensor(&self.path, name, "missing"))
    }

    /// Tensor `name`, checked to be of `dtype` and `shape`.
    fn typed(&self, name: &str, dtype: Dtype, shape: &[usize]) -> GnnResult<&[u8]> {
        let t = self.get(name)?;
        if t.dtype != dtype || t.shape != shape {
            return Err(GnnError::tensor(
                &self.path,
                name,
                format!(
                    "is {:?} {:?}, where {dtype:?} {shape:?} is needed",
                    t.dtype, t.shape
                ),
            ));
        }
        Ok(&self.bytes[t.data.clone()])
    }

    /// Tensor `name` of `dtype` and `shape` as values of `N` little-endian
    /// bytes each, turned into `T` by `value`; a value it refuses is an
    /// error naming the tensor and the entry ("entry k is ...").
    fn decode<const N: usize, T>(
        &self,
        name: &str,
        dtype: Dtype,
        shape: &[usize],
        value: impl Fn([u8; N]) -> Result<T, String>,
    ) -> GnnResult<Vec<T>> {
        let data = self.typed(name, dtype, shape)?;
        data.chunks_exact(N)
            .enumerate()
            .map(|(k, c)| {
                value(c.try_into().expect("N bytes")).map_err(|why| {
                    GnnError::tensor(&self.path, name, format!("entry {k} is {why}"))
                })
            })
            .collect()
    }

    fn f32s(&self, name: &str, shape: &[usize]) -> GnnResult<Vec<f32>> {
        self.decode(name, Dtype::F32, shape, |b| {
            let v = f32::from_le_bytes(b);
            v.is_finite()
                .then_some(v)
                .ok_or_else(|| format!("{v} (values must be finite)"))
        })
    }

    /// An f32 `[rows, cols]` tensor (finite values only).
    pub fn f32_matrix(&self, name: &str, rows: usize, cols: usize) -> GnnResult<DenseMatrix<f32>> {
        let v = self.f32s(name, &[rows, cols])?;
        Ok(DenseMatrix::from_vec(rows, cols, v)?)
    }

    /// An f32 `[len]` tensor (finite values only).
    pub fn f32_vector(&self, name: &str, len: usize) -> GnnResult<Vec<f32>> {
        self.f32s(name, &[len])
    }

    /// An i64 `[len]` tensor of offsets (row pointers), each checked to be
    /// non-negative and to fit a `usize`.
    pub fn offset_vector(&self, name: &str, len: usize) -> GnnResult<Vec<usize>> {
        self.decode(name, Dtype::I64, &[len], |b| {
            let v = i64::from_le_bytes(b);
            usize::try_from(v).map_err(|_| format!("{v} (negative)"))
        })
    }

    /// An i32 `[len]` tensor of indices, each checked to be non-negative.
    pub fn index_vector(&self, name: &str, len: usize) -> GnnResult<Vec<u32>> {
        self.decode(name, Dtype::I32, &[len], |b| {
            let v = i32::from_le_bytes(b);
            u32::try_from(v).map_err(|_| format!("{v} (negative)"))
        })
    }

    /// An i32 `[len]` tensor.
    pub fn i32_vector(&self, name: &str, len: usize) -> GnnResult<Vec<i32>> {
        self.decode(name, Dtype::I32, &[len], |b| Ok(i32::from_le_bytes(b)))
    }

    /// A u8 `[rows, cols]` tensor, row-major.
    pub fn u8_matrix(&self, name: &str, rows: usize, cols: usize) -> GnnResult<Vec<u8>> {
        Ok(self.typed(name, Dtype::U8, &[rows, cols])?.to_vec())
    }

    /// A `rows x cols` bit matrix in `layout` from a u8 tensor
    /// `[rows, ceil(cols / 8)]` holding column `j` of a row in bit `j % 8` of
    /// byte `j / 8` (the export's packing of sign bits).
    pub fn packed_bits(
        &self,
        name: &str,
        rows: usize,
        cols: usize,
        layout: BitLayout,
    ) -> GnnResult<BitMatrix> {
        let nb = cols.div_ceil(8);
        let data = self.typed(name, Dtype::U8, &[rows, nb])?;
        Ok(BitMatrix::from_fn(rows, cols, layout, |i, j| {
            data[i * nb + j / 8] >> (j % 8) & 1 == 1
        })?)
    }
}
