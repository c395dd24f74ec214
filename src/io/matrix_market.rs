//! The Matrix Market *coordinate* text format, plain or gzip-compressed.
//!
//! Supported: `%%MatrixMarket matrix coordinate F S` with field `F` one of
//! `pattern`, `integer`, `real` and symmetry `S` one of `general`, `symmetric`
//! (keywords case-insensitive). Not supported (an [`Error::Parse`] saying so):
//! the dense `array` format, `complex`, `skew-symmetric` and `hermitian`.
//!
//! Reading rules:
//! - `symmetric` files are expanded: an entry `(i, j)` off the diagonal also
//!   stores `(j, i)`; a diagonal entry is stored once.
//! - `pattern` entries get the value `T::one()`; `integer` and `real` values are
//!   converted with [`Scalar::from_f64`] (saturating for integers, `!= 0` for
//!   `bool`), except that `integer` values read into `i64`/`u64` are exact.
//! - Duplicate `(i, j)` entries (repeated in the file, or produced by expanding
//!   a symmetric file that stores both triangles) are summed with
//!   [`Scalar::plus`]; in a `pattern` file they collapse to one entry.
//! - Blank lines and `%` comment lines are skipped everywhere; tokens are
//!   separated by spaces or tabs; `\r\n` line ends are accepted.
//! - Gzip input is recognised by its magic bytes (`1f 8b`), whatever the name.
//!
//! Every malformed input is an [`Error::Parse`] naming the 1-based line: a bad
//! banner or size line, a missing, unparsable, zero or out-of-range index, a
//! missing or unparsable value, an extra field, more or fewer entry lines than
//! the size line declares, or compressed data that ends early or is corrupt
//! (the line then is the one being read when it failed).
//!
//! ```
//! use bitgraphblas::io::read_matrix_market_from;
//! let text = "%%MatrixMarket matrix coordinate real general\n% a comment\n2 3 3\n1 3 2.5\n2 1 -1\n1 3 0.5\n";
//! let a = read_matrix_market_from::<f64, _>(text.as_bytes(), "inline")?;
//! assert_eq!((a.nrows(), a.ncols(), a.nvals()), (2, 3, 2));
//! assert_eq!(a.get(0, 2), Some(3.0)); // the duplicate (1, 3) is summed
//!
//! let bad = "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n";
//! let e = read_matrix_market_from::<f64, _>(bad.as_bytes(), "bad").unwrap_err();
//! assert!(matches!(e, bitgraphblas::Error::Parse { line: 3, .. }));
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use super::limits::{human_bytes, Budget, ReadOptions};
use super::printable::printable;
use super::scalar_bits::from_i128;
use super::{io_err, open, path_name, peek, OutputFile};
use crate::container::Matrix;
use crate::error::{Error, Result};
use crate::scalar::{Scalar, ScalarType};
use crate::storage::Csr;

/// The value field of a Matrix Market file.
///
/// ```
/// use bitgraphblas::io::{read_matrix_market_from, MmField};
/// // A `real` field with values; `pattern` would give every entry the value one.
/// let text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n";
/// let a = read_matrix_market_from::<f64, _>(text.as_bytes(), "real")?;
/// assert_eq!(a.get(0, 1), Some(0.5));
/// assert_ne!(MmField::Real, MmField::Pattern);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MmField {
    /// No values: every entry is a 1 (an edge).
    Pattern,
    /// Integer values.
    Integer,
    /// Floating-point values.
    Real,
}

/// The symmetry of a Matrix Market file.
///
/// ```
/// use bitgraphblas::io::read_matrix_market_from;
/// // `general` keeps (2, 1) as it is; `symmetric` would add (1, 2) as well.
/// let text = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n";
/// let a = read_matrix_market_from::<bool, _>(text.as_bytes(), "general")?;
/// assert_eq!((a.nvals(), a.get(1, 0), a.get(0, 1)), (1, Some(true), None));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MmSymmetry {
    /// Every entry is stored.
    General,
    /// Only one triangle is stored; `(i, j)` implies `(j, i)`.
    Symmetric,
}

