//! Loading a graph file: Matrix Market (`.mtx`, `.mtx.gz`) or binary B2SR,
//! through [`bitgraphblas::io`].

use std::path::Path;

use bitgraphblas::io::{self, MmField};
use bitgraphblas::{Matrix, Result};

/// A loaded graph: its matrix and whether the file held no values.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The matrix: CSR for a Matrix Market file (symmetric files expanded,
    /// pattern files with 1.0 everywhere), B2SR for a B2SR file.
    pub matrix: Matrix<f64>,
    /// True when the file had no values (`pattern`, or B2SR with iso value 1).
    pub pattern: bool,
}

/// Reads a graph file, telling Matrix Market from B2SR by its first bytes.
/// The file is opened and read once (a FIFO works), within the default
/// limits ([`io::ReadOptions::default`]).
///
/// ```no_run
/// let g = bitgraphblas_algorithms::load::read_graph("graph.mtx.gz".as_ref()).unwrap();
/// println!("{} vertices, weighted: {}", g.matrix.nrows(), !g.pattern);
/// ```
pub fn read_graph(path: &Path) -> Result<Loaded> {
    io::read_graph_with::<f64>(path, &io::ReadOptions::default()).map(Loaded::from_file)
}

impl Loaded {
    /// A graph from what a reader returned: a Matrix Market file is a
    /// pattern when its field is `pattern`; a B2SR file when its iso value is
    /// 1 (else every edge weighs the iso value).
    ///
    /// ```
    /// use bitgraphblas::io::{read_graph_from, ReadOptions};
    /// use bitgraphblas_algorithms::load::Loaded;
    /// let text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n";
    /// let g = Loaded::from_file(read_graph_from(text.as_bytes(), "-", &ReadOptions::default())?);
    /// assert!(!g.pattern);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn from_file(file: io::GraphFile<f64>) -> Loaded {
        let pattern = match file.header {
            io::FileHeader::MatrixMarket(h) => h.field == MmField::Pattern,
            _ => file.matrix.iso_value() == Some(1.0),
        };
        Loaded {
            matrix: file.matrix,
            pattern,
        }
    }
}

/// Writes a binary B2SR file (the matrix must be stored as B2SR).
pub fn write_b2sr(path: &Path, m: &Matrix<bool>) -> Result<()> {
    io::write_b2sr(path, m)
}
