//! Device packing, triangle counting (`bin_bin_sum`), B2SR x dense (GNN
//! aggregation) and the products on real graphs.

#![allow(unused_imports)]
use super::*;
use crate::mxv::mxv_case;

#[test]
fn device_packing_matches_host() {
    let Some(gpu) = cuda_or_skip("device_packing_matches_host") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    for &(n, m, p) in &[
        (1usize, 1usize, 1.0),
        (70, 45, 0.1),
        (2000, 1700, 0.003),
        (64, 64, 0.9),
    ] {
        let e = pattern(&mut rng, n, m, p, n > 2);
        let host = matrix(n, m, &e, 1.0f32);
        let gh = gpu.upload_matrix(&host).unwrap();
        for t in TILES {
            let want = host.to_format(Format::B2sr(t)).unwrap();
            let gb = gpu.convert(&gh, Format::B2sr(t)).unwrap();
            let got = gpu.download_matrix(&gb).unwrap();
            assert_eq!(got, want, "CSR->B2SR {n}x{m} k={t}");
            assert_eq!(gpu.matrix_nvals(&gb).unwrap(), e.len());
            // B2SR -> CSR on the device
            let back = gpu
                .download_matrix(&gpu.convert(&gb, Format::Csr).unwrap())
                .unwrap();
            assert_eq!(back, host, "B2SR->CSR {n}x{m} k={t}");
            // B2SR (host-packed, uploaded) -> another tile size on the device
            let other = if t == TileSize::T4 {
                TileSize::T32
            } else {
                TileSize::T4
            };
            let gx = gpu
                .convert(&gpu.upload_matrix(&want).unwrap(), Format::B2sr(other))
                .unwrap();
            assert_eq!(
                gpu.download_matrix(&gx).unwrap(),
                host.to_format(Format::B2sr(other)).unwrap()
            );
        }
    }
    // differing values cannot become B2SR
    let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f32), (1, 1, 2.0)]).unwrap();
    assert!(gpu
        .convert(&gpu.upload_matrix(&a).unwrap(), Format::B2sr(TileSize::T4))
        .is_err());
}

fn brute_triangles(n: usize, e: &[(usize, usize)]) -> u64 {
    let mut adj = vec![std::collections::BTreeSet::new(); n];
    for &(i, j) in e {
        adj[i].insert(j);
    }
    let mut c = 0u64;
    for &(i, j) in e {
        if j < i {
            c += adj[i]
                .iter()
                .filter(|&&k| k < j && adj[j].contains(&k))
                .count() as u64;
        }
    }
    c
}

fn symmetric(rng: &mut StdRng, n: usize, p: f64) -> Vec<(usize, usize)> {
    let mut s = std::collections::BTreeSet::new();
    for (i, j) in pattern(rng, n, n, p, true) {
        if i != j {
            s.insert((i, j));
            s.insert((j, i));
        }
    }
    s.into_iter().collect()
}

#[test]
fn triangle_count_bin_bin_sum() {
    let Some(gpu) = cuda_or_skip("triangle_count_bin_bin_sum") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for &(n, p) in &[(50usize, 0.2), (700, 0.02), (1200, 0.004)] {
        let e = symmetric(&mut rng, n, p);
        let want = brute_triangles(n, &e);
        let a = matrix(n, n, &e, 1u64);
        for t in TILES {
            let ga = gpu
                .convert(&gpu.upload_matrix(&a).unwrap(), Format::B2sr(t))
                .unwrap();
            // L = tril(A, -1) selected on the device
            let mut gl = gpu.upload_matrix(&Matrix::<u64>::empty(n, n)).unwrap();
            gpu.select_matrix(
                &mut gl,
                None,
                NoAccum,
                IndexOp::Tril(-1),
                &ga,
                Flags::default(),
            )
            .unwrap();
            let l = gpu.download_matrix(&gl).unwrap();
            let mut lc = Matrix::<u64>::empty(n, n);
            cpu.select_matrix(
                &mut lc,
                None,
                NoAccum,
                IndexOp::Tril(-1),
                &a.to_format(Format::B2sr(t)).unwrap(),
                Flags::default(),
            )
            .unwrap();
            assert_eq!(l.to_sprs(), lc.to_sprs(), "select tril k={t}");
            let flags = Flags {
                transpose_b: true,
                ..Flags::default()
            };
            let got = gpu
                .mxm_reduce(
                    CudaBackend::matrix_mask(&gl).structure(),
                    PlusPair::<u64>::new(),
                    &gl,
                    &gl,
                    flags,
                )
                .unwrap();
            let cpu_count = cpu
                .mxm_reduce(
                    l.as_mask().structure(),
                    PlusPair::<u64>::new(),
                    &l,
                    &l,
                    flags,
                )
                .unwrap();
            assert_eq!(got, want, "n={n} k={t}: gpu {got}, brute force {want}");
            assert_eq!(cpu_count, want, "cpu");
            let got32 = gpu
                .mxm_reduce(
                    CudaBackend::matrix_mask(&gl),
                    PlusPair::<u64>::new(),
                    &gl,
                    &gl,
                    flags,
                )
                .unwrap();
            assert_eq!(got32, want, "valued mask");
        }
    }
}