/// What the banner and size line of a Matrix Market file say.
///
/// ```
/// use bitgraphblas::io::{read_matrix_market_header, data_path, MmField, MmSymmetry};
/// let h = read_matrix_market_header(data_path("karate.mtx"))?;
/// assert_eq!((h.field, h.symmetry), (MmField::Pattern, MmSymmetry::Symmetric));
/// assert_eq!((h.nrows, h.ncols, h.entries), (34, 34, 78)); // stored, before expansion
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixMarketHeader {
    /// The value field.
    pub field: MmField,
    /// The symmetry.
    pub symmetry: MmSymmetry,
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Number of entry lines (stored entries, before symmetric expansion).
    pub entries: usize,
}

/// Reads a Matrix Market coordinate file (plain or gzip) into a CSR [`Matrix`].
/// See the [module docs](self) for the rules (symmetric expansion, value
/// conversion, duplicates summed with [`Scalar::plus`], errors); the limits
/// are [`ReadOptions::default`] (use [`read_matrix_market_with`] to set them).
///
/// ```
/// use bitgraphblas::io::{read_matrix_market, data_path};
/// let a = read_matrix_market::<f32>(data_path("karate.mtx"))?;
/// assert_eq!((a.nrows(), a.ncols(), a.nvals()), (34, 34, 156));
/// assert_eq!(a.get(1, 0), Some(1.0));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_matrix_market<T: Scalar>(path: impl AsRef<Path>) -> Result<Matrix<T>> {
    let path = path.as_ref();
    let name = path_name(path);
    read_matrix_market_with(open(path)?, &name, &ReadOptions::default()).map(|(m, _)| m)
}

/// Reads Matrix Market text (plain or gzip, detected by the magic bytes) from
/// any buffered reader; `name` stands for the path in error messages. The
/// limits are [`ReadOptions::default`].
///
/// ```
/// use bitgraphblas::io::read_matrix_market_from;
/// let text = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 7\n2 1 -3\n";
/// let a = read_matrix_market_from::<i32, _>(text.as_bytes(), "inline")?;
/// assert_eq!(a.get(1, 0), Some(-3));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_matrix_market_from<T: Scalar, R: BufRead>(reader: R, name: &str) -> Result<Matrix<T>> {
    read_matrix_market_with(reader, name, &ReadOptions::default()).map(|(m, _)| m)
}

/// Reads Matrix Market text (plain or gzip) from any buffered reader within
/// the limits `opts`, and returns the matrix with the file's header (its
/// field tells a weighted graph from a pattern). A size line or a body that
/// would need more than `opts.max_bytes` is an [`Error::OutOfMemory`], found
/// before the memory is allocated; a line longer than `opts.max_line_bytes` is
/// an [`Error::Parse`] naming the line. The reader is read once, front to
/// back, so a pipe or standard input works.
///
/// ```
/// use bitgraphblas::io::{read_matrix_market_with, MmField, ReadOptions};
/// let text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n";
/// let (a, h) = read_matrix_market_with::<f64, _>(text.as_bytes(), "inline", &ReadOptions::default())?;
/// assert_eq!((a.get(0, 1), h.field), (Some(0.5), MmField::Real));
///
/// let tight = ReadOptions { max_bytes: 1000, ..ReadOptions::default() };
/// let big = "%%MatrixMarket matrix coordinate real general\n200 200 1\n1 2 0.5\n";
/// let e = read_matrix_market_with::<f64, _>(big.as_bytes(), "big", &tight).unwrap_err();
/// assert!(matches!(e, bitgraphblas::Error::OutOfMemory { needed: 1608, limit: 1000, .. }), "{e}");
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_matrix_market_with<T: Scalar, R: BufRead>(
    reader: R,
    name: &str,
    opts: &ReadOptions,
) -> Result<(Matrix<T>, MatrixMarketHeader)> {
    let name = printable(name.as_bytes());
    let budget = Budget {
        input: &name,
        limit: opts.max_bytes,
    };
    // A line is held in memory too: never longer than the memory limit.
    let max_line = opts
        .max_line_bytes
        .min(usize::try_from(opts.max_bytes).unwrap_or(usize::MAX));
    with_decoded(reader, &name, max_line, |lines| {
        let header = read_header(lines)?;
        let csr = read_body(lines, &header, &budget)?;
        Ok((Matrix::from_csr(csr), header))
    })
}

