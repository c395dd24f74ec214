//! Every class of hostile input and hostile environment, fed to the
//! `bitgraphblas` binary as a user would: sizes taken on trust (a size line
//! that claims 10^9 rows, `/dev/zero`, a gzip bomb), outputs that name an
//! input (directly, through a symbolic or a hard link, as standard output),
//! closed and full standard output, tiny `--delta`s, standard input and FIFOs,
//! huge weights and overflowing distances, an empty graph, control bytes,
//! B2SR iso values.
//!
//! Each run is a child under a 4 GiB address-space limit (`ulimit -v` through
//! `sh`), killed after 60 s. Each must end with an exit code (no signal),
//! never 101 or 70 (a panic), within seconds, with the expected message; and
//! no file in its sandbox may change unless it is the run's output.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const AS_LIMIT_KIB: u64 = 4 << 20; // 4 GiB
const TIMEOUT: Duration = Duration::from_secs(60);

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(name)
}

/// A fresh directory for one test, with karate as `g.mtx`.
fn sandbox(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli_bad_input_{}_{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(data("karate.mtx"), d.join("g.mtx")).unwrap();
    d
}

/// Every file under `dir` (not following links) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    what: String,
}

impl Outcome {
    /// Ended by itself with `code`, no signal, no panic.
    fn exited(&self, code: i32) -> &Self {
        assert_eq!(
            (self.code, self.signal),
            (Some(code), None),
            "{}: wanted exit {code}; stderr: {}",
            self.what,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("internal error"),
            "{}: {}",
            self.what,
            self.stderr
        );
        assert!(
            !self.stderr.chars().any(|c| c.is_control() && c != '\n'),
            "{}: raw control character in {:?}",
            self.what,
            self.stderr
        );
        self
    }

    /// A clean error: exit 1 and a message containing `needle`.
    fn error(&self, needle: &str) -> &Self {
        self.exited(1);
        assert!(
            self.stderr.contains(needle),
            "{}: wanted '{needle}' in: {}",
            self.what,
            self.stderr
        );
        self
    }

    fn within(&self, secs: u64) -> &Self {
        assert!(
            self.elapsed < Duration::from_secs(secs),
            "{}: took {:?}",
            self.what,
            self.elapsed
        );
        self
    }
}

/// How a child's standard streams are set up.
struct Io {
    stdin: Stdio,
    stdout: Stdio,
    close_stdout_at_once: bool,
}

impl Default for Io {
    fn default() -> Self {
        Io {
            stdin: Stdio::null(),
            stdout: Stdio::piped(),
            close_stdout_at_once: false,
        }
    }
}

