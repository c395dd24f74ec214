//! Where the time of GPU PageRank and of the BFS levels goes: each step of
//! one PageRank iteration timed alone (host clock around the call and a
//! device synchronisation), the on-device PageRank against the same with the
//! download of the ranks, and BFS split into the search and the read-back of
//! its level vector.
//!
//! ```text
//! profile_gpu [--reps 5] [GRAPH ...]      (grid4096, rmat22 by default; also grid1024)
//! ```

use std::time::Instant;

use bitgraphblas::algebra::{AbsDiff, BindFirst, Div, Plus, PlusTimes, Second, Times};
use bitgraphblas::backend::Backend;
use bitgraphblas::ext::{self, affine::mxv_affine_generic};
use bitgraphblas::{generate, ops, CudaBackend, Desc, Format, Matrix, Vector, VectorFormat};
use bitgraphblas_algorithms as alg;
use bitgraphblas_algorithms::{Algorithm, Graph};

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// Best and median milliseconds of `reps` runs of `f` (synchronised), after one warm-up.
fn time(gpu: &CudaBackend, reps: usize, mut f: impl FnMut() -> R<()>) -> R<(f64, f64)> {
    f()?;
    gpu.synchronize()?;
    let mut ts = vec![];
    for _ in 0..reps {
        let t = Instant::now();
        f()?;
        gpu.synchronize()?;
        ts.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ts.sort_by(f64::total_cmp);
    Ok((ts[0], ts[ts.len() / 2]))
}

fn show(name: &str, what: &str, (b, m): (f64, f64)) {
    println!("{name:<10} {what:<44} {b:>9.3} {m:>9.3}");
}

fn main() -> R<()> {
    let mut reps = 5;
    let mut names = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().ok_or("--reps N")?.parse()?,
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = vec!["grid4096".into(), "rmat22".into()];
    }
    let gpu = CudaBackend::new(0)?;
    println!(
        "# profile_gpu on {}, best and median of {reps} (ms)",
        gpu.device_name()
    );
    for name in &names {
        let pattern: Matrix<bool> = match name.as_str() {
            "grid1024" => generate::grid_2d(1024),
            "grid4096" => generate::grid_2d(4096),
            "rmat22" => generate::rmat(22, 16, 1),
            _ => return Err(format!("unknown graph {name}").into()),
        };
        let g = Graph::new(&gpu, pattern, None, Format::Auto)?;
        g.prepare(Algorithm::PageRank)?;
        g.prepare(Algorithm::Bfs)?;
        let n = g.nvertices();
        println!(
            "# {name}: {n} vertices, {} entries, {:?}",
            g.nedges(),
            g.format()
        );
        let b = &gpu;

        // ---- PageRank, whole
        let opts = alg::PageRankOptions {
            tol: 0.0,
            max_iters: 20,
            ..Default::default()
        };
        let mut keep = None;
        show(
            name,
            "pagerank20 on device",
            time(b, reps, || {
                keep = Some(alg::pagerank_on_backend(&g, &opts)?);
                Ok(())
            })?,
        );
        let ranks = keep.ok_or("no run")?.ranks;
        show(
            name,
            "  download of the ranks",
            time(b, reps, || {
                b.download_vector(&ranks)?;
                Ok(())
            })?,
        );
        show(
            name,
            "pagerank20 with download (pagerank)",
            time(b, reps, || {
                alg::pagerank(&g, &opts)?;
                Ok(())
            })?,
        );
        let with_tol = alg::PageRankOptions {
            tol: 1e-300,
            ..opts
        };
        show(
            name,
            "pagerank20 on device, L1 change measured",
            time(b, reps, || {
                alg::pagerank_on_backend(&g, &with_tol)?;
                Ok(())
            })?,
        );

        // ---- PageRank, one iteration's steps (the body of pagerank_on_backend)
        let at = g.at_f64()?;
        let dout = g.out_degree()?;
        let nf = n as f64;
        let mut scale = b.vector_new(n, Some(0.0), VectorFormat::Dense)?;
        ops::apply(
            b,
            &mut scale,
            BindFirst(Div, 0.85),
            dout,
            &Desc::new().accum(Second),
        )?;
        let ndangling = n - b.vector_nvals(dout)?;
        let mut d = b.vector_new(n, None, VectorFormat::Dense)?;
        let m = Desc::new().mask(CudaBackend::mask(dout).structure().complement());
        ops::assign_scalar(b, &mut d, 1.0, None, &m)?;
        let d = b.convert_vector(&d, VectorFormat::Sparse)?;
        let x = b.vector_new(n, Some(1.0 / nf), VectorFormat::Dense)?;
        let mut xn = b.vector_new(n, Some(0.0), VectorFormat::Dense)?;
        let mut w = b.vector_new(n, None, VectorFormat::Dense)?;
        let mut dx = b.vector_new(n, None, VectorFormat::Sparse)?;
        let mut diff = b.vector_new(n, None, VectorFormat::Dense)?;
        show(
            name,
            "  w = x .* scale",
            time(b, reps, || {
                ops::ewise_mult(b, &mut w, Times, &x, &scale, &Desc::new())?;
                Ok(())
            })?,
        );
        show(
            name,
            &format!("  dangling sum ({ndangling} dangling)"),
            time(b, reps, || {
                ops::ewise_mult(b, &mut dx, Times, &d, &x, &Desc::new())?;
                ops::reduce(b, Plus, &dx)?;
                Ok(())
            })?,
        );
        show(
            name,
            "  x' = c (assign_scalar)",
            time(b, reps, || {
                ops::assign_scalar(b, &mut xn, 1e-9, None, &Desc::new())?;
                Ok(())
            })?,
        );
        show(
            name,
            "  x' += A' w (mxv, accumulate)",
            time(b, reps, || {
                ops::mxv(
                    b,
                    &mut xn,
                    PlusTimes::<f64>::new(),
                    at,
                    &w,
                    &Desc::new().accum(Plus),
                )?;
                Ok(())
            })?,
        );
        for (what, prescale) in [
            ("default", None),
            ("gather d, u", Some(false)),
            ("pre-scaled", Some(true)),
        ] {
            b.set_affine_prescale(prescale);
            show(
                name,
                &format!("  x' = c + A' (scale .* x) (mxv_affine, {what})"),
                time(b, reps, || {
                    ext::mxv_affine(b, &mut xn, PlusTimes::<f64>::new(), 1e-9, at, &scale, &x)?;
                    Ok(())
                })?,
            );
        }
        b.set_affine_prescale(None);
        show(
            name,
            "  the same, generic (ewise, assign, mxv)",
            time(b, reps, || {
                mxv_affine_generic(b, &mut xn, PlusTimes::<f64>::new(), 1e-9, at, &scale, &x)?;
                Ok(())
            })?,
        );
        let mut t = b.vector_new(n, None, VectorFormat::Dense)?;
        show(
            name,
            "  t = A' w (mxv, no accumulate)",
            time(b, reps, || {
                ops::mxv(b, &mut t, PlusTimes::<f64>::new(), at, &w, &Desc::new())?;
                Ok(())
            })?,
        );
        show(
            name,
            "  diff = |x' - x| (AbsDiff)",
            time(b, reps, || {
                ops::ewise_add(b, &mut diff, AbsDiff, &xn, &x, &Desc::new())?;
                Ok(())
            })?,
        );
        show(
            name,
            "  reduce(diff)",
            time(b, reps, || {
                ops::reduce(b, Plus, &diff)?;
                Ok(())
            })?,
        );

        // ---- BFS levels: the search, and the read-back of a level vector like its result
        let mut lv = vec![];
        show(
            name,
            "bfs levels (bfs_with, Auto)",
            time(b, reps, || {
                lv = alg::bfs_with(&g, 0, false, alg::Direction::Auto)?.levels;
                Ok(())
            })?,
        );
        show(
            name,
            "  out-degree to dense (levels_fused)",
            time(b, reps, || {
                b.convert_vector(g.out_degree()?, VectorFormat::Dense)?;
                Ok(())
            })?,
        );
        let reached: Vec<(usize, i64)> = lv
            .iter()
            .enumerate()
            .filter(|e| *e.1 >= 0)
            .map(|(i, &l)| (i, l))
            .collect();
        println!("# {name}: bfs reached {}", reached.len());
        let level = b.convert_vector(
            &b.upload_vector(&Vector::from_entries(n, reached)?)?,
            VectorFormat::Dense,
        )?;
        let mut host = None;
        show(
            name,
            "  download_vector(level)",
            time(b, reps, || {
                host = Some(b.download_vector(&level)?);
                Ok(())
            })?,
        );
        let host = host.ok_or("no download")?;
        show(
            name,
            "  to_vec(-1)",
            time(b, reps, || {
                host.to_vec(-1);
                Ok(())
            })?,
        );
        show(
            name,
            "  download_vector(level).into_vec(-1)",
            time(b, reps, || {
                b.download_vector(&level)?.into_vec(-1);
                Ok(())
            })?,
        );
    }
    Ok(())
}
