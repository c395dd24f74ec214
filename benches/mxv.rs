//! B2SR `mxv` on the CPU against sprs's CSR f32 SpMV (and, when a times file
//! from `scripts/suitesparse_mxv.py` is given, SuiteSparse:GraphBLAS), printed
//! as a markdown table of medians.
//!
//! ```text
//! cargo bench --bench mxv                      # every graph
//! cargo bench --bench mxv -- --quick           # fewer repetitions
//! cargo bench --bench mxv -- --only grid       # graphs whose name contains "grid"
//! cargo bench --bench mxv -- --write-mtx DIR   # write the generated graphs for the script
//! cargo bench --bench mxv -- --suitesparse FILE  # add SuiteSparse ratio columns
//! cargo bench --bench mxv -- --formats b2sr-8  # formats whose label contains this
//! cargo bench --bench mxv -- --min             # minimum instead of median
//! cargo bench --bench mxv -- --reps 41         # repetitions (default 21, --quick 5)
//! cargo bench --bench mxv -- --no-mxm          # skip the triangle-count / A*H table
//! cargo bench --bench mxv -- --lor-only        # only the boolean product (others "-")
//! cargo bench --bench mxv -- --fit             # refit the Auto cost model (see fit_cost_model)
//! ```
//!
//! Times are medians of repeated runs on rayon's global pool (set
//! `RAYON_NUM_THREADS`); sprs's SpMV is single-threaded. Real graphs come from
//! `shared/data` (`BITGRAPHBLAS_DATA` or the usual search, see `io::data_path`).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

use bitgraphblas::algebra::{LorLand, MinPlus, PlusPair, PlusTimes};
use bitgraphblas::storage::b2sr::Profile;
use bitgraphblas::storage::{BitVec, DenseMatrix};
use bitgraphblas::{generate, io, ops, Cpu, Desc, Format, Matrix, TileSize, Vector};

static USE_MIN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

struct Opts {
    formats: Option<String>,
    reps: usize,
    only: Option<String>,
    write_mtx: Option<String>,
    lor_only: bool,
    suitesparse: HashMap<(String, String), f64>,
}

fn opts() -> Opts {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|p| args.get(p + 1).cloned())
    };
    let mut suitesparse = HashMap::new();
    if let Some(f) = value("--suitesparse") {
        // Lines `graph,op,ms` as the script prints them.
        for line in std::fs::read_to_string(&f)
            .expect("suitesparse times")
            .lines()
        {
            let p: Vec<&str> = line.split(',').collect();
            if let [g, op, ms] = p[..] {
                if let Ok(ms) = ms.trim().parse() {
                    suitesparse.insert((g.to_string(), op.to_string()), ms);
                }
            }
        }
    }
    USE_MIN.store(
        args.iter().any(|a| a == "--min"),
        std::sync::atomic::Ordering::Relaxed,
    );
    Opts {
        formats: value("--formats"),
        reps: match value("--reps") {
            Some(r) => r.parse().expect("--reps N"),
            None if args.iter().any(|a| a == "--quick") => 5,
            None => 21,
        },
        only: value("--only"),
        write_mtx: value("--write-mtx"),
        lor_only: args.iter().any(|a| a == "--lor-only"),
        suitesparse,
    }
}

/// Wall time of `f` in milliseconds: the median, or with `--min` the minimum
/// (robust on a machine shared with other work), after one untimed warm-up run.
fn median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    if USE_MIN.load(std::sync::atomic::Ordering::Relaxed) {
        t[0]
    } else {
        t[reps / 2]
    }
}

fn graphs(o: &Opts) -> Vec<(String, Matrix<f32>)> {
    let real = [
        ("delaunay_n14", "suitesparse/delaunay_n14.mtx"),
        ("USA-road-d.NY", "large/USA-road-d.NY.mtx.gz"),
        ("ego-Twitter", "large/ego-Twitter.mtx.gz"),
        ("cnr-2000", "large/cnr-2000.mtx.gz"),
    ];
    let mut out = Vec::new();
    let keep = |n: &str| o.only.as_ref().is_none_or(|s| n.contains(s.as_str()));
    for (name, rel) in real {
        if !keep(name) {
            continue;
        }
        // `shared/data` through io::data_path, else the shared folder beside the worktree.
        let mut path = io::data_path(rel);
        if !path.exists() {
            path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/data")
                .join(rel);
        }
        match io::read_matrix_market::<f32>(&path) {
            Ok(m) => out.push((name.to_string(), m.to_pattern(Format::Csr, 1.0).unwrap())),
            Err(e) => eprintln!("skipping {name}: {e}"),
        }
    }
    if keep("grid_1024") {
        out.push(("grid_1024".into(), generate::grid_2d::<f32>(1024)));
    }
    if keep("rmat_18") {
        out.push(("rmat_18".into(), generate::rmat::<f32>(18, 16, 1)));
    }
    out
}

