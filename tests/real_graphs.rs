//! The operations on real graphs against the oracle: CSR -> B2SR -> CSR round
//! trips and transposes at every tile size, mxv/vxm for every built-in
//! semiring and tile size (random masks and descriptors), and triangle counts
//! by `mxm_reduce` (PLUS.PAIR, mask L, L L') against a direct count.
//!
//! The bundled graphs in `data/` (karate, delaunay_n14) are always tested. The
//! shared collection `../shared/data` (SuiteSparse matrices and one large road
//! network) is tested where present; a clone without it prints a skip line.

mod common;

use std::path::{Path, PathBuf};

use bitgraphblas::algebra::{
    AnyPair, LorLand, MaxMin, MaxTimes, MinPlus, MinSecond, PlusPair, PlusTimes,
};
use bitgraphblas::io::{data_path, read_matrix_market};
use bitgraphblas::storage::B2sr;
use bitgraphblas::{ops, Cpu, Desc, IndexOp, Matrix, TileSize, VectorFormat};
use common::props::{prop_mxv, MxvCase};
use common::{DescCfg, MaskKind, SpMat, SpVec, TestScalar, TestSemiring, FORMATS};
use rand::{rngs::StdRng, Rng, SeedableRng};

fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        println!("SKIPPED {rel}: ../shared/data is not here");
        None
    }
}

fn pattern(m: &Matrix<bool>) -> SpMat<bool> {
    let c = m.as_csr();
    let entries = (0..c.nrows())
        .flat_map(|i| {
            c.row(i)
                .0
                .iter()
                .map(move |&j| (i, j as usize, true))
                .collect::<Vec<_>>()
        })
        .collect();
    SpMat {
        nrows: c.nrows(),
        ncols: c.ncols(),
        entries,
    }
}

fn draw<T: TestScalar>(rng: &mut StdRng) -> T {
    T::from_f64(rng.gen_range(-8i32..=8) as f64)
}

fn spvec<T: TestScalar>(rng: &mut StdRng, n: usize, p: f64) -> SpVec<T> {
    let format = [
        VectorFormat::Dense,
        VectorFormat::Bits,
        VectorFormat::Sparse,
    ][rng.gen_range(0..3)];
    let vals = (0..n)
        .map(|_| {
            rng.gen_bool(p).then(|| {
                if format == VectorFormat::Bits {
                    T::one()
                } else {
                    draw(rng)
                }
            })
        })
        .collect();
    SpVec { vals, format }
}

/// mxv and vxm with semiring `S` on `g`, every format, a few random descriptors.
fn mxv_on<S: TestSemiring>(name: &str, g: &SpMat<bool>, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let a = SpMat {
        nrows: g.nrows,
        ncols: g.ncols,
        entries: g
            .entries
            .iter()
            .map(|&(i, j, _)| (i, j, draw::<S::T>(&mut rng)))
            .collect(),
    };
    for (vxm, mask, accum, replace, p) in [
        (false, MaskKind::None, false, false, 0.5),
        (true, MaskKind::StructuralComplement, false, true, 0.01),
        (false, MaskKind::Valued, true, false, 1.0),
        (true, MaskKind::None, true, false, 0.2),
    ] {
        let cfg = DescCfg {
            mask,
            replace,
            accum,
            ta: false,
            tb: false,
        };
        let (ulen, wlen) = if vxm {
            (g.nrows, g.ncols)
        } else {
            (g.ncols, g.nrows)
        };
        let case = MxvCase {
            a: a.clone(),
            iso: draw(&mut rng),
            u: spvec(&mut rng, ulen, p),
            w: spvec(&mut rng, wlen, 0.3),
            mask: spvec(&mut rng, wlen, 0.5),
            cfg,
            vxm,
        };
        if let Err(e) = prop_mxv::<Cpu, S>(&Cpu::new(), &case) {
            panic!("{name}: {e}");
        }
    }
}

