//! Fuzz targets for the readers (bolero): the Matrix Market reader, plain
//! and gzip, and the B2SR reader, from a stream and from a file.
//!
//! Each input is a seed from the committed corpus (`tests/fuzz/corpus/`:
//! the small graphs of `data/` and the cases of the bad-input report)
//! changed by a short list of edits the fuzzer chooses: bit flips, bytes and
//! tokens inserted or overwritten (huge counts, `nan`, line ends, escape
//! sequences, `%%MatrixMarket` banners), integers written into binary
//! fields, deletions, duplications, splices from another seed, truncation;
//! for B2SR the checksum is made right again half of the time, so the checks
//! behind it are reached. The reader must return `Ok` with a valid matrix
//! or an `Err` whose message has no raw control character, within a memory
//! limit of 64 MiB and a line limit of 64 KiB, and never panic.
//!
//! Under `cargo test` each target runs random inputs for 2 s (set
//! `BOLERO_RANDOM_TEST_TIME_MS` for longer; CI gives each a bounded time). With
//! `cargo bolero test --engine libfuzzer` (nightly) the same targets run
//! coverage-guided.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use bitgraphblas::io::{self, ReadOptions};
use bitgraphblas::{Matrix, Scalar};
use bolero::TypeGenerator;

fn corpus(kind: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(seeds.len() >= 8, "the {kind} corpus is missing");
    seeds
}

/// Text worth inserting into a Matrix Market file.
const TOKENS: &[&[u8]] = &[
    b"0",
    b"1",
    b"-1",
    b"2",
    b"4294967295",
    b"4294967296",
    b"18446744073709551615",
    b"18446744073709551616",
    b"99999999999999999999999999999999999999999",
    b"1000000000 1000000000 1",
    b"0 0 0",
    b"1e308",
    b"-1e308",
    b"1e-320",
    b"nan",
    b"inf",
    b"-0",
    b"0x10",
    b"1.5e",
    b" ",
    b"\t",
    b"\n",
    b"\r\n",
    b"\r",
    b"%",
    b"%%MatrixMarket matrix coordinate real general\n",
    b"%%MatrixMarket matrix coordinate pattern symmetric\n",
    b"matrix",
    b"coordinate",
    b"array",
    b"pattern",
    b"integer",
    b"real",
    b"complex",
    b"general",
    b"symmetric",
    b"hermitian",
    b"\x00",
    b"\x1b[31m",
    b"\xe2\x80\xae",
    b"\xef\xbb\xbf",
    b"\xef\xbf\xbd",
    b"\x1f\x8b",
];

/// Integers worth writing into a binary field.
const INTS: &[u64] = &[
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    16,
    31,
    32,
    33,
    63,
    64,
    65,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x1_0000_0000,
    u64::MAX,
    0x3ff0_0000_0000_0000, // 1.0f64
    0x7ff8_0000_0000_0000, // NaN
    0x7ff0_0000_0000_0000, // inf
];

/// One change to an input; positions wrap around its length.
#[derive(Debug, TypeGenerator)]
enum Edit {
    Flip {
        at: u32,
        bit: u8,
    },
    Set {
        at: u32,
        byte: u8,
    },
    Insert {
        at: u32,
        bytes: [u8; 3],
        len: u8,
    },
    Token {
        at: u32,
        which: u8,
        overwrite: bool,
    },
    Int {
        at: u32,
        which: u8,
        width: u8,
    },
    Delete {
        at: u32,
        len: u16,
    },
    Duplicate {
        at: u32,
        len: u16,
        to: u32,
    },
    Splice {
        seed: u16,
        from: u32,
        len: u16,
        at: u32,
    },
    Truncate {
        at: u32,
    },
}

/// A seed and what to do to it.
#[derive(Debug, TypeGenerator)]
struct Case {
    seed: u16,
    /// How many of `edits` to apply: 0 to 3.
    count: u8,
    edits: Vec<Edit>,
    /// B2SR: recompute the checksum after the edits. Matrix Market: the element type.
    fix: bool,
    /// Gzip: how many of `edits` to apply to the compressed bytes as well.
    compressed: u8,
}

/// Where edits land: three in four within `focus` (the body of a text file
/// below its banner, the header of a binary one), the rest anywhere.
struct Target<'a> {
    data: &'a mut Vec<u8>,
    focus: std::ops::Range<usize>,
}

impl Target<'_> {
    fn pos(&self, at: u32) -> usize {
        let n = self.data.len();
        let (lo, hi) = if !at.is_multiple_of(4) {
            (self.focus.start.min(n), self.focus.end.min(n))
        } else {
            (0, n)
        };
        lo + (at / 4) as usize % (hi - lo + 1)
    }
}

