//! The binary B2SR file format: a B2SR matrix (pattern plus iso value)
//! exactly as it sits in memory, so loading needs no packing. Version 1 holds
//! 32-bit tile columns; version 2 adds 16-bit ones (offsets from a base per
//! tile row, [`crate::storage::b2sr::columns`]). A matrix with 32-bit columns
//! is written as version 1, so older readers still read it; this crate reads
//! both.
//!
//! All integers are little-endian. Offsets are in bytes; `R = ceil(nrows / k)`
//! is the number of tile rows, `T = ntiles`, `B = k * k / 8` the bytes per tile.
//!
//! | offset          | size    | field                                                     |
//! |-----------------|---------|-----------------------------------------------------------|
//! | 0               | 8       | magic `89 42 32 53 52 0D 0A 1A` (`\x89B2SR\r\n\x1a`)      |
//! | 8               | 4       | format version, `u32`: 1 or 2                             |
//! | 12              | 4       | tile edge `k`, `u32`: 4, 8, 16, 32 or 64                  |
//! | 16              | 8       | `nrows`, `u64` (at most `2^32 - 1`)                       |
//! | 24              | 8       | `ncols`, `u64` (at most `2^32 - 1`)                       |
//! | 32              | 8       | `ntiles` = `T`, `u64` (at most `2^32 - 1`)                |
//! | 40              | 1       | element type tag, `u8` (table below)                      |
//! | 41              | 1       | column form, `u8`: 0 = 32-bit (version 1: always 0), 1 = 16-bit |
//! | 42              | 2       | reserved, zero                                            |
//! | 44              | 4       | `E`, escaped columns, `u32` (16-bit form; else zero)      |
//! | 48              | 8       | iso value: the type's bits, zero-extended to `u64`        |
//! | 56              | 4 (R+1) | `tile_row_ptr`, `u32` each                                |
//! | 56 + 4 (R+1)    | C       | tile columns (below)                                      |
//! | 56 + 4 (R+1) + C | B T    | tiles, each `B` bytes as [`TileBits::to_le_bytes`] writes |
//! | end - 4         | 4       | CRC-32 (IEEE, as zlib) of every byte before it, `u32`     |
//!
//! Tile columns, 32-bit form: `tile_col_idx`, a `u32` each (`C = 4 T`).
//! 16-bit form: a `u32` base per tile row (`4 R`), a `u16` offset per tile
//! (`2 T`, then 2 zero bytes if `T` is odd) and the `E` escaped columns, a
//! `u32` each (`C = 4 R + 2 T + 2 (T mod 2) + 4 E`).
//!
//! The file is exactly `56 + 4 (R + 1) + C + B T + 4` bytes long. Tile bits
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
//! allocates anything; from a stream, whose length is not known in advance,
//! the arrays grow with what arrives and the input must end right after the
//! checksum), that the arrays fit the memory limit
//! ([`ReadOptions::max_bytes`]), the checksum, and finally every offset and
//! index (with [`B2sr::from_parts`]). Any failure is an [`Error::CorruptFile`]
//! (an [`Error::OutOfMemory`] for the limit).
//!
//! ```
//! use bitgraphblas::{io, Format, Matrix, TileSize};
//! let a = Matrix::from_triplets(5, 5, vec![(0, 1, true), (4, 4, true)])?
//!     .to_format(Format::B2sr(TileSize::T4))?; // 32-bit columns: version 1
//! let path = std::env::temp_dir().join(format!("bgb_doc_{}.b2sr", std::process::id()));
//! io::write_b2sr(&path, &a)?;
//! assert_eq!(std::fs::metadata(&path).unwrap().len(), 56 + 4 * 3 + 4 * 2 + 2 * 2 + 4);
//! assert_eq!(io::read_b2sr::<bool>(&path)?, a);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use std::io::{Read, Write};
use std::path::Path;

