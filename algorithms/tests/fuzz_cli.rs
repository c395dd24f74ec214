//! Fuzz target for the command line (bolero): argument vectors built from
//! the command lines of the bad-input report (`tests/fuzz/cli_args.txt`),
//! changed by edits the fuzzer chooses (a token replaced by, or a token
//! inserted from, pools of subcommands, flags, values and files; tokens
//! deleted, swapped, joined as `--flag=value`, or with a byte changed, so
//! not even UTF-8), run as the `bitgraphblas` binary in a sandbox of hostile
//! files (a size line claiming 10^9 rows, a gzip bomb, `/dev/zero`, links to
//! the input, huge weights, an empty graph, control bytes, a directory),
//! with standard input from a graph, a gzip stream or nothing, under a 4 GiB
//! address-space limit.
//!
//! Every run must end by itself within 30 s with exit code 0, 1 or 2 (no
//! signal, no 101, no 70), say nothing with a raw control character or a
//! panic on standard error, leave no temporary file, and change no file at
//! all unless it succeeded; the sandbox is rebuilt after a run that changed it.
//!
//! Under `cargo test` the target runs for 3 s (set `BOLERO_RANDOM_TEST_TIME_MS`
//! for longer; CI gives it a bounded time).

#![cfg(unix)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bolero::TypeGenerator;

const SUBCOMMANDS: &[&str] = &[
    "tour", "info", "convert", "bfs", "sssp", "pagerank", "cc", "tc", "bc", "help", "bogus",
];
const FLAGS: &[&str] = &[
    "--source",
    "--delta",
    "--damping",
    "--tol",
    "--max-iters",
    "--sources",
    "--tile",
    "--backend",
    "--output",
    "-o",
    "--json",
    "--max-memory",
    "--max-line-bytes",
    "--help",
    "-h",
    "--version",
    "--",
    "-",
    "--bogus",
];
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "33",
    "34",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "1e-16",
    "5e-324",
    "1e308",
    "0.85",
    "1.5",
    "nan",
    "inf",
    "-inf",
    "auto",
    "4",
    "7",
    "8",
    "64",
    "cpu",
    "cuda",
    "1kB",
    "4G",
    "64G",
    "10",
    "1000",
    "",
    " ",
    "\x1b[31m",
    "\u{202e}",
    "é",
];
const FILES: &[&str] = &[
    "g.mtx",
    "w3.mtx",
    "huge.mtx",
    "empty.mtx",
    "big.mtx",
    "bomb.mtx.gz",
    "ctrl.mtx",
    "g.b2sr",
    "w25.b2sr",
    "sym.mtx",
    "hard.mtx",
    "dir",
    "missing.mtx",
    "-",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/stdin",
    "out.txt",
    "out.b2sr",
];

#[derive(Debug, TypeGenerator)]
enum ArgEdit {
    Replace { at: u8, pool: u8, which: u8 },
    Insert { at: u8, pool: u8, which: u8 },
    Delete { at: u8 },
    Swap { a: u8, b: u8 },
    Join { at: u8 },
    Byte { at: u8, pos: u8, byte: u8 },
}

#[derive(Debug, TypeGenerator)]
struct Case {
    line: u16,
    /// How many of `edits` to apply: 0 to 3.
    count: u8,
    edits: Vec<ArgEdit>,
    /// Standard input: nothing, a graph, a gzip stream.
    stdin: u8,
}

fn pool(p: u8) -> &'static [&'static str] {
    match p % 4 {
        0 => SUBCOMMANDS,
        1 => FLAGS,
        2 => VALUES,
        _ => FILES,
    }
}

fn build(case: &Case, lines: &[Vec<Vec<u8>>]) -> Vec<Vec<u8>> {
    let mut args = lines[case.line as usize % lines.len()].clone();
    for e in case.edits.iter().take((case.count % 4) as usize) {
        let n = args.len();
        match *e {
            ArgEdit::Replace { at, pool: p, which } if n > 0 => {
                let pl = pool(p);
                args[at as usize % n] = pl[which as usize % pl.len()].as_bytes().to_vec();
            }
            ArgEdit::Insert { at, pool: p, which } => {
                let pl = pool(p);
                let v = pl[which as usize % pl.len()].as_bytes().to_vec();
                args.insert(at as usize % (n + 1), v);
            }
            ArgEdit::Delete { at } if n > 0 => {
                args.remove(at as usize % n);
            }
            ArgEdit::Swap { a, b } if n > 0 => args.swap(a as usize % n, b as usize % n),
            ArgEdit::Join { at } if n > 1 => {
                let i = at as usize % (n - 1);
                let next = args.remove(i + 1);
                args[i].push(b'=');
                args[i].extend(next);
            }
            ArgEdit::Byte { at, pos, byte } if n > 0 => {
                // An argument cannot hold a NUL byte.
                let byte = byte.max(1);
                let a = &mut args[at as usize % n];
                if a.is_empty() {
                    a.push(byte);
                } else {
                    let p = pos as usize % a.len();
                    a[p] = byte;
                }
            }
            _ => {}
        }
    }
    // A pagerank asked for billions of iterations with a tolerance of 0 runs
    // that long by request; keep iteration counts small.
    for i in 0..args.len() {
        let is_iters = args[i] == b"--max-iters";
        if is_iters && i + 1 < args.len() && args[i + 1].len() > 5 {
            args[i + 1] = b"1000".to_vec();
        }
        if args[i].starts_with(b"--max-iters=") && args[i].len() > 12 + 5 {
            args[i] = b"--max-iters=1000".to_vec();
        }
    }
    args
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The sandbox: hostile and ordinary inputs, links to the input, a directory.
fn make_sandbox(d: &Path) {
    let _ = std::fs::remove_dir_all(d);
    std::fs::create_dir_all(d.join("dir")).unwrap();
    let mm = repo("../tests/fuzz/corpus/matrix_market");
    let b2 = repo("../tests/fuzz/corpus/b2sr");
    for (from, to) in [
        (mm.join("karate.mtx"), "g.mtx"),
        (mm.join("weighted_3_vertices.mtx"), "w3.mtx"),
        (mm.join("weights_1e308.mtx"), "huge.mtx"),
        (mm.join("empty_0x0.mtx"), "empty.mtx"),
        (mm.join("size_line_claims_1e9_rows.mtx"), "big.mtx"),
        (mm.join("control_bytes.mtx"), "ctrl.mtx"),
        (b2.join("karate_t8.b2sr"), "g.b2sr"),
        (b2.join("path_3_iso_f64_2.5.b2sr"), "w25.b2sr"),
    ] {
        std::fs::copy(&from, d.join(to)).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
    std::os::unix::fs::symlink("g.mtx", d.join("sym.mtx")).unwrap();
    std::fs::hard_link(d.join("g.mtx"), d.join("hard.mtx")).unwrap();
    // 256 MiB of one line in 32 gzip members (made once).
    static BOMB: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let bomb = BOMB.get_or_init(|| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&vec![b'1'; 8 << 20]).unwrap();
        let member = enc.finish().unwrap();
        member
            .iter()
            .copied()
            .cycle()
            .take(member.len() * 32)
            .collect()
    });
    std::fs::write(d.join("bomb.mtx.gz"), bomb).unwrap();
}