/// Triangles by a direct count: for each edge `i > j` of the lower triangle,
/// the common lower neighbours `k < j`.
fn triangles_direct(g: &SpMat<bool>) -> u64 {
    let mut lower: Vec<Vec<usize>> = vec![Vec::new(); g.nrows];
    for &(i, j, _) in &g.entries {
        if j < i {
            lower[i].push(j);
        }
    }
    let mut count = 0u64;
    for i in 0..g.nrows {
        for &j in &lower[i] {
            let (a, b) = (&lower[i], &lower[j]);
            let (mut p, mut q) = (0, 0);
            while p < a.len() && q < b.len() {
                match a[p].cmp(&b[q]) {
                    std::cmp::Ordering::Less => p += 1,
                    std::cmp::Ordering::Greater => q += 1,
                    std::cmp::Ordering::Equal => {
                        count += 1;
                        p += 1;
                        q += 1;
                    }
                }
            }
        }
    }
    count
}

fn check_graph(name: &str, path: &Path) {
    let cpu = Cpu::new();
    let a: Matrix<bool> = read_matrix_market(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    a.validate().unwrap();
    let g = pattern(&a);
    let csr = a.as_csr().into_owned();
    let t_csr = csr.transpose();
    for t in TileSize::FIXED {
        let b = B2sr::from_csr(&csr, t).unwrap();
        b.validate().unwrap();
        assert_eq!(b.to_csr(true).unwrap(), csr, "{name} {t}: round trip");
        assert_eq!(b.nnz(), csr.nnz());
        let bt = b.transpose();
        bt.validate().unwrap();
        assert_eq!(bt.to_csr(true).unwrap(), t_csr, "{name} {t}: transpose");
        // ops::transpose in this format, and with a transposed input (a copy).
        let m = Matrix::from_b2sr(b, true);
        let mut c = Matrix::empty(csr.ncols(), csr.nrows());
        ops::transpose(&cpu, &mut c, &m, &Desc::new()).unwrap();
        assert_eq!(c.as_csr().into_owned(), t_csr, "{name} {t}: ops::transpose");
    }
    // Every built-in semiring, every format.
    mxv_on::<LorLand>(name, &g, 1);
    mxv_on::<AnyPair<u32>>(name, &g, 2);
    mxv_on::<PlusTimes<f64>>(name, &g, 3);
    mxv_on::<PlusPair<u64>>(name, &g, 4);
    mxv_on::<MinPlus<f32>>(name, &g, 5);
    mxv_on::<MaxTimes<f64>>(name, &g, 6);
    mxv_on::<MinSecond<i32>>(name, &g, 7);
    mxv_on::<MaxMin<i64>>(name, &g, 8);
    // Triangle count: sum((L L') .* L), L strictly lower (square graphs only).
    if g.nrows == g.ncols {
        let expected = triangles_direct(&g);
        let one = g.entries.iter().map(|&(i, j, _)| (i, j, 1u64)).collect();
        let a64 = Matrix::from_triplets(g.nrows, g.ncols, one).unwrap();
        let mut l = Matrix::empty(g.nrows, g.ncols);
        ops::select_matrix(&cpu, &mut l, IndexOp::Tril(-1), &a64, &Desc::new()).unwrap();
        for f in FORMATS {
            let lf = l.to_format(f).unwrap();
            let d = Desc::new().mask(lf.as_mask().structure()).transpose_b();
            let got = ops::mxm_reduce(&cpu, PlusPair::<u64>::new(), &lf, &lf, &d).unwrap();
            assert_eq!(got, expected, "{name} {f:?}: triangles");
        }
        println!(
            "{name}: {} x {}, {} entries, {expected} triangles",
            g.nrows,
            g.ncols,
            g.entries.len()
        );
    }
}

#[test]
fn bundled_graphs() {
    for f in ["karate.mtx", "delaunay_n14.mtx"] {
        let p = data_path(f);
        assert!(p.exists(), "bundled graph {} missing", p.display());
        check_graph(f, &p);
    }
}

#[test]
fn shared_suitesparse_graphs() {
    for dir in ["suitesparse", "suitesparse/extra"] {
        let Some(d) = shared(dir) else { return };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "mtx"))
            .collect();
        files.sort();
        for p in files {
            check_graph(&p.file_name().unwrap().to_string_lossy(), &p);
        }
    }
}

#[test]
fn shared_large_road_graph() {
    if let Some(p) = shared("large/USA-road-d.NY.mtx.gz") {
        check_graph("USA-road-d.NY", &p);
    }
}
