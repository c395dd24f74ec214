//! Where the time of CPU PageRank goes: each step of one iteration timed
//! alone, against the whole 20-iteration run, on the real graphs of
//! ../shared/data. The best of many short repetitions is the figure to read
//! on a shared machine (a repetition that no other process disturbed).
//!
//! ```text
//! cargo run --release -p bitgraphblas-algorithms --example profile_cpu -- [--reps 50] [GRAPH ...]
//! ```

use std::path::PathBuf;
use std::time::Instant;

use bitgraphblas::algebra::{Plus, PlusTimes, Times};
use bitgraphblas::{ops, Cpu, Desc, Format, Matrix, Vector};
use bitgraphblas_algorithms as alg;
use bitgraphblas_algorithms::{Algorithm, Graph};

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// Best and median milliseconds of `reps` runs of `f`, after one warm-up.
fn time(reps: usize, mut f: impl FnMut() -> R<()>) -> R<(f64, f64)> {
    f()?;
    let mut ts = vec![];
    for _ in 0..reps {
        let t = Instant::now();
        f()?;
        ts.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ts.sort_by(f64::total_cmp);
    Ok((ts[0], ts[ts.len() / 2]))
}

fn show(name: &str, what: &str, (b, m): (f64, f64)) {
    println!("{name:<14} {what:<40} {b:>9.3} {m:>9.3}");
}

fn main() -> R<()> {
    let mut reps = 50;
    let mut graphs = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().ok_or("--reps N")?.parse()?,
            _ => graphs.push(a),
        }
    }
    if graphs.is_empty() {
        graphs = vec![
            "suitesparse/delaunay_n14.mtx".into(),
            "large/USA-road-d.NY.mtx.gz".into(),
        ];
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    println!(
        "# profile_cpu, RAYON_NUM_THREADS={}, best and median of {reps} (ms)",
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "unset".into())
    );
    for rel in &graphs {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let name = name.split('.').next().unwrap_or(name);
        let loaded = alg::load::read_graph(&data.join(rel))?;
        let pattern = Matrix::from_csr(loaded.matrix.as_csr().map(|_| true));
        let cpu = Cpu::new();
        let g = Graph::new(&cpu, pattern, None, Format::Auto)?;
        g.prepare(Algorithm::PageRank)?;
        let n = g.nvertices();
        let at = g.at_f64()?;
        let x: Vector<f64> = Vector::from_dense(vec![1.0 / n as f64; n]);
        let scale: Vector<f64> = Vector::from_dense(vec![0.85 / 3.0; n]);
        let mut w: Vector<f64> = Vector::from_dense(vec![0.0; n]);
        let mut xn: Vector<f64> = Vector::from_dense(vec![0.0; n]);
        show(
            name,
            "ewise_mult w = x .* scale",
            time(reps, || {
                ops::ewise_mult(&cpu, &mut w, Times, &x, &scale, &Desc::new())?;
                Ok(())
            })?,
        );
        show(
            name,
            "assign_scalar x' = c",
            time(reps, || {
                ops::assign_scalar(&cpu, &mut xn, 0.5, None, &Desc::new())?;
                Ok(())
            })?,
        );
        show(
            name,
            "mxv x' += A' w (PLUS.TIMES, accum)",
            time(reps, || {
                let d = Desc::new().accum(Plus);
                ops::mxv(&cpu, &mut xn, PlusTimes::<f64>::new(), at, &w, &d)?;
                Ok(())
            })?,
        );
        let opts = alg::PageRankOptions {
            tol: 0.0,
            max_iters: 20,
            ..Default::default()
        };
        show(
            name,
            "pagerank, 20 iterations",
            time(reps.div_ceil(10), || {
                alg::pagerank(&g, &opts)?;
                Ok(())
            })?,
        );
    }
    Ok(())
}
