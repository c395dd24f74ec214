//! File I/O: Matrix Market reading and writing, the binary B2SR format, and
//! the bundled graphs in `data/`.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bitgraphblas::container::MatrixRepr;
use bitgraphblas::io::{self, data_path, MmField, MmSymmetry};
use bitgraphblas::storage::b2sr::ColumnForm;
use bitgraphblas::{Error, Format, Matrix, Scalar, TileSize};

/// `(file under data/, rows, cols, nnz after symmetric expansion)`, from MANIFEST.md.
const BUNDLED: &[(&str, usize, usize, usize)] = &[
    ("delaunay_n14.mtx", 16384, 16384, 98244),
    ("ash292.mtx", 292, 292, 2208),
    ("karate.mtx", 34, 34, 156),
    ("chesapeake.mtx", 39, 39, 340),
    ("curtis54.mtx", 54, 54, 291),
    ("cora/adj.mtx", 2708, 2708, 10556),
    ("cora/features.mtx", 2708, 1433, 49216),
];

/// A fresh path under cargo's per-crate temp dir, private to this process
/// (two test runs at once must not share files).
fn tmp(name: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("io_tests_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn from_text<T: Scalar>(text: &str) -> bitgraphblas::Result<Matrix<T>> {
    io::read_matrix_market_from(text.as_bytes(), "inline")
}

fn triplets<T: Scalar>(a: &Matrix<T>) -> Vec<(usize, usize, T)> {
    let c = a.as_csr();
    (0..c.nrows())
        .flat_map(|i| {
            let (cols, vals) = c.row(i);
            cols.iter()
                .zip(vals)
                .map(|(&j, &v)| (i, j as usize, v))
                .collect::<Vec<_>>()
        })
        .collect()
}

// ---------------------------------------------------------------- real files

#[test]
fn bundled_graphs_match_manifest() {
    for &(name, m, n, nnz) in BUNDLED {
        let a: Matrix<f32> = io::read_matrix_market(data_path(name)).unwrap();
        assert_eq!((a.nrows(), a.ncols(), a.nvals()), (m, n, nnz), "{name}");
        a.validate().unwrap();
        assert!(a.as_csr().values().iter().all(|&v| v == 1.0), "{name}");
        let g: Matrix<bool> = io::read_graph(data_path(name)).unwrap();
        assert_eq!(g.nvals(), nnz, "{name}");
    }
}

#[test]
fn bundled_headers_and_symmetry() {
    let h = io::read_matrix_market_header(data_path("delaunay_n14.mtx")).unwrap();
    assert_eq!((h.nrows, h.ncols, h.entries), (16384, 16384, 49122));
    assert_eq!(
        (h.field, h.symmetry),
        (MmField::Pattern, MmSymmetry::Symmetric)
    );
    let h = io::read_matrix_market_header(data_path("cora/features.mtx")).unwrap();
    assert_eq!((h.field, h.symmetry), (MmField::Real, MmSymmetry::General));
    for (name, symmetric) in [
        ("karate.mtx", true),
        ("delaunay_n14.mtx", true),
        ("curtis54.mtx", false),
    ] {
        let a: Matrix<bool> = io::read_matrix_market(data_path(name)).unwrap();
        let t = a.as_csr().transpose();
        assert_eq!(*a.as_csr() == t, symmetric, "{name}");
    }
}

/// An independent reading of karate.mtx (split on whitespace, mirror by hand).
#[test]
fn karate_against_a_naive_parse() {
    let text = std::fs::read_to_string(data_path("karate.mtx")).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('%'));
    lines.next(); // size line
    let mut want = BTreeSet::new();
    for l in lines {
        let v: Vec<usize> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
        want.insert((v[0] - 1, v[1] - 1));
        want.insert((v[1] - 1, v[0] - 1));
    }
    let a: Matrix<u32> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    let got: BTreeSet<(usize, usize)> = triplets(&a).iter().map(|&(i, j, _)| (i, j)).collect();
    assert_eq!(got, want);
    assert!(triplets(&a).iter().all(|t| t.2 == 1));
}

#[test]
fn bundled_round_trip_through_gzip() {
    for name in ["delaunay_n14.mtx", "cora/features.mtx", "curtis54.mtx"] {
        let a: Matrix<f32> = io::read_matrix_market(data_path(name)).unwrap();
        let p = tmp(&format!("bundled_{}.mtx.gz", name.replace('/', "_")));
        io::write_matrix_market(&p, &a).unwrap();
        assert_eq!(&std::fs::read(&p).unwrap()[..2], &[0x1f, 0x8b]);
        assert_eq!(io::read_matrix_market::<f32>(&p).unwrap(), a, "{name}");
    }
}