/// Reads only the banner and size line of a Matrix Market file (plain or gzip).
///
/// ```
/// use bitgraphblas::io::{read_matrix_market_header, data_path, MmSymmetry};
/// let h = read_matrix_market_header(data_path("curtis54.mtx"))?;
/// assert_eq!(h.symmetry, MmSymmetry::General);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn read_matrix_market_header(path: impl AsRef<Path>) -> Result<MatrixMarketHeader> {
    let path = path.as_ref();
    with_decoded(
        open(path)?,
        &path_name(path),
        ReadOptions::default().max_line_bytes,
        read_header,
    )
}

/// Runs `f` on the lines of `reader`, gunzipped first when it starts with the
/// gzip magic (looked at without losing the bytes, however the reader splits them).
fn with_decoded<R: BufRead, X>(
    reader: R,
    name: &str,
    max_line: usize,
    f: impl FnOnce(&mut dyn LineSource) -> Result<X>,
) -> Result<X> {
    let (head, reader) =
        peek(reader, 2).map_err(|e| parse_err(name, 1, format!("read failed: {e}")))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let dec = BufReader::with_capacity(1 << 18, MultiGzDecoder::new(reader));
        f(&mut Lines::new(dec, name, max_line))
    } else {
        f(&mut Lines::new(reader, name, max_line))
    }
}

fn parse_err(name: &str, line: usize, detail: impl Into<String>) -> Error {
    Error::Parse {
        path: name.to_string(),
        line,
        detail: detail.into(),
    }
}

/// A line-at-a-time reader that counts lines (object-safe so that the plain
/// and gzip paths share one parser instance per element type).
trait LineSource {
    /// Reads the next line into the buffer (line end removed); `false` at end of input.
    fn advance(&mut self) -> Result<bool>;
    /// The current line (after a successful `advance`).
    fn text(&self) -> &[u8];
    /// The 1-based number of the current line (0 before the first).
    fn line(&self) -> usize;
    /// A parse error at `line`.
    fn err_at(&self, line: usize, detail: String) -> Error;
    /// A parse error at the current line.
    fn err(&self, detail: String) -> Error {
        self.err_at(self.line().max(1), detail)
    }
}

struct Lines<'n, R> {
    reader: R,
    buf: Vec<u8>,
    line: usize,
    name: &'n str,
    max_line: usize,
}

impl<'n, R: BufRead> Lines<'n, R> {
    fn new(reader: R, name: &'n str, max_line: usize) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line: 0,
            name,
            max_line,
        }
    }
}

impl<R: BufRead> LineSource for Lines<'_, R> {
    #[inline]
    fn advance(&mut self) -> Result<bool> {
        self.buf.clear();
        // Never more than the limit plus a `\r\n` line end into the buffer.
        let most = self.max_line as u64 + 2;
        match (&mut self.reader)
            .take(most)
            .read_until(b'\n', &mut self.buf)
        {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.line += 1;
                let ended = self.buf.last() == Some(&b'\n');
                while let Some(b'\n' | b'\r') = self.buf.last() {
                    self.buf.pop();
                }
                if self.buf.len() > self.max_line || (!ended && n as u64 == most) {
                    self.buf.clear();
                    return Err(self.err(format!(
                        "the line is longer than {} bytes, the limit (ReadOptions::max_line_bytes)",
                        self.max_line
                    )));
                }
                Ok(true)
            }
            Err(e) => Err(self.err_at(
                self.line + 1,
                format!("input ends early or is corrupt while reading this line: {e}"),
            )),
        }
    }
    #[inline]
    fn text(&self) -> &[u8] {
        &self.buf
    }
    fn line(&self) -> usize {
        self.line
    }
    fn err_at(&self, line: usize, detail: String) -> Error {
        parse_err(self.name, line, detail)
    }
}

