//! Limits on what reading an input may allocate, and the checks that keep to them.
//!
//! Every size a file states (the Matrix Market size line, a B2SR header's
//! tile counts) and every size that grows with the input (entries read so far,
//! the length of a line) is checked against [`ReadOptions`] *before* memory is
//! allocated for it, and the allocation itself goes through `try_reserve`, so
//! input can make a reader fail with [`Error::OutOfMemory`] or
//! [`Error::Parse`], never abort the process.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The longest line a Matrix Market reader accepts by default (1 MiB).
/// Real entry lines are a few dozen bytes; a longer line is garbage (a binary
/// file, `/dev/zero`, a compressed stream without line ends).
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// Limits for the readers ([`super::read_graph_with`],
/// [`super::read_matrix_market_with`], [`super::read_b2sr_with`]).
///
/// - `max_bytes`: the most memory one read may hold at its peak (coordinates,
///   row pointers, the finished arrays). The default is the memory this
///   process can have: the smallest of the machine's physical memory, the
///   cgroup memory limit and the address-space limit (`ulimit -v`), where the
///   system reports them ([`memory_limit`]).
/// - `max_line_bytes`: the longest text line, [`DEFAULT_MAX_LINE_BYTES`] by
///   default (and never more than `max_bytes`).
///
/// ```
/// use bitgraphblas::io::{read_matrix_market_with, ReadOptions};
/// let opts = ReadOptions { max_line_bytes: 64, ..ReadOptions::default() };
/// let long = format!("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1{}\n", " ".repeat(100));
/// let e = read_matrix_market_with::<bool, _>(long.as_bytes(), "long.mtx", &opts).unwrap_err();
/// assert!(matches!(e, bitgraphblas::Error::Parse { line: 3, .. }), "{e}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// The most bytes a read may allocate (see the type's docs).
    pub max_bytes: u64,
    /// The longest accepted line of text, in bytes (line end excluded).
    pub max_line_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_bytes: memory_limit().unwrap_or(u64::MAX),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// The memory this process may use, as far as the system says: the smallest
/// of the physical memory (`MemTotal` of `/proc/meminfo`), the cgroup limit
/// (`memory.max`, v2, or `memory.limit_in_bytes`, v1) and the soft
/// address-space limit (`ulimit -v`, from `/proc/self/limits`). `None` where
/// none of them can be read (other systems than Linux). Read once per process.
///
/// ```
/// if let Some(bytes) = bitgraphblas::io::memory_limit() {
///     assert!(bytes > 0);
/// }
/// ```
pub fn memory_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        [
            read("/proc/meminfo").and_then(|s| parse_meminfo(&s)),
            read("/sys/fs/cgroup/memory.max").and_then(|s| s.trim().parse().ok()),
            read("/sys/fs/cgroup/memory/memory.limit_in_bytes").and_then(|s| s.trim().parse().ok()),
            read("/proc/self/limits").and_then(|s| parse_limits(&s)),
        ]
        .into_iter()
        .flatten()
        .filter(|&b: &u64| b > 0)
        .min()
    })
}

/// `MemTotal` in bytes from the text of `/proc/meminfo`.
fn parse_meminfo(s: &str) -> Option<u64> {
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The soft "Max address space" in bytes from the text of `/proc/self/limits`
/// (`None` when unlimited).
fn parse_limits(s: &str) -> Option<u64> {
    let line = s.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A byte count for people: `8.0 GB`, `512.0 MB`, `3.1 kB`, `17 bytes`
/// (decimal units, as disks and the issue tracker count).
///
/// ```
/// use bitgraphblas::io::human_bytes;
/// assert_eq!(human_bytes(8_000_000_008), "8.0 GB");
/// assert_eq!(human_bytes(17), "17 bytes");
/// ```
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1000 {
        return format!("{n} bytes");
    }
    let mut x = n as f64 / 1000.0;
    let mut u = 0;
    while x >= 999.95 && u + 1 < UNITS.len() {
        x /= 1000.0;
        u += 1;
    }
    format!("{x:.1} {}", UNITS[u])
}

/// The memory budget of one read: checks sizes against the limit and makes
/// the allocations fallibly.
pub(crate) struct Budget<'a> {
    /// The input, for messages (already escaped).
    pub input: &'a str,
    /// The limit in bytes.
    pub limit: u64,
}