/// Load time of the largest shared graph (3.2M entries, gzip). Needs
/// `../shared/data`; run with `cargo test --release --test io -- --ignored --nocapture`.
#[test]
#[ignore]
fn load_time_cnr2000() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/large/cnr-2000.mtx.gz");
    assert!(path.exists(), "{} not found", path.display());
    for _ in 0..3 {
        let t = Instant::now();
        let a: Matrix<bool> = io::read_matrix_market(&path).unwrap();
        let dt = t.elapsed();
        assert_eq!((a.nrows(), a.ncols(), a.nvals()), (325557, 325557, 3216152));
        println!("cnr-2000.mtx.gz as bool: {:.3} s", dt.as_secs_f64());
    }
    let t = Instant::now();
    let a: Matrix<f32> = io::read_matrix_market(&path).unwrap();
    println!("cnr-2000.mtx.gz as f32: {:.3} s", t.elapsed().as_secs_f64());
    let b = a.to_format(Format::B2sr(TileSize::T8)).unwrap();
    let p = tmp("cnr.b2sr");
    let t = Instant::now();
    io::write_b2sr(&p, &b).unwrap();
    println!(
        "write_b2sr T8: {:.3} s, {} bytes",
        t.elapsed().as_secs_f64(),
        std::fs::metadata(&p).unwrap().len()
    );
    let t = Instant::now();
    let c = io::read_b2sr::<f32>(&p).unwrap();
    println!("read_b2sr T8: {:.3} s", t.elapsed().as_secs_f64());
    assert_eq!(b, c);
}

// ---------------------------------------------------------------- round trips

fn round_trip<T: Scalar>(
    tag: &str,
    m: usize,
    n: usize,
    entries: Vec<(usize, usize, T)>,
    field: &str,
) {
    let a = Matrix::from_triplets(m, n, entries).unwrap();
    for ext in ["mtx", "mtx.gz"] {
        let p = tmp(&format!("rt_{tag}.{ext}"));
        io::write_matrix_market(&p, &a).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(
            bytes.starts_with(&[0x1f, 0x8b]),
            ext.ends_with("gz"),
            "{tag}.{ext}"
        );
        let h = io::read_matrix_market_header(&p).unwrap();
        assert_eq!(h.symmetry, MmSymmetry::General);
        let want_field = match field {
            "pattern" => MmField::Pattern,
            "integer" => MmField::Integer,
            _ => MmField::Real,
        };
        assert_eq!(h.field, want_field, "{tag}");
        assert_eq!((h.nrows, h.ncols, h.entries), (m, n, a.nvals()));
        let b: Matrix<T> = io::read_matrix_market(&p).unwrap();
        assert_eq!(b, a, "{tag}.{ext}");
    }
}

#[test]
fn round_trip_every_type() {
    round_trip("bool", 3, 5, vec![(0, 4, true), (2, 0, true)], "pattern");
    round_trip(
        "bool_false",
        3,
        5,
        vec![(0, 4, true), (2, 0, false)],
        "integer",
    );
    round_trip(
        "i32",
        4,
        4,
        vec![(0, 0, -5i32), (1, 3, i32::MAX), (3, 2, i32::MIN), (2, 2, 0)],
        "integer",
    );
    round_trip("u32", 2, 3, vec![(0, 2, u32::MAX), (1, 1, 0)], "integer");
    round_trip(
        "i64",
        2,
        2,
        vec![(0, 0, i64::MIN), (0, 1, i64::MAX), (1, 0, -1i64)],
        "integer",
    );
    round_trip(
        "u64",
        2,
        2,
        vec![(0, 0, u64::MAX), (1, 1, 12345678901234567890u64)],
        "integer",
    );
    round_trip(
        "f32",
        3,
        3,
        vec![
            (0, 0, 0.1f32),
            (0, 2, -1e-30),
            (1, 1, f32::MAX),
            (2, 0, f32::INFINITY),
            (2, 2, 0.0),
        ],
        "real",
    );
    round_trip(
        "f64",
        3,
        2,
        vec![
            (0, 0, 0.1f64),
            (0, 1, 1e-300),
            (1, 0, -2.5e300),
            (1, 1, 5e-324),
            (2, 1, f64::NEG_INFINITY),
        ],
        "real",
    );
    round_trip::<f64>("empty", 3, 4, vec![], "real");
    round_trip::<bool>("zero_by_zero", 0, 0, vec![], "pattern");
}

