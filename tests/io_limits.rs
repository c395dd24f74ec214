//! The readers against hostile input: sizes that would need more memory than
//! the limit (refused before they are allocated), endless lines and
//! decompression bombs (a line limit), streams read once from the front
//! (one byte at a time, B2SR without a known length), iso values that do not
//! fit the requested type, control bytes in messages, and writers that
//! leave nothing half-written.

use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bitgraphblas::io::{self, data_path, FileHeader, MmField, ReadOptions};
use bitgraphblas::{Error, Format, Matrix, ScalarType, TileSize};

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("io_limits_tests_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn limit(max_bytes: u64) -> ReadOptions {
    ReadOptions {
        max_bytes,
        ..ReadOptions::default()
    }
}

const PG: &str = "%%MatrixMarket matrix coordinate pattern general\n";

/// An endless input: `prefix`, then `unit` over and over.
struct Endless {
    prefix: Vec<u8>,
    unit: Vec<u8>,
    pos: usize,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            let b = if self.pos < self.prefix.len() {
                self.prefix[self.pos]
            } else {
                self.unit[(self.pos - self.prefix.len()) % self.unit.len()]
            };
            buf[n] = b;
            n += 1;
            self.pos += 1;
        }
        Ok(n)
    }
}

fn endless(prefix: &str, unit: &[u8]) -> BufReader<Endless> {
    BufReader::new(Endless {
        prefix: prefix.as_bytes().to_vec(),
        unit: unit.to_vec(),
        pos: 0,
    })
}

#[test]
fn a_size_line_that_claims_too_many_rows_is_refused_before_allocating() {
    let text = format!("{PG}1000000000 1000000000 1\n1 1\n");
    let e = io::read_matrix_market_with::<bool, _>(text.as_bytes(), "big.mtx", &limit(4 << 30))
        .unwrap_err();
    match &e {
        Error::OutOfMemory { needed, limit, .. } => {
            assert_eq!((*needed, *limit), (8_000_000_008, 4 << 30))
        }
        other => panic!("{other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.starts_with(
            "big.mtx: line 2: the size line claims 1000000000 rows: 8.0 GB of row pointers, \
             more than the 4.3 GB memory limit"
        ),
        "{msg}"
    );
    // Within the limit, the same shape reads (a graph of isolated vertices).
    let small = format!("{PG}100000 100000 1\n1 1\n");
    let a: Matrix<bool> = io::read_matrix_market_with(small.as_bytes(), "ok", &limit(1 << 20))
        .unwrap()
        .0;
    assert_eq!((a.nrows(), a.nvals()), (100000, 1));
}

#[test]
fn entries_beyond_the_limit_stop_at_the_line_that_passes_it() {
    // The size line promises many entries; each costs 13 bytes (bool) at the
    // peak: 8 of coordinates, 4 + 1 in the CSR arrays.
    let r = endless(&format!("{PG}10 10 100000000\n"), b"1 1\n");
    let t = Instant::now();
    let e = io::read_matrix_market_with::<bool, _>(r, "many", &limit(1 << 20)).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10));
    match &e {
        Error::OutOfMemory { needed, detail, .. } => {
            assert!(*needed > 1 << 20, "{e}");
            assert!(detail.contains("80653 entries need 1048577 bytes"), "{e}");
            // (1 MiB - 88 bytes of row pointers) / 13 = 80652.9: 80652 entries
            // fit; the line is the next one, after the banner and the size line.
            let line: usize = detail
                .strip_prefix("line ")
                .and_then(|s| s.split(':').next())
                .and_then(|s| s.parse().ok())
                .unwrap();
            assert_eq!(line, 80655, "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_endless_line_is_an_error_naming_it() {
    let t = Instant::now();
    let e = io::read_graph_from::<bool, _>(endless("", &[0]), "/dev/zero", &ReadOptions::default())
        .unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(&e, Error::Parse { line: 1, detail, .. } if detail.contains("longer than 1048576 bytes")),
        "{e}"
    );
    // After a valid header too, and with a smaller limit.
    let opts = ReadOptions {
        max_line_bytes: 100,
        ..ReadOptions::default()
    };
    let r = endless(&format!("{PG}% comment\n3 3 1\n"), b"1");
    let e = io::read_graph_from::<bool, _>(r, "x", &opts).unwrap_err();
    assert!(matches!(&e, Error::Parse { line: 4, .. }), "{e}");
    // A line of exactly the limit, with a \r\n end, is fine.
    let text = format!("{PG}3 3 1\n1 1{}\r\n", " ".repeat(97));
    assert!(io::read_graph_from::<bool, _>(text.as_bytes(), "x", &opts).is_ok());
    let text = format!("{PG}3 3 1\n1 1{}\r\n", " ".repeat(98));
    assert!(io::read_graph_from::<bool, _>(text.as_bytes(), "x", &opts).is_err());
}

#[test]
fn a_gzip_bomb_of_one_line_stops_at_the_line_limit() {
    // 8 MiB of one line, compressed (about 8 kB), as 256 gzip members: 2 GiB decompressed.
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![b'7'; 8 << 20]).unwrap();
    let member = enc.finish().unwrap();
    let bomb: Vec<u8> = member
        .iter()
        .copied()
        .cycle()
        .take(member.len() * 256)
        .collect();
    assert!(bomb.len() < 4 << 20);
    let t = Instant::now();
    let e = io::read_graph_from::<f64, _>(&bomb[..], "bomb.mtx.gz", &ReadOptions::default())
        .unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(&e, Error::Parse { line: 1, detail, .. } if detail.contains("longer than")),
        "{e}"
    );
}

