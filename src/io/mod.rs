//! File formats: Matrix Market (text, optionally gzip) and the binary B2SR format.
//!
//! - [`read_matrix_market`] / [`write_matrix_market`]: the NIST Matrix Market
//!   *coordinate* format (`pattern`, `integer` or `real`; `general` or
//!   `symmetric`), plain or gzip-compressed (detected by its magic bytes).
//! - [`read_b2sr`] / [`write_b2sr`]: a versioned, checksummed binary dump of a
//!   B2SR matrix (see [`b2sr_file`] for the byte layout).
//! - [`read_graph`]: either of the two, told apart by the file's first bytes;
//!   [`read_graph_from`] does the same on any reader (a pipe, standard input),
//!   reading it once, front to back.
//!
//! Malformed text gives [`Error::Parse`] with the 1-based line; a corrupt binary
//! file gives [`Error::CorruptFile`]; nothing panics on bad input.
//!
//! **Limits.** Sizes a file states are checked before memory is allocated for
//! them, and every allocation that grows with the input is fallible: an input
//! that needs more than [`ReadOptions::max_bytes`] (by default the memory the
//! process may have, see [`memory_limit`]) is an [`Error::OutOfMemory`] saying
//! how much it needs and for what; a text line longer than
//! [`ReadOptions::max_line_bytes`] (1 MiB by default) is an [`Error::Parse`]
//! naming the line. The `*_with` readers take the limits. Text from the file
//! that appears in a message is escaped ([`printable`]).
//!
//! **Writing.** The writers put the file in place only once it is complete
//! ([`OutputFile`]): a failed write leaves an existing file as it was.
//!
//! ```
//! use bitgraphblas::io::read_matrix_market_from;
//! let text = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n";
//! let a = read_matrix_market_from::<bool, _>(text.as_bytes(), "tiny")?;
//! assert_eq!(a.nvals(), 3); // (2,1), its mirror (1,2), and the diagonal (3,3) once
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

pub mod b2sr_file;
mod limits;
pub mod matrix_market;
mod output;
mod printable;
mod scalar_bits;

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

pub use b2sr_file::{read_b2sr, read_b2sr_with, write_b2sr, B2SR_MAGIC, B2SR_VERSION};
pub use limits::{human_bytes, memory_limit, ReadOptions, DEFAULT_MAX_LINE_BYTES};
pub use matrix_market::{
    read_matrix_market, read_matrix_market_from, read_matrix_market_header,
    read_matrix_market_with, write_matrix_market, MatrixMarketHeader, MmField, MmSymmetry,
};
pub use output::OutputFile;
pub use printable::printable;

use crate::container::Matrix;
use crate::error::{Error, Result};
use crate::scalar::{Scalar, ScalarType};

/// Reads a graph from a Matrix Market file (`.mtx`, gzip or not) or a binary
/// B2SR file (see [`b2sr_file`]), telling them apart by the first bytes, not the name.
///
/// A B2SR file comes back in B2SR; its iso value is converted to `T` where
/// that is exact (so a pattern written as `bool` reads as `1.0f32`, but an iso
/// value of `0.5` does not read as `bool`: an `Error::InvalidArgument`). Use
/// [`read_b2sr`] to insist on the stored type.
/// A Matrix Market file comes back as CSR (see [`read_matrix_market`]).
///
/// ```
/// let path = bitgraphblas::io::data_path("karate.mtx");
/// let a = bitgraphblas::io::read_graph::<bool>(&path)?;
/// assert_eq!((a.nrows(), a.nvals()), (34, 156));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_graph<T: Scalar>(path: impl AsRef<Path>) -> Result<Matrix<T>> {
    read_graph_with(path, &ReadOptions::default()).map(|g| g.matrix)
}

/// What a graph file said about itself besides its entries.
///
/// ```
/// use bitgraphblas::io::{read_graph_with, data_path, FileHeader, MmField, ReadOptions};
/// let g = read_graph_with::<f64>(data_path("karate.mtx"), &ReadOptions::default())?;
/// assert!(matches!(g.header, FileHeader::MatrixMarket(h) if h.field == MmField::Pattern));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileHeader {
    /// A Matrix Market file's banner and size line.
    MatrixMarket(MatrixMarketHeader),
    /// A B2SR file, with the element type it stores.
    B2sr {
        /// The stored element type (the iso value's type).
        element: ScalarType,
    },
}

