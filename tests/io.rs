//! File I/O: Matrix Market reading and writing, the binary B2SR format, and
//! the bundled graphs in `data/`.

use std::path::PathBuf;
use std::time::Instant;

use bitgraphblas::io::{self, data_path};
use bitgraphblas::Matrix;

/// `(file under data/, rows, cols, nnz after symmetric expansion)` from MANIFEST.md.
const BUNDLED: &[(&str, usize, usize, usize)] = &[
    ("delaunay_n14.mtx", 16384, 16384, 98244),
    ("ash292.mtx", 292, 292, 2208),
    ("karate.mtx", 34, 34, 156),
    ("chesapeake.mtx", 39, 39, 340),
    ("curtis54.mtx", 54, 54, 291),
    ("cora/adj.mtx", 2708, 2708, 10556),
    ("cora/features.mtx", 2708, 1433, 49216),
];

#[test]
fn bundled_graphs_match_manifest() {
    for &(name, m, n, nnz) in BUNDLED {
        let a: Matrix<f32> = io::read_matrix_market(data_path(name)).unwrap();
        assert_eq!((a.nrows(), a.ncols(), a.nvals()), (m, n, nnz), "{name}");
        a.validate().unwrap();
        let g: Matrix<bool> = io::read_graph(data_path(name)).unwrap();
        assert_eq!(g.nvals(), nnz, "{name}");
    }
}

/// Load time of the largest shared graph (3.2M entries, gzip); run with
/// `cargo test --release --test io -- --ignored --nocapture`.
#[test]
#[ignore]
fn load_time_cnr2000() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/large/cnr-2000.mtx.gz");
    if !path.exists() {
        panic!("{} not found", path.display());
    }
    for _ in 0..3 {
        let t = Instant::now();
        let a: Matrix<bool> = io::read_matrix_market(&path).unwrap();
        let dt = t.elapsed();
        assert_eq!((a.nrows(), a.nvals()), (325557, 3216152));
        println!("cnr-2000.mtx.gz bool: {:.3} s", dt.as_secs_f64());
    }
    let t = Instant::now();
    let a: Matrix<f32> = io::read_matrix_market(&path).unwrap();
    println!(
        "cnr-2000.mtx.gz f32: {:.3} s ({} entries)",
        t.elapsed().as_secs_f64(),
        a.nvals()
    );
}