#[test]
fn nan_survives_a_round_trip() {
    let a = Matrix::from_triplets(1, 2, vec![(0, 1, f32::NAN)]).unwrap();
    let p = tmp("nan.mtx");
    io::write_matrix_market(&p, &a).unwrap();
    let b: Matrix<f32> = io::read_matrix_market(&p).unwrap();
    assert!(b.get(0, 1).unwrap().is_nan());
}

#[test]
fn b2sr_matrix_writes_as_matrix_market() {
    let a: Matrix<bool> = io::read_matrix_market(data_path("chesapeake.mtx")).unwrap();
    let b = a.to_format(Format::B2sr(TileSize::T4)).unwrap();
    let p = tmp("chesapeake_from_b2sr.mtx");
    io::write_matrix_market(&p, &b).unwrap();
    assert_eq!(io::read_matrix_market::<bool>(&p).unwrap(), a);
}

// ---------------------------------------------------------------- reading rules

#[test]
fn symmetric_expansion_against_hand_written_file() {
    let text = "%%MatrixMarket matrix coordinate real symmetric\n\
                % lower triangle of a 4x4 matrix\n\
                4 4 4\n\
                1 1 2.0\n\
                3 1 -1.5\n\
                4 2 7\n\
                4 4 1e1\n";
    let a: Matrix<f64> = from_text(text).unwrap();
    let want = vec![
        (0, 0, 2.0),
        (0, 2, -1.5),
        (1, 3, 7.0),
        (2, 0, -1.5),
        (3, 1, 7.0),
        (3, 3, 10.0),
    ];
    assert_eq!(triplets(&a), want);
    let p = tmp("sym.mtx");
    std::fs::write(&p, text).unwrap();
    assert_eq!(io::read_matrix_market::<f64>(&p).unwrap(), a);
    let pz = tmp("sym.mtx.gz");
    std::fs::write(&pz, gzip(text.as_bytes())).unwrap();
    assert_eq!(io::read_matrix_market::<f64>(&pz).unwrap(), a);

    let ints: Matrix<i32> = from_text(
        &text
            .replace("real", "integer")
            .replace("2.0", "2")
            .replace("-1.5", "-3")
            .replace("1e1", "10"),
    )
    .unwrap();
    assert_eq!(
        triplets(&ints),
        vec![
            (0, 0, 2),
            (0, 2, -3),
            (1, 3, 7),
            (2, 0, -3),
            (3, 1, 7),
            (3, 3, 10)
        ]
    );
    let pat = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 3\n3 2\n";
    let p: Matrix<u32> = from_text(pat).unwrap();
    assert_eq!(
        triplets(&p),
        vec![(0, 1, 1), (1, 0, 1), (1, 2, 1), (2, 1, 1), (2, 2, 1)]
    );
}

#[test]
fn duplicates_summed_or_collapsed() {
    let real =
        "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 2 1.5\n2 1 1\n1 2 2.0\n1 1 -1\n";
    assert_eq!(
        triplets(&from_text::<f64>(real).unwrap()),
        vec![(0, 0, -1.0), (0, 1, 3.5), (1, 0, 1.0)]
    );
    // Pattern duplicates collapse (not 2), also when both triangles are stored.
    let pat = "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n1 2\n2 1\n";
    assert_eq!(
        triplets(&from_text::<u32>(pat).unwrap()),
        vec![(0, 1, 1), (1, 0, 1)]
    );
    let both = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n3 1\n1 3\n2 2\n";
    assert_eq!(
        triplets(&from_text::<i64>(both).unwrap()),
        vec![(0, 2, 1), (1, 1, 1), (2, 0, 1)]
    );
    // Unsorted rows are sorted.
    let unsorted = "%%MatrixMarket matrix coordinate integer general\n1 5 3\n1 5 5\n1 1 1\n1 3 3\n";
    assert_eq!(
        triplets(&from_text::<i32>(unsorted).unwrap()),
        vec![(0, 0, 1), (0, 2, 3), (0, 4, 5)]
    );
}

#[test]
fn value_conversions() {
    let big = "%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 1 9223372036854775807\n1 2 -9223372036854775808\n";
    assert_eq!(
        triplets(&from_text::<i64>(big).unwrap()),
        vec![(0, 0, i64::MAX), (0, 1, i64::MIN)]
    );
    let ubig =
        "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 18446744073709551615\n";
    assert_eq!(from_text::<u64>(ubig).unwrap().get(0, 0), Some(u64::MAX));
    let real = "%%MatrixMarket matrix coordinate real general\n1 3 3\n1 1 2.7\n1 2 -1e12\n1 3 0\n";
    assert_eq!(
        triplets(&from_text::<i32>(real).unwrap()),
        vec![(0, 0, 2), (0, 1, i32::MIN), (0, 2, 0)]
    );
    assert_eq!(
        triplets(&from_text::<bool>(real).unwrap()),
        vec![(0, 0, true), (0, 1, true), (0, 2, false)]
    );
    let pat = "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n";
    assert_eq!(from_text::<f64>(pat).unwrap().get(0, 0), Some(1.0));
}

