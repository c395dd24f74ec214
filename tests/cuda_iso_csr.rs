//! CSR matrices whose entries all hold one value, on the CUDA backend: the
//! device stores that value once (no values array) and the pattern of
//! matrices made from one another is shared (`ext::pattern_with`). Every
//! operation that reads such a matrix (the products, which read its columns
//! alone; the others, which get its values filled in) must give the CPU
//! backend's results, and the device must hold no values for it.
//!
//! Inputs: a random pattern with a hub row, empty rows and a full column,
//! the one value 0.5 (f64) and quarter-integer operands, so that every sum is
//! exact and the results can be compared bit for bit. Without a GPU each
//! test prints a SKIPPED line; with `BITGRAPHBLAS_REQUIRE_GPU=1` a missing
//! GPU fails instead.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{Ainv, IndexOp, Plus, PlusTimes};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend};
use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::container::{Flags, NoAccum};
use bitgraphblas::ext::{self, DeltaEdges, DenseScales};
use bitgraphblas::{
    ops, Backend, BackendExt, Cpu, DenseMatrix, Desc, Format, Matrix, Result, TileSize, Vector,
};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The one value of the iso matrices.
const ISO: f64 = 0.5;

/// A random `n x m` pattern: row 2 full (a hub), every 9th row empty,
/// column 1 full.
fn pattern(rng: &mut StdRng, n: usize, m: usize, p: f64) -> Vec<(usize, usize)> {
    let mut e = std::collections::BTreeSet::new();
    for i in (0..n).filter(|i| i % 9 != 4) {
        for j in 0..m {
            if i == 2 || j == 1 || rng.gen_bool(p) {
                e.insert((i, j));
            }
        }
    }
    e.into_iter().collect()
}

fn quarter(rng: &mut StdRng) -> f64 {
    rng.gen_range(-12..12) as f64 / 4.0
}

/// A host matrix's entries, row by row, as numbers.
fn entries(m: &Matrix<f64>) -> Vec<f64> {
    let c = m.as_csr();
    let mut out = vec![m.nrows() as f64, m.ncols() as f64];
    for i in 0..m.nrows() {
        let (cols, vals) = c.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            out.extend([i as f64, j as f64, v]);
        }
    }
    out
}

fn vector_entries(v: &Vector<f64>) -> Vec<f64> {
    v.entries()
        .into_iter()
        .flat_map(|(i, x)| [i as f64, x])
        .collect()
}

