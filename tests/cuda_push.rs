//! The push products of the CUDA backend (`vxm`, and `mxv` with `A`
//! transposed: cuda/push.cu) against the CPU backend on the same random
//! inputs: sizes off the tile grid, empty rows, CSR rows long enough to be
//! shared by a block (more of them than a block has room for), B2SR tile rows
//! long enough to be cut into segments; inputs as packed bits, dense with
//! presence, full dense and sparse; no mask, the complemented structural
//! mask with replace (read in place), a structural mask with an accumulator
//! (the write-back path). Integer and boolean results must match exactly;
//! the `f64` inputs are small integers, so sums are exact in any order.
//!
//! Without a GPU each test prints a SKIPPED line (`BITGRAPHBLAS_REQUIRE_GPU=1`
//! fails instead). The seed is printed and can be fixed with `BITGRAPHBLAS_SEED`.
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{LorLand, MinFirst, MinSecond, Plus, PlusTimes, Semiring};
use bitgraphblas::backend::cuda::cuda_or_skip;
use bitgraphblas::backend::VectorShape;
use bitgraphblas::{
    ops, Backend, Cpu, Desc, Format, Matrix, Result, Scalar, TileSize, Vector, VectorFormat,
};
use common::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const FORMATS: [Format; 5] = [
    Format::Csr,
    Format::B2sr(TileSize::T4),
    Format::B2sr(TileSize::T8),
    Format::B2sr(TileSize::T16),
    Format::B2sr(TileSize::T32),
];

/// Random pattern of density `p` with every 13th row empty and rows
/// `0..hubs` full (hub rows).
fn pattern(rng: &mut StdRng, n: usize, m: usize, p: f64, hubs: usize) -> Vec<(usize, usize)> {
    let mut e = vec![];
    for i in 0..n {
        for j in 0..m {
            if i < hubs || (i % 13 != 7 && rng.gen_bool(p)) {
                e.push((i, j));
            }
        }
    }
    e
}

/// A small nonzero value of any type (true for bool).
fn small<T: Scalar>(rng: &mut StdRng) -> T {
    T::from_f64(rng.gen_range(1..5) as f64)
}

/// An input vector of length n: density `p`, or full when `p >= 1`.
fn input<T: Scalar>(rng: &mut StdRng, n: usize, p: f64) -> Vector<T> {
    if p >= 1.0 {
        return Vector::from_dense((0..n).map(|_| small(rng)).collect());
    }
    let mut e = vec![];
    for i in 0..n {
        if rng.gen_bool(p) {
            e.push((i, small(rng)));
        }
    }
    Vector::from_entries(n, e).unwrap()
}

/// `w` after one push product on backend `b`. Cases: 0 no mask; 1 the
/// complement of `m`'s structure with replace; 2 `m`'s structure with a
/// `Plus` accumulator; 3 `mxv` with `A` transposed and `m`'s structure, no replace.
#[allow(clippy::too_many_arguments)]
fn run<B, S>(
    b: &B,
    s: S,
    a: &Matrix<S::T>,
    format: Format,
    u: &Vector<S::T>,
    ufmt: VectorFormat,
    m: &Vector<bool>,
    w0: &Vector<S::T>,
    case: u8,
) -> Result<Vec<(usize, S::T)>>
where
    B: Backend,
    B::MaskSource: VectorShape,
    S: Semiring,
{
    let da = b.upload_matrix(a)?;
    let da = if format == Format::Csr {
        da
    } else {
        b.convert(&da, format)?
    };
    let du = b.convert_vector(&b.upload_vector(u)?, ufmt)?;
    let dm = b.upload_vector(m)?;
    let mut w = b.upload_vector(w0)?;
    match case {
        0 => ops::vxm(b, &mut w, s, &du, &da, &Desc::new())?,
        1 => ops::vxm(
            b,
            &mut w,
            s,
            &du,
            &da,
            &Desc::new()
                .mask(B::mask(&dm).structure().complement())
                .replace(),
        )?,
        2 => ops::vxm(
            b,
            &mut w,
            s,
            &du,
            &da,
            &Desc::new().mask(B::mask(&dm).structure()).accum(Plus),
        )?,
        _ => ops::mxv(
            b,
            &mut w,
            s,
            &da,
            &du,
            &Desc::new().mask(B::mask(&dm).structure()).transpose_a(),
        )?,
    }
    Ok(b.download_vector(&w)?.entries())
}

/// Every format, input format and mask case of one semiring on one shape.
#[allow(clippy::too_many_arguments)]
fn check<S>(rng: &mut StdRng, s: S, n: usize, m: usize, p: f64, hubs: usize, bits: bool) -> bool
where
    S: Semiring + Copy,
{
    let Some(gpu) = cuda_or_skip("cuda_push") else {
        return false;
    };
    let cpu = Cpu::new();
    let e = pattern(rng, n, m, p, hubs);
    let iso: S::T = small(rng);
    let valued =
        Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, small(rng))).collect()).unwrap();
    let iso_m = Matrix::from_triplets(n, m, e.iter().map(|&(i, j)| (i, j, iso)).collect()).unwrap();
    let mut ufmts = vec![VectorFormat::Dense, VectorFormat::Sparse];
    if bits {
        ufmts.push(VectorFormat::Bits);
    }
    for up in [0.02, 0.4, 1.0] {
        let u: Vector<S::T> = input(rng, n, up);
        let mask: Vector<bool> = input(rng, m, 0.5);
        let w0: Vector<S::T> = input(rng, m, 0.3);
        for format in FORMATS {
            // B2SR holds one value: the iso matrix; CSR the valued one.
            let a = if format == Format::Csr {
                &valued
            } else {
                &iso_m
            };
            for &ufmt in &ufmts {
                if ufmt == VectorFormat::Bits && up >= 1.0 {
                    continue;
                }
                for case in 0..4 {
                    let want = run(&cpu, s, a, format, &u, ufmt, &mask, &w0, case).unwrap();
                    let got = run(gpu, s, a, format, &u, ufmt, &mask, &w0, case).unwrap();
                    assert!(
                        want == got,
                        "{} {n}x{m} hubs {hubs} {format:?} u {ufmt:?} density {up} case {case}: \
                         CPU {} entries, CUDA {} entries, first difference {:?}",
                        S::NAME,
                        want.len(),
                        got.len(),
                        want.iter().zip(&got).find(|(x, y)| x != y)
                    );
                }
            }
        }
    }
    true
}