#[test]
fn lenient_whitespace_comments_and_case() {
    let text = "%%matrixmarket MATRIX Coordinate Real GENERAL\r\n% c\r\n\r\n  2\t2  2 \r\n\r\n1\t1 1.0\r\n% mid comment\r\n 2 2   2.0\r\n\r\n";
    let a: Matrix<f64> = from_text(text).unwrap();
    assert_eq!(triplets(&a), vec![(0, 0, 1.0), (1, 1, 2.0)]);
    // No final newline.
    let a: Matrix<f64> =
        from_text("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 4").unwrap();
    assert_eq!(a.get(0, 0), Some(4.0));
}

#[test]
fn gzip_is_detected_by_magic_not_name() {
    let text = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n";
    let gz_named_plain = tmp("really_gzip.mtx");
    std::fs::write(&gz_named_plain, gzip(text.as_bytes())).unwrap();
    let plain_named_gz = tmp("really_plain.mtx.gz");
    std::fs::write(&plain_named_gz, text).unwrap();
    let want: Matrix<bool> = from_text(text).unwrap();
    assert_eq!(
        io::read_matrix_market::<bool>(&gz_named_plain).unwrap(),
        want
    );
    assert_eq!(
        io::read_matrix_market::<bool>(&plain_named_gz).unwrap(),
        want
    );
    assert_eq!(io::read_graph::<bool>(&gz_named_plain).unwrap(), want);
    let in_memory = gzip(text.as_bytes());
    assert_eq!(
        io::read_matrix_market_from::<bool, _>(&in_memory[..], "mem").unwrap(),
        want
    );
}

// ---------------------------------------------------------------- malformed text

fn parse_error(text: &str) -> (usize, String) {
    match from_text::<f64>(text) {
        Err(Error::Parse { line, detail, path }) => {
            assert_eq!(path, "inline");
            (line, detail)
        }
        other => panic!("expected a parse error for {text:?}, got {other:?}"),
    }
}

#[test]
fn malformed_text_names_the_line() {
    const RG: &str = "%%MatrixMarket matrix coordinate real general\n";
    let cases: Vec<(String, usize, &str)> = vec![
        ("".into(), 1, "empty input"),
        ("hello world\n".into(), 1, "not a Matrix Market file"),
        (
            "%%MatrixMarket matrix coordinate real\n2 2 0\n".into(),
            1,
            "banner",
        ),
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n".into(),
            1,
            "array",
        ),
        (
            "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n".into(),
            1,
            "complex",
        ),
        (
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n".into(),
            1,
            "skew-symmetric",
        ),
        (
            "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n2 1 1\n".into(),
            1,
            "hermitian",
        ),
        (
            "%%MatrixMarket vector coordinate real general\n2 2 1\n".into(),
            1,
            "object",
        ),
        (
            "%%MatrixMarket matrix coordinate rational general\n2 2 1\n".into(),
            1,
            "field",
        ),
        (format!("{RG}% only a comment\n"), 3, "missing size line"),
        (format!("{RG}% c\n2 2\n"), 3, "size line"),
        (format!("{RG}2 x 1\n"), 2, "bad cols"),
        (format!("{RG}2 2 1 7\n1 1 1\n"), 2, "size line"),
        (format!("{RG}5000000000 1 0\n"), 2, "32-bit"),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n".into(),
            2,
            "square",
        ),
        (
            format!("{RG}3 3 3\n1 1 1.0\n2 2 2.0\n"),
            4,
            "ends after 2 of the 3",
        ),
        (
            format!("{RG}2 2 2\n1 1 1\n% trailing comment\n\n"),
            5,
            "ends after 1 of the 2",
        ),
        (
            format!("{RG}2 2 99999999999999\n1 1 1\n"),
            3,
            "ends after 1 of the 99999999999999",
        ),
        (
            format!("{RG}3 3 1\n1 1 1.0\n2 2 2.0\n"),
            4,
            "more entry lines",
        ),
        (
            format!("{RG}3 3 2\n1 1 1\n0 2 1\n"),
            4,
            "indices are 1-based",
        ),
        (
            format!("{RG}3 3 2\n1 1 1\n2 0 1\n"),
            4,
            "indices are 1-based",
        ),
        (
            format!("{RG}3 3 2\n1 1 1\n4 1 1\n"),
            4,
            "row index 4 out of range",
        ),
        (
            format!("{RG}3 3 2\n1 1 1\n1 4 1\n"),
            4,
            "column index 4 out of range",
        ),
        (
            format!("{RG}3 3 1\n99999999999999999999999 1 1\n"),
            3,
            "bad row index",
        ),
        (format!("{RG}3 3 1\n1a 2 1.0\n"), 3, "bad row index"),
        (format!("{RG}3 3 1\n-1 2 1.0\n"), 3, "bad row index"),
        (format!("{RG}3 3 2\n1 1 1\n1 2 abc\n"), 4, "bad real value"),
        (format!("{RG}3 3 1\n1\n"), 3, "missing column index"),
        (format!("{RG}3 3 1\n1 1\n"), 3, "missing value"),
        (format!("{RG}3 3 1\n1 1 1.0 2.0\n"), 3, "extra field"),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n".into(),
            3,
            "bad integer value",
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1\n".into(),
            3,
            "missing value",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n".into(),
            3,
            "extra field",
        ),
    ];
    for (text, line, detail) in cases {
        let (got_line, got_detail) = parse_error(&text);
        assert_eq!(got_line, line, "{text:?}: {got_detail}");
        assert!(
            got_detail.contains(detail),
            "{text:?}: '{got_detail}' lacks '{detail}'"
        );
    }
}

