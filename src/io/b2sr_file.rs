//! The binary B2SR file format, version 1: a B2SR matrix (pattern plus iso
//! value) exactly as it sits in memory, so loading needs no packing.
//!
//! All integers are little-endian. Offsets are in bytes; `R = ceil(nrows / k)`
//! is the number of tile rows, `T = ntiles`, `B = k * k / 8` the bytes per tile.
//!
//! | offset          | size    | field                                                     |
//! |-----------------|---------|-----------------------------------------------------------|
//! | 0               | 8       | magic `89 42 32 53 52 0D 0A 1A` (`\x89B2SR\r\n\x1a`)      |
//! | 8               | 4       | format version, `u32` = 1                                 |
//! | 12              | 4       | tile edge `k`, `u32`: 4, 8, 16, 32 or 64                  |
//! | 16              | 8       | `nrows`, `u64` (at most `2^32 - 1`)                       |
//! | 24              | 8       | `ncols`, `u64` (at most `2^32 - 1`)                       |
//! | 32              | 8       | `ntiles` = `T`, `u64` (at most `2^32 - 1`)                |
//! | 40              | 1       | element type tag, `u8` (table below)                      |
//! | 41              | 7       | reserved, all zero                                        |
//! | 48              | 8       | iso value: the type's bits, zero-extended to `u64`        |
//! | 56              | 4 (R+1) | `tile_row_ptr`, `u32` each                                |
//! | 56 + 4 (R+1)    | 4 T     | `tile_col_idx`, `u32` each                                |
//! | 56 + 4 (R+1+T)  | B T     | tiles, each `B` bytes as [`TileBits::to_le_bytes`] writes |
//! | end - 4         | 4       | CRC-32 (IEEE, as zlib) of every byte before it, `u32`     |
//!
//! The file is exactly `56 + 4 (R + 1) + 4 T + B T + 4` bytes long. Tile bits
//! follow [`crate::storage::b2sr::tile`]: entry (tile row `r`, tile column `c`)
//! is bit `r * k + c` of the tile read as a little-endian bit string.
//!
//! | tag | type | iso value bits                |
//! |-----|------|-------------------------------|
//! | 1   | bool | 0 or 1                        |
//! | 2   | i32  | the `u32` two's complement    |
//! | 3   | u32  | the value                     |
//! | 4   | i64  | the `u64` two's complement    |
//! | 5   | u64  | the value                     |
//! | 6   | f32  | `f32::to_bits`                |
//! | 7   | f64  | `f64::to_bits`                |
//!
//! A loader checks, in this order: the magic, the version, the header fields,
//! that the file length equals the length the header implies (before it
//! allocates anything), the checksum, and finally every offset and index (with
//! [`B2sr::from_parts`]). Any failure is an [`Error::CorruptFile`].
//!
//! ```
//! use bitgraphblas::{io, Format, Matrix, TileSize};
//! let a = Matrix::from_triplets(5, 5, vec![(0, 1, true), (4, 4, true)])?
//!     .to_format(Format::B2sr(TileSize::T4))?;
//! let path = std::env::temp_dir().join(format!("bgb_doc_{}.b2sr", std::process::id()));
//! io::write_b2sr(&path, &a)?;
//! assert_eq!(std::fs::metadata(&path).unwrap().len(), 56 + 4 * 3 + 4 * 2 + 2 * 2 + 4);
//! assert_eq!(io::read_b2sr::<bool>(&path)?, a);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use super::scalar_bits::{bits_to_f64, from_bits, to_bits};
use super::{io_err, open};
use crate::container::{Matrix, MatrixRepr};
use crate::error::{Error, Result};
use crate::scalar::{Scalar, ScalarType};
use crate::storage::b2sr::{
    with_blocks, B2srBlocks, B2srTiles, Tile16, Tile32, Tile4, Tile64, Tile8, TileBits,
};
use crate::storage::{B2sr, TileSize};

/// The first eight bytes of every B2SR file.
pub const B2SR_MAGIC: [u8; 8] = [0x89, b'B', b'2', b'S', b'R', b'\r', b'\n', 0x1a];
/// The format version this crate writes and reads.
pub const B2SR_VERSION: u32 = 1;

