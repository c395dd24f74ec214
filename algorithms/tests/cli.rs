//! The command line: output conventions, JSON summary, B2SR round trip, and
//! clear errors (non-zero exit, no panic) on bad input.
#![allow(clippy::needless_range_loop)]

mod common;

use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitgraphblas"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("bgb_alg_cli_{}_{name}", std::process::id()))
}

fn lines(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

#[test]
fn bfs_levels_match_the_reference() {
    let path = common::data("suitesparse/extra/karate.mtx");
    let (_, p) = common::load("suitesparse/extra/karate.mtx");
    let o = run(&["bfs", path.to_str().unwrap(), "--source", "5"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want: Vec<String> = common::bfs_levels(&p, 5)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(lines(&stdout(&o)), want);
}

#[test]
fn every_command_writes_one_line_per_vertex() {
    let path = common::data("suitesparse/extra/curtis54.mtx");
    let (_, p) = common::load("suitesparse/extra/curtis54.mtx");
    let g = path.to_str().unwrap();
    let out = tmp("out.txt");
    let o = out.to_str().unwrap();
    let read = || std::fs::read_to_string(&out).unwrap();

    assert!(run(&["sssp", g, "--source", "3", "--output", o])
        .status
        .success());
    let want: Vec<String> = common::dijkstra(&p, 3)
        .iter()
        .map(|x| {
            if x.is_infinite() {
                "inf".into()
            } else {
                x.to_string()
            }
        })
        .collect();
    assert_eq!(lines(&read()), want);

    // Real weights from the file, and unreachable vertices.
    let w = tmp("weighted.mtx");
    std::fs::write(&w, "%%MatrixMarket matrix coordinate real general\n5 5 4\n1 2 2.5\n2 3 1.0\n1 3 4.0\n4 5 1.0\n").unwrap();
    assert!(
        run(&["sssp", w.to_str().unwrap(), "--source", "0", "--output", o])
            .status
            .success()
    );
    assert_eq!(lines(&read()), vec!["0", "2.5", "3.5", "inf", "inf"]);
    std::fs::remove_file(&w).ok();

    assert!(run(&["pagerank", g, "--output", o, "--tol", "1e-10"])
        .status
        .success());
    let (want, _) = common::pagerank(&p, 0.85, 1e-10, 100);
    let got: Vec<f64> = read().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got.len(), p.n);
    for (a, b) in got.iter().zip(&want) {
        assert!((a - b).abs() < 1e-9);
    }
    assert!(read()
        .lines()
        .all(|l| l.split('e').next().unwrap().replace(['.', '-'], "").len() >= 9));

    assert!(run(&["cc", g, "--output", o, "--tile", "8"])
        .status
        .success());
    let want: Vec<String> = common::components(&p)
        .iter()
        .map(|x| x.to_string())
        .collect();
    assert_eq!(lines(&read()), want);

    assert!(run(&["tc", g, "--output", o]).status.success());
    assert_eq!(
        lines(&read()),
        vec![common::triangles_brute(&p).to_string()]
    );

    assert!(run(&["bc", g, "--sources", "1000", "--output", o])
        .status
        .success());
    let want = common::brandes(&p, &(0..p.n).collect::<Vec<_>>());
    let got: Vec<f64> = read().lines().map(|l| l.parse().unwrap()).collect();
    for (a, b) in got.iter().zip(&want) {
        assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()));
    }
    std::fs::remove_file(&out).ok();
}

#[test]
fn json_summary_is_the_last_line() {
    let path = common::data("suitesparse/extra/karate.mtx");
    let o = run(&["tc", path.to_str().unwrap(), "--json", "--tile", "16"]);
    assert!(o.status.success());
    let s = stdout(&o);
    let l = lines(&s);
    assert_eq!(l[0], "45");
    let j = &l[1];
    for key in [
        "\"graph\":",
        "\"vertices\":34",
        "\"entries\":156",
        "\"backend\":\"cpu\"",
        "\"tile\":\"16\"",
        "\"load_s\":",
        "\"convert_s\":",
        "\"compute_s\":",
    ] {
        assert!(j.contains(key), "{key} missing from {j}");
    }
}