#[test]
fn malformed_file_errors_name_the_path() {
    let p = tmp("bad_entry.mtx");
    std::fs::write(
        &p,
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n",
    )
    .unwrap();
    match io::read_matrix_market::<f32>(&p) {
        Err(Error::Parse { path, line: 3, .. }) => assert!(path.ends_with("bad_entry.mtx")),
        other => panic!("{other:?}"),
    }
    let e = io::read_graph::<f32>(&p).unwrap_err();
    assert!(e.to_string().contains("bad_entry.mtx: line 3:"), "{e}");
    let missing = tmp("does_not_exist.mtx");
    assert!(matches!(
        io::read_matrix_market::<f32>(&missing),
        Err(Error::Io { .. })
    ));
    assert!(matches!(
        io::read_graph::<f32>(&missing),
        Err(Error::Io { .. })
    ));
    assert!(matches!(
        io::read_b2sr::<f32>(&missing),
        Err(Error::Io { .. })
    ));
}

fn numbered_lines(n: usize) -> String {
    let mut s = format!("%%MatrixMarket matrix coordinate integer general\n{n} {n} {n}\n");
    for i in 1..=n {
        s.push_str(&format!("{i} {} {}\n", n + 1 - i, i * 7919));
    }
    s
}

#[test]
fn truncated_or_damaged_gzip_is_an_error() {
    let n = 20000;
    let text = numbered_lines(n);
    let gz = gzip(text.as_bytes());
    assert!(from_text::<i64>(&text).is_ok());
    let p = tmp("truncated.mtx.gz");
    // Cut the stream in the middle, just before the trailer, and inside the header.
    for cut in [gz.len() / 2, gz.len() - 8, gz.len() - 1, 5] {
        // What a decoder can deliver before it fails, read independently of the
        // line reader: the error must name the line that delivery ends in.
        let mut dec = flate2::read::GzDecoder::new(&gz[..cut]);
        let mut delivered = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match std::io::Read::read(&mut dec, &mut chunk) {
                Ok(0) => panic!("cut {cut}: the decoder did not notice"),
                Ok(k) => delivered.extend_from_slice(&chunk[..k]),
                Err(_) => break,
            }
        }
        let want_line = delivered.iter().filter(|&&b| b == b'\n').count() + 1;
        std::fs::write(&p, &gz[..cut]).unwrap();
        match io::read_matrix_market::<i64>(&p) {
            Err(Error::Parse { line, detail, .. }) => {
                assert_eq!(line, want_line, "cut {cut}: {detail}");
                assert!(
                    detail.contains("input ends early or is corrupt"),
                    "cut {cut}: {detail}"
                );
            }
            other => panic!("cut {cut}: {other:?}"),
        }
    }
    // A flipped byte inside the deflate data: an error, never a panic or a wrong matrix.
    let mut bad = gz.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x55;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        io::read_matrix_market::<i64>(&p),
        Err(Error::Parse { .. })
    ));
}

// ---------------------------------------------------------------- B2SR files

fn b2sr<T: Scalar>(a: &Matrix<T>, t: TileSize) -> Matrix<T> {
    a.to_format(Format::B2sr(t)).unwrap()
}