use super::limits::{Budget, ReadOptions};
use super::scalar_bits::{bits_to_f64, bits_to_string, convert_exact, from_bits, to_bits};
use super::{io_err, open, path_name, OutputFile};
use crate::container::{Matrix, MatrixRepr};
use crate::error::{Error, Result};
use crate::scalar::{Scalar, ScalarType};
use crate::storage::b2sr::{
    with_blocks, B2srBlocks, B2srTiles, NarrowColumns, Tile16, Tile32, Tile4, Tile64, Tile8,
    TileBits, TileColumns,
};
use crate::storage::{B2sr, TileSize};

/// The first eight bytes of every B2SR file.
pub const B2SR_MAGIC: [u8; 8] = [0x89, b'B', b'2', b'S', b'R', b'\r', b'\n', 0x1a];
/// The newest format version, which this crate writes for 16-bit tile
/// columns (and reads, with version 1).
pub const B2SR_VERSION: u32 = 2;
/// The version this crate writes for 32-bit tile columns.
const B2SR_VERSION_WIDE: u32 = 1;

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

/// Writes a B2SR matrix to `path` in the format above, in full or not at all
/// ([`OutputFile`]). A CSR matrix is an `Error::InvalidArgument` (convert it
/// with [`Matrix::to_format`] first).
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
    let mut w = CrcWriter {
        inner: OutputFile::create(path)?,
        crc: crc32fast::Hasher::new(),
    };
    let run = |w: &mut CrcWriter<OutputFile>| -> std::io::Result<()> {
        let (version, form, escaped) = match with_blocks!(pattern.tiles(), b => b.columns()) {
            TileColumns::Wide(_) => (B2SR_VERSION_WIDE, 0u8, 0u32),
            TileColumns::Narrow(n) => (B2SR_VERSION, 1u8, n.escaped().len() as u32),
        };
        let mut head = Vec::with_capacity(HEADER_BYTES as usize);
        head.extend_from_slice(&B2SR_MAGIC);
        head.extend_from_slice(&version.to_le_bytes());
        head.extend_from_slice(&(pattern.k() as u32).to_le_bytes());
        head.extend_from_slice(&(pattern.nrows() as u64).to_le_bytes());
        head.extend_from_slice(&(pattern.ncols() as u64).to_le_bytes());
        head.extend_from_slice(&(pattern.ntiles() as u64).to_le_bytes());
        head.push(type_tag(T::TYPE));
        head.extend_from_slice(&[form, 0, 0]);
        head.extend_from_slice(&escaped.to_le_bytes());
        head.extend_from_slice(&to_bits(*value).to_le_bytes());
        debug_assert_eq!(head.len() as u64, HEADER_BYTES);
        w.write_all(&head)?;
        with_blocks!(pattern.tiles(), b => write_blocks(w, b))?;
        let crc = w.crc.clone().finalize();
        w.inner.write_all(&crc.to_le_bytes())?;
        w.inner.flush()
    };
    run(&mut w).map_err(|e| io_err(path, e))?;
    w.inner.commit()
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
    let mut put = |buf: &mut Vec<u8>, bytes: &[u8]| -> std::io::Result<()> {
        buf.extend_from_slice(bytes);
        if buf.len() >= CHUNK {
            w.write_all(buf)?;
            buf.clear();
        }
        Ok(())
    };
    for &x in b.tile_row_ptr() {
        put(&mut buf, &x.to_le_bytes())?;
    }
    match b.columns() {
        TileColumns::Wide(c) => {
            for &x in c {
                put(&mut buf, &x.to_le_bytes())?;
            }
        }
        TileColumns::Narrow(n) => {
            for &x in n.base() {
                put(&mut buf, &x.to_le_bytes())?;
            }
            for &x in n.offset() {
                put(&mut buf, &x.to_le_bytes())?;
            }
            if n.offset().len() % 2 == 1 {
                put(&mut buf, &[0, 0])?;
            }
            for &x in n.escaped() {
                put(&mut buf, &x.to_le_bytes())?;
            }
        }
    }
    let mut one = Vec::with_capacity(L::BYTES);
    for t in b.tiles() {
        one.clear();
        t.to_le_bytes(&mut one);
        put(&mut buf, &one)?;
    }
    w.write_all(&buf)
}

