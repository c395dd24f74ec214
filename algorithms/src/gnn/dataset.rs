//! A node-classification dataset on the host: the graph, the node
//! features, the labels and the train / validation / test split, read from
//! a directory as the Planetoid files in `data/cora/` are laid out.

use std::path::{Path, PathBuf};

use bitgraphblas::io::{self, ReadOptions};
use bitgraphblas::storage::Csr;
use bitgraphblas::Matrix;

use super::error::{GnnError, GnnResult};
use super::weights::Weights;

/// The node ids of the three parts of a split.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// Training nodes.
    pub train: Vec<usize>,
    /// Validation nodes.
    pub val: Vec<usize>,
    /// Test nodes (the accuracy `bitgraphblas gnn` reports).
    pub test: Vec<usize>,
}

/// A dataset directory, read and checked:
///
/// - `adj.mtx`: the `n x n` adjacency (a pattern; symmetric files hold both
///   directions; values, if any, are not read);
/// - `features.mtx`: the `n x f` node features;
/// - `labels.txt`: `n` lines, one class id per node (`-1`: no label);
/// - `split.json`: `{"train": [...], "val": [...], "test": [...]}` node ids.
///
/// Or, for graphs too large for text, `graph.safetensors` in place of the
/// two Matrix Market files: both matrices in CSR, as the tensors
/// `adj_row_ptr` (I64 `[n + 1]`), `adj_col_idx` (I32 `[nnz]`, columns
/// ascending within a row), `feat_row_ptr`, `feat_col_idx` and
/// `feat_values` (F32), the feature width in the metadata entry `features`
/// (`scripts/gpu-gnn-bench.sh` writes one for its generated Reddit-size
/// graph).
///
/// ```
/// use bitgraphblas::io::{data_path, ReadOptions};
/// use bitgraphblas_algorithms::gnn::Dataset;
/// let cora = Dataset::load(data_path("cora"), &ReadOptions::default())?;
/// assert_eq!((cora.nodes(), cora.features.ncols(), cora.classes()), (2708, 1433, 7));
/// assert_eq!(cora.split.test.len(), 1000);
/// assert!(cora.binary_features());
/// # Ok::<(), bitgraphblas_algorithms::gnn::GnnError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The directory's last component (`cora`).
    pub name: String,
    /// The adjacency, `n x n`, as the file has it (no self loops added).
    pub adjacency: Matrix<bool>,
    /// The features, `n x f`, CSR.
    pub features: Matrix<f32>,
    /// One class per node, `-1` where a node has none.
    pub labels: Vec<i64>,
    /// The split.
    pub split: Split,
}

impl Dataset {
    /// Reads the files of `dir` within `opts`' limits; an `Err` names the
    /// file (and tensor) and what does not fit (row counts, label count,
    /// node ids out of range, a malformed file).
    pub fn load(dir: impl AsRef<Path>, opts: &ReadOptions) -> GnnResult<Dataset> {
        let dir = dir.as_ref();
        let file = |name: &str| -> PathBuf { dir.join(name) };
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        let (adjacency, features) = if file(GRAPH_FILE).exists() && !file("adj.mtx").exists() {
            read_graph_file(&file(GRAPH_FILE), opts)?
        } else {
            read_matrix_market(dir, opts)?
        };
        let n = adjacency.nrows();
        let labels = read_labels(&file("labels.txt"), n, opts)?;
        let split = read_split(&file("split.json"), n, opts)?;
        Ok(Dataset {
            name,
            adjacency,
            features,
            labels,
            split,
        })
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.adjacency.nrows()
    }

    /// One more than the largest label (0 when no node has one).
    pub fn classes(&self) -> usize {
        self.labels
            .iter()
            .max()
            .map_or(0, |&m| (m + 1).max(0) as usize)
    }

    /// True when every stored feature is 0 or 1 (bag-of-words features):
    /// then the features are exact as bits.
    pub fn binary_features(&self) -> bool {
        self.features
            .as_csr()
            .values()
            .iter()
            .all(|&v| v == 0.0 || v == 1.0)
    }

    /// The fraction of `nodes` whose prediction equals the label (a node
    /// without a label counts as wrong); 0 for no nodes.
    ///
    /// ```
    /// use bitgraphblas::io::{data_path, ReadOptions};
    /// use bitgraphblas_algorithms::gnn::Dataset;
    /// let cora = Dataset::load(data_path("cora"), &ReadOptions::default())?;
    /// let truth: Vec<u32> = cora.labels.iter().map(|&l| l as u32).collect();
    /// assert_eq!(cora.accuracy(&truth, &cora.split.test), 1.0);
    /// # Ok::<(), bitgraphblas_algorithms::gnn::GnnError>(())
    /// ```
    pub fn accuracy(&self, predictions: &[u32], nodes: &[usize]) -> f64 {
        if nodes.is_empty() {
            return 0.0;
        }
        let right = nodes
            .iter()
            .filter(|&&i| predictions.get(i).map(|&p| p as i64) == self.labels.get(i).copied())
            .count();
        right as f64 / nodes.len() as f64
    }
}

/// The binary form of a dataset's two matrices.
const GRAPH_FILE: &str = "graph.safetensors";

/// `adj.mtx` and `features.mtx` of `dir`, their shapes checked.
fn read_matrix_market(dir: &Path, opts: &ReadOptions) -> GnnResult<(Matrix<bool>, Matrix<f32>)> {
    let adj_path = dir.join("adj.mtx");
    let adjacency = io::read_graph_with::<bool>(&adj_path, opts)?.matrix;
    let feat_path = dir.join("features.mtx");
    let features = io::read_graph_with::<f32>(&feat_path, opts)?.matrix;
    check_shapes(&adjacency, &features, &adj_path, &feat_path)?;
    Ok((adjacency, features))
}