#[test]
fn b2sr_round_trip_all_tile_sizes() {
    let g: Matrix<bool> = io::read_matrix_market(data_path("delaunay_n14.mtx")).unwrap();
    let k: Matrix<f32> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    // 37 x 23: ragged in both directions for every tile size.
    let ragged = Matrix::from_triplets(
        37,
        23,
        (0..37)
            .flat_map(|i| [(i, (i * 5) % 23, 3u64), (i, 22, 3)])
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    )
    .unwrap();
    for t in TileSize::FIXED {
        let a = b2sr(&g, t);
        let p = tmp(&format!("delaunay_{t}.b2sr"));
        io::write_b2sr(&p, &a).unwrap();
        assert_eq!(io::read_b2sr::<bool>(&p).unwrap(), a, "T{t}");
        let via_graph: Matrix<bool> = io::read_graph(&p).unwrap();
        assert_eq!(via_graph, a);
        assert_eq!(via_graph.format(), Format::B2sr(t));
        let a = b2sr(&k, t);
        let p = tmp(&format!("karate_{t}.b2sr"));
        io::write_b2sr(&p, &a).unwrap();
        assert_eq!(io::read_b2sr::<f32>(&p).unwrap(), a);
        let r = b2sr(&ragged, t);
        let p = tmp(&format!("ragged_{t}.b2sr"));
        io::write_b2sr(&p, &r).unwrap();
        let back = io::read_b2sr::<u64>(&p).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.as_csr().into_owned(), ragged.as_csr().into_owned());
        // File length is exactly what the format table says.
        let MatrixRepr::B2sr { pattern, .. } = r.repr() else {
            unreachable!()
        };
        // (16-bit columns: version 2, the offsets padded to 4 bytes.)
        let narrow = pattern.column_form() == ColumnForm::Narrow;
        let pad = if narrow {
            2 * (pattern.ntiles() % 2)
        } else {
            0
        };
        let want = 56 + pattern.bytes() + pad + 4;
        assert_eq!(std::fs::metadata(&p).unwrap().len() as usize, want);
        let version = u32::from_le_bytes(std::fs::read(&p).unwrap()[8..12].try_into().unwrap());
        assert_eq!(version, if narrow { 2 } else { 1 });
    }
}

fn iso_round_trip<T: Scalar>(v: T) {
    let a = b2sr(
        &Matrix::from_triplets(3, 3, vec![(0, 1, v), (2, 2, v)]).unwrap(),
        TileSize::T4,
    );
    let p = tmp(&format!("iso_{}.b2sr", T::TYPE.name()));
    io::write_b2sr(&p, &a).unwrap();
    let b = io::read_b2sr::<T>(&p).unwrap();
    assert_eq!(b, a);
    assert_eq!(b.iso_value(), Some(v));
}

#[test]
fn b2sr_iso_values_of_every_type() {
    iso_round_trip(true);
    iso_round_trip(false);
    iso_round_trip(-7i32);
    iso_round_trip(u32::MAX);
    iso_round_trip(i64::MIN);
    iso_round_trip(u64::MAX);
    iso_round_trip(-0.1f32);
    iso_round_trip(1e-300f64);
}

#[test]
fn b2sr_empty_matrices() {
    for (m, n) in [(0, 0), (5, 3), (64, 64)] {
        let a = b2sr(&Matrix::<f64>::empty(m, n), TileSize::T8);
        let p = tmp(&format!("empty_{m}x{n}.b2sr"));
        io::write_b2sr(&p, &a).unwrap();
        assert_eq!(io::read_b2sr::<f64>(&p).unwrap(), a);
    }
}

#[test]
fn b2sr_wrong_use_is_an_error() {
    let csr: Matrix<f32> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    let p = tmp("csr.b2sr");
    assert!(matches!(
        io::write_b2sr(&p, &csr),
        Err(Error::InvalidArgument { .. })
    ));
    io::write_b2sr(&p, &b2sr(&csr, TileSize::T8)).unwrap();
    let e = io::read_b2sr::<bool>(&p).unwrap_err();
    assert!(matches!(&e, Error::InvalidArgument { .. }), "{e}");
    assert!(e.to_string().contains("fp32"), "{e}");
    // read_graph converts the iso value instead.
    let g: Matrix<bool> = io::read_graph(&p).unwrap();
    assert_eq!(g.iso_value(), Some(true));
    assert_eq!(g.nvals(), 156);
    // A Matrix Market file is not a B2SR file.
    let e = io::read_b2sr::<f32>(data_path("karate.mtx")).unwrap_err();
    assert!(
        matches!(&e, Error::CorruptFile { detail, .. } if detail.contains("magic")),
        "{e}"
    );
}

