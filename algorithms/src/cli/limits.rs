//! The memory and line limits of the command line: `--max-memory`,
//! `--max-line-bytes`, the `BITGRAPHBLAS_MAX_MEMORY` and
//! `BITGRAPHBLAS_MAX_LINE_BYTES` environment variables, and the defaults.

use bitgraphblas::io::{human_bytes, memory_limit, ReadOptions, DEFAULT_MAX_LINE_BYTES};

/// The environment variable that sets the memory limit when `--max-memory` is absent.
pub const MEMORY_ENV: &str = "BITGRAPHBLAS_MAX_MEMORY";
/// The environment variable that sets the line limit when `--max-line-bytes` is absent.
pub const LINE_ENV: &str = "BITGRAPHBLAS_MAX_LINE_BYTES";

/// Reading a graph may use this fraction of the memory limit; the algorithms
/// need the rest (the pattern, its transpose, the backend's matrices and
/// vectors: three to four times what the loaded matrix holds).
pub const READ_SHARE: u64 = 4;

/// A size in bytes: digits with an optional unit, `k`/`M`/`G`/`T` (powers of
/// 1000, also written `kB`, `MB`, ...) or `KiB`/`MiB`/`GiB`/`TiB` (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let unit = unit.trim();
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "t" | "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "'{s}' is not a size (a number of bytes, like 4G or 512MiB)"
            ))
        }
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size (a number of bytes, like 4G or 512MiB)"))?;
    n.checked_mul(scale)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("'{s}' is not a size between 1 byte and 16 EiB"))
}

/// The limits for this run: the flags, else the environment, else the
/// defaults (the memory this process may have, [`memory_limit`]; 1 MiB lines).
/// Reading gets a [`READ_SHARE`]th of the memory limit.
pub fn read_options(
    max_memory: Option<u64>,
    max_line: Option<u64>,
) -> Result<(ReadOptions, u64), String> {
    let from_env = |var: &str| -> Result<Option<u64>, String> {
        match std::env::var(var) {
            Ok(v) => parse_size(&v).map(Some).map_err(|e| format!("{var}: {e}")),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!("{var} is not text")),
        }
    };
    let total = match max_memory {
        Some(b) => b,
        None => from_env(MEMORY_ENV)?
            .or_else(memory_limit)
            .unwrap_or(u64::MAX),
    };
    let line = match max_line {
        Some(b) => b,
        None => from_env(LINE_ENV)?.unwrap_or(DEFAULT_MAX_LINE_BYTES as u64),
    };
    let opts = ReadOptions {
        max_bytes: total / READ_SHARE,
        max_line_bytes: usize::try_from(line).unwrap_or(usize::MAX),
    };
    Ok((opts, total))
}

/// The hint added to a memory error: what the limit is and how to raise it.
pub fn raise_hint(total: u64) -> String {
    format!(
        "reading may use a quarter of the memory limit of {}; raise the limit with \
         --max-memory SIZE or {MEMORY_ENV}=SIZE",
        human_bytes(total)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4G"), Ok(4_000_000_000));
        assert_eq!(parse_size("4 GiB"), Ok(4 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("2kb"), Ok(2000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("1.5G").is_err());
        assert!(parse_size("99999999999T").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn flags_come_first() {
        let (o, total) = read_options(Some(8 << 30), Some(100)).unwrap();
        assert_eq!(
            (o.max_bytes, o.max_line_bytes, total),
            (2 << 30, 100, 8 << 30)
        );
    }
}