fn random_bits(n: usize, seed: u64) -> BitVec {
    let mut r = generate::SplitMix64::new(seed);
    let words = (0..n.div_ceil(64)).map(|_| r.next_u64()).collect();
    BitVec::from_words(n, words).unwrap()
}

fn ratio(x: f64, y: Option<f64>) -> String {
    y.map_or("-".into(), |y| format!("{:.2}", y / x))
}

fn main() {
    let o = opts();
    if std::env::args().any(|a| a == "--fit") {
        fit_cost_model(&o);
        return;
    }
    let cpu = Cpu::new();
    let desc = Desc::new();
    println!(
        "threads: {}, reps: {} ({})\n",
        rayon::current_num_threads(),
        o.reps,
        if USE_MIN.load(std::sync::atomic::Ordering::Relaxed) {
            "minimum"
        } else {
            "median"
        }
    );
    println!("| graph | n | nnz | format | fill | pack ms | lor_land ms | plus_times ms | min_plus ms | sprs f32 ms | speedup lor_land vs sprs | vs SuiteSparse lor_land | plus_times vs sprs | vs SuiteSparse plus_times |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, a) in graphs(&o) {
        if let Some(dir) = &o.write_mtx {
            if name.starts_with("grid") || name.starts_with("rmat") {
                let p = format!("{dir}/{name}.mtx");
                io::write_matrix_market(&p, &a).expect("write");
                eprintln!("wrote {p}");
            }
            continue;
        }
        let n = a.nrows();
        let sp = a.to_sprs();
        let x: Vec<f32> = {
            let mut r = generate::SplitMix64::new(3);
            (0..n).map(|_| (r.next_u64() % 100) as f32 * 0.01).collect()
        };
        let mut y = vec![0f32; n];
        let sprs_ms = median_ms(o.reps, || {
            y.iter_mut().for_each(|v| *v = 0.0);
            sprs::prod::mul_acc_mat_vec_csr(sp.view(), &x[..], &mut y[..]);
            black_box(&y);
        });
        let ss = |op: &str| o.suitesparse.get(&(name.clone(), op.to_string())).copied();
        let bits = Vector::<bool>::from_bits(random_bits(n, 7));
        let xv = Vector::from_dense(x.clone());
        let profile = Profile::sample(&a.as_csr());
        let auto = profile.recommend().map_or(Format::Csr, Format::B2sr);
        eprintln!(
            "{name}: profile cost (bytes) per tile size: {}; csr bytes {}",
            profile
                .estimates
                .iter()
                .map(|e| format!("{}: {:.0} ({:.0})", e.tile, e.cost, e.bytes))
                .collect::<Vec<_>>()
                .join(", "),
            profile.csr_bytes
        );
        let formats: Vec<(String, Format)> = std::iter::once(("csr".into(), Format::Csr))
            .chain(
                TileSize::FIXED
                    .iter()
                    .map(|&t| (format!("b2sr-{t}"), Format::B2sr(t))),
            )
            .chain(std::iter::once((
                format!("auto ({})", fmt_name(auto)),
                auto,
            )))
            .collect();
        for (label, f) in formats {
            if o.formats
                .as_ref()
                .is_some_and(|s| !label.contains(s.as_str()))
            {
                continue;
            }
            let pack_ms = median_ms(o.reps.min(5), || {
                black_box(a.to_format(f).unwrap());
            });
            let af = a.to_format(f).unwrap();
            let ab = Matrix::from_csr(a.as_csr().map(|_| true))
                .to_format(f)
                .unwrap();
            let fill = match ab.repr() {
                bitgraphblas::container::MatrixRepr::B2sr { pattern, .. } => {
                    format!("{:.3}", pattern.fill())
                }
                _ => "-".into(),
            };
            let mut wb = Vector::<bool>::empty(n);
            let lor = median_ms(o.reps, || {
                ops::mxv(&cpu, &mut wb, LorLand, &ab, &bits, &desc).unwrap();
                black_box(&wb);
            });
            let mut wf = Vector::<f32>::empty(n);
            if o.lor_only {
                println!(
                    "| {name} | {n} | {} | {label} | {fill} | {pack_ms:.2} | {lor:.3} | - | - | {sprs_ms:.3} | {} | {} | - | - |",
                    a.nvals(),
                    ratio(lor, Some(sprs_ms)),
                    ratio(lor, ss("lor_land")),
                );
                continue;
            }
            let pt = median_ms(o.reps, || {
                ops::mxv(&cpu, &mut wf, PlusTimes::<f32>::new(), &af, &xv, &desc).unwrap();
                black_box(&wf);
            });
            let mp = median_ms(o.reps, || {
                ops::mxv(&cpu, &mut wf, MinPlus::<f32>::new(), &af, &xv, &desc).unwrap();
                black_box(&wf);
            });
            println!(
                "| {name} | {n} | {} | {label} | {fill} | {pack_ms:.2} | {lor:.3} | {pt:.3} | {mp:.3} | {sprs_ms:.3} | {} | {} | {} | {} |",
                a.nvals(),
                ratio(lor, Some(sprs_ms)),
                ratio(lor, ss("lor_land")),
                ratio(pt, Some(sprs_ms)),
                ratio(pt, ss("plus_times")),
            );
        }
    }
    if o.write_mtx.is_none() && !std::env::args().any(|a| a == "--no-mxm") {
        mxm_section(&o);
    }
}