/// Every operation that reads the iso matrix `a` (and the pattern `p`
/// viewed as ones), each result as numbers, in a fixed order.
fn outcomes<B>(b: &B, a: &Matrix<f64>, p: &Matrix<bool>) -> Result<Vec<(&'static str, Vec<f64>)>>
where
    B: BackendExt,
    B::MaskSource: VectorShape,
    B::MatrixMaskSource: MatrixShape,
{
    let mut rng = StdRng::seed_from_u64(5);
    let (n, m) = (a.nrows(), a.ncols());
    let ga = b.upload_matrix(a)?;
    let mut out = vec![];
    let matrix = |x: &B::Matrix<f64>| -> Result<Vec<f64>> { Ok(entries(&b.download_matrix(x)?)) };
    let new_matrix = |r, c| b.upload_matrix(&Matrix::<f64>::empty(r, c));
    out.push(("download", matrix(&ga)?));

    let u = b.upload_vector(&Vector::from_dense(
        (0..m).map(|_| quarter(&mut rng)).collect(),
    ))?;
    let s = PlusTimes::<f64>::new();
    let mut w = b.upload_vector(&Vector::<f64>::empty(n))?;
    ops::mxv(b, &mut w, s, &ga, &u, &Desc::new())?;
    out.push(("mxv", vector_entries(&b.download_vector(&w)?)));
    let ut = b.upload_vector(&Vector::from_dense(
        (0..n).map(|_| quarter(&mut rng)).collect(),
    ))?;
    let mut wt = b.upload_vector(&Vector::<f64>::empty(m))?;
    ops::mxv(b, &mut wt, s, &ga, &ut, &Desc::new().transpose_a())?;
    out.push(("mxv transposed", vector_entries(&b.download_vector(&wt)?)));
    let sparse: Vec<(usize, f64)> = (0..n).step_by(7).map(|i| (i, quarter(&mut rng))).collect();
    let us = b.upload_vector(&Vector::from_entries(n, sparse)?)?;
    let mut ws = b.upload_vector(&Vector::<f64>::empty(m))?;
    ops::vxm(b, &mut ws, s, &us, &ga, &Desc::new())?;
    out.push(("vxm sparse", vector_entries(&b.download_vector(&ws)?)));

    for k in [1, 7, 16] {
        let y = DenseMatrix::from_vec(m, k, (0..m * k).map(|_| quarter(&mut rng)).collect())?;
        let y = b.upload_dense(&y)?;
        let mut c = b.dense_new(n, k, 0.0)?;
        ops::mxm_dense(b, &mut c, s, &ga, &y, &Desc::new())?;
        out.push(("mxm_dense", b.download_dense(&c)?.into_vec()));
        let l = b.upload_vector(&Vector::from_dense(
            (0..n).map(|_| quarter(&mut rng)).collect(),
        ))?;
        let r = b.upload_vector(&Vector::from_dense(
            (0..m).map(|_| quarter(&mut rng)).collect(),
        ))?;
        let bias = b.upload_vector(&Vector::from_dense(
            (0..k).map(|_| quarter(&mut rng)).collect(),
        ))?;
        let scales = DenseScales {
            left: Some(&l),
            right: Some(&r),
            col: None,
            bias: Some(&bias),
        };
        ext::mxm_dense_scaled(b, &mut c, s, &ga, &y, scales)?;
        out.push(("mxm_dense_scaled", b.download_dense(&c)?.into_vec()));
    }

    out.push(("reduce_matrix", vec![ops::reduce_matrix(b, Plus, &ga)?]));
    let mut rows = b.upload_vector(&Vector::<f64>::empty(n))?;
    ops::reduce_rows(b, &mut rows, Plus, &ga, &Desc::new())?;
    out.push(("reduce_rows", vector_entries(&b.download_vector(&rows)?)));
    let mut cols = b.upload_vector(&Vector::<f64>::empty(m))?;
    ops::reduce_rows(b, &mut cols, Plus, &ga, &Desc::new().transpose_a())?;
    out.push(("reduce_cols", vector_entries(&b.download_vector(&cols)?)));

    let mut c = new_matrix(n, m)?;
    ops::apply_matrix(b, &mut c, Ainv, &ga, &Desc::new())?;
    out.push(("apply", matrix(&c)?));
    let mut t = new_matrix(m, n)?;
    ops::transpose(b, &mut t, &ga, &Desc::new())?;
    out.push(("transpose", matrix(&t)?));
    let mut l = new_matrix(n, m)?;
    ops::select_matrix(b, &mut l, IndexOp::Tril(0), &ga, &Desc::new())?;
    out.push(("select", matrix(&l)?));
    let mut sum = new_matrix(n, m)?;
    ops::ewise_add_matrix(b, &mut sum, Plus, &ga, &l, &Desc::new())?;
    out.push(("ewise_add", matrix(&sum)?));

    // the selection of an iso matrix stays iso on the device; a product on it
    let (rsel, csel): (Vec<usize>, Vec<usize>) =
        ((0..n).rev().step_by(2).collect(), (0..m).collect());
    let mut x = new_matrix(rsel.len(), m)?;
    ops::extract_matrix(b, &mut x, &ga, &rsel, &csel, &Desc::new())?;
    out.push(("extract", matrix(&x)?));
    let mut wx = b.upload_vector(&Vector::<f64>::empty(rsel.len()))?;
    ops::mxv(b, &mut wx, s, &x, &u, &Desc::new())?;
    out.push(("mxv of extract", vector_entries(&b.download_vector(&wx)?)));

    let packed = b.convert(&ga, Format::B2sr(TileSize::T4))?;
    out.push(("to B2SR", matrix(&packed)?));
    out.push(("B2SR to CSR", matrix(&b.convert(&packed, Format::Csr)?)?));
    out.push(("CSR copy", matrix(&b.convert(&ga, Format::Csr)?)?));

    // the pattern read as ones, then products on it
    let gp = b.upload_matrix(p)?;
    let ones = ext::pattern_with(b, &gp, 1.0f64)?;
    out.push(("pattern_with", matrix(&ones)?));
    let mut wp = b.upload_vector(&Vector::<f64>::empty(n))?;
    ops::mxv(b, &mut wp, s, &ones, &u, &Desc::new())?;
    out.push((
        "mxv of pattern_with",
        vector_entries(&b.download_vector(&wp)?),
    ));
    let y = b.upload_dense(&DenseMatrix::from_vec(
        m,
        3,
        (0..3 * m).map(|i| i as f64).collect(),
    )?)?;
    let mut cp = b.dense_new(n, 3, 0.0)?;
    ops::mxm_dense(b, &mut cp, s, &ones, &y, &Desc::new())?;
    out.push((
        "mxm_dense of pattern_with",
        b.download_dense(&cp)?.into_vec(),
    ));
    let zeros = ext::pattern_with(b, &gp, 0.0f64)?;
    out.push(("pattern_with zero", matrix(&zeros)?));

    if n == m {
        // every weight ISO: all light at delta 1, all heavy at delta 0.25
        for delta in [1.0, 0.25] {
            let edges = DeltaEdges::new(b, a, delta)?;
            let sources = if n > 1 { vec![0, n / 2] } else { vec![0] };
            let d = ext::delta_stepping(b, &edges, &sources)?;
            out.push(("delta_stepping", b.download_vector(&d)?.to_vec(-1.0)));
        }
    }
    Ok(out)
}

fn check(gpu: &CudaBackend, n: usize, m: usize, p: f64, rng: &mut StdRng) {
    let e = pattern(rng, n, m, p);
    let a = Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, ISO)).collect()).unwrap();
    let pat = Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, true)).collect()).unwrap();
    assert_eq!(a.iso_value(), Some(ISO));
    let want = outcomes(&Cpu::new(), &a, &pat).unwrap();
    let got = outcomes(gpu, &a, &pat).unwrap();
    assert_eq!(want.len(), got.len());
    for ((what, w), (_, g)) in want.iter().zip(&got) {
        assert!(
            w.len() == g.len() && w.iter().zip(g).all(|(x, y)| x.to_bits() == y.to_bits()),
            "{n}x{m} p {p}: {what} differs\ncpu  {w:?}\ncuda {g:?}"
        );
    }
}