#[inline]
fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t')
        .filter(|t| !t.is_empty())
}

#[inline]
fn is_blank_or_comment(line: &[u8]) -> bool {
    match line.iter().find(|&&b| b != b' ' && b != b'\t') {
        None => true,
        Some(&b) => b == b'%',
    }
}

/// A token from the file for a message: at most 40 characters, escaped.
fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    if s.chars().count() > 40 {
        let head: String = s.chars().take(40).collect();
        format!("{}...", printable(head.as_bytes()))
    } else {
        printable(tok)
    }
}

/// An unsigned decimal integer (digits only).
#[inline]
fn parse_u64(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    if tok.len() <= 19 {
        for &b in tok {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + d as u64;
        }
    } else {
        for &b in tok {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(d as u64)?;
        }
    }
    Some(v)
}

/// A signed decimal integer (`[+-]digits`).
#[inline]
fn parse_i128(tok: &[u8]) -> Option<i128> {
    let (neg, digits) = match tok.first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() || digits.len() > 38 {
        return None;
    }
    let mut v: i128 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as i128;
    }
    Some(if neg { -v } else { v })
}

#[inline]
fn parse_f64(tok: &[u8]) -> Option<f64> {
    std::str::from_utf8(tok).ok()?.parse().ok()
}

fn read_header(lines: &mut dyn LineSource) -> Result<MatrixMarketHeader> {
    if !lines.advance()? {
        return Err(lines.err_at(1, "empty input: no %%MatrixMarket banner".into()));
    }
    let banner = String::from_utf8_lossy(lines.text()).to_ascii_lowercase();
    let words: Vec<&str> = banner.split_whitespace().collect();
    if words.first() != Some(&"%%matrixmarket") {
        return Err(lines.err(format!(
            "not a Matrix Market file: the first line must start with %%MatrixMarket, found '{}'",
            show(lines.text())
        )));
    }
    if words.len() != 5 {
        return Err(lines.err(format!(
            "banner must be '%%MatrixMarket matrix coordinate <field> <symmetry>', found {} words",
            words.len()
        )));
    }
    let word = |k: usize| show(words[k].as_bytes());
    if words[1] != "matrix" {
        return Err(lines.err(format!("unsupported object '{}' (only matrix)", word(1))));
    }
    match words[2] {
        "coordinate" => {}
        "array" => {
            return Err(lines
                .err("unsupported format 'array' (dense); only 'coordinate' is supported".into()))
        }
        _ => return Err(lines.err(format!("unknown format '{}'", word(2)))),
    }
    let field = match words[3] {
        "pattern" => MmField::Pattern,
        "integer" => MmField::Integer,
        "real" | "double" => MmField::Real,
        "complex" => return Err(lines.err("unsupported field 'complex'".into())),
        _ => return Err(lines.err(format!("unknown field '{}'", word(3)))),
    };
    let symmetry = match words[4] {
        "general" => MmSymmetry::General,
        "symmetric" => MmSymmetry::Symmetric,
        s @ ("skew-symmetric" | "hermitian") => {
            return Err(lines.err(format!(
                "unsupported symmetry '{s}' (only general and symmetric)"
            )))
        }
        _ => return Err(lines.err(format!("unknown symmetry '{}'", word(4)))),
    };
    // The size line: the first line that is neither blank nor a comment.
    loop {
        if !lines.advance()? {
            return Err(lines.err_at(
                lines.line() + 1,
                "missing size line 'rows cols entries'".into(),
            ));
        }
        if !is_blank_or_comment(lines.text()) {
            break;
        }
    }
    let toks: Vec<&[u8]> = tokens(lines.text()).collect();
    if toks.len() != 3 {
        return Err(lines.err(format!(
            "size line must be 'rows cols entries' (3 integers), found {} fields",
            toks.len()
        )));
    }
    let mut nums = [0usize; 3];
    for (k, (t, what)) in toks.iter().zip(["rows", "cols", "entries"]).enumerate() {
        nums[k] = parse_u64(t)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| lines.err(format!("bad {what} count '{}' in size line", show(t))))?;
    }
    let [nrows, ncols, entries] = nums;
    for (n, what) in [(nrows, "rows"), (ncols, "columns")] {
        if n > u32::MAX as usize {
            return Err(lines.err(format!("{n} {what} exceed 32-bit indices")));
        }
    }
    if symmetry == MmSymmetry::Symmetric && nrows != ncols {
        return Err(lines.err(format!(
            "a symmetric matrix must be square, not {nrows}x{ncols}"
        )));
    }
    Ok(MatrixMarketHeader {
        field,
        symmetry,
        nrows,
        ncols,
        entries,
    })
}