#[test]
fn mxm_dense_gnn_aggregation() {
    let Some(gpu) = cuda_or_skip("mxm_dense_gnn_aggregation") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for &(n, m, f) in &[(45usize, 38usize, 1usize), (300, 260, 33), (130, 140, 300)] {
        let e = pattern(&mut rng, n, m, 0.05, true);
        let host = matrix(n, m, &e, 0.5f32);
        let b = DenseMatrix::from_vec(
            m,
            f,
            (0..m * f).map(|_| rng.gen_range(-1.0f32..1.0)).collect(),
        )
        .unwrap();
        let gb = gpu.upload_dense(&b).unwrap();
        for t in TILES {
            let a = host.to_format(Format::B2sr(t)).unwrap();
            let ga = gpu.upload_matrix(&a).unwrap();
            let mut cc = DenseMatrix::filled(n, f, 7.0f32);
            let mut gc = gpu.upload_dense(&cc).unwrap();
            cpu.mxm_dense(
                &mut cc,
                NoAccum,
                PlusTimes::<f32>::new(),
                &a,
                &b,
                Flags::default(),
            )
            .unwrap();
            gpu.mxm_dense(
                &mut gc,
                NoAccum,
                PlusTimes::<f32>::new(),
                &ga,
                &gb,
                Flags::default(),
            )
            .unwrap();
            let got = gpu.download_dense(&gc).unwrap();
            for (x, y) in cc.as_slice().iter().zip(got.as_slice()) {
                assert!(close(*x, *y), "mxm_dense {n}x{m}x{f} k={t}: {x} vs {y}");
            }
            // with an accumulator, and MAX.TIMES
            let mut cc2 = DenseMatrix::filled(n, f, 0.25f32);
            let mut gc2 = gpu.upload_dense(&cc2).unwrap();
            cpu.mxm_dense(
                &mut cc2,
                Accum(Plus),
                MaxTimes::<f32>::new(),
                &a,
                &b,
                Flags::default(),
            )
            .unwrap();
            gpu.mxm_dense(
                &mut gc2,
                Accum(Plus),
                MaxTimes::<f32>::new(),
                &ga,
                &gb,
                Flags::default(),
            )
            .unwrap();
            let got2 = gpu.download_dense(&gc2).unwrap();
            for (x, y) in cc2.as_slice().iter().zip(got2.as_slice()) {
                assert!(close(*x, *y), "mxm_dense max_times accum k={t}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn real_graphs_bfs_step_spmv_and_triangles() {
    let Some(gpu) = cuda_or_skip("real_graphs_bfs_step_spmv_and_triangles") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for name in [
        "karate.mtx",
        "ash292.mtx",
        "delaunay_n14.mtx",
        "curtis54.mtx",
    ] {
        let path = bitgraphblas::io::data_path(name);
        let g = bitgraphblas::io::read_matrix_market::<f32>(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let g = g.to_pattern(Format::Csr, 1.0f32).unwrap();
        let n = g.nrows();
        let csr = g.as_csr();
        let edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| {
                csr.row(i)
                    .0
                    .iter()
                    .map(move |&j| (i, j as usize))
                    .collect::<Vec<_>>()
            })
            .collect();
        for t in TILES {
            let a = g.to_format(Format::B2sr(t)).unwrap();
            let ga = gpu
                .convert(&gpu.upload_matrix(&g).unwrap(), Format::B2sr(t))
                .unwrap();
            assert_eq!(gpu.download_matrix(&ga).unwrap(), a, "{name} packing k={t}");
            // SpMV
            let u = vector::<f32>(&mut rng, g.ncols(), 1.0, VectorFormat::Dense);
            let w0 = Vector::<f32>::empty(n);
            mxv_case(
                gpu,
                PlusTimes::<f32>::new(),
                NoAccum,
                &a,
                &ga,
                &u,
                &w0,
                &w0,
                0,
                Flags::default(),
                &format!("{name} spmv k={t}"),
            );
            // one BFS step: next<!visited> = A' frontier (bits)
            let ab = matrix(n, g.ncols(), &edges, true)
                .to_format(Format::B2sr(t))
                .unwrap();
            let gab = gpu.upload_matrix(&ab).unwrap();
            let frontier = vector::<bool>(&mut rng, n, 0.05, VectorFormat::Bits);
            let visited = vector::<bool>(&mut rng, n, 0.3, VectorFormat::Bits);
            let w0b = Vector::from_bits(bitgraphblas::storage::BitVec::zeros(n));
            mxv_case(
                gpu,
                LorLand,
                NoAccum,
                &ab,
                &gab,
                &frontier,
                &w0b,
                &visited,
                4,
                Flags {
                    replace: true,
                    transpose_a: true,
                    transpose_b: false,
                },
                &format!("{name} bfs k={t}"),
            );
            // triangles (symmetric graphs only)
            if name != "curtis54.mtx" {
                let gu = gpu
                    .convert(
                        &gpu.upload_matrix(&matrix(n, n, &edges, 1u64)).unwrap(),
                        Format::B2sr(t),
                    )
                    .unwrap();
                let mut gl = gpu.upload_matrix(&Matrix::<u64>::empty(n, n)).unwrap();
                gpu.select_matrix(
                    &mut gl,
                    None,
                    NoAccum,
                    IndexOp::Tril(-1),
                    &gu,
                    Flags::default(),
                )
                .unwrap();
                let flags = Flags {
                    transpose_b: true,
                    ..Flags::default()
                };
                let got = gpu
                    .mxm_reduce(
                        CudaBackend::matrix_mask(&gl).structure(),
                        PlusPair::<u64>::new(),
                        &gl,
                        &gl,
                        flags,
                    )
                    .unwrap();
                let l = gpu.download_matrix(&gl).unwrap();
                let want = cpu
                    .mxm_reduce(
                        l.as_mask().structure(),
                        PlusPair::<u64>::new(),
                        &l,
                        &l,
                        flags,
                    )
                    .unwrap();
                assert_eq!(got, want, "{name} triangles k={t}");
                if t == TileSize::T4 {
                    eprintln!("{name}: {got} triangles");
                }
            }
        }
    }
}