#[test]
fn streams_are_read_once_however_they_are_split() {
    let karate = std::fs::read(data_path("karate.mtx")).unwrap();
    let want: Matrix<f64> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    // One byte per read: the format is still told from the first bytes.
    let g = io::read_graph_from::<f64, _>(
        BufReader::with_capacity(1, &karate[..]),
        "<stdin>",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(g.matrix, want);
    assert!(matches!(g.header, FileHeader::MatrixMarket(h) if h.field == MmField::Pattern));
    // Gzip, one byte at a time.
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&karate).unwrap();
    let gz = enc.finish().unwrap();
    let g = io::read_graph_from::<f64, _>(
        BufReader::with_capacity(1, &gz[..]),
        "<stdin>",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(g.matrix, want);

    // B2SR from a stream: no length known in advance.
    let b = want.to_format(Format::B2sr(TileSize::T8)).unwrap();
    let p = tmp("karate.b2sr");
    io::write_b2sr(&p, &b).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let g = io::read_graph_from::<f64, _>(
        BufReader::with_capacity(1, &bytes[..]),
        "<stdin>",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(g.matrix, b);
    assert_eq!(
        g.header,
        FileHeader::B2sr {
            element: ScalarType::F64
        }
    );
    let stream_err = |bytes: &[u8], opts: &ReadOptions| {
        io::read_graph_from::<f64, _>(bytes, "<stdin>", opts).unwrap_err()
    };
    let e = stream_err(&bytes[..bytes.len() - 1], &ReadOptions::default());
    assert!(
        matches!(&e, Error::CorruptFile { detail, .. } if detail.contains("ends before")),
        "{e}"
    );
    let mut longer = bytes.clone();
    longer.push(0);
    let e = stream_err(&longer, &ReadOptions::default());
    assert!(
        matches!(&e, Error::CorruptFile { detail, .. } if detail.contains("goes on after")),
        "{e}"
    );
    let e = stream_err(&bytes[..30], &ReadOptions::default());
    assert!(
        matches!(&e, Error::CorruptFile { detail, .. } if detail.contains("shorter than")),
        "{e}"
    );
    // A header that claims 2^32 - 1 tiles of 64x64: refused under a limit, and
    // from a short stream an early end, not an allocation of the claim.
    let mut lying = bytes[..56].to_vec();
    lying[12..16].copy_from_slice(&64u32.to_le_bytes());
    for o in [16, 24] {
        lying[o..o + 8].copy_from_slice(&(u32::MAX as u64).to_le_bytes());
    }
    lying[32..40].copy_from_slice(&(u32::MAX as u64).to_le_bytes());
    lying.extend_from_slice(&[0u8; 1000]);
    let e = stream_err(&lying, &limit(1 << 30));
    assert!(
        matches!(&e, Error::OutOfMemory { detail, .. } if detail.contains("4294967295 tiles of 64x64")),
        "{e}"
    );
    let e = stream_err(&lying, &limit(u64::MAX));
    assert!(
        matches!(&e, Error::CorruptFile { detail, .. } if detail.contains("ends before")),
        "{e}"
    );
    // The same header in a regular file: the length check comes first.
    std::fs::write(&p, &lying).unwrap();
    let e = io::read_graph::<f64>(&p).unwrap_err();
    assert!(
        matches!(&e, Error::CorruptFile { detail, .. } if detail.contains("the header implies")),
        "{e}"
    );
    std::fs::remove_file(&p).ok();
}

fn b2sr_with_iso<T: bitgraphblas::Scalar>(tag: &str, v: T) -> PathBuf {
    let a = Matrix::from_triplets(5, 5, vec![(0, 1, v), (3, 2, v)])
        .unwrap()
        .to_format(Format::B2sr(TileSize::T4))
        .unwrap();
    let p = tmp(&format!("iso_{tag}.b2sr"));
    io::write_b2sr(&p, &a).unwrap();
    p
}

#[test]
fn b2sr_iso_values_must_fit_the_requested_type_exactly() {
    let half = b2sr_with_iso("half", 0.5f64);
    let e = io::read_graph::<bool>(&half).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument { detail, .. } if detail.contains("0.5, which is not exactly a bool")),
        "{e}"
    );
    assert_eq!(io::read_graph::<f32>(&half).unwrap().iso_value(), Some(0.5));
    assert!(io::read_graph::<i32>(&half).is_err());
    let two = b2sr_with_iso("two", 2.0f64);
    assert_eq!(io::read_graph::<i32>(&two).unwrap().iso_value(), Some(2));
    assert!(io::read_graph::<bool>(&two).is_err());
    let big = b2sr_with_iso("big", (1u64 << 60) + 1);
    assert!(io::read_graph::<f64>(&big).is_err());
    assert_eq!(
        io::read_graph::<u64>(&big).unwrap().iso_value(),
        Some((1 << 60) + 1)
    );
    let pattern = b2sr_with_iso("true", true);
    assert_eq!(
        io::read_graph::<f64>(&pattern).unwrap().iso_value(),
        Some(1.0)
    );
    // read_b2sr insists on the stored type.
    let e = io::read_b2sr::<f64>(&pattern).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    for p in [half, two, big, pattern] {
        std::fs::remove_file(p).ok();
    }
}