/// Coordinate lists gathered from the entry lines (`vals` empty for pattern files).
struct Coo<T> {
    rows: Vec<u32>,
    cols: Vec<u32>,
    vals: Vec<T>,
}

/// What reading a body costs in memory: `fixed` bytes of row pointers, and
/// `per_entry` bytes for each stored entry at the peak (its coordinates,
/// and its place in the CSR arrays that are filled while they are alive).
#[derive(Clone, Copy)]
struct Cost {
    fixed: u64,
    per_entry: u64,
}

impl Cost {
    fn new<T>(nrows: usize, valued: bool) -> Cost {
        let st = std::mem::size_of::<T>() as u64;
        Cost {
            fixed: 8 * (nrows as u64 + 1),
            per_entry: 8 + 4 + st + if valued { st } else { 0 },
        }
    }
    fn bytes(&self, entries: u64) -> u64 {
        self.fixed
            .saturating_add(entries.saturating_mul(self.per_entry))
    }
    /// How many entries fit the budget.
    fn room(&self, limit: u64) -> u64 {
        limit.saturating_sub(self.fixed) / self.per_entry
    }
}

impl<T> Coo<T> {
    /// Room for more entries: the `left` entry lines the header still promises
    /// (`per_line` coordinates each), but never more than doubling (so that a
    /// header that lies cannot make us allocate much beyond what the input
    /// holds) nor beyond the budget; an `Err` when not even one more line fits.
    fn grow(
        &mut self,
        left: usize,
        per_line: usize,
        valued: bool,
        budget: &Budget<'_>,
        cost: Cost,
        line: usize,
    ) -> Result<()> {
        let len = self.rows.len();
        let need = len + per_line;
        budget.check(cost.bytes(need as u64), |size| {
            format!(
                "line {line}: {need} entries need {size} \
                 (coordinates, CSR arrays and {} of row pointers)",
                human_bytes(cost.fixed)
            )
        })?;
        let room = (cost.room(budget.limit) as usize).saturating_sub(len);
        let extra = left
            .saturating_mul(per_line)
            .min(len.max(1 << 10))
            .min(room)
            .max(per_line);
        let what = || format!("line {line}: room for {} entries", len + extra);
        budget.reserve(&mut self.rows, extra, what)?;
        budget.reserve(&mut self.cols, extra, what)?;
        if valued {
            budget.reserve(&mut self.vals, extra, what)?;
        }
        Ok(())
    }
}