const HEADER_BYTES: u64 = 56;
const CRC_BYTES: u64 = 4;

fn type_tag(t: ScalarType) -> u8 {
    match t {
        ScalarType::Bool => 1,
        ScalarType::I32 => 2,
        ScalarType::U32 => 3,
        ScalarType::I64 => 4,
        ScalarType::U64 => 5,
        ScalarType::F32 => 6,
        ScalarType::F64 => 7,
    }
}

fn tag_type(tag: u8) -> Option<ScalarType> {
    Some(match tag {
        1 => ScalarType::Bool,
        2 => ScalarType::I32,
        3 => ScalarType::U32,
        4 => ScalarType::I64,
        5 => ScalarType::U64,
        6 => ScalarType::F32,
        7 => ScalarType::F64,
        _ => return None,
    })
}

/// Writes a B2SR matrix to `path` in the format above. A CSR matrix is an
/// `Error::InvalidArgument` (convert it with [`Matrix::to_format`] first).
///
/// ```
/// use bitgraphblas::{io, Matrix};
/// let csr = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f32)])?;
/// let path = std::env::temp_dir().join(format!("bgb_doc_csr_{}.b2sr", std::process::id()));
/// assert!(io::write_b2sr(&path, &csr).is_err());
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn write_b2sr<T: Scalar>(path: impl AsRef<Path>, a: &Matrix<T>) -> Result<()> {
    let path = path.as_ref();
    let MatrixRepr::B2sr { pattern, value } = a.repr() else {
        return Err(Error::invalid(
            "write_b2sr",
            "the matrix is stored as CSR; convert it with to_format(Format::B2sr(..)) first",
        ));
    };
    let file = File::create(path).map_err(|e| io_err(path, e))?;
    let mut w = CrcWriter {
        inner: BufWriter::with_capacity(1 << 18, file),
        crc: crc32fast::Hasher::new(),
    };
    let run = |w: &mut CrcWriter<BufWriter<File>>| -> std::io::Result<()> {
        let mut head = Vec::with_capacity(HEADER_BYTES as usize);
        head.extend_from_slice(&B2SR_MAGIC);
        head.extend_from_slice(&B2SR_VERSION.to_le_bytes());
        head.extend_from_slice(&(pattern.k() as u32).to_le_bytes());
        head.extend_from_slice(&(pattern.nrows() as u64).to_le_bytes());
        head.extend_from_slice(&(pattern.ncols() as u64).to_le_bytes());
        head.extend_from_slice(&(pattern.ntiles() as u64).to_le_bytes());
        head.push(type_tag(T::TYPE));
        head.extend_from_slice(&[0u8; 7]);
        head.extend_from_slice(&to_bits(*value).to_le_bytes());
        debug_assert_eq!(head.len() as u64, HEADER_BYTES);
        w.write_all(&head)?;
        with_blocks!(pattern.tiles(), b => write_blocks(w, b))?;
        let crc = w.crc.clone().finalize();
        w.inner.write_all(&crc.to_le_bytes())?;
        w.inner.flush()
    };
    run(&mut w).map_err(|e| io_err(path, e))
}