/// Runs the binary with `args` in `dir` under the address-space limit.
fn run_io(dir: &Path, args: &[&str], io: Io) -> Outcome {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {AS_LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_bitgraphblas"))
        .args(args)
        .current_dir(dir)
        .env_remove("BITGRAPHBLAS_MAX_MEMORY")
        .env_remove("BITGRAPHBLAS_MAX_LINE_BYTES")
        .stdin(io.stdin)
        .stdout(io.stdout)
        .stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = cmd.spawn().expect("sh runs");
    let mut out = child.stdout.take();
    if io.close_stdout_at_once {
        drop(out.take());
    }
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut s);
        }
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not finish in {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = t.elapsed();
    Outcome {
        code: status.code(),
        signal: status.signal(),
        stdout: String::from_utf8_lossy(&reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
        elapsed,
        what: format!("{args:?}"),
    }
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    run_io(dir, args, Io::default())
}

/// Every command with GRAPH `g` (and what else it needs).
fn every_command(g: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["tour", g]),
        v(&["info", g]),
        v(&["convert", g, "out.b2sr"]),
        v(&["bfs", g, "--source", "0"]),
        v(&["sssp", g, "--source", "0"]),
        v(&["pagerank", g]),
        v(&["cc", g]),
        v(&["tc", g]),
        v(&["bc", g]),
    ]
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn sizes_taken_on_trust_are_clean_errors() {
    let d = sandbox("sizes");
    std::fs::write(
        d.join("big.mtx"),
        "%%MatrixMarket matrix coordinate pattern general\n1000000000 1000000000 1\n1 1\n",
    )
    .unwrap();
    // A gzip bomb: 2 GiB of one line in about 2 MB (256 copies of one member).
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![b'1'; 8 << 20]).unwrap();
    let member = enc.finish().unwrap();
    let bomb: Vec<u8> = member
        .iter()
        .copied()
        .cycle()
        .take(member.len() * 256)
        .collect();
    std::fs::write(d.join("bomb.mtx.gz"), bomb).unwrap();
    let before = snapshot(&d);
    for args in every_command("big.mtx") {
        run(&d, &strs(&args))
            .error("line 2: the size line claims 1000000000 rows: 8.0 GB of row pointers")
            .error("--max-memory")
            .within(20);
    }
    for args in every_command("/dev/zero") {
        run(&d, &strs(&args))
            .error("/dev/zero: line 1: the line is longer than 1048576 bytes")
            .within(20);
    }
    for args in every_command("bomb.mtx.gz") {
        run(&d, &strs(&args))
            .error("bomb.mtx.gz: line 1: the line is longer than")
            .within(20);
    }
    // A limit raised past what the address space allows: the system's refusal
    // is still an error, not an abort.
    run(
        &d,
        &["bfs", "big.mtx", "--source", "0", "--max-memory", "64G"],
    )
    .error("out of memory")
    .within(20);
    // A lower line limit, from the environment or the flag.
    run(&d, &["info", "g.mtx", "--max-line-bytes", "10"])
        .error("longer than 10 bytes")
        .within(20);
    run(&d, &["info", "g.mtx", "--max-memory", "1kB"])
        .error("memory limit")
        .within(20);
    run(&d, &["info", "g.mtx", "--max-memory", "lots"]).exited(2);
    // Within the limits, the same commands work under the address-space limit.
    for args in every_command("g.mtx") {
        run(&d, &strs(&args)).exited(0).within(20);
    }
    let mut after = snapshot(&d);
    assert!(after.remove("out.b2sr").is_some());
    assert_eq!(before, after, "a file in the sandbox changed");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn outputs_that_name_an_input_are_refused_and_nothing_changes() {
    let d = sandbox("same");
    std::os::unix::fs::symlink("g.mtx", d.join("sym.mtx")).unwrap();
    std::fs::hard_link(d.join("g.mtx"), d.join("hard.mtx")).unwrap();
    std::fs::write(d.join("out.txt"), "keep me\n").unwrap();
    let before = snapshot(&d);
    let same = "is the same file as the input";
    for out in ["g.mtx", "sym.mtx", "hard.mtx", "./g.mtx"] {
        for cmd in ["bfs", "sssp"] {
            run(&d, &[cmd, "--source", "0", "-o", out, "g.mtx"]).error(same);
        }
        run(&d, &["cc", "g.mtx", "--output", out]).error(same);
        run(&d, &["convert", "g.mtx", out]).error(same);
        run(&d, &["convert", "sym.mtx", out]).error(same);
    }
    // Standard output appended to the input.
    for args in [vec!["tour", "g.mtx"], vec!["bfs", "g.mtx", "--source", "0"]] {
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(d.join("g.mtx"))
            .unwrap();
        run_io(
            &d,
            &args,
            Io {
                stdout: Stdio::from(f),
                ..Io::default()
            },
        )
        .error("standard output is the same file as the input");
    }
    // Standard input as the input, its own file as the output.
    let f = std::fs::File::open(d.join("g.mtx")).unwrap();
    run_io(
        &d,
        &["bfs", "-", "--source", "0", "-o", "hard.mtx"],
        Io {
            stdin: Stdio::from(f),
            ..Io::default()
        },
    )
    .error("is the same file as the input <stdin>");
    // Failed runs leave an existing output alone and no temporary files.
    run(&d, &["bfs", "g.mtx", "--source", "99", "-o", "out.txt"]).error("not a vertex");
    run(&d, &["bfs", "/dev/zero", "--source", "0", "-o", "out.txt"]).error("longer than");
    run(
        &d,
        &["bfs", "nothere.mtx", "--source", "0", "-o", "out.txt"],
    )
    .error("nothere.mtx");
    assert_eq!(before, snapshot(&d), "a file in the sandbox changed");
    // A successful run replaces the output whole.
    run(&d, &["bfs", "g.mtx", "--source", "0", "-o", "out.txt"]).exited(0);
    let mut after = snapshot(&d);
    let out = after.remove("out.txt").unwrap();
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 34);
    let mut want = before.clone();
    want.remove("out.txt");
    assert_eq!(want, after);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn closed_and_full_standard_output() {
    let d = sandbox("stdout");
    std::fs::copy(data("delaunay_n14.mtx"), d.join("d.mtx")).unwrap();
    let closed = || Io {
        close_stdout_at_once: true,
        ..Io::default()
    };
    for args in [
        vec!["bfs", "d.mtx", "--source", "0"],
        vec!["tour", "g.mtx"],
        vec!["info", "g.mtx"],
        vec!["--help"],
    ] {
        let o = run_io(&d, &args, closed());
        o.exited(0);
        assert_eq!(o.stderr, "", "{args:?}: a closed pipe is not an error");
    }
    // head -1: one line read, then the pipe closed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitgraphblas"))
        .args(["bfs", "d.mtx", "--source", "0"])
        .current_dir(&d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 2];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    assert_eq!(&first, b"0\n");
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!((o.status.code(), o.stderr.len()), (Some(0), 0));
    if !Path::new("/dev/full").exists() {
        eprintln!("SKIPPED the full-disk cases: no /dev/full");
        std::fs::remove_dir_all(&d).ok();
        return;
    }
    let full = || Io {
        stdout: Stdio::from(std::fs::File::create("/dev/full").unwrap()),
        ..Io::default()
    };
    for args in [
        vec!["bfs", "d.mtx", "--source", "0"],
        vec!["tour", "g.mtx"],
        vec!["info", "g.mtx"],
        vec!["pagerank", "g.mtx", "--json", "-o", "ranks.txt"],
    ] {
        run_io(&d, &args, full()).error("standard output: No space left on device");
    }
    run_io(&d, &["--help"], full()).exited(1);
    run(&d, &["bfs", "g.mtx", "--source", "0", "-o", "/dev/full"]).error("No space left");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn tiny_deltas_huge_weights_and_overflowing_distances() {
    let d = sandbox("sssp");
    let w3 = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.5\n2 3 0.25\n";
    std::fs::write(d.join("w3.mtx"), w3).unwrap();
    for delta in ["1e-16", "5e-324", "1e-300", "0.1"] {
        let o = run(&d, &["sssp", "w3.mtx", "--source", "0", "--delta", delta]);
        o.exited(0).within(10);
        assert_eq!(o.stdout, "0\n1.5\n1.75\n", "--delta {delta}");
    }
    for delta in ["0", "-1", "inf", "NaN", "1e999"] {
        let arg = format!("--delta={delta}");
        run(&d, &["sssp", "w3.mtx", "--source", "0", &arg]).error("delta");
    }
    let huge = "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 2 1e308\n2 3 1e308\n";
    std::fs::write(d.join("huge.mtx"), huge).unwrap();
    let o = run(&d, &["sssp", "huge.mtx", "--source", "0"]);
    o.exited(0);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1].parse::<f64>().unwrap(), 1e308);
    assert_eq!((lines[2], lines[3]), ("overflow", "inf"));
    assert!(o.stderr.contains("written as 'overflow'"), "{}", o.stderr);
    let o = run(&d, &["sssp", "huge.mtx", "--source", "1"]);
    assert_eq!(o.exited(0).stdout.lines().last(), Some("inf"));
    let neg = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -1\n";
    std::fs::write(d.join("neg.mtx"), neg).unwrap();
    run(&d, &["sssp", "neg.mtx", "--source", "0"]).error("non-negative");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn standard_input_fifos_and_dev_stdin() {
    let d = sandbox("streams");
    let want = run(&d, &["bfs", "g.mtx", "--source", "3"]);
    want.exited(0);
    let file = || Stdio::from(std::fs::File::open(d.join("g.mtx")).unwrap());
    for g in ["-", "/dev/stdin"] {
        let o = run_io(
            &d,
            &["bfs", g, "--source", "3"],
            Io {
                stdin: file(),
                ..Io::default()
            },
        );
        assert_eq!(o.exited(0).stdout, want.stdout, "{g}");
    }
    // A pipe, not a file: gzip through standard input.
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {AS_LIMIT_KIB} && exec \"$0\" cc - --output cc.txt",
        ))
        .arg(env!("CARGO_BIN_EXE_bitgraphblas"))
        .current_dir(&d)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let karate = std::fs::read(d.join("g.mtx")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&karate).unwrap();
    let gz = enc.finish().unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for chunk in gz.chunks(7) {
            stdin.write_all(chunk).unwrap();
        }
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("cc.txt"))
            .unwrap()
            .lines()
            .count(),
        34
    );
    // Empty standard input: a clean error.
    run_io(
        &d,
        &["bfs", "-", "--source", "0"],
        Io {
            stdin: Stdio::null(),
            ..Io::default()
        },
    )
    .error("<stdin>: line 1: empty input");
    // A FIFO is opened once; the format is sniffed from the bytes read.
    let fifo = d.join("g.fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if made {
        for g in [data("karate.mtx"), {
            let b = d.join("g.b2sr");
            run(&d, &["convert", "g.mtx", "g.b2sr", "--tile", "8"]).exited(0);
            b
        }] {
            let writer_fifo = fifo.clone();
            let writer = std::thread::spawn(move || {
                let bytes = std::fs::read(g).unwrap();
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(writer_fifo)
                    .unwrap();
                f.write_all(&bytes).unwrap();
            });
            let o = run(&d, &["bfs", "g.fifo", "--source", "3"]);
            writer.join().unwrap();
            assert_eq!(o.exited(0).within(20).stdout, want.stdout);
        }
    } else {
        eprintln!("SKIPPED the FIFO case: mkfifo is not available");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn empty_graphs_control_bytes_and_b2sr_iso_values() {
    let d = sandbox("small");
    std::fs::write(
        d.join("empty.mtx"),
        "%%MatrixMarket matrix coordinate real general\n0 0 0\n",
    )
    .unwrap();
    for args in every_command("empty.mtx") {
        let o = run(&d, &strs(&args));
        match args[0].as_str() {
            "bfs" | "sssp" => {
                o.error("the graph has no vertices");
            }
            _ => {
                o.exited(0);
            }
        }
    }
    assert_eq!(run(&d, &["tc", "empty.mtx"]).stdout, "0\n");
    assert_eq!(run(&d, &["cc", "empty.mtx"]).stdout, "");
    // Control bytes from the file, and from the command line, are escaped.
    std::fs::write(
        d.join("esc.mtx"),
        "%%MatrixMarket matrix \x1b[2Jcoordinate\x07 pattern general\n2 2 1\n1 1\n",
    )
    .unwrap();
    run(&d, &["bfs", "esc.mtx", "--source", "0"]).error("'\\x1b[2jcoordinate\\x07'");
    std::fs::write(
        d.join("esc2.mtx"),
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 \u{202e}4\n",
    )
    .unwrap();
    run(&d, &["cc", "esc2.mtx"]).error("\\u{202e}4");
    run(&d, &["bfs", "no\x1b]0;x\x07such.mtx", "--source", "0"]).error("no\\x1b]0;x\\x07such");
    run(&d, &["bfs\x1b[5m"]).exited(2);
    // B2SR: an iso value other than 1 weighs every edge; a corrupt one is an error.
    let path = |w: f64, tag: &str| {
        let a = bitgraphblas::Matrix::from_triplets(3, 3, vec![(0, 1, w), (1, 2, w)])
            .unwrap()
            .to_format(bitgraphblas::Format::B2sr(bitgraphblas::TileSize::T4))
            .unwrap();
        let p = d.join(format!("{tag}.b2sr"));
        bitgraphblas::io::write_b2sr(&p, &a).unwrap();
        p
    };
    path(2.5, "w25");
    let o = run(&d, &["sssp", "w25.b2sr", "--source", "0"]);
    assert_eq!(o.exited(0).stdout, "0\n2.5\n5\n");
    let o = run(&d, &["bfs", "w25.b2sr", "--source", "0"]);
    assert_eq!(o.exited(0).stdout, "0\n1\n2\n");
    // Patched headers, with the checksum made right again.
    let patch = |tag: &str, at: usize, new: &[u8]| {
        let p = path(1.0, tag);
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[at..at + new.len()].copy_from_slice(new);
        let n = bytes.len() - 4;
        let mut h = flate2::Crc::new();
        h.update(&bytes[..n]);
        bytes[n..].copy_from_slice(&h.sum().to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
    };
    patch("nan", 48, &f64::NAN.to_bits().to_le_bytes());
    run(&d, &["sssp", "nan.b2sr", "--source", "0"]).error("finite and non-negative");
    patch("bad", 40, &[1]); // tag: bool, with the bits of 1.0 as the iso value
    run(&d, &["bfs", "bad.b2sr", "--source", "0"]).error("iso value bits");
    std::fs::remove_dir_all(&d).ok();
}
