//! Criterion benchmarks of B2SR `mxv` against sprs's CSR f32 SpMV, for
//! statistics and regression tracking (`cargo bench --bench mxv_criterion`).
//! The ratio table against sprs and SuiteSparse:GraphBLAS is `benches/mxv.rs`.
//!
//! Graphs: the bundled delaunay_n14 mesh, USA-road-d.NY when `../shared/data`
//! is present, a generated 1024x1024 grid and Graph500 R-MAT scale 16.

use bitgraphblas::algebra::{LorLand, MinPlus, PlusTimes};
use bitgraphblas::storage::BitVec;
use bitgraphblas::{generate, io, ops, Cpu, Desc, Format, Matrix, TileSize, Vector};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn graphs() -> Vec<(&'static str, Matrix<f32>)> {
    let mut g = vec![(
        "delaunay_n14",
        io::read_matrix_market(io::data_path("delaunay_n14.mtx")).expect("bundled graph"),
    )];
    let road = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/large/USA-road-d.NY.mtx.gz");
    if let Ok(m) = io::read_matrix_market(&road) {
        g.push(("USA-road-d.NY", m));
    }
    g.push(("grid_1024", generate::grid_2d(1024)));
    g.push(("rmat_16", generate::rmat(16, 16, 1)));
    g
}

fn mxv(c: &mut Criterion) {
    let cpu = Cpu::new();
    for (name, a) in graphs() {
        let n = a.nrows();
        let mut group = c.benchmark_group(format!("mxv/{name}"));
        group.throughput(Throughput::Elements(a.nvals() as u64));
        group.sample_size(20);
        let sp = a.to_sprs();
        let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let mut y = vec![0f32; n];
        group.bench_function("sprs_csr_f32", |b| {
            b.iter(|| {
                y.iter_mut().for_each(|v| *v = 0.0);
                sprs::prod::mul_acc_mat_vec_csr(sp.view(), &x[..], &mut y[..]);
            })
        });
        let bits = Vector::from_bits(BitVec::from_indices(n, (0..n).filter(|i| i % 2 == 0)));
        let dense = Vector::from_dense(x.clone());
        let pattern: Matrix<bool> = Matrix::from_csr(a.as_csr().map(|_| true));
        for tile in [TileSize::T8, TileSize::T32, TileSize::Auto] {
            let ab = pattern.to_format(Format::B2sr(tile)).expect("packs");
            let af = a.to_format(Format::B2sr(tile)).expect("packs");
            let id = tile.to_string();
            group.bench_with_input(BenchmarkId::new("b2sr_lor_land_bits", &id), &ab, |b, ab| {
                let mut w = Vector::empty(n);
                b.iter(|| ops::mxv(&cpu, &mut w, LorLand, ab, &bits, &Desc::new()).expect("mxv"))
            });
            group.bench_with_input(
                BenchmarkId::new("b2sr_plus_times_f32", &id),
                &af,
                |b, af| {
                    let mut w = Vector::empty(n);
                    b.iter(|| {
                        ops::mxv(
                            &cpu,
                            &mut w,
                            PlusTimes::<f32>::new(),
                            af,
                            &dense,
                            &Desc::new(),
                        )
                        .expect("mxv")
                    })
                },
            );
            group.bench_with_input(BenchmarkId::new("b2sr_min_plus_f32", &id), &af, |b, af| {
                let mut w = Vector::empty(n);
                b.iter(|| {
                    ops::mxv(
                        &cpu,
                        &mut w,
                        MinPlus::<f32>::new(),
                        af,
                        &dense,
                        &Desc::new(),
                    )
                    .expect("mxv")
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, mxv);
criterion_main!(benches);