/// Every entry under `d` (not following links): its kind and bytes.
fn snapshot(d: &Path) -> BTreeMap<String, (u8, Vec<u8>)> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(d).unwrap().filter_map(|e| e.ok()) {
        let t = e.file_type().unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let v = if t.is_symlink() {
            (
                0,
                std::fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_vec(),
            )
        } else if t.is_dir() {
            (1, Vec::new())
        } else {
            (2, std::fs::read(e.path()).unwrap())
        };
        m.insert(name, v);
    }
    m
}

#[test]
fn fuzz_cli_args() {
    let lines: Vec<Vec<Vec<u8>>> = std::fs::read_to_string(repo("tests/fuzz/cli_args.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(' ').map(|t| t.as_bytes().to_vec()).collect())
        .collect();
    assert!(lines.len() >= 20, "the command-line corpus is missing");
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz_cli_{}", std::process::id()));
    make_sandbox(&d);
    let pristine = snapshot(&d);
    let karate = std::fs::read(d.join("g.mtx")).unwrap();
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&karate).unwrap();
        e.finish().unwrap()
    };
    bolero::check!()
        .with_type::<Case>()
        .with_test_time(Duration::from_secs(3))
        .for_each(|case| {
            let args = build(case, &lines);
            let shown: Vec<String> = args
                .iter()
                .map(|a| String::from_utf8_lossy(a).into())
                .collect();
            let mut child = Command::new("sh")
                .arg("-c")
                .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
                .arg(env!("CARGO_BIN_EXE_bitgraphblas"))
                .args(args.iter().map(|a| OsString::from_vec(a.clone())))
                .current_dir(&d)
                .env_remove("BITGRAPHBLAS_MAX_MEMORY")
                .env_remove("BITGRAPHBLAS_MAX_LINE_BYTES")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("sh runs");
            let input: Vec<u8> = match case.stdin % 3 {
                0 => Vec::new(),
                1 => karate.clone(),
                _ => gz.clone(),
            };
            let mut stdin = child.stdin.take().unwrap();
            let feeder = std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
            let mut err = child.stderr.take().unwrap();
            let reader = std::thread::spawn(move || {
                let mut s = Vec::new();
                let _ = err.read_to_end(&mut s);
                s
            });
            let t = Instant::now();
            let status = loop {
                if let Some(s) = child.try_wait().unwrap() {
                    break s;
                }
                if t.elapsed() > Duration::from_secs(30) {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("{shown:?} did not finish in 30 s");
                }
                std::thread::sleep(Duration::from_millis(2));
            };
            let _ = feeder.join();
            let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
            let code = status.code();
            assert!(
                matches!(code, Some(0..=2)) && status.signal().is_none(),
                "{shown:?}: exit {code:?}, signal {:?}: {stderr}",
                status.signal()
            );
            assert!(
                !stderr.contains("panicked") && !stderr.contains("internal error"),
                "{shown:?}: {stderr}"
            );
            assert!(
                !stderr.chars().any(|c| c.is_control() && c != '\n'),
                "{shown:?}: raw control character in {stderr:?}"
            );
            let now = snapshot(&d);
            if now != pristine {
                let changed: Vec<&String> = now
                    .keys()
                    .chain(pristine.keys())
                    .filter(|k| now.get(*k) != pristine.get(*k))
                    .collect();
                assert!(
                    !changed.iter().any(|k| k.ends_with(".tmp")),
                    "{shown:?}: temporary file left: {changed:?}"
                );
                assert_eq!(code, Some(0), "{shown:?}: a failed run changed {changed:?}");
                make_sandbox(&d);
            }
        });
    std::fs::remove_dir_all(&d).ok();
}