/// A graph read by [`read_graph_with`] or [`read_graph_from`]: the matrix and
/// the header of the file it came from.
///
/// ```
/// use bitgraphblas::io::{read_graph_from, FileHeader, ReadOptions};
/// let text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n";
/// let g = read_graph_from::<f64, _>(text.as_bytes(), "inline", &ReadOptions::default())?;
/// assert_eq!(g.matrix.get(0, 1), Some(0.5));
/// assert!(matches!(g.header, FileHeader::MatrixMarket(_)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GraphFile<T: Scalar> {
    /// The matrix: CSR for Matrix Market, B2SR for a B2SR file.
    pub matrix: Matrix<T>,
    /// What the file's header said.
    pub header: FileHeader,
}

/// [`read_graph`] within the limits `opts`, returning the file's header too.
/// The path is opened once (a FIFO or `/dev/stdin` works); where it is a
/// regular B2SR file, its length is checked against the header first.
///
/// ```
/// use bitgraphblas::io::{read_graph_with, data_path, ReadOptions};
/// let g = read_graph_with::<bool>(data_path("karate.mtx"), &ReadOptions::default())?;
/// assert_eq!(g.matrix.nvals(), 156);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_graph_with<T: Scalar>(
    path: impl AsRef<Path>,
    opts: &ReadOptions,
) -> Result<GraphFile<T>> {
    let path = path.as_ref();
    let name = path_name(path);
    let r = open(path)?;
    let meta = r.get_ref().metadata().map_err(|e| io_err(path, e))?;
    let known = meta.is_file().then_some(meta.len());
    read_graph_stream(r, &name, known, opts)
}

/// Reads a graph (Matrix Market, plain or gzip, or B2SR, told apart by the
/// first bytes) from any buffered reader, once, front to back: standard input
/// or a pipe works. `name` stands for the input in error messages. A B2SR
/// stream must end right after its checksum.
///
/// ```
/// use bitgraphblas::io::{read_graph_from, ReadOptions};
/// let text = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n";
/// // One byte at a time, as a slow pipe might deliver it.
/// let slow = std::io::BufReader::with_capacity(1, text.as_bytes());
/// let g = read_graph_from::<bool, _>(slow, "<stdin>", &ReadOptions::default())?;
/// assert_eq!(g.matrix.get(1, 0), Some(true));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_graph_from<T: Scalar, R: BufRead>(
    reader: R,
    name: &str,
    opts: &ReadOptions,
) -> Result<GraphFile<T>> {
    read_graph_stream(reader, &printable(name.as_bytes()), None, opts)
}

fn read_graph_stream<T: Scalar, R: BufRead>(
    reader: R,
    name: &str,
    known_len: Option<u64>,
    opts: &ReadOptions,
) -> Result<GraphFile<T>> {
    let (head, r) = peek(reader, B2SR_MAGIC.len()).map_err(|e| Error::Parse {
        path: name.to_string(),
        line: 1,
        detail: format!("read failed: {e}"),
    })?;
    if head.starts_with(&B2SR_MAGIC) {
        let read = b2sr_file::read_stream(r, name, known_len, None, opts)?;
        let element = read.ty;
        let matrix = read.into_matrix::<T>(name)?;
        return Ok(GraphFile {
            matrix,
            header: FileHeader::B2sr { element },
        });
    }
    let (matrix, h) = matrix_market::read_matrix_market_with(r, name, opts)?;
    Ok(GraphFile {
        matrix,
        header: FileHeader::MatrixMarket(h),
    })
}

/// A reader that gives back bytes already taken from `R`, then the rest of `R`.
pub(crate) type Peeked<R> = std::io::Chain<Cursor<Vec<u8>>, R>;

/// The first `n` bytes of `r` (fewer at the end of the input), however the
/// reader splits them, and a reader that yields them again followed by the rest.
pub(crate) fn peek<R: BufRead>(mut r: R, n: usize) -> std::io::Result<(Vec<u8>, Peeked<R>)> {
    let mut head = Vec::with_capacity(n);
    while head.len() < n {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let take = buf.len().min(n - head.len());
        head.extend_from_slice(&buf[..take]);
        r.consume(take);
    }
    Ok((head.clone(), Cursor::new(head).chain(r)))
}

/// Opens `path` for buffered reading (`Error::Io` naming the path on failure).
pub(crate) fn open(path: &Path) -> Result<BufReader<File>> {
    let f = File::open(path).map_err(|e| io_err(path, e))?;
    Ok(BufReader::with_capacity(1 << 18, f))
}

/// A path as it appears in messages (escaped).
pub(crate) fn path_name(path: &Path) -> String {
    printable(path.as_os_str().as_encoded_bytes())
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