fn fmt_name(f: Format) -> String {
    match f {
        Format::B2sr(t) => format!("b2sr-{t}"),
        _ => "csr".into(),
    }
}

/// Triangle counting (`PLUS.PAIR`, mask `L`, `L * L'`) and GNN aggregation
/// (`A * H`, `H` dense with 64 columns) on the mesh, road and grid graphs.
fn mxm_section(o: &Opts) {
    let cpu = Cpu::new();
    println!("\n| graph | format | triangles | tc ms | A*H (64 cols) ms |");
    println!("|---|---|---|---|---|");
    for (name, a) in graphs(o) {
        if name.contains("Twitter") || name.contains("cnr") || name.contains("rmat") {
            continue;
        }
        let n = a.nrows();
        let lower = {
            let mut l = Matrix::<u64>::empty(n, n);
            let au = Matrix::from_csr(a.as_csr().map(|_| 1u64));
            ops::select_matrix(
                &cpu,
                &mut l,
                bitgraphblas::IndexOp::Tril(-1),
                &au,
                &Desc::new(),
            )
            .unwrap();
            l
        };
        let h = DenseMatrix::filled(n, 64, 0.5f32);
        for f in
            std::iter::once(Format::Csr).chain(TileSize::FIXED.iter().map(|&t| Format::B2sr(t)))
        {
            let l = lower.to_format(f).unwrap();
            let mut tri = 0u64;
            let d = Desc::new().mask(l.as_mask().structure()).transpose_b();
            let tc = median_ms(o.reps.min(7), || {
                tri = ops::mxm_reduce(&cpu, PlusPair::<u64>::new(), &l, &l, &d).unwrap();
            });
            let af = a.to_format(f).unwrap();
            let mut c = DenseMatrix::filled(n, 64, 0f32);
            let gnn = median_ms(o.reps.min(7), || {
                ops::mxm_dense(&cpu, &mut c, PlusTimes::<f32>::new(), &af, &h, &Desc::new())
                    .unwrap();
                black_box(&c);
            });
            println!("| {name} | {} | {tri} | {tc:.3} | {gnn:.3} |", fmt_name(f));
        }
    }
}

