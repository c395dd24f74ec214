//! Vector element-wise, apply, select, reduce and assign; bit packing;
//! operations the device does not run say so.

#![allow(unused_imports)]
use super::*;

fn vector_ops_for<T: Scalar>(gpu: &CudaBackend, rng: &mut StdRng)
where
    Plus: bitgraphblas::algebra::Monoid<T>,
    Min: bitgraphblas::algebra::Monoid<T>,
    Max: bitgraphblas::algebra::Monoid<T>,
    Times: bitgraphblas::algebra::Monoid<T>,
{
    let cpu = Cpu::new();
    let n = 1000 + rng.gen_range(0..100);
    for fu in [VectorFormat::Dense, VectorFormat::Sparse] {
        let u = vector::<T>(rng, n, 0.6, fu);
        let v = vector::<T>(rng, n, 0.5, VectorFormat::Dense);
        let w0 = vector::<T>(rng, n, 0.5, VectorFormat::Dense);
        let mv = vector::<T>(rng, n, 0.5, VectorFormat::Dense);
        let (gu, gv, gm) = (
            gpu.upload_vector(&u).unwrap(),
            gpu.upload_vector(&v).unwrap(),
            gpu.upload_vector(&mv).unwrap(),
        );
        let ctx = format!("{:?} u={fu:?}", T::TYPE);
        for kind in [
            EwiseKind::Add,
            EwiseKind::Mult,
            EwiseKind::Union {
                alpha: T::one(),
                beta: T::zero(),
            },
        ] {
            for replace in [false, true] {
                let flags = Flags {
                    replace,
                    ..Flags::default()
                };
                let mut cw = w0.clone();
                let mut gw = gpu.upload_vector(&w0).unwrap();
                cpu.ewise_vector(
                    &mut cw,
                    Some(mv.as_mask()),
                    Accum(Min),
                    kind,
                    Plus,
                    &u,
                    &v,
                    flags,
                )
                .unwrap();
                gpu.ewise_vector(
                    &mut gw,
                    Some(CudaBackend::mask(&gm)),
                    Accum(Min),
                    kind,
                    Plus,
                    &gu,
                    &gv,
                    flags,
                )
                .unwrap();
                same_vector(
                    &cw,
                    &gpu.download_vector(&gw).unwrap(),
                    &format!("{ctx} ewise {kind:?}"),
                );
                let mut cw = w0.clone();
                let mut gw = gpu.upload_vector(&w0).unwrap();
                cpu.ewise_vector(
                    &mut cw,
                    Some(mv.as_mask().complement()),
                    NoAccum,
                    kind,
                    Times,
                    &u,
                    &v,
                    flags,
                )
                .unwrap();
                gpu.ewise_vector(
                    &mut gw,
                    Some(CudaBackend::mask(&gm).complement()),
                    NoAccum,
                    kind,
                    Times,
                    &gu,
                    &gv,
                    flags,
                )
                .unwrap();
                same_vector(
                    &cw,
                    &gpu.download_vector(&gw).unwrap(),
                    &format!("{ctx} ewise times {kind:?}"),
                );
            }
        }
        // apply
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.apply_vector(
            &mut cw,
            None,
            NoAccum,
            BindSecond(Times, T::from_f64(3.0)),
            &u,
            Flags::default(),
        )
        .unwrap();
        gpu.apply_vector(
            &mut gw,
            None,
            NoAccum,
            BindSecond(Times, T::from_f64(3.0)),
            &gu,
            Flags::default(),
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} apply"),
        );
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.apply_vector(
            &mut cw,
            Some(mv.as_mask().structure()),
            Accum(Plus),
            Abs,
            &u,
            Flags::default(),
        )
        .unwrap();
        gpu.apply_vector(
            &mut gw,
            Some(CudaBackend::mask(&gm).structure()),
            Accum(Plus),
            Abs,
            &gu,
            Flags::default(),
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} apply abs"),
        );
        // select
        for p in [
            IndexOp::ValueGt(T::from_f64(10.0)),
            IndexOp::RowLe(500),
            IndexOp::ValueEq(T::from_f64(3.0)),
        ] {
            let mut cw = w0.clone();
            let mut gw = gpu.upload_vector(&w0).unwrap();
            cpu.select_vector(
                &mut cw,
                Some(mv.as_mask()),
                NoAccum,
                p,
                &u,
                Flags {
                    replace: true,
                    ..Flags::default()
                },
            )
            .unwrap();
            gpu.select_vector(
                &mut gw,
                Some(CudaBackend::mask(&gm)),
                NoAccum,
                p,
                &gu,
                Flags {
                    replace: true,
                    ..Flags::default()
                },
            )
            .unwrap();
            same_vector(
                &cw,
                &gpu.download_vector(&gw).unwrap(),
                &format!("{ctx} select {p:?}"),
            );
        }
        // reduce
        assert!(
            close(
                cpu.reduce_vector(Plus, &u).unwrap(),
                gpu.reduce_vector(Plus, &gu).unwrap()
            ),
            "{ctx} reduce plus"
        );
        assert!(
            close(
                cpu.reduce_vector(Min, &u).unwrap(),
                gpu.reduce_vector(Min, &gu).unwrap()
            ),
            "{ctx} reduce min"
        );
        assert!(
            close(
                cpu.reduce_vector(Max, &u).unwrap(),
                gpu.reduce_vector(Max, &gu).unwrap()
            ),
            "{ctx} reduce max"
        );
        assert_eq!(
            cpu.vector_nvals(&u).unwrap(),
            gpu.vector_nvals(&gu).unwrap()
        );
        // extract / assign
        let idx: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.3)).collect();
        let mut cw = Vector::<T>::empty(idx.len());
        let mut gw = gpu.upload_vector(&cw).unwrap();
        cpu.extract_vector(&mut cw, None, NoAccum, &u, &idx, Flags::default())
            .unwrap();
        gpu.extract_vector(&mut gw, None, NoAccum, &gu, &idx, Flags::default())
            .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} extract"),
        );
        let part = vector::<T>(rng, idx.len(), 0.7, VectorFormat::Dense);
        let gpart = gpu.upload_vector(&part).unwrap();
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.assign_vector(
            &mut cw,
            Some(mv.as_mask()),
            Accum(Plus),
            &part,
            &idx,
            Flags::default(),
        )
        .unwrap();
        gpu.assign_vector(
            &mut gw,
            Some(CudaBackend::mask(&gm)),
            Accum(Plus),
            &gpart,
            &idx,
            Flags::default(),
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} assign"),
        );
        let mut cw = w0.clone();
        let mut gw = gpu.upload_vector(&w0).unwrap();
        cpu.assign_vector_scalar(
            &mut cw,
            Some(mv.as_mask().complement()),
            NoAccum,
            T::from_f64(5.0),
            None,
            Flags {
                replace: true,
                ..Flags::default()
            },
        )
        .unwrap();
        gpu.assign_vector_scalar(
            &mut gw,
            Some(CudaBackend::mask(&gm).complement()),
            NoAccum,
            T::from_f64(5.0),
            None,
            Flags {
                replace: true,
                ..Flags::default()
            },
        )
        .unwrap();
        same_vector(
            &cw,
            &gpu.download_vector(&gw).unwrap(),
            &format!("{ctx} assign scalar"),
        );
        // formats round trip on the device
        for f in [VectorFormat::Dense, VectorFormat::Sparse] {
            let g2 = gpu.convert_vector(&gu, f).unwrap();
            same_vector(
                &u,
                &gpu.download_vector(&g2).unwrap(),
                &format!("{ctx} convert {f:?}"),
            );
        }
        let _ = Identity;
    }
}