/// Reads a B2SR file written by [`write_b2sr`]. The stored element type must
/// be `T` (else `Error::InvalidArgument`; [`super::read_graph`] converts instead);
/// any damage to the file is an [`Error::CorruptFile`], found before any
/// allocation larger than the file itself. The limits are
/// [`ReadOptions::default`] (see [`read_b2sr_with`]).
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
    read_b2sr_with(path, &ReadOptions::default())
}

/// [`read_b2sr`] within the limits `opts`: arrays that would need more than
/// `opts.max_bytes` are an [`Error::OutOfMemory`], found from the header
/// before they are allocated.
///
/// ```
/// use bitgraphblas::{io, Format, Matrix, TileSize};
/// let a = Matrix::from_triplets(64, 64, (0..64).map(|i| (i, i, true)).collect())?
///     .to_format(Format::B2sr(TileSize::T8))?;
/// let path = std::env::temp_dir().join(format!("bgb_doc_lim_{}.b2sr", std::process::id()));
/// io::write_b2sr(&path, &a)?;
/// let tight = io::ReadOptions { max_bytes: 64, ..Default::default() };
/// let e = io::read_b2sr_with::<bool>(&path, &tight).unwrap_err();
/// assert!(matches!(e, bitgraphblas::Error::OutOfMemory { needed: 132, .. }), "{e}"); // 4 * 9 + 4 * 8 + 8 * 8
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_b2sr_with<T: Scalar>(path: impl AsRef<Path>, opts: &ReadOptions) -> Result<Matrix<T>> {
    let path = path.as_ref();
    let r = read_path(path, Some(T::TYPE), opts)?;
    let value = from_bits::<T>(r.ty, r.bits).expect("type and bits checked by read_stream");
    Ok(Matrix::from_b2sr(r.pattern, value))
}

/// A checked B2SR file: the pattern, the stored element type and the iso value's bits.
pub(crate) struct B2srRead {
    pub pattern: B2sr,
    pub ty: ScalarType,
    pub bits: u64,
}

impl B2srRead {
    /// The matrix with its iso value as `T`: converted only where that is
    /// exact (`1.0f32` as `true`, `7u32` as `7.0f64`; not `0.5` as `bool`, nor
    /// `2^60 + 1` as `f64`), else an `Error::InvalidArgument` naming both types.
    pub fn into_matrix<T: Scalar>(self, name: &str) -> Result<Matrix<T>> {
        match convert_exact::<T>(self.ty, self.bits) {
            Some(v) => Ok(Matrix::from_b2sr(self.pattern, v)),
            None => Err(Error::invalid(
                "read_graph",
                format!(
                    "{name} holds the {} iso value {}, which is not exactly a {}",
                    self.ty.name(),
                    bits_to_string(self.ty, self.bits),
                    T::TYPE.name()
                ),
            )),
        }
    }
}

/// Opens `path` once and reads it as a B2SR file (the length is checked
/// against the header first where the path is a regular file).
pub(crate) fn read_path(
    path: &Path,
    want: Option<ScalarType>,
    opts: &ReadOptions,
) -> Result<B2srRead> {
    let r = open(path)?;
    let meta = r.get_ref().metadata().map_err(|e| io_err(path, e))?;
    let known = meta.is_file().then_some(meta.len());
    read_stream(r, &path_name(path), known, want, opts)
}

