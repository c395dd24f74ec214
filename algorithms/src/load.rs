//! Loading a graph file: Matrix Market (`.mtx`, `.mtx.gz`) or binary B2SR,
//! through [`bitgraphblas::io`].

use std::path::Path;

use bitgraphblas::io::{self, MmField};
use bitgraphblas::{Format, Matrix, Result};

/// A loaded graph: its matrix and whether the file held no values.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The matrix: CSR for a Matrix Market file (symmetric files expanded,
    /// pattern files with 1.0 everywhere), B2SR for a B2SR file.
    pub matrix: Matrix<f64>,
    /// True when the file had no values (`pattern`, or B2SR).
    pub pattern: bool,
}

/// Reads a graph file, telling Matrix Market from B2SR by its first bytes.
///
/// ```no_run
/// let g = bitgraphblas_algorithms::load::read_graph("graph.mtx.gz".as_ref()).unwrap();
/// println!("{} vertices, weighted: {}", g.matrix.nrows(), !g.pattern);
/// ```
pub fn read_graph(path: &Path) -> Result<Loaded> {
    let matrix = io::read_graph::<f64>(path)?;
    let pattern = match matrix.format() {
        Format::B2sr(_) => true,
        _ => io::read_matrix_market_header(path)?.field == MmField::Pattern,
    };
    Ok(Loaded { matrix, pattern })
}

/// Writes a binary B2SR file (the matrix must be stored as B2SR).
pub fn write_b2sr(path: &Path, m: &Matrix<bool>) -> Result<()> {
    io::write_b2sr(path, m)
}