#[test]
fn vector_ewise_apply_select_reduce_assign() {
    let Some(gpu) = cuda_or_skip("vector_ewise_apply_select_reduce_assign") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    vector_ops_for::<f32>(gpu, &mut rng);
    vector_ops_for::<i32>(gpu, &mut rng);
    vector_ops_for::<u64>(gpu, &mut rng);
    vector_ops_for::<f64>(gpu, &mut rng);
}

#[test]
fn bits_pack_unpack_and_reduce_rows() {
    let Some(gpu) = cuda_or_skip("bits_pack_unpack_and_reduce_rows") else {
        return;
    };
    let cpu = Cpu::new();
    let mut rng = StdRng::seed_from_u64(seed());
    for n in [1usize, 63, 64, 65, 1000, 4097] {
        // bool and f32 vectors of ones into bits and back
        let b = vector::<f32>(&mut rng, n, 0.4, VectorFormat::Bits);
        let d = b.to_format(VectorFormat::Dense).unwrap();
        let gd = gpu.upload_vector(&d).unwrap();
        let gb = gpu.convert_vector(&gd, VectorFormat::Bits).unwrap();
        same_vector(&b, &gpu.download_vector(&gb).unwrap(), "dense->bits");
        let back = gpu.convert_vector(&gb, VectorFormat::Dense).unwrap();
        same_vector(&d, &gpu.download_vector(&back).unwrap(), "bits->dense");
        let sp = gpu.convert_vector(&gb, VectorFormat::Sparse).unwrap();
        same_vector(&d, &gpu.download_vector(&sp).unwrap(), "bits->sparse");
        assert_eq!(gpu.vector_nvals(&gb).unwrap(), b.nvals());
        let nb = vector::<bool>(&mut rng, n, 0.5, VectorFormat::Dense);
        let gnb = gpu.upload_vector(&nb).unwrap();
        // a false entry cannot be packed into bits (present bits mean one)
        let has_false = nb.entries().iter().any(|e| !e.1);
        assert_eq!(
            gpu.convert_vector(&gnb, VectorFormat::Bits).is_err(),
            has_false
        );
        for fill in [None, Some(1.0f32)] {
            for f in [
                VectorFormat::Dense,
                VectorFormat::Bits,
                VectorFormat::Sparse,
            ] {
                let g = gpu.vector_new(n, fill, f).unwrap();
                let c = cpu.vector_new(n, fill, f).unwrap();
                same_vector(&c, &gpu.download_vector(&g).unwrap(), "vector_new");
            }
        }
    }
    for &(n, m) in &[(77usize, 50usize), (600, 900)] {
        let e = pattern(&mut rng, n, m, 0.05, true);
        for t in TILES {
            let a = matrix(n, m, &e, 2i64).to_format(Format::B2sr(t)).unwrap();
            let ga = gpu.upload_matrix(&a).unwrap();
            let w0 = vector::<i64>(&mut rng, n, 0.5, VectorFormat::Dense);
            let mut cw = w0.clone();
            let mut gw = gpu.upload_vector(&w0).unwrap();
            cpu.reduce_rows(&mut cw, None, NoAccum, Plus, &a, Flags::default())
                .unwrap();
            gpu.reduce_rows(&mut gw, None, NoAccum, Plus, &ga, Flags::default())
                .unwrap();
            same_vector(&cw, &gpu.download_vector(&gw).unwrap(), "reduce_rows b2sr");
            assert_eq!(
                cpu.reduce_matrix(Plus, &a).unwrap(),
                gpu.reduce_matrix(Plus, &ga).unwrap()
            );
        }
        let c = Matrix::from_triplets(
            n,
            m,
            e.iter()
                .map(|&(i, j)| (i, j, rand_val::<f32>(&mut rng)))
                .collect(),
        )
        .unwrap();
        let gc = gpu.upload_matrix(&c).unwrap();
        let mut cw = Vector::<f32>::empty(n);
        let mut gw = gpu.upload_vector(&cw).unwrap();
        cpu.reduce_rows(&mut cw, None, NoAccum, Max, &c, Flags::default())
            .unwrap();
        gpu.reduce_rows(&mut gw, None, NoAccum, Max, &gc, Flags::default())
            .unwrap();
        same_vector(&cw, &gpu.download_vector(&gw).unwrap(), "reduce_rows csr");
        assert!(close(
            cpu.reduce_matrix(Plus, &c).unwrap(),
            gpu.reduce_matrix(Plus, &gc).unwrap()
        ));
    }
}