/// Parses one 1-based index token against its bound.
#[inline]
fn index(lines: &dyn LineSource, tok: Option<&[u8]>, what: &str, bound: usize) -> Result<u32> {
    let tok = tok.ok_or_else(|| lines.err(format!("missing {what} index")))?;
    match parse_u64(tok) {
        Some(0) => Err(lines.err(format!("{what} index 0: indices are 1-based"))),
        Some(v) if v as u128 <= bound as u128 => Ok((v - 1) as u32),
        Some(v) => Err(lines.err(format!("{what} index {v} out of range 1..={bound}"))),
        None => Err(lines.err(format!("bad {what} index '{}'", show(tok)))),
    }
}

fn read_body<T: Scalar>(
    lines: &mut dyn LineSource,
    h: &MatrixMarketHeader,
    budget: &Budget<'_>,
) -> Result<Csr<T>> {
    let sym = h.symmetry == MmSymmetry::Symmetric;
    let valued = h.field != MmField::Pattern;
    let per_line = if sym { 2 } else { 1 };
    let cost = Cost::new::<T>(h.nrows, valued);
    let size_line = lines.line();
    // The row pointers the size line claims are checked before anything is allocated.
    budget.check(cost.fixed, |size| {
        format!(
            "line {size_line}: the size line claims {} rows: {size} of row pointers",
            h.nrows
        )
    })?;
    // The header's count of entries is not trusted for allocation beyond a
    // modest start; what the entries need is checked as they arrive.
    let cap = (h.entries.min(1 << 22) * per_line).min(cost.room(budget.limit) as usize);
    let start = || format!("line {size_line}: room for {cap} entries");
    let mut coo = Coo {
        rows: Vec::new(),
        cols: Vec::new(),
        vals: Vec::new(),
    };
    budget.reserve(&mut coo.rows, cap, start)?;
    budget.reserve(&mut coo.cols, cap, start)?;
    if valued {
        budget.reserve(&mut coo.vals, cap, start)?;
    }
    let mut seen = 0usize;
    while lines.advance()? {
        let text = lines.text();
        if is_blank_or_comment(text) {
            continue;
        }
        if seen == h.entries {
            return Err(lines.err(format!(
                "more entry lines than the {} the size line declares",
                h.entries
            )));
        }
        seen += 1;
        let mut toks = tokens(text);
        let i = index(lines, toks.next(), "row", h.nrows)?;
        let j = index(lines, toks.next(), "column", h.ncols)?;
        let v = match h.field {
            MmField::Pattern => None,
            MmField::Integer => {
                let t = toks
                    .next()
                    .ok_or_else(|| lines.err("missing value".into()))?;
                let x = parse_i128(t)
                    .ok_or_else(|| lines.err(format!("bad integer value '{}'", show(t))))?;
                Some(from_i128::<T>(x))
            }
            MmField::Real => {
                let t = toks
                    .next()
                    .ok_or_else(|| lines.err("missing value".into()))?;
                let x = parse_f64(t)
                    .ok_or_else(|| lines.err(format!("bad real value '{}'", show(t))))?;
                Some(T::from_f64(x))
            }
        };
        if let Some(extra) = toks.next() {
            return Err(lines.err(format!(
                "unexpected extra field '{}' after the entry",
                show(extra)
            )));
        }
        if coo.rows.len() + per_line > coo.rows.capacity()
            || coo.cols.len() + per_line > coo.cols.capacity()
            || (valued && coo.vals.len() + per_line > coo.vals.capacity())
        {
            coo.grow(
                h.entries - seen + 1,
                per_line,
                valued,
                budget,
                cost,
                lines.line(),
            )?;
        }
        coo.rows.push(i);
        coo.cols.push(j);
        if let Some(v) = v {
            coo.vals.push(v);
        }
        if sym && i != j {
            coo.rows.push(j);
            coo.cols.push(i);
            if let Some(v) = v {
                coo.vals.push(v);
            }
        }
    }
    if seen < h.entries {
        return Err(lines.err(format!(
            "input ends after {seen} of the {} entry lines the size line declares",
            h.entries
        )));
    }
    coo_to_csr(h.nrows, h.ncols, coo, budget)
}