#[test]
fn convert_info_and_b2sr_input() {
    let path = common::data("suitesparse/delaunay_n14.mtx");
    let g = path.to_str().unwrap();
    let b2sr = tmp("d14.b2sr");
    let b = b2sr.to_str().unwrap();
    let o = run(&["convert", g, b, "--tile", "8"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let info = stdout(&run(&["info", b]));
    assert!(
        info.contains("rows      16384") && info.contains("entries   98244"),
        "{info}"
    );
    for k in ["4", "8", "16", "32", "64"] {
        assert!(
            info.lines()
                .any(|l| l.trim_start().starts_with(&format!("{k} "))),
            "no row for {k}: {info}"
        );
    }
    assert!(info.contains("auto "));
    let a = stdout(&run(&["bfs", g, "--source", "100"]));
    let c = stdout(&run(&["bfs", b, "--source", "100"]));
    assert_eq!(a, c);
    std::fs::remove_file(&b2sr).ok();
}

#[test]
fn bad_input_is_a_clear_error() {
    let karate = common::data("suitesparse/extra/karate.mtx");
    let k = karate.to_str().unwrap();
    let bad = tmp("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n4 1\n",
    )
    .unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["bfs", k, "--source", "34"],
        vec!["sssp", k, "--source", "99"],
        vec!["bfs", "/nonexistent/graph.mtx", "--source", "0"],
        vec!["tc", bad.to_str().unwrap()],
        vec!["pagerank", k, "--damping", "2"],
        vec!["bfs", k, "--source", "0", "--tile", "7"],
        vec!["bfs", k],
        vec!["cc", k, "--output", "/nonexistent/dir/out.txt"],
    ];
    for args in cases {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "{args:?} panicked: {err}"
        );
        assert!(!err.trim().is_empty(), "{args:?} said nothing");
    }
    std::fs::remove_file(&bad).ok();
}

/// The committed `bigcn-bin` weights for Cora.
fn bigcn_bin_cora() -> std::path::PathBuf {
    bitgraphblas::io::data_path("weights/bigcn-bin-cora.safetensors")
}

/// `gnn --model MODEL` with the `bigcn-bin` weights on Cora, then `extra`.
fn gnn_on_cora(model: &str, extra: &[&str]) -> Output {
    let cora = bitgraphblas::io::data_path("cora");
    let w = bigcn_bin_cora();
    let mut args = vec![
        "gnn",
        "--model",
        model,
        "--weights",
        w.to_str().unwrap(),
        "--dataset",
        cora.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// `gnn` on Cora with the committed `bigcn-bin` weights (two timed passes,
/// after the warm-up): the predicted class of every node, equal to
/// PyTorch's (exported with the weights), and the JSON summary last with
/// the keys issue 18 names, its accuracy PyTorch's.
#[test]
fn gnn_predicts_every_node_as_pytorch_did() {
    use bitgraphblas::io::ReadOptions;
    use bitgraphblas_algorithms::gnn::Weights;
    let out = tmp("gnn.txt");
    let o = gnn_on_cora(
        "bigcn-bin",
        &["--json", "--reps", "2", "--output", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Vec<i32> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let weights = Weights::load(bigcn_bin_cora(), &ReadOptions::default()).unwrap();
    let torch = weights.i32_vector("reference.predictions", 2708).unwrap();
    assert_eq!(got, torch);
    let s = stdout(&o);
    let j = s.lines().last().unwrap();
    for key in [
        "\"model\":\"bigcn-bin\"",
        "\"dataset\":",
        "\"accuracy\":",
        "\"seconds\":",
        "\"peak_bytes\":",
    ] {
        assert!(j.contains(key), "{key} missing from {j}");
    }
    let field = |k: &str| -> f64 {
        let v = j.split(&format!("\"{k}\":")).nth(1).unwrap();
        v.split([',', '}']).next().unwrap().parse().unwrap()
    };
    let torch_acc: f64 = weights.meta("test_accuracy").unwrap().parse().unwrap();
    assert!((field("accuracy") - torch_acc).abs() < 5e-5, "{j}");
    assert!(field("seconds") > 0.0 && field("peak_bytes") > 0.0, "{j}");
    std::fs::remove_file(&out).ok();
}

/// `gnn --help` lists the models; weights of another model are a clear
/// error naming both.
#[test]
fn gnn_lists_its_models_and_refuses_another_models_weights() {
    let help = stdout(&run(&["gnn", "--help"]));
    for m in [
        "gcn",
        "bigcn-bin",
        "gcn-q4",
        "sage",
        "bisage",
        "saint",
        "bisaint",
    ] {
        assert!(help.contains(m), "{m} missing from gnn --help:\n{help}");
    }
    let o = gnn_on_cora("gcn", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("model bigcn-bin, not gcn") && !err.contains("panicked"),
        "{err}"
    );
}

#[cfg(not(feature = "cuda"))]
#[test]
fn cuda_without_the_feature_says_so() {
    let karate = common::data("suitesparse/extra/karate.mtx");
    let o = run(&[
        "bfs",
        karate.to_str().unwrap(),
        "--source",
        "0",
        "--backend",
        "cuda",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("without CUDA support"));
}