#[test]
fn messages_escape_control_bytes_from_the_file_and_its_name() {
    let cases = [
        "%%MatrixMarket matrix \x1b[2Jcoordinate pattern general\n1 1 0\n".to_string(),
        format!("{PG}2 2 1\n1 \x1b]0;title\x07\n"),
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 4\u{202e}2\n".to_string(),
        "\x1b[31m not a banner\n".to_string(),
        format!("{PG}\x00\x01 2 1\n"),
    ];
    for text in &cases {
        let e =
            io::read_graph_from::<f64, _>(text.as_bytes(), "in\x1bput", &ReadOptions::default())
                .unwrap_err();
        let msg = e.to_string();
        assert!(
            !msg.chars()
                .any(|c| c.is_control() || ('\u{2000}'..='\u{206f}').contains(&c)),
            "raw control character in {msg:?}"
        );
        assert!(msg.starts_with("in\\x1bput: line "), "{msg:?}");
    }
    let p = tmp("bad\x1b[1mname.mtx");
    std::fs::write(&p, "garbage\n").unwrap();
    let msg = io::read_graph::<f64>(&p).unwrap_err().to_string();
    assert!(
        msg.contains("bad\\x1b[1mname.mtx") && !msg.contains('\x1b'),
        "{msg:?}"
    );
    std::fs::remove_file(&p).ok();
}

#[test]
fn an_empty_graph_reads_and_round_trips() {
    let text = "%%MatrixMarket matrix coordinate real general\n0 0 0\n";
    let g =
        io::read_graph_from::<f64, _>(text.as_bytes(), "empty", &ReadOptions::default()).unwrap();
    assert_eq!(
        (g.matrix.nrows(), g.matrix.ncols(), g.matrix.nvals()),
        (0, 0, 0)
    );
    let b = g.matrix.to_format(Format::B2sr(TileSize::T8)).unwrap();
    let p = tmp("empty.b2sr");
    io::write_b2sr(&p, &b).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let back = io::read_graph_from::<f64, _>(&bytes[..], "empty", &ReadOptions::default()).unwrap();
    assert_eq!(back.matrix, b);
    std::fs::remove_file(&p).ok();
}

#[test]
fn writers_replace_files_whole_and_report_a_full_disk() {
    let p = tmp("whole.mtx");
    std::fs::write(&p, "old content").unwrap();
    let a: Matrix<f64> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    io::write_matrix_market(&p, &a).unwrap();
    assert_eq!(io::read_matrix_market::<f64>(&p).unwrap(), a);
    let dir = p.parent().unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A CSR matrix cannot be written as B2SR: the existing file stays.
    let e = io::write_b2sr(&p, &a).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }));
    assert_eq!(io::read_matrix_market::<f64>(&p).unwrap(), a);
    if Path::new("/dev/full").exists() {
        let e = io::write_matrix_market("/dev/full", &a).unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{e}");
    }
    // A directory that does not exist: an error, nothing created.
    assert!(io::write_matrix_market(dir.join("no/such/dir/x.mtx"), &a).is_err());
    std::fs::remove_file(&p).ok();
}

#[test]
fn io_errors_escape_the_path() {
    let e = io::read_graph::<f64>("/nonexistent/\x1b[31mred.mtx").unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("/nonexistent/\\x1b[31mred.mtx: "),
        "{msg:?}"
    );
}