/// A small valid B2SR file's bytes (karate at T8).
fn karate_b2sr_bytes(tag: &str) -> (PathBuf, Vec<u8>) {
    let a: Matrix<bool> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    let p = tmp(&format!("corrupt_{tag}.b2sr"));
    io::write_b2sr(&p, &b2sr(&a, TileSize::T8)).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    (p, bytes)
}

fn corrupt_detail(p: &Path, bytes: &[u8]) -> String {
    std::fs::write(p, bytes).unwrap();
    match io::read_b2sr::<bool>(p) {
        Err(Error::CorruptFile { detail, .. }) => detail,
        other => panic!("expected CorruptFile, got {other:?}"),
    }
}

fn with_crc(mut bytes: Vec<u8>) -> Vec<u8> {
    let n = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

#[test]
fn b2sr_flipped_bytes_are_caught() {
    let (p, good) = karate_b2sr_bytes("flip");
    // A byte in the tiles: checksum.
    let mut bad = good.clone();
    let last_tile_byte = bad.len() - 5;
    bad[last_tile_byte] ^= 0x10;
    assert!(corrupt_detail(&p, &bad).contains("checksum mismatch"));
    // Every single-byte change anywhere is an error (CorruptFile, or a type
    // mismatch when the element tag turns into another valid tag).
    for i in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[i] ^= flip;
            std::fs::write(&p, &bad).unwrap();
            match io::read_b2sr::<bool>(&p) {
                Err(Error::CorruptFile { .. }) => {}
                Err(Error::InvalidArgument { .. }) if i == 40 => {}
                other => panic!("byte {i} ^ {flip:#x}: {other:?}"),
            }
        }
    }
}

#[test]
fn b2sr_truncated_or_extended_files_are_caught() {
    let (p, good) = karate_b2sr_bytes("trunc");
    for len in 0..good.len() {
        let d = corrupt_detail(&p, &good[..len]);
        assert!(!d.is_empty());
    }
    assert!(corrupt_detail(&p, &good[..good.len() - 1]).contains("the header implies"));
    let mut longer = good.clone();
    longer.push(0);
    assert!(corrupt_detail(&p, &longer).contains("the header implies"));
}

#[test]
fn b2sr_lying_headers_do_not_allocate() {
    let (p, good) = karate_b2sr_bytes("header");
    let set_u64 =
        |b: &mut Vec<u8>, off: usize, v: u64| b[off..off + 8].copy_from_slice(&v.to_le_bytes());
    // 2^40 tiles.
    let mut bad = good.clone();
    set_u64(&mut bad, 32, 1 << 40);
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("exceeds 32 bits"));
    // Largest legal dimensions and tile count: rejected by length, before allocating.
    let mut bad = good.clone();
    set_u64(&mut bad, 16, u32::MAX as u64);
    set_u64(&mut bad, 24, u32::MAX as u64);
    set_u64(&mut bad, 32, u32::MAX as u64);
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("the header implies"));
    // More tiles than tile positions.
    let mut bad = good.clone();
    set_u64(&mut bad, 32, 1000);
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("cannot fit"));
    // Unknown version, column form, tile edge, type tag; non-zero reserved bytes.
    let mut bad = good.clone();
    bad[8] = 3;
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("version 3"));
    let mut bad = good.clone();
    bad[41] = 1; // 16-bit columns in a version 1 file
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("column form 1 for version 1"));
    let mut bad = good.clone();
    bad[8] = 2;
    bad[41] = 1; // 16-bit columns claimed, 32-bit arrays present: the length is wrong
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("the header implies"));
    let mut bad = good.clone();
    bad[12] = 12;
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("tile edge 12"));
    let mut bad = good.clone();
    bad[40] = 9;
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("type tag 9"));
    let mut bad = good.clone();
    bad[45] = 1;
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("reserved"));
    let mut bad = good.clone();
    bad[48] = 2; // a bool that is neither 0 nor 1
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("iso value"));
}

#[test]
fn b2sr_invalid_arrays_with_valid_checksum() {
    let (p, good) = karate_b2sr_bytes("arrays");
    let tile_rows = 34usize.div_ceil(8);
    let col_idx_at = 56 + 4 * (tile_rows + 1);
    // A tile column index out of range.
    let mut bad = good.clone();
    bad[col_idx_at..col_idx_at + 4].copy_from_slice(&1000u32.to_le_bytes());
    let d = corrupt_detail(&p, &with_crc(bad));
    assert!(
        d.contains("checksum is valid but the arrays are not") && d.contains("tile column"),
        "{d}"
    );
    // A decreasing / out-of-range tile row pointer.
    let mut bad = good.clone();
    bad[56 + 4..56 + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("arrays are not"));
    // An empty stored tile.
    let ntiles = u64::from_le_bytes(good[32..40].try_into().unwrap()) as usize;
    let tiles_at = col_idx_at + 4 * ntiles;
    let mut bad = good.clone();
    bad[tiles_at..tiles_at + 8].fill(0);
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("empty"));
    // A bit in the padding (row 34, beyond the 34 rows, in the last tile row).
    let mut bad = good.clone();
    let last_tile = tiles_at + 8 * (ntiles - 1);
    bad[last_tile + 7] |= 0x01; // tile row 7 of the last tile row = matrix row 39
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("padding"));
}

