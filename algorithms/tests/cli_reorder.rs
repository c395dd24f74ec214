//! `--reorder`: every order gives the same output as the given order (in the
//! original vertex ids), for every algorithm.

use std::path::PathBuf;
use std::process::Command;

const ORDERS: [&str; 3] = ["rcm", "degree", "locality"];

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(name)
}

fn run(args: &[&str]) -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_bitgraphblas"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Runs `args` with each `--reorder` and compares with `--reorder none`:
/// exactly, or (`tol`) as numbers within a relative `tol`.
fn same_under_reorder(args: &[&str], tol: Option<f64>) {
    let mut base_args = args.to_vec();
    base_args.extend(["--reorder", "none"]);
    let base = run(&base_args);
    assert_eq!(base, run(args), "{args:?}: --reorder none is the default");
    for o in ORDERS {
        let mut a = args.to_vec();
        a.extend(["--reorder", o]);
        let got = run(&a);
        assert_eq!(got.len(), base.len(), "{a:?}");
        match tol {
            None => assert_eq!(got, base, "{a:?}"),
            Some(t) => {
                for (i, (x, y)) in got.iter().zip(&base).enumerate() {
                    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                    assert!(
                        (x - y).abs() <= t * y.abs().max(1.0),
                        "{a:?}: vertex {i}: {x} != {y}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_algorithm_gives_the_same_output_in_every_order() {
    for g in ["karate.mtx", "chesapeake.mtx", "curtis54.mtx", "ash292.mtx"] {
        let p = data(g);
        let g = p.to_str().unwrap();
        same_under_reorder(&["bfs", g, "--source", "5"], None);
        same_under_reorder(&["sssp", g, "--source", "3"], None);
        same_under_reorder(&["cc", g], None);
        same_under_reorder(&["tc", g], None);
        same_under_reorder(&["pagerank", g, "--tol", "1e-12"], Some(1e-9));
        same_under_reorder(&["bc", g, "--sources", "7"], Some(1e-9));
        same_under_reorder(&["bc", g, "--sources", "1000"], Some(1e-9));
        for t in ["4", "8", "auto"] {
            same_under_reorder(&["bfs", g, "--source", "0", "--tile", t], None);
        }
    }
}

#[test]
fn weighted_directed_and_disconnected() {
    // Three weakly connected components whose smallest ids are 0, 2 and 5,
    // a directed weighted part and isolated vertices 8, 9.
    let w = std::env::temp_dir().join(format!("bgb_reorder_{}.mtx", std::process::id()));
    std::fs::write(
        &w,
        "%%MatrixMarket matrix coordinate real general\n10 10 8\n\
         1 2 2.5\n2 5 1.0\n5 1 4.0\n3 4 0.5\n4 7 1.5\n7 3 2.0\n6 8 1.0\n8 6 3.0\n",
    )
    .unwrap();
    let g = w.to_str().unwrap();
    same_under_reorder(&["cc", g], None);
    let cc = run(&["cc", g, "--reorder", "locality"]);
    assert_eq!(cc, ["0", "0", "2", "2", "0", "5", "2", "5", "8", "9"]);
    for s in ["0", "3", "9"] {
        same_under_reorder(&["sssp", g, "--source", s], None);
        same_under_reorder(&["bfs", g, "--source", s], None);
    }
    same_under_reorder(&["pagerank", g, "--tol", "1e-12"], Some(1e-9));
    same_under_reorder(&["bc", g, "--sources", "10"], Some(1e-9));
    same_under_reorder(&["tc", g], None);
    std::fs::remove_file(&w).ok();
}

#[test]
fn json_reports_the_order_and_its_time() {
    let p = data("karate.mtx");
    let out = run(&[
        "bfs",
        p.to_str().unwrap(),
        "--source",
        "0",
        "--json",
        "--reorder",
        "rcm",
    ]);
    let last = out.last().unwrap();
    assert!(last.contains("\"reorder\":\"rcm\""), "{last}");
    assert!(last.contains("\"reorder_s\":"), "{last}");
    let tour = run(&["tour", p.to_str().unwrap(), "--reorder", "locality"]);
    assert!(tour.iter().any(|l| l.starts_with("reorder")), "{tour:?}");
    let base = run(&["tour", p.to_str().unwrap()]);
    // the same summaries (times aside)
    let summary = |v: &[String]| -> Vec<String> {
        v.iter()
            .filter_map(|l| l.split_once("convert)").map(|x| x.1.to_string()))
            .collect()
    };
    assert_eq!(summary(&tour), summary(&base));
    let info = run(&["info", p.to_str().unwrap()]);
    for o in ["none", "rcm", "degree", "locality"] {
        assert!(
            info.iter().any(|l| l.starts_with(o)),
            "info lists {o}: {info:?}"
        );
    }
    let info = run(&["info", p.to_str().unwrap(), "--reorder", "rcm"]);
    assert!(info.iter().any(|l| l.starts_with("rcm")));
    assert!(!info.iter().any(|l| l.starts_with("locality")));
}

#[test]
fn a_bad_order_is_a_usage_error() {
    let p = data("karate.mtx");
    let o = Command::new(env!("CARGO_BIN_EXE_bitgraphblas"))
        .args(["cc", p.to_str().unwrap(), "--reorder", "gorder"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
