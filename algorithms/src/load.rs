//! Loading a graph file: Matrix Market (`.mtx`, `.mtx.gz`).
//!
//! A small reader kept here until the core crate's `bitgraphblas::io` lands;
//! it reads coordinate files (`pattern`, `real`, `integer`; `general` or
//! `symmetric`), expands symmetric files to both directions and numbers
//! vertices from 0.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use bitgraphblas::storage::Csr;
use bitgraphblas::{Error, Matrix, Result};

/// A loaded graph: its matrix and whether the file held values.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The matrix; pattern files hold 1.0 everywhere.
    pub matrix: Matrix<f64>,
    /// True when the file had no values (`pattern`).
    pub pattern: bool,
}

fn parse_err(path: &Path, line: usize, detail: impl Into<String>) -> Error {
    Error::Parse {
        path: path.display().to_string(),
        line,
        detail: detail.into(),
    }
}

/// Reads a Matrix Market coordinate file, gzip'd when the name ends in `.gz`.
///
/// ```no_run
/// let g = bitgraphblas_algorithms::load::read_matrix_market("graph.mtx".as_ref()).unwrap();
/// println!("{} vertices", g.matrix.nrows());
/// ```
pub fn read_matrix_market(path: &Path) -> Result<Loaded> {
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut lines = BufReader::with_capacity(1 << 20, reader).lines();
    let mut lineno = 1;
    let header = lines.next().ok_or_else(|| parse_err(path, 1, "empty file"))?.map_err(io)?;
    let h: Vec<String> = header.split_whitespace().map(|s| s.to_ascii_lowercase()).collect();
    if h.len() < 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" {
        return Err(parse_err(path, 1, "not a Matrix Market matrix header"));
    }
    if h[2] != "coordinate" {
        return Err(parse_err(path, 1, format!("'{}' format is not supported (coordinate only)", h[2])));
    }
    let pattern = match h[3].as_str() {
        "pattern" => true,
        "real" | "integer" | "double" => false,
        f => return Err(parse_err(path, 1, format!("field '{f}' is not supported"))),
    };
    let symmetric = match h[4].as_str() {
        "general" => false,
        "symmetric" => true,
        s => return Err(parse_err(path, 1, format!("symmetry '{s}' is not supported"))),
    };
    let mut size: Option<(usize, usize, usize)> = None;
    let mut trip: Vec<(usize, usize, f64)> = Vec::new();
    for line in lines {
        lineno += 1;
        let line = line.map_err(io)?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let mut it = t.split_whitespace();
        let mut num = |what: &str| -> Result<usize> {
            it.next()
                .ok_or_else(|| parse_err(path, lineno, format!("missing {what}")))?
                .parse::<usize>()
                .map_err(|_| parse_err(path, lineno, format!("bad {what}")))
        };
        match size {
            None => {
                let (r, c, nnz) = (num("row count")?, num("column count")?, num("entry count")?);
                size = Some((r, c, nnz));
                trip.reserve(if symmetric { 2 * nnz } else { nnz });
            }
            Some((r, c, _)) => {
                let (i, j) = (num("row index")?, num("column index")?);
                if i == 0 || j == 0 || i > r || j > c {
                    return Err(parse_err(path, lineno, format!("index ({i}, {j}) outside {r}x{c}")));
                }
                let v = if pattern {
                    1.0
                } else {
                    it.next()
                        .ok_or_else(|| parse_err(path, lineno, "missing value"))?
                        .parse::<f64>()
                        .map_err(|_| parse_err(path, lineno, "bad value"))?
                };
                trip.push((i - 1, j - 1, v));
                if symmetric && i != j {
                    trip.push((j - 1, i - 1, v));
                }
            }
        }
    }
    let (r, c, nnz) = size.ok_or_else(|| parse_err(path, lineno, "missing size line"))?;
    let stored = if symmetric { trip.iter().filter(|t| t.0 >= t.1).count() } else { trip.len() };
    if stored != nnz {
        return Err(parse_err(path, lineno, format!("header says {nnz} entries, file has {stored}")));
    }
    let csr = Csr::from_triplets(r, c, trip, |a, _| a)?;
    Ok(Loaded {
        matrix: Matrix::from_csr(csr),
        pattern,
    })
}

/// Reads a graph file (Matrix Market; B2SR files once the core crate reads them).
pub fn read_graph(path: &Path) -> Result<Loaded> {
    read_matrix_market(path)
}

/// Writes a binary B2SR file (needs the core crate's `io` module).
pub fn write_b2sr(path: &Path, _m: &Matrix<bool>) -> Result<()> {
    Err(Error::InvalidArgument {
        op: "write_b2sr",
        detail: format!("{}: B2SR files are not supported by this build yet", path.display()),
    })
}