fn apply(t: &mut Target<'_>, edits: &[Edit], count: usize, seeds: &[Vec<u8>]) {
    for e in edits.iter().take(count) {
        let n = t.data.len();
        match *e {
            Edit::Flip { at, bit } if n > 0 => {
                let p = t.pos(at).min(n - 1);
                t.data[p] ^= 1 << (bit % 8)
            }
            Edit::Set { at, byte } if n > 0 => {
                let p = t.pos(at).min(n - 1);
                t.data[p] = byte
            }
            Edit::Insert { at, bytes, len } => {
                let p = t.pos(at);
                let k = (len % 4) as usize;
                t.data.splice(p..p, bytes[..k.min(3)].iter().copied());
            }
            Edit::Token {
                at,
                which,
                overwrite,
            } => {
                let tok = TOKENS[which as usize % TOKENS.len()];
                let p = t.pos(at);
                let end = if overwrite { (p + tok.len()).min(n) } else { p };
                t.data.splice(p..end, tok.iter().copied());
            }
            Edit::Int { at, which, width } => {
                let v = INTS[which as usize % INTS.len()].to_le_bytes();
                let w = [1, 2, 4, 8][width as usize % 4];
                let p = t.pos(at);
                let end = (p + w).min(n);
                t.data.splice(p..end, v[..w].iter().copied());
            }
            Edit::Delete { at, len } => {
                let p = t.pos(at);
                let end = (p + len as usize % 64).min(n);
                t.data.drain(p..end);
            }
            Edit::Duplicate { at, len, to } => {
                let p = t.pos(at);
                let end = (p + len as usize % 256).min(n);
                let piece: Vec<u8> = t.data[p..end].to_vec();
                let q = t.pos(to);
                t.data.splice(q..q, piece);
            }
            Edit::Splice {
                seed,
                from,
                len,
                at,
            } => {
                let s = &seeds[seed as usize % seeds.len()];
                let p = from as usize % (s.len() + 1);
                let end = (p + len as usize % 256).min(s.len());
                let q = t.pos(at);
                t.data.splice(q..q, s[p..end].iter().copied());
            }
            Edit::Truncate { at } => {
                let p = t.pos(at);
                t.data.truncate(p)
            }
            _ => {}
        }
    }
}

/// Edits `seed` as `case` says, three in four of them below the first line.
fn edit_text(case: &Case, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[case.seed as usize % seeds.len()].clone();
    let body = data.iter().position(|&b| b == b'\n').map_or(0, |p| p + 1);
    let mut t = Target {
        data: &mut data,
        focus: body..usize::MAX,
    };
    apply(&mut t, &case.edits, (case.count % 4) as usize, seeds);
    data
}

fn limits() -> ReadOptions {
    ReadOptions {
        max_bytes: 64 << 20,
        max_line_bytes: 64 << 10,
    }
}

/// The oracle: a valid matrix, or an error that prints safely.
fn check<T: Scalar>(r: bitgraphblas::Result<Matrix<T>>) {
    match r {
        Ok(m) => {
            m.validate().expect("a matrix a reader returns is valid");
            assert!(m.nvals() as u128 <= m.nrows() as u128 * m.ncols() as u128);
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                !msg.chars().any(|c| c.is_control()),
                "raw control character in {msg:?}"
            );
        }
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn fix_crc(data: &mut [u8]) {
    if data.len() >= 4 {
        let n = data.len() - 4;
        let crc = crc32fast::hash(&data[..n]);
        data[n..].copy_from_slice(&crc.to_le_bytes());
    }
}

fn read_text(data: &[u8], as_bool: bool) {
    // Through a small buffer, as a pipe might deliver it.
    let r = BufReader::with_capacity(61, data);
    if as_bool {
        check(io::read_graph_from::<bool, _>(r, "fuzz", &limits()).map(|g| g.matrix));
    } else {
        check(io::read_graph_from::<f64, _>(r, "fuzz", &limits()).map(|g| g.matrix));
    }
}

#[test]
fn fuzz_matrix_market() {
    let seeds = corpus("matrix_market");
    bolero::check!()
        .with_type::<Case>()
        .with_test_time(Duration::from_secs(2))
        .for_each(|case| {
            read_text(&edit_text(case, &seeds), case.fix);
        });
}

#[test]
fn fuzz_matrix_market_gzip() {
    let seeds = corpus("matrix_market");
    bolero::check!()
        .with_type::<Case>()
        .with_test_time(Duration::from_secs(2))
        .for_each(|case| {
            let mut gz = gzip(&edit_text(case, &seeds));
            let mut t = Target {
                data: &mut gz,
                focus: 10..usize::MAX, // past the gzip header
            };
            apply(&mut t, &case.edits, (case.compressed % 3) as usize, &seeds);
            read_text(&gz, case.fix);
        });
}

#[test]
fn fuzz_b2sr() {
    let seeds = corpus("b2sr");
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz_b2sr_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("case.b2sr");
    bolero::check!()
        .with_type::<Case>()
        .with_test_time(Duration::from_secs(2))
        .for_each(|case| {
            let mut data = seeds[case.seed as usize % seeds.len()].clone();
            let mut t = Target {
                data: &mut data,
                focus: 8..56, // the header, past the magic
            };
            apply(&mut t, &case.edits, 1 + (case.count % 3) as usize, &seeds);
            if case.fix {
                fix_crc(&mut data);
            }
            // A stream (no length known), each element type the file may hold
            // or be asked for, and a file (length checked first).
            let r = || BufReader::with_capacity(29, &data[..]);
            check(io::read_graph_from::<f64, _>(r(), "fuzz", &limits()).map(|g| g.matrix));
            check(io::read_graph_from::<bool, _>(r(), "fuzz", &limits()).map(|g| g.matrix));
            check(io::read_graph_from::<i32, _>(r(), "fuzz", &limits()).map(|g| g.matrix));
            check(io::read_graph_from::<u64, _>(r(), "fuzz", &limits()).map(|g| g.matrix));
            std::fs::write(&path, &data).unwrap();
            check(io::read_b2sr_with::<bool>(&path, &limits()));
            check(io::read_graph_with::<f32>(&path, &limits()).map(|g| g.matrix));
        });
    std::fs::remove_dir_all(&dir).ok();
}