/// Shapes: tiny, off the tile grid, with a long hub row (B2SR segments), and
/// with more long CSR rows than a block's queue holds.
const SHAPES: [(usize, usize, f64, usize); 5] = [
    (1, 1, 0.5, 0),
    (37, 45, 0.1, 0),
    (100, 70, 0.05, 1),
    (1029, 1030, 0.003, 2),
    (2100, 1100, 0.001, 80),
];

#[test]
fn push_lor_land_bits() {
    let mut rng = StdRng::seed_from_u64(seed());
    for (n, m, p, hubs) in SHAPES {
        if !check(&mut rng, LorLand, n, m, p, hubs, true) {
            return;
        }
    }
}

/// `vxm` over `MIN.FIRST` is what the pushed BFS runs (the parents); over
/// `MIN.SECOND` it takes the matrix entries.
#[test]
fn push_min_first_min_second_u64() {
    let mut rng = StdRng::seed_from_u64(seed());
    for (n, m, p, hubs) in SHAPES {
        if !check(&mut rng, MinFirst::<u64>::new(), n, m, p, hubs, false)
            || !check(&mut rng, MinSecond::<u64>::new(), n, m, p, hubs, false)
        {
            return;
        }
    }
}

#[test]
fn push_plus_times_i64_f64() {
    let mut rng = StdRng::seed_from_u64(seed());
    for (n, m, p, hubs) in SHAPES {
        if !check(&mut rng, PlusTimes::<i64>::new(), n, m, p, hubs, false)
            || !check(&mut rng, PlusTimes::<f64>::new(), n, m, p, hubs, false)
        {
            return;
        }
    }
}

/// Regression (found by the SuiteSparse differential test): a float `MIN`
/// scatter started at the identity +inf, so an output whose only value was
/// NaN came out +inf (the CPU and SuiteSparse fold present values only: NaN).
/// Column 0 gets a lone NaN, column 1 NaN and 3 (MIN ignores the NaN: 3),
/// column 2 nothing; in f32 and f64, on CSR, as `vxm` and as `mxv` with `A`
/// transposed, and as a user semiring compiled from CUDA source.
#[test]
fn push_float_min_over_a_lone_nan_is_nan() {
    use bitgraphblas::algebra::{Min, Second, SemiringFrom};
    let Some(gpu) = cuda_or_skip("push_float_min_over_a_lone_nan_is_nan") else {
        return;
    };
    /// The entries of `w`, NaN compared as a value.
    fn entries<T: Scalar>(w: &Vector<T>) -> Vec<(usize, T)> {
        w.entries()
    }
    fn same<T: Scalar>(a: &[(usize, T)], b: &[(usize, T)]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.0 == y.0 && x.1.same_value(y.1))
    }
    macro_rules! case {
        ($t:ty) => {{
            let a = Matrix::from_triplets(
                3,
                3,
                vec![(0, 0, <$t>::NAN), (0, 1, <$t>::NAN), (1, 1, 3.0 as $t)],
            )
            .unwrap();
            let u = Vector::from_entries(3, vec![(0, 1.0 as $t), (1, 2.0 as $t)]).unwrap();
            let mut cw = Vector::<$t>::empty(3);
            ops::vxm(
                &Cpu::new(),
                &mut cw,
                MinSecond::<$t>::new(),
                &u,
                &a,
                &Desc::new(),
            )
            .unwrap();
            let cpu = entries(&cw);
            assert!(
                cpu.len() == 2 && cpu[0].1.is_nan() && cpu[1].1 == 3.0,
                "cpu: {cpu:?}"
            );
            let (ga, gu) = (
                gpu.upload_matrix(&a).unwrap(),
                gpu.upload_vector(&u).unwrap(),
            );
            let user = SemiringFrom::<$t, _, _>::new(Min, Second);
            for how in ["vxm", "mxv transposed", "vxm user"] {
                let mut w = gpu.vector_new::<$t>(3, None, VectorFormat::Sparse).unwrap();
                match how {
                    "vxm" => ops::vxm(gpu, &mut w, MinSecond::<$t>::new(), &gu, &ga, &Desc::new()),
                    "vxm user" => ops::vxm(gpu, &mut w, user, &gu, &ga, &Desc::new()),
                    _ => ops::mxv(
                        gpu,
                        &mut w,
                        MinFirst::<$t>::new(),
                        &ga,
                        &gu,
                        &Desc::new().transpose_a(),
                    ),
                }
                .unwrap();
                let got = entries(&gpu.download_vector(&w).unwrap());
                assert!(
                    same(&got, &cpu),
                    "{how} {}: gpu {got:?} cpu {cpu:?}",
                    stringify!($t)
                );
            }
        }};
    }
    case!(f32);
    case!(f64);
}