/// A square adjacency and one feature row per node.
fn check_shapes(
    adjacency: &Matrix<bool>,
    features: &Matrix<f32>,
    adj_path: &Path,
    feat_path: &Path,
) -> GnnResult<()> {
    let n = adjacency.nrows();
    if adjacency.ncols() != n {
        return Err(GnnError::file(
            adj_path,
            format!(
                "the adjacency must be square, it is {n}x{}",
                adjacency.ncols()
            ),
        ));
    }
    if features.nrows() != n {
        return Err(GnnError::file(
            feat_path,
            format!(
                "{} feature rows, but the adjacency ({}) has {n} nodes",
                features.nrows(),
                adj_path.display()
            ),
        ));
    }
    Ok(())
}

/// The adjacency and the features from `graph.safetensors`.
fn read_graph_file(path: &Path, opts: &ReadOptions) -> GnnResult<(Matrix<bool>, Matrix<f32>)> {
    let t = Weights::load(path, opts)?;
    let width = t
        .meta("features")
        .and_then(|w| w.parse::<usize>().ok())
        .ok_or_else(|| {
            GnnError::file(path, "no metadata entry \"features\" (the feature width)")
        })?;
    let rows = |name: &str| -> GnnResult<Vec<usize>> {
        let len = t.shape(name)?.first().copied().unwrap_or(0);
        t.offset_vector(name, len)
    };
    // row pointers and column indices of `prefix`, checked against each other
    let pattern = |prefix: &str| -> GnnResult<(Vec<usize>, Vec<u32>)> {
        let (rp_name, ci_name) = (format!("{prefix}_row_ptr"), format!("{prefix}_col_idx"));
        let rp = rows(&rp_name)?;
        let nnz = t.shape(&ci_name)?.first().copied().unwrap_or(0);
        if rp.last().copied().unwrap_or(0) != nnz {
            return Err(GnnError::tensor(
                path,
                &rp_name,
                format!(
                    "ends at {}, but {ci_name} holds {nnz} entries",
                    rp.last().copied().unwrap_or(0)
                ),
            ));
        }
        Ok((rp, t.index_vector(&ci_name, nnz)?))
    };
    let invalid = |prefix: &str, e: bitgraphblas::Error| {
        GnnError::tensor(
            path,
            &format!("{prefix}_row_ptr / {prefix}_col_idx"),
            e.to_string(),
        )
    };
    let (rp, ci) = pattern("adj")?;
    let n = rp.len().saturating_sub(1);
    let nnz = ci.len();
    let adj = Csr::try_new(n, n, rp, ci, vec![true; nnz]).map_err(|e| invalid("adj", e))?;
    let (rp, ci) = pattern("feat")?;
    let values = t.f32_vector("feat_values", ci.len())?;
    drop(t); // the file's bytes: every tensor has been decoded
    let feat = Csr::try_new(rp.len().saturating_sub(1), width, rp, ci, values)
        .map_err(|e| invalid("feat", e))?;
    let (adjacency, features) = (Matrix::from_csr(adj), Matrix::from_csr(feat));
    check_shapes(&adjacency, &features, path, path)?;
    Ok((adjacency, features))
}

/// `Err` when a file of `len` bytes, read whole, would pass `opts`'
/// memory limit.
pub(crate) fn check_size(path: &Path, len: u64, opts: &ReadOptions) -> GnnResult<()> {
    if len > opts.max_bytes {
        return Err(GnnError::file(
            path,
            format!(
                "{} is more than the {} memory limit for reading",
                io::human_bytes(len),
                io::human_bytes(opts.max_bytes)
            ),
        ));
    }
    Ok(())
}

/// Reads `path` whole, refusing a file larger than `opts` allows.
fn read_small(path: &Path, opts: &ReadOptions) -> GnnResult<String> {
    let meta = std::fs::metadata(path).map_err(|e| GnnError::file(path, e.to_string()))?;
    super::dataset::check_size(path, meta.len(), opts)?;
    std::fs::read_to_string(path).map_err(|e| GnnError::file(path, e.to_string()))
}

fn read_labels(path: &Path, n: usize, opts: &ReadOptions) -> GnnResult<Vec<i64>> {
    let text = read_small(path, opts)?;
    let labels = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| {
            l.trim()
                .parse::<i64>()
                .ok()
                .filter(|&v| v >= -1 && v < i32::MAX as i64)
                .ok_or_else(|| {
                    GnnError::file(
                        path,
                        format!(
                            "line {}: {:?} is not a class id (0, 1, ... or -1)",
                            k + 1,
                            bitgraphblas::io::printable(l.as_bytes())
                        ),
                    )
                })
        })
        .collect::<GnnResult<Vec<i64>>>()?;
    if labels.len() != n {
        return Err(GnnError::file(
            path,
            format!("{} labels for {n} nodes", labels.len()),
        ));
    }
    Ok(labels)
}

fn read_split(path: &Path, n: usize, opts: &ReadOptions) -> GnnResult<Split> {
    let text = read_small(path, opts)?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| GnnError::file(path, e.to_string()))?;
    let part = |key: &str| -> GnnResult<Vec<usize>> {
        let ids = json
            .get(key)
            .and_then(|v| v.as_array())
            .ok_or_else(|| GnnError::file(path, format!("no {key:?} list of node ids")))?;
        ids.iter()
            .map(|v| {
                v.as_u64()
                    .filter(|&i| i < n as u64)
                    .map(|i| i as usize)
                    .ok_or_else(|| {
                        GnnError::file(path, format!("{key}: {v} is not a node id below {n}"))
                    })
            })
            .collect()
    };
    Ok(Split {
        train: part("train")?,
        val: part("val")?,
        test: part("test")?,
    })
}