struct CrcWriter<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn write_blocks<L: TileBits, W: Write>(w: &mut W, b: &B2srBlocks<L>) -> std::io::Result<()> {
    const CHUNK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(CHUNK + L::BYTES);
    for &x in b.tile_row_ptr().iter().chain(b.tile_col_idx()) {
        buf.extend_from_slice(&x.to_le_bytes());
        if buf.len() >= CHUNK {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    for t in b.tiles() {
        t.to_le_bytes(&mut buf);
        if buf.len() >= CHUNK {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)
}

/// Reads a B2SR file written by [`write_b2sr`]. The stored element type must
/// be `T` (else `Error::InvalidArgument`; [`super::read_graph`] converts instead);
/// any damage to the file is an [`Error::CorruptFile`], found before any
/// allocation larger than the file itself.
///
/// ```
/// use bitgraphblas::{io, Format, Matrix, TileSize};
/// let a = io::read_matrix_market::<f32>(io::data_path("karate.mtx"))?
///     .to_format(Format::B2sr(TileSize::T8))?;
/// let path = std::env::temp_dir().join(format!("bgb_doc_karate_{}.b2sr", std::process::id()));
/// io::write_b2sr(&path, &a)?;
/// assert_eq!(io::read_b2sr::<f32>(&path)?, a);
/// assert!(io::read_b2sr::<bool>(&path).is_err()); // stored as f32
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_b2sr<T: Scalar>(path: impl AsRef<Path>) -> Result<Matrix<T>> {
    let path = path.as_ref();
    let (pattern, ty, bits) = read_file(path, Some(T::TYPE))?;
    let value = from_bits::<T>(ty, bits).expect("type and bits checked by read_file");
    Ok(Matrix::from_b2sr(pattern, value))
}

/// As [`read_b2sr`], but an iso value of another element type is converted to
/// `T` through `f64`.
pub(crate) fn read_b2sr_converting<T: Scalar>(path: &Path) -> Result<Matrix<T>> {
    let (pattern, ty, bits) = read_file(path, None)?;
    let value = match from_bits::<T>(ty, bits) {
        Some(v) => v,
        None => T::from_f64(bits_to_f64(ty, bits).expect("bits checked by read_file")),
    };
    Ok(Matrix::from_b2sr(pattern, value))
}

/// Reads and checks a whole file: `(pattern, element type, iso value bits)`.
fn read_file(path: &Path, want: Option<ScalarType>) -> Result<(B2sr, ScalarType, u64)> {
    let name = path.display().to_string();
    let corrupt = |detail: String| Error::CorruptFile {
        path: name.clone(),
        detail,
    };
    let mut r = open(path)?;
    let file_len = r.get_ref().metadata().map_err(|e| io_err(path, e))?.len();
    if file_len < HEADER_BYTES + CRC_BYTES {
        let mut head = Vec::new();
        r.read_to_end(&mut head).map_err(|e| io_err(path, e))?;
        if !head.starts_with(&B2SR_MAGIC) {
            return Err(corrupt("not a B2SR file (bad magic bytes)".into()));
        }
        return Err(corrupt(format!(
            "{file_len} bytes is shorter than the {} byte header and checksum",
            HEADER_BYTES + CRC_BYTES
        )));
    }
    let mut head = [0u8; HEADER_BYTES as usize];
    r.read_exact(&mut head).map_err(|e| io_err(path, e))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let u32_at = |o: usize| u32::from_le_bytes(head[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(head[o..o + 8].try_into().expect("8 bytes"));
    if head[..8] != B2SR_MAGIC {
        return Err(corrupt("not a B2SR file (bad magic bytes)".into()));
    }
    let version = u32_at(8);
    if version != B2SR_VERSION {
        return Err(corrupt(format!(
            "format version {version} is not supported (this build reads version {B2SR_VERSION})"
        )));
    }
    let k = u32_at(12) as usize;
    let tile = TileSize::from_k(k).map_err(|_| corrupt(format!("bad tile edge {k}")))?;
    let (nrows, ncols, ntiles) = (u64_at(16), u64_at(24), u64_at(32));
    for (n, what) in [(nrows, "nrows"), (ncols, "ncols"), (ntiles, "ntiles")] {
        if n > u32::MAX as u64 {
            return Err(corrupt(format!("{what} = {n} exceeds 32 bits")));
        }
    }
    let ty =
        tag_type(head[40]).ok_or_else(|| corrupt(format!("bad element type tag {}", head[40])))?;
    if head[41..48].iter().any(|&b| b != 0) {
        return Err(corrupt("reserved header bytes are not zero".into()));
    }
    let bits = u64_at(48);
    if bits_to_f64(ty, bits).is_none() {
        return Err(corrupt(format!(
            "iso value bits {bits:#x} are not a {}",
            ty.name()
        )));
    }
    if let Some(want) = want {
        if want != ty {
            return Err(Error::invalid(
                "read_b2sr",
                format!(
                    "{name} holds element type {}, not the requested {}",
                    ty.name(),
                    want.name()
                ),
            ));
        }
    }
    let kk = k as u64;
    let (tile_rows, tile_cols) = (nrows.div_ceil(kk), ncols.div_ceil(kk));
    if ntiles > tile_rows * tile_cols {
        return Err(corrupt(format!(
            "{ntiles} tiles cannot fit in {tile_rows}x{tile_cols} tile positions"
        )));
    }
    // All u64 values here are below 2^32, so this cannot overflow u64.
    let tile_bytes = kk * kk / 8;
    let expect = HEADER_BYTES + 4 * (tile_rows + 1) + 4 * ntiles + tile_bytes * ntiles + CRC_BYTES;
    if expect != file_len {
        return Err(corrupt(format!(
            "the header implies {expect} bytes ({ntiles} tiles of {k}x{k}, {tile_rows} tile rows) \
             but the file has {file_len}"
        )));
    }
    let (tile_rows, ntiles) = (tile_rows as usize, ntiles as usize);
    let mut src = CrcReader { inner: r, crc };
    let read = |src: &mut CrcReader<_>| -> std::io::Result<B2srTiles> {
        Ok(match tile {
            TileSize::T4 => B2srTiles::T4(read_blocks::<Tile4>(src, tile_rows, ntiles)?),
            TileSize::T8 => B2srTiles::T8(read_blocks::<Tile8>(src, tile_rows, ntiles)?),
            TileSize::T16 => B2srTiles::T16(read_blocks::<Tile16>(src, tile_rows, ntiles)?),
            TileSize::T32 => B2srTiles::T32(read_blocks::<Tile32>(src, tile_rows, ntiles)?),
            TileSize::T64 => B2srTiles::T64(read_blocks::<Tile64>(src, tile_rows, ntiles)?),
            TileSize::Auto => unreachable!("from_k never gives Auto"),
        })
    };
    let tiles = read(&mut src).map_err(|e| io_err(path, e))?;
    let mut stored = [0u8; 4];
    src.inner
        .read_exact(&mut stored)
        .map_err(|e| io_err(path, e))?;
    let (stored, computed) = (u32::from_le_bytes(stored), src.crc.finalize());
    if stored != computed {
        return Err(corrupt(format!(
            "checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
        )));
    }
    let pattern = B2sr::from_parts(nrows as usize, ncols as usize, tiles)
        .map_err(|e| corrupt(format!("checksum is valid but the arrays are not: {e}")))?;
    Ok((pattern, ty, bits))
}

struct CrcReader<R> {
    inner: R,
    crc: crc32fast::Hasher,
}

impl<R: Read> CrcReader<R> {
    /// Fills `buf` exactly, hashing what it reads.
    fn fill(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        self.inner.read_exact(buf)?;
        self.crc.update(buf);
        Ok(())
    }
}

/// Reads `n` items of `size` bytes each in bounded chunks, decoding each with `f`.
fn read_items<R: Read, X>(
    src: &mut CrcReader<R>,
    n: usize,
    size: usize,
    mut f: impl FnMut(&[u8]) -> X,
) -> std::io::Result<Vec<X>> {
    let mut out = Vec::with_capacity(n); // n was checked against the file length
    let per_chunk = ((1 << 16) / size).max(1);
    let mut buf = vec![0u8; per_chunk * size];
    let mut left = n;
    while left > 0 {
        let m = left.min(per_chunk);
        let chunk = &mut buf[..m * size];
        src.fill(chunk)?;
        out.extend(chunk.chunks_exact(size).map(&mut f));
        left -= m;
    }
    Ok(out)
}

fn read_blocks<L: TileBits>(
    src: &mut CrcReader<impl Read>,
    tile_rows: usize,
    ntiles: usize,
) -> std::io::Result<B2srBlocks<L>> {
    let u32_le = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
    let ptr = read_items(src, tile_rows + 1, 4, u32_le)?;
    let cols = read_items(src, ntiles, 4, u32_le)?;
    let tiles = read_items(src, ntiles, L::BYTES, L::from_le_bytes)?;
    Ok(B2srBlocks::from_raw(ptr, cols, tiles))
}
