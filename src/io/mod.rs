//! File formats: Matrix Market (text, optionally gzip) and the binary B2SR format.
//!
//! - [`read_matrix_market`] / [`write_matrix_market`]: the NIST Matrix Market
//!   *coordinate* format (`pattern`, `integer` or `real`; `general` or
//!   `symmetric`), plain or gzip-compressed (detected by its magic bytes).
//! - [`read_b2sr`] / [`write_b2sr`]: a versioned, checksummed binary dump of a
//!   B2SR matrix (see [`b2sr_file`] for the byte layout).
//! - [`read_graph`]: either of the two, told apart by the file's first bytes.
//!
//! Malformed text gives [`Error::Parse`] with the 1-based line; a corrupt binary
//! file gives [`Error::CorruptFile`]; nothing panics on bad input.
//!
//! ```
//! use bitgraphblas::io::read_matrix_market_from;
//! let text = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n";
//! let a = read_matrix_market_from::<bool, _>(text.as_bytes(), "tiny")?;
//! assert_eq!(a.nvals(), 3); // (2,1), its mirror (1,2), and the diagonal (3,3) once
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

pub mod b2sr_file;
pub mod matrix_market;
mod scalar_bits;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

pub use b2sr_file::{read_b2sr, write_b2sr, B2SR_MAGIC, B2SR_VERSION};
pub use matrix_market::{
    read_matrix_market, read_matrix_market_from, read_matrix_market_header, write_matrix_market,
    MatrixMarketHeader, MmField, MmSymmetry,
};

use crate::container::Matrix;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// Reads a graph from a Matrix Market file (`.mtx`, gzip or not) or a binary
/// B2SR file (see [`b2sr_file`]), telling them apart by the first bytes, not the name.
///
/// A B2SR file comes back in B2SR; its iso value is converted to `T` through
/// `f64` when the file holds another element type (so a pattern written as
/// `bool` reads as `1.0f32`). Use [`read_b2sr`] to insist on the stored type.
/// A Matrix Market file comes back as CSR (see [`read_matrix_market`]).
///
/// ```
/// let path = bitgraphblas::io::data_path("karate.mtx");
/// let a = bitgraphblas::io::read_graph::<bool>(&path)?;
/// assert_eq!((a.nrows(), a.nvals()), (34, 156));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_graph<T: Scalar>(path: impl AsRef<Path>) -> Result<Matrix<T>> {
    let path = path.as_ref();
    let mut r = open(path)?;
    let head = r.fill_buf().map_err(|e| io_err(path, e))?;
    if head.starts_with(&B2SR_MAGIC) {
        drop(r);
        return b2sr_file::read_b2sr_converting(path);
    }
    matrix_market::read_matrix_market_from(r, &path.display().to_string())
}

/// Opens `path` for buffered reading (`Error::Io` naming the path on failure).
pub(crate) fn open(path: &Path) -> Result<BufReader<File>> {
    let f = File::open(path).map_err(|e| io_err(path, e))?;
    Ok(BufReader::with_capacity(1 << 18, f))
}

pub(crate) fn io_err(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Where the bundled data file `rel` (relative to `data/`) lives: the first of
/// `$BITGRAPHBLAS_DATA/rel`, `./data/rel` and `<crate root>/data/rel` that
/// exists, else the last of them (so an error message names a real place).
///
/// Tests and examples find data through this, so that they also run on a
/// machine where the build-time crate root does not exist.
///
/// ```
/// let p = bitgraphblas::io::data_path("karate.mtx");
/// assert!(p.ends_with("karate.mtx"));
/// ```
#[doc(hidden)]
pub fn data_path(rel: impl AsRef<Path>) -> PathBuf {
    locate(
        std::env::var_os("BITGRAPHBLAS_DATA").map(PathBuf::from),
        Path::new(env!("CARGO_MANIFEST_DIR")),
        rel.as_ref(),
    )
}

/// The lookup behind [`data_path`], with its inputs explicit.
fn locate(env_dir: Option<PathBuf>, crate_root: &Path, rel: &Path) -> PathBuf {
    let fallback = crate_root.join("data").join(rel);
    env_dir
        .map(|d| d.join(rel))
        .into_iter()
        .chain([Path::new("data").join(rel)])
        .find(|p| p.exists())
        .unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_lookup_order() {
        let base = std::env::temp_dir().join(format!("bgb_locate_{}", std::process::id()));
        let (env_dir, root) = (base.join("env"), base.join("root"));
        std::fs::create_dir_all(&env_dir).unwrap();
        std::fs::create_dir_all(root.join("data")).unwrap();
        let rel = Path::new("only_here_for_this_test.mtx");
        std::fs::write(env_dir.join(rel), "x").unwrap();
        std::fs::write(root.join("data").join(rel), "x").unwrap();
        // The environment variable wins; without it (or without the file there),
        // ./data does not hold this file, so the crate root's data/ is next.
        assert_eq!(locate(Some(env_dir.clone()), &root, rel), env_dir.join(rel));
        assert_eq!(locate(None, &root, rel), root.join("data").join(rel));
        std::fs::remove_file(env_dir.join(rel)).unwrap();
        assert_eq!(
            locate(Some(env_dir), &root, rel),
            root.join("data").join(rel)
        );
        // ./data (cwd of `cargo test` is the crate root) comes before the fallback.
        let bundled = Path::new("karate.mtx");
        if Path::new("data").join(bundled).exists() {
            assert_eq!(
                locate(None, &base, bundled),
                Path::new("data").join(bundled)
            );
        }
        std::fs::remove_dir_all(&base).ok();
    }
}