/// Builds CSR from in-range coordinates: a stable counting sort by row (the
/// row pointers double as the insertion cursors), a sort of each row by
/// column only where the file did not already order it, and an in-place merge
/// of duplicates (summed with `plus`; pattern duplicates collapse). Every
/// allocation is fallible; the temporaries are one row's pairs.
fn coo_to_csr<T: Scalar>(
    nrows: usize,
    ncols: usize,
    coo: Coo<T>,
    budget: &Budget<'_>,
) -> Result<Csr<T>> {
    let Coo { rows, cols, vals } = coo;
    let pattern = vals.is_empty() && !rows.is_empty();
    let n = rows.len();
    let mut row_ptr = budget.filled(nrows + 1, 0usize, || format!("{} row pointers", nrows + 1))?;
    for &r in &rows {
        row_ptr[r as usize + 1] += 1;
    }
    for i in 0..nrows {
        row_ptr[i + 1] += row_ptr[i];
    }
    let mut col_idx = budget.filled(n, 0u32, || format!("{n} column indices"))?;
    let mut values = if pattern {
        Vec::new()
    } else {
        budget.filled(n, T::default(), || format!("{n} values"))?
    };
    // row_ptr[r] is row r's cursor; afterwards it holds the end of row r.
    for (k, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
        let p = &mut row_ptr[r as usize];
        col_idx[*p] = c;
        if !pattern {
            values[*p] = vals[k];
        }
        *p += 1;
    }
    drop((rows, cols, vals));
    for i in (1..=nrows).rev() {
        row_ptr[i] = row_ptr[i - 1];
    }
    row_ptr[0] = 0;

    // Sort rows that need it, merge duplicates, compact in place (w <= s always).
    let mut pairs: Vec<(u32, T)> = Vec::new();
    let mut w = 0usize;
    for i in 0..nrows {
        let (s, e) = (row_ptr[i], row_ptr[i + 1]);
        let sorted = col_idx[s..e].windows(2).all(|p| p[0] < p[1]);
        if !sorted {
            if pattern {
                col_idx[s..e].sort_unstable();
            } else {
                pairs.clear();
                budget.reserve(&mut pairs, e - s, || format!("sorting row {}", i + 1))?;
                pairs.extend(
                    col_idx[s..e]
                        .iter()
                        .copied()
                        .zip(values[s..e].iter().copied()),
                );
                pairs.sort_by_key(|p| p.0); // stable: duplicates summed in file order
                for (k, &(c, v)) in pairs.iter().enumerate() {
                    col_idx[s + k] = c;
                    values[s + k] = v;
                }
            }
        }
        let start = w;
        for k in s..e {
            if w > start && col_idx[w - 1] == col_idx[k] {
                if !pattern {
                    values[w - 1] = T::plus(values[w - 1], values[k]);
                }
                continue;
            }
            col_idx[w] = col_idx[k];
            if !pattern {
                values[w] = values[k];
            }
            w += 1;
        }
        row_ptr[i] = start;
    }
    row_ptr[nrows] = w;
    col_idx.truncate(w);
    col_idx.shrink_to_fit();
    if pattern {
        values = budget.filled(w, T::one(), || format!("{w} values"))?;
    } else {
        values.truncate(w);
        values.shrink_to_fit();
    }
    Ok(Csr::from_parts_unchecked(
        nrows, ncols, row_ptr, col_idx, values,
    ))
}