#[test]
fn unsupported_operations_say_so() {
    let Some(gpu) = cuda_or_skip("unsupported_operations_say_so") else {
        return;
    };
    let a = Matrix::from_triplets(3, 3, vec![(0, 1, 1.0f32), (1, 2, 1.0)]).unwrap();
    let ga = gpu.upload_matrix(&a).unwrap();
    let u = gpu
        .upload_vector(&Vector::from_dense(vec![1.0f32; 3]))
        .unwrap();
    let mut w = gpu.upload_vector(&Vector::<f32>::empty(3)).unwrap();
    // A user operator without CUDA source: no kernel, and w unchanged.
    let times = bitgraphblas::algebra::BinaryFn::<f32>::new(|x, y| x * y);
    let user = bitgraphblas::algebra::SemiringFrom::<f32, _, _>::new(Plus, times);
    let e = gpu
        .mxv(&mut w, None, NoAccum, user, &ga, &u, Flags::default())
        .unwrap_err();
    assert!(matches!(e, bitgraphblas::Error::NoKernel { .. }), "{e}");
    assert_eq!(gpu.download_vector(&w).unwrap().nvals(), 0);
    // Built-in operators in a user semiring bring their own device code.
    let pairing = bitgraphblas::algebra::SemiringFrom::<f32, _, _>::new(Plus, Times);
    gpu.mxv(&mut w, None, NoAccum, pairing, &ga, &u, Flags::default())
        .unwrap();
    assert_eq!(
        gpu.download_vector(&w).unwrap().entries(),
        vec![(0, 1.0), (1, 1.0)]
    );
    // Auto is chosen on the device (tiles counted there): the same matrix
    // in the format this backend's cost model picks
    let auto = gpu.convert(&ga, Format::Auto).unwrap();
    assert_eq!(gpu.download_matrix(&auto).unwrap().as_csr(), a.as_csr());
}