/// Reads as much of `buf` as the input has; the number of bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Reads and checks a whole B2SR input from a reader, front to back (a pipe
/// works). `known_len` is the input's length where it is known in advance
/// (a regular file), checked against the header before anything is read
/// past it; otherwise the end of the input must come right after the
/// checksum. `name` is already escaped.
pub(crate) fn read_stream<R: Read>(
    mut r: R,
    name: &str,
    known_len: Option<u64>,
    want: Option<ScalarType>,
    opts: &ReadOptions,
) -> Result<B2srRead> {
    let corrupt = |detail: String| Error::CorruptFile {
        path: name.to_string(),
        detail,
    };
    let io = |e: std::io::Error| io_err(Path::new(name), e);
    let mut head = [0u8; HEADER_BYTES as usize];
    let got = read_full(&mut r, &mut head).map_err(io)?;
    let magic_ok = head[..got.min(8)] == B2SR_MAGIC[..got.min(8)];
    if !magic_ok {
        return Err(corrupt("not a B2SR file (bad magic bytes)".into()));
    }
    let short = match known_len {
        Some(len) => len < HEADER_BYTES + CRC_BYTES,
        None => got < HEADER_BYTES as usize,
    };
    if short || got < 8 {
        let len = known_len.unwrap_or(got as u64);
        return Err(corrupt(format!(
            "{len} bytes is shorter than the {} byte header and checksum",
            HEADER_BYTES + CRC_BYTES
        )));
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let u32_at = |o: usize| u32::from_le_bytes(head[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(head[o..o + 8].try_into().expect("8 bytes"));
    let version = u32_at(8);
    if !(B2SR_VERSION_WIDE..=B2SR_VERSION).contains(&version) {
        return Err(corrupt(format!(
            "format version {version} is not supported (this build reads versions \
             {B2SR_VERSION_WIDE} to {B2SR_VERSION})"
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
    let narrow = match (version, head[41]) {
        (_, 0) => false,
        (2, 1) => true,
        (_, f) => {
            return Err(corrupt(format!(
                "bad column form {f} for version {version}"
            )))
        }
    };
    let escaped = u32_at(44) as u64;
    if head[42..44].iter().any(|&b| b != 0) || (!narrow && escaped != 0) {
        return Err(corrupt("reserved header bytes are not zero".into()));
    }
    if escaped > ntiles {
        return Err(corrupt(format!(
            "{escaped} escaped columns for {ntiles} tiles"
        )));
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
    let columns = if narrow {
        4 * tile_rows + 2 * ntiles + 2 * (ntiles % 2) + 4 * escaped
    } else {
        4 * ntiles
    };
    let arrays = 4 * (tile_rows + 1) + columns + tile_bytes * ntiles;
    let expect = HEADER_BYTES + arrays + CRC_BYTES;
    if let Some(len) = known_len {
        if expect != len {
            return Err(corrupt(format!(
                "the header implies {expect} bytes ({ntiles} tiles of {k}x{k}, {tile_rows} tile rows) \
                 but the file has {len}"
            )));
        }
    }
    let budget = Budget {
        input: name,
        limit: opts.max_bytes,
    };
    budget.check(arrays, |size| {
        format!(
            "the header claims {ntiles} tiles of {k}x{k} in {tile_rows} tile rows: {size} of arrays"
        )
    })?;
    let shape = Shape {
        tile_rows: tile_rows as usize,
        ntiles: ntiles as usize,
        escaped: narrow.then_some(escaped as usize),
    };
    let mut src = CrcReader {
        inner: r,
        crc,
        exact: known_len.is_some(),
        budget: &budget,
        name,
        expect,
    };
    let tiles = match tile {
        TileSize::T4 => B2srTiles::T4(read_blocks::<Tile4, _>(&mut src, &shape)?),
        TileSize::T8 => B2srTiles::T8(read_blocks::<Tile8, _>(&mut src, &shape)?),
        TileSize::T16 => B2srTiles::T16(read_blocks::<Tile16, _>(&mut src, &shape)?),
        TileSize::T32 => B2srTiles::T32(read_blocks::<Tile32, _>(&mut src, &shape)?),
        TileSize::T64 => B2srTiles::T64(read_blocks::<Tile64, _>(&mut src, &shape)?),
        TileSize::Auto => unreachable!("from_k never gives Auto"),
    };
    let mut stored = [0u8; 4];
    src.read_exact_raw(&mut stored)?;
    let (stored, computed) = (u32::from_le_bytes(stored), src.crc.clone().finalize());
    if known_len.is_none() {
        let mut more = [0u8; 1];
        if read_full(&mut src.inner, &mut more).map_err(io)? > 0 {
            return Err(corrupt(format!(
                "the input goes on after the {expect} bytes the header implies"
            )));
        }
    }
    if stored != computed {
        return Err(corrupt(format!(
            "checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
        )));
    }
    let pattern = B2sr::from_parts(nrows as usize, ncols as usize, tiles)
        .map_err(|e| corrupt(format!("checksum is valid but the arrays are not: {e}")))?;
    Ok(B2srRead { pattern, ty, bits })
}

/// The input after the header: hashes what it reads, and turns a short read
/// or a failed allocation into the crate's errors.
struct CrcReader<'b, R> {
    inner: R,
    crc: crc32fast::Hasher,
    /// The length was checked, so arrays can be allocated in one go.
    exact: bool,
    budget: &'b Budget<'b>,
    name: &'b str,
    expect: u64,
}

impl<R: Read> CrcReader<'_, R> {
    fn read_exact_raw(&mut self, buf: &mut [u8]) -> Result<()> {
        self.inner.read_exact(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::CorruptFile {
                    path: self.name.to_string(),
                    detail: format!(
                        "the input ends before the {} bytes the header implies",
                        self.expect
                    ),
                }
            } else {
                io_err(Path::new(self.name), e)
            }
        })
    }

    /// Fills `buf` exactly, hashing what it reads.
    fn fill(&mut self, buf: &mut [u8]) -> Result<()> {
        self.read_exact_raw(buf)?;
        self.crc.update(buf);
        Ok(())
    }

    /// Reads `n` items of `size` bytes each in bounded chunks, decoding each
    /// with `f`. With a checked length the vector is allocated once; from a
    /// stream it grows with what arrives, so a header that lies about a short
    /// input costs no more than the input.
    fn items<X>(&mut self, n: usize, size: usize, mut f: impl FnMut(&[u8]) -> X) -> Result<Vec<X>> {
        let mut out = Vec::new();
        let what = || format!("{n} items of {size} bytes");
        if self.exact {
            self.budget.reserve(&mut out, n, what)?;
        }
        let per_chunk = ((1 << 16) / size).max(1);
        let mut buf = vec![0u8; per_chunk * size];
        let mut left = n;
        while left > 0 {
            let m = left.min(per_chunk);
            let chunk = &mut buf[..m * size];
            self.fill(chunk)?;
            if out.capacity() - out.len() < m {
                let grow = out.len().max(m).min(n - out.len());
                self.budget.reserve(&mut out, grow, what)?;
            }
            out.extend(chunk.chunks_exact(size).map(&mut f));
            left -= m;
        }
        Ok(out)
    }
}

/// The array lengths a header gives: tile rows, tiles and, for 16-bit tile
/// columns, the escaped ones.
struct Shape {
    tile_rows: usize,
    ntiles: usize,
    escaped: Option<usize>,
}

fn read_blocks<L: TileBits, R: Read>(
    src: &mut CrcReader<'_, R>,
    shape: &Shape,
) -> Result<B2srBlocks<L>> {
    let u32_le = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
    let u16_le = |b: &[u8]| u16::from_le_bytes(b.try_into().expect("2 bytes"));
    let ptr = src.items(shape.tile_rows + 1, 4, u32_le)?;
    let Some(escaped) = shape.escaped else {
        let cols = src.items(shape.ntiles, 4, u32_le)?;
        let tiles = src.items(shape.ntiles, L::BYTES, L::from_le_bytes)?;
        return Ok(B2srBlocks::from_raw(ptr, cols, tiles));
    };
    let base = src.items(shape.tile_rows, 4, u32_le)?;
    let offset = src.items(shape.ntiles, 2, u16_le)?;
    if shape.ntiles % 2 == 1 {
        let mut pad = [0u8; 2];
        src.fill(&mut pad)?;
    }
    let escaped = src.items(escaped, 4, u32_le)?;
    let tiles = src.items(shape.ntiles, L::BYTES, L::from_le_bytes)?;
    // Checked with the rest of the arrays by `B2sr::from_parts`, after the checksum.
    let columns = TileColumns::Narrow(NarrowColumns {
        base,
        offset,
        escaped,
    });
    Ok(B2srBlocks::from_columns(ptr, columns, tiles))
}