/// Writes `a` as a Matrix Market `coordinate general` file, gzip-compressed
/// when the path ends in `.gz`, in full or not at all ([`OutputFile`]). The field follows `T`: `integer` for integer
/// types, `real` for floats, `pattern` for `bool` (or `integer` 0/1 when some
/// stored `bool` is `false`, so that reading back loses nothing). Floats are
/// written in the shortest form that reads back to the same value.
///
/// ```
/// use bitgraphblas::{io, Matrix};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 2.5f64), (1, 0, -1.0)])?;
/// let path = std::env::temp_dir().join(format!("bgb_doc_{}.mtx.gz", std::process::id()));
/// io::write_matrix_market(&path, &a)?;
/// assert_eq!(io::read_matrix_market::<f64>(&path)?, a);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn write_matrix_market<T: Scalar>(path: impl AsRef<Path>, a: &Matrix<T>) -> Result<()> {
    let path = path.as_ref();
    let mut file = OutputFile::create(path)?;
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let run = |file: &mut OutputFile| -> std::io::Result<()> {
        if gz {
            let enc = GzEncoder::new(file, Compression::new(6));
            let mut w = BufWriter::with_capacity(1 << 18, enc);
            write_text(&mut w, a)?;
            w.into_inner()
                .map_err(|e| e.into_error())?
                .finish()?
                .flush()
        } else {
            write_text(file, a)?;
            file.flush()
        }
    };
    run(&mut file).map_err(|e| io_err(path, e))?;
    file.commit()
}

/// Writes a decimal integer without going through `fmt`.
#[inline]
fn put_uint(w: &mut impl Write, mut v: u64) -> std::io::Result<()> {
    let mut buf = [0u8; 20];
    let mut p = buf.len();
    loop {
        p -= 1;
        buf[p] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    w.write_all(&buf[p..])
}

fn write_text<T: Scalar, W: Write>(w: &mut W, a: &Matrix<T>) -> std::io::Result<()> {
    let csr = a.as_csr();
    let is_bool = T::TYPE == ScalarType::Bool;
    let field = if is_bool {
        if csr.values().iter().all(|v| v.is_nonzero()) {
            MmField::Pattern
        } else {
            MmField::Integer
        }
    } else if T::IS_FLOAT {
        MmField::Real
    } else {
        MmField::Integer
    };
    let fname = match field {
        MmField::Pattern => "pattern",
        MmField::Integer => "integer",
        MmField::Real => "real",
    };
    writeln!(w, "%%MatrixMarket matrix coordinate {fname} general")?;
    writeln!(
        w,
        "% written by bitgraphblas (element type {})",
        T::TYPE.name()
    )?;
    writeln!(w, "{} {} {}", csr.nrows(), csr.ncols(), csr.nnz())?;
    for i in 0..csr.nrows() {
        let (cols, vals) = csr.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            put_uint(w, i as u64 + 1)?;
            w.write_all(b" ")?;
            put_uint(w, j as u64 + 1)?;
            match field {
                MmField::Pattern => {}
                _ if is_bool => write!(w, " {}", v.to_f64() as u8)?,
                _ => write!(w, " {v:?}")?,
            }
            w.write_all(b"\n")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"1x"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_i128(b"-12"), Some(-12));
        assert_eq!(parse_i128(b"+7"), Some(7));
        assert_eq!(parse_i128(b"-"), None);
        assert_eq!(parse_f64(b"1e-3"), Some(1e-3));
        assert_eq!(parse_f64(b"1,0"), None);
    }

    #[test]
    fn put_uint_digits() {
        for v in [0u64, 7, 10, 12345, u64::MAX] {
            let mut out = Vec::new();
            put_uint(&mut out, v).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
    }

    #[test]
    fn unsorted_rows_and_duplicates() {
        let coo = Coo {
            rows: vec![1, 0, 1, 1, 0],
            cols: vec![2, 1, 0, 2, 1],
            vals: vec![1.0f64, 2.0, 3.0, 4.0, 5.0],
        };
        let budget = Budget {
            input: "test",
            limit: u64::MAX,
        };
        let c = coo_to_csr(2, 3, coo, &budget).unwrap();
        assert_eq!(c.row_ptr(), &[0, 1, 3]);
        assert_eq!(c.col_idx(), &[1, 0, 2]);
        assert_eq!(c.values(), &[7.0, 3.0, 5.0]);
        c.validate().unwrap();
    }
}