/// A version 2 file (16-bit tile columns) with a valid checksum but broken
/// column arrays, or a header that lies about the escaped columns.
#[test]
fn b2sr_invalid_sixteen_bit_columns_with_valid_checksum() {
    let a: Matrix<bool> = io::read_matrix_market(data_path("karate.mtx")).unwrap();
    let MatrixRepr::B2sr { pattern, value } = b2sr(&a, TileSize::T8).into_repr() else {
        unreachable!()
    };
    let narrow = Matrix::from_b2sr(pattern.with_columns(ColumnForm::Narrow), value);
    let p = tmp("corrupt_narrow.b2sr");
    io::write_b2sr(&p, &narrow).unwrap();
    let good = std::fs::read(&p).unwrap();
    assert_eq!((good[8], good[41]), (2, 1));
    assert_eq!(io::read_b2sr::<bool>(&p).unwrap(), narrow);
    let tile_rows = 34usize.div_ceil(8);
    let base_at = 56 + 4 * (tile_rows + 1);
    let offset_at = base_at + 4 * tile_rows;
    // A base marked escaped, with no escaped columns in the file.
    let mut bad = good.clone();
    bad[base_at + 3] |= 0x80;
    let d = corrupt_detail(&p, &with_crc(bad));
    assert!(d.contains("arrays are not") && d.contains("escaped"), "{d}");
    // An offset past the last tile column.
    let mut bad = good.clone();
    bad[offset_at..offset_at + 2].copy_from_slice(&1000u16.to_le_bytes());
    let d = corrupt_detail(&p, &with_crc(bad));
    assert!(
        d.contains("arrays are not") && d.contains("tile column"),
        "{d}"
    );
    // A header claiming escaped columns the file does not hold.
    let mut bad = good.clone();
    bad[44] = 1;
    assert!(corrupt_detail(&p, &with_crc(bad)).contains("the header implies"));
    std::fs::remove_file(&p).ok();
}

#[test]
fn read_graph_tells_formats_apart() {
    let (p, _) = karate_b2sr_bytes("graph");
    assert!(matches!(
        io::read_graph::<bool>(&p).unwrap().format(),
        Format::B2sr(TileSize::T8)
    ));
    assert_eq!(
        io::read_graph::<bool>(data_path("karate.mtx"))
            .unwrap()
            .format(),
        Format::Csr
    );
    let junk = tmp("junk.bin");
    std::fs::write(&junk, [0u8, 1, 2, 3, 0xff, 0xfe]).unwrap();
    assert!(matches!(
        io::read_graph::<bool>(&junk),
        Err(Error::Parse { line: 1, .. })
    ));
}

/// Loaders rely on `validate` rejecting bad offsets with an error: a row
/// pointer that jumps past the end and comes back must not panic while slicing.
#[test]
fn validation_rejects_wild_row_pointers() {
    use bitgraphblas::storage::Csr;
    let r = Csr::<f32>::try_new(3, 3, vec![0, 5, 2, 2], vec![0, 1], vec![1.0, 1.0]);
    assert!(matches!(r, Err(Error::InvalidStorage { .. })));
}

/// The larger shared graphs (not bundled) against MANIFEST.md. Needs
/// `../shared/data`; run with `cargo test --release --test io -- --ignored`.
#[test]
#[ignore]
fn shared_large_graphs_match_manifest() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/large");
    for (name, n, nnz_full) in [
        ("cnr-2000.mtx.gz", 325557, 3216152),
        ("ego-Twitter.mtx.gz", 81306, 2684606),
        ("cit-HepPh.mtx.gz", 34546, 421578),
        ("USA-road-d.NY.mtx.gz", 264346, 730100),
    ] {
        let t = Instant::now();
        let a: Matrix<bool> = io::read_matrix_market(dir.join(name)).unwrap();
        println!("{name}: {:.3} s", t.elapsed().as_secs_f64());
        assert_eq!(
            (a.nrows(), a.ncols(), a.nvals()),
            (n, n, nnz_full),
            "{name}"
        );
        a.validate().unwrap();
    }
}