#[test]
fn iso_csr_operations_match_cpu() {
    let Some(gpu) = cuda_or_skip("iso_csr_operations_match_cpu") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    gpu.set_poison(true);
    for (n, m, p) in [
        (1, 1, 1.0),
        (37, 29, 0.1),
        (200, 200, 0.03),
        (700, 530, 0.01),
        (3000, 3000, 0.004),
    ] {
        check(gpu, n, m, p, &mut rng);
    }
}

/// Device bytes that `f` leaves allocated.
fn held(gpu: &CudaBackend, f: impl FnOnce()) -> u64 {
    gpu.synchronize().unwrap();
    let before = gpu.memory().0;
    f();
    gpu.synchronize().unwrap();
    gpu.memory().0.saturating_sub(before)
}

#[test]
fn iso_csr_stores_no_values_and_views_share_the_pattern() {
    let Some(gpu) = cuda_or_skip("iso_csr_stores_no_values_and_views_share_the_pattern") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(seed());
    let (n, e) = (4000, pattern(&mut rng, 4000, 4000, 0.005));
    let nnz = e.len() as u64;
    let pattern_bytes = 4 * (n as u64 + 1) + 4 * nnz;
    let a = Matrix::from_triplets(n, n, e.iter().map(|&(i, j)| (i, j, ISO)).collect()).unwrap();
    let p = Matrix::from_triplets(n, n, e.iter().map(|&(i, j)| (i, j, true)).collect()).unwrap();
    let mut kept = vec![];
    // an iso f64 matrix: the pattern alone (a values array would add 8 nnz)
    let bytes = held(gpu, || kept.push(gpu.upload_matrix(&a).unwrap()));
    assert!(
        bytes <= pattern_bytes + 64,
        "{bytes} bytes for a pattern of {pattern_bytes}"
    );
    assert_eq!(kept[0].bytes() as u64, pattern_bytes);
    assert_eq!(kept[0].iso_value(), Some(ISO));
    let (_, _, vals, _) = kept[0].csr_device_ptrs().unwrap();
    assert!(vals.is_none());
    // a bool pattern, then its f64 view: the view adds nothing
    let gp = gpu.upload_matrix(&p).unwrap();
    let bytes = held(gpu, || {
        kept.push(ext::pattern_with(gpu, &gp, 1.0f64).unwrap())
    });
    assert!(bytes <= 64, "the view allocated {bytes} bytes");
    // a copy shares the pattern too
    let bytes = held(gpu, || {
        kept.push(gpu.convert(&kept[0], Format::Csr).unwrap())
    });
    assert!(bytes <= 64, "the copy allocated {bytes} bytes");
    // the view's products equal those on the uploaded matrix of ones
    let ones = gpu
        .upload_matrix(
            &Matrix::from_triplets(n, n, e.iter().map(|&(i, j)| (i, j, 1.0)).collect()).unwrap(),
        )
        .unwrap();
    let u = gpu
        .upload_vector(&Vector::from_dense(
            (0..n).map(|i| (i % 13) as f64).collect(),
        ))
        .unwrap();
    let product = |m: &<CudaBackend as Backend>::Matrix<f64>| {
        let mut w = gpu
            .vector_new::<f64>(n, None, bitgraphblas::VectorFormat::Dense)
            .unwrap();
        gpu.mxv(
            &mut w,
            None,
            NoAccum,
            PlusTimes::<f64>::new(),
            m,
            &u,
            Flags::default(),
        )
        .unwrap();
        gpu.download_vector(&w).unwrap().entries()
    };
    assert_eq!(product(&kept[1]), product(&ones));
    // dropping the bool pattern keeps the view's arrays alive
    drop(gp);
    assert_eq!(product(&kept[1]), product(&ones));
}