/// Data and least-squares fit for the `mxv` cost model of
/// `storage::b2sr::profile` (`tiles * tile_work(k) + tile_rows * TILE_ROW_WORK`,
/// `tile_work(k) = a + b * k * k`): the single-thread time of the boolean
/// product at every tile size 4..32 on every graph (on a 1-thread pool, so it
/// runs on one thread without hand-offs), then the fit of `a`, `b` and the
/// tile-row cost `c` minimising the relative error, over the products whose
/// tiles fit in 24 MiB (the model describes cache-resident products; beyond
/// that memory bandwidth rules and big tiles lose, which the byte rule of
/// `Profile::recommend` and the 32x32 cap cover).
fn fit_cost_model(o: &Opts) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let cpu = Cpu::new();
    let sizes = [TileSize::T4, TileSize::T8, TileSize::T16, TileSize::T32];
    // (graph, k, tiles, tile rows, us)
    let mut data: Vec<(String, usize, f64, f64, f64)> = Vec::new();
    println!("graph,k,tiles,tile_rows,tile_mib,us");
    for (name, a) in graphs(o) {
        let n = a.nrows();
        let bits = Vector::<bool>::from_bits(random_bits(n, 7));
        let ab = Matrix::from_csr(a.as_csr().map(|_| true));
        for t in sizes {
            let k = t.k().expect("fixed");
            let m = ab.to_format(Format::B2sr(t)).unwrap();
            let tiles = match m.repr() {
                bitgraphblas::container::MatrixRepr::B2sr { pattern, .. } => pattern.ntiles(),
                _ => unreachable!("packed"),
            } as f64;
            let mib = tiles * (4 + k * k / 8) as f64 / (1 << 20) as f64;
            let mut w = Vector::<bool>::empty(n);
            let us = pool.install(|| {
                median_ms(o.reps, || {
                    ops::mxv(&cpu, &mut w, LorLand, &m, &bits, &Desc::new()).unwrap();
                    black_box(&w);
                })
            }) * 1e3;
            let rows = n.div_ceil(k) as f64;
            println!("{name},{k},{tiles},{rows},{mib:.1},{us:.2}");
            if mib <= 24.0 {
                data.push((name.clone(), k, tiles, rows, us));
            }
        }
    }
    // Normal equations of min sum ((f . p) / us - 1)^2, f = (tiles, tiles k^2, rows).
    let feat = |k: usize, tiles: f64, rows: f64| [tiles, tiles * (k * k) as f64, rows];
    let (mut ata, mut atb) = ([[0f64; 3]; 3], [0f64; 3]);
    for &(_, k, tiles, rows, us) in &data {
        let f = feat(k, tiles, rows).map(|v| v / us);
        for i in 0..3 {
            atb[i] += f[i];
            for j in 0..3 {
                ata[i][j] += f[i] * f[j];
            }
        }
    }
    let p = solve3(ata, atb);
    println!(
        "\nfit over {} products: tile = {:.4} + {:.6} * k^2 ns, tile row = {:.3} ns \
         (x16: tile_work(k) = {:.1} + k*k/{:.1}, TILE_ROW_WORK = {:.0})",
        data.len(),
        p[0] * 1e3,
        p[1] * 1e3,
        p[2] * 1e3,
        p[0] * 16e3,
        1.0 / (p[1] * 16e3),
        p[2] * 16e3
    );
    // Per graph: (k, measured us, model us).
    type Points = Vec<(usize, f64, f64)>;
    let mut by: Vec<(String, Points)> = Vec::new();
    for (g, k, tiles, rows, us) in data {
        let pred: f64 = feat(k, tiles, rows)
            .iter()
            .zip(&p)
            .map(|(f, q)| f * q)
            .sum();
        match by.iter_mut().find(|e| e.0 == g) {
            Some(e) => e.1.push((k, us, pred)),
            None => by.push((g, vec![(k, us, pred)])),
        }
    }
    for (g, v) in by {
        let best = v.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
        let pick = v.iter().min_by(|a, b| a.2.total_cmp(&b.2)).unwrap().0;
        let cells: Vec<String> = v
            .iter()
            .map(|(k, us, pr)| format!("{k}: {us:.1}/{pr:.1}"))
            .collect();
        println!(
            "{g}: fastest {best}, model {pick} (k: measured/model us) {}",
            cells.join(", ")
        );
    }
}

/// `x` with `a x = b` (Gaussian elimination with partial pivoting).
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> [f64; 3] {
    for c in 0..3 {
        let p = (c..3)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, p);
        b.swap(c, p);
        let (pivot, bc) = (a[c], b[c]);
        for (row, br) in a.iter_mut().zip(b.iter_mut()).skip(c + 1) {
            let f = row[c] / pivot[c];
            for (x, p) in row.iter_mut().zip(pivot).skip(c) {
                *x -= f * p;
            }
            *br -= f * bc;
        }
    }
    let mut x = [0f64; 3];
    for r in (0..3).rev() {
        x[r] = (b[r] - (r + 1..3).map(|k| a[r][k] * x[k]).sum::<f64>()) / a[r][r];
    }
    x
}