impl Budget<'_> {
    fn error(&self, needed: u64, detail: String) -> Error {
        Error::OutOfMemory {
            input: self.input.to_string(),
            detail,
            needed,
            limit: self.limit,
        }
    }

    /// `Err` when `needed` bytes exceed the limit; `what` gets the size in
    /// words and says what the bytes are for (`"line 2: the size line claims
    /// 10 rows: 88 bytes of row pointers"`).
    pub fn check(&self, needed: u64, what: impl FnOnce(&str) -> String) -> Result<()> {
        if needed <= self.limit {
            return Ok(());
        }
        let (mut need, mut limit) = (human_bytes(needed), human_bytes(self.limit));
        if need == limit {
            // Close to the limit: the rounded sizes would read the same.
            (need, limit) = (format!("{needed} bytes"), format!("{} bytes", self.limit));
        }
        Err(self.error(
            needed,
            format!(
                "{}, more than the {limit} memory limit for reading (ReadOptions::max_bytes)",
                what(&need)
            ),
        ))
    }

    /// Room for `additional` more elements in `v` (exactly that many), or an
    /// `Err` saying what could not be allocated. Does not check the limit: the
    /// caller has done so for the whole of what it holds.
    pub fn reserve<T>(
        &self,
        v: &mut Vec<T>,
        additional: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        if v.try_reserve_exact(additional).is_ok() {
            return Ok(());
        }
        let bytes = (v.len() as u64)
            .saturating_add(additional as u64)
            .saturating_mul(std::mem::size_of::<T>() as u64);
        Err(self.error(
            bytes,
            format!(
                "{}: the system could not allocate {} (out of memory)",
                what(),
                human_bytes(bytes)
            ),
        ))
    }

    /// A vector of `n` copies of `x`, allocated fallibly.
    pub fn filled<T: Clone>(
        &self,
        n: usize,
        x: T,
        what: impl FnOnce() -> String,
    ) -> Result<Vec<T>> {
        let mut v = Vec::new();
        self.reserve(&mut v, n, what)?;
        v.resize(n, x);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files() {
        let meminfo = "MemTotal:       24558912 kB\nMemFree:         1000 kB\n";
        assert_eq!(parse_meminfo(meminfo), Some(24558912 * 1024));
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max address space         4294967296           unlimited            bytes     \n";
        assert_eq!(parse_limits(limits), Some(4294967296));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(parse_limits(unlimited), None);
    }

    #[test]
    fn sizes_for_people() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(999), "999 bytes");
        assert_eq!(human_bytes(1000), "1.0 kB");
        assert_eq!(human_bytes(999_999), "1.0 MB");
        assert_eq!(human_bytes(4 << 30), "4.3 GB");
        assert_eq!(human_bytes(u64::MAX), "18.4 EB");
    }

    #[test]
    fn budget_checks_before_and_while_allocating() {
        let b = Budget {
            input: "x",
            limit: 100,
        };
        assert!(b.check(100, |_| "fits".into()).is_ok());
        let e = b
            .check(101, |size| format!("line 2: {size} of rows"))
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("x: line 2: 101 bytes of rows, more than the 100 bytes"),
            "{e}"
        );
        let mut v: Vec<u64> = Vec::new();
        let e = b
            .reserve(&mut v, usize::MAX / 4, || "huge".into())
            .unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        assert!(e.to_string().contains("could not allocate"), "{e}");
        assert_eq!(b.filled(3, 7u8, || "three".into()).unwrap(), vec![7; 3]);
    }
}
