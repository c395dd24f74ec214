//! The dense-matrix operations (`ops::dense_mxm`, `scale_dense_cols`,
//! `apply_dense`, `ewise_dense`, `argmax_rows`, `log_softmax_rows`) on the
//! CUDA backend against the CPU backend, on the same inputs: the shapes of
//! `tests/common/dense.rs` (around the kernels' 128/64-row, 16/64-column and
//! 16-deep tiles, 0 rows or columns, `k = 0`), a few large tall-skinny ones
//! (more blocks and warps than the grids hold), every built-in semiring family
//! of `dense_mxm`, user semirings with their operators as CUDA source, and
//! the user-defined operators the device refuses (`NoKernel`, output
//! unchanged).
//!
//! Every device output is filled with a sentinel before each launch, once
//! with the type's lowest value and once with its highest, so an entry the
//! kernel leaves unwritten differs from the CPU's in one of the two runs;
//! the device buffers are poisoned as well (`cuda_or_skip`).
//!
//! Integers, the non-arithmetic semirings, the element-wise maps and
//! `argmax` must match exactly; the float `PLUS_TIMES` products within the
//! rounding bound of any summation order, `log_softmax` to `f32` rounding.
//!
//! Without a GPU every test prints SKIPPED (and fails with
//! `BITGRAPHBLAS_REQUIRE_GPU=1`).
#![cfg(feature = "cuda")]

mod common;

use bitgraphblas::algebra::{
    BinaryFn, BinaryOp, BindSecond, DeviceOps, Max, MinPlus, Plus, PlusTimes, Semiring,
    SemiringFrom, Times, UnaryFn, UnaryOp,
};
use bitgraphblas::backend::cuda::{cuda_or_skip, CudaBackend, CudaDense};
use bitgraphblas::{ops, Backend, Cpu, DenseMatrix, Error, Scalar, Vector};
use common::dense::{
    check_bad_shapes, close_log_softmax, close_products, dense_map_cases, dense_mxm_cases,
    same_values, DenseOps, Logits,
};
use common::{qc, verdict, TestScalar};
use quickcheck::TestResult;

const TESTS: u64 = 40;

fn gpu(test: &str) -> Option<&'static CudaBackend> {
    cuda_or_skip(test)
}

/// The device inside a property (quickcheck takes `fn` pointers: the
/// device comes from `cuda_or_skip`'s process-wide backend, which the test
/// found before it started the property).
fn device() -> &'static CudaBackend {
    cuda_or_skip("cuda_dense_ops").expect("the test checked for a device")
}

fn ctx<T>(what: &str, r: bitgraphblas::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e}"))
}

/// The CPU's result of an operation, and the device's (one per sentinel).
type Runs<T> = (Vec<T>, Vec<Vec<T>>);

/// Runs an operation with an `rows x cols` output on the CPU and on the
/// device (into an output uploaded filled with `T::lowest()`, then again with
/// `T::highest()`): the CPU's result and the two device results.
fn both<T: Scalar>(
    g: &CudaBackend,
    what: &str,
    (rows, cols): (usize, usize),
    cpu: impl Fn(&mut DenseMatrix<T>) -> bitgraphblas::Result<()>,
    dev: impl Fn(&mut CudaDense<T>) -> bitgraphblas::Result<()>,
) -> Result<Runs<T>, String> {
    let mut c = DenseMatrix::filled(rows, cols, T::highest());
    ctx(&format!("{what} on the CPU"), cpu(&mut c))?;
    let mut got = Vec::new();
    for fill in [T::lowest(), T::highest()] {
        let mut d = ctx(
            "upload C",
            g.upload_dense(&DenseMatrix::filled(rows, cols, fill)),
        )?;
        ctx(&format!("{what} on the device"), dev(&mut d))?;
        got.push(ctx("download C", g.download_dense(&d))?.into_vec());
    }
    Ok((c.into_vec(), got))
}

/// [`both`], then every device result equal to the CPU's.
fn same_on_both<T: Scalar>(
    g: &CudaBackend,
    what: &str,
    shape: (usize, usize),
    cpu: impl Fn(&mut DenseMatrix<T>) -> bitgraphblas::Result<()>,
    dev: impl Fn(&mut CudaDense<T>) -> bitgraphblas::Result<()>,
) -> Result<(), String> {
    let (want, got) = both(g, what, shape, cpu, dev)?;
    got.iter()
        .try_for_each(|got| same_values(what, shape.1, &want, got))
}

/// `dense_mxm` with `s`: exact, or within the rounding bound where `close`.
fn prop_mxm<S: Semiring>(
    g: &CudaBackend,
    c: &DenseOps<S::T>,
    s: S,
    close: bool,
) -> Result<(), String> {
    let (a, b) = (c.a(), c.b());
    let (ga, gb) = (
        ctx("upload A", g.upload_dense(&a))?,
        ctx("upload B", g.upload_dense(&b))?,
    );
    let (want, got) = both(
        g,
        "dense_mxm",
        (c.m, c.n),
        |out| ops::dense_mxm(&Cpu::new(), out, s, &a, &b),
        |out| ops::dense_mxm(g, out, s, &ga, &gb),
    )?;
    let what = format!("dense_mxm {}", S::NAME);
    for got in got {
        if close {
            close_products(&what, c, &want, &got)?;
        } else {
            same_values(&what, c.n, &want, &got)?;
        }
    }
    Ok(())
}

/// `apply_dense` with `f`, `ewise_dense` and `scale_dense_cols` with `op`.
fn prop_maps<T: TestScalar, F: UnaryOp<T>, Op: BinaryOp<T>>(
    g: &CudaBackend,
    c: &DenseOps<T>,
    f: F,
    op: Op,
) -> Result<(), String> {
    let cpu = Cpu::new();
    let (a, e, d) = (c.a(), c.e(), c.d.vector());
    let (ga, ge) = (
        ctx("upload A", g.upload_dense(&a))?,
        ctx("upload E", g.upload_dense(&e))?,
    );
    let gd = ctx("upload d", g.upload_vector(&d))?;
    let shape = (c.m, c.k);
    same_on_both(
        g,
        &format!("apply_dense {}", F::NAME),
        shape,
        |o| ops::apply_dense(&cpu, o, f, &a),
        |o| ops::apply_dense(g, o, f, &ga),
    )?;
    same_on_both(
        g,
        &format!("ewise_dense {}", Op::NAME),
        shape,
        |o| ops::ewise_dense(&cpu, o, op, &a, &e),
        |o| ops::ewise_dense(g, o, op, &ga, &ge),
    )?;
    same_on_both(
        g,
        &format!("scale_dense_cols {} d {:?}", Op::NAME, c.d.format),
        shape,
        |o| ops::scale_dense_cols(&cpu, o, op, &a, &d),
        |o| ops::scale_dense_cols(g, o, op, &ga, &gd),
    )
}

/// `argmax_rows` and `log_softmax_rows` (both refuse `m x 0` with `m > 0`).
fn prop_rows(g: &CudaBackend, l: &Logits) -> Result<(), String> {
    let cpu = Cpu::new();
    let x = l.matrix();
    let gx = ctx("upload X", g.upload_dense(&x))?;
    let mut want = DenseMatrix::filled(l.m, 1, u32::MAX);
    let r = ops::argmax_rows(&cpu, &mut want, &x);
    for fill in [0, u32::MAX] {
        let mut out = ctx(
            "upload out",
            g.upload_dense(&DenseMatrix::filled(l.m, 1, fill)),
        )?;
        match (&r, ops::argmax_rows(g, &mut out, &gx)) {
            (Err(_), Err(Error::InvalidArgument { .. })) => {}
            (Ok(()), Ok(())) => {
                let got = ctx("download out", g.download_dense(&out))?;
                if let Some(i) = (0..l.m).find(|&i| got.get(i, 0) != want.get(i, 0)) {
                    return Err(format!(
                        "argmax_rows: row {i} {:?}: CPU {}, device {}",
                        &l.x[i * l.n..(i + 1) * l.n],
                        want.get(i, 0),
                        got.get(i, 0)
                    ));
                }
            }
            (cpu, dev) => return Err(format!("argmax_rows: CPU {cpu:?}, device {dev:?}")),
        }
    }
    let (want, got) = both(
        g,
        "log_softmax_rows",
        (l.m, l.n),
        |o| ops::log_softmax_rows(&cpu, o, &x),
        |o| ops::log_softmax_rows(g, o, &gx),
    )?;
    for got in got {
        close_log_softmax("log_softmax_rows", l.n, &want, &got)?;
    }
    Ok(())
}

/// One quickcheck test per case: `$prop(device, &case, args...)` on
/// `DenseOps<$t>` (SKIPPED without a device).
macro_rules! props {
    ($prop:ident: $($name:ident: $t:ty, $($arg:expr),+;)*) => {$(
        #[test]
        fn $name() {
            if gpu(stringify!($name)).is_none() {
                return;
            }
            fn p(c: DenseOps<$t>) -> TestResult {
                verdict($prop(device(), &c, $($arg),+))
            }
            qc(TESTS).quickcheck(p as fn(DenseOps<$t>) -> TestResult);
        }
    )*};
}

dense_mxm_cases!(props! prop_mxm);
dense_map_cases!(props! prop_maps);

/// `MAX.(2x - y)` on `u64` (wrapping), a user operator with its CUDA source.
fn user_max_twice_minus() -> impl Semiring<T = u64> {
    SemiringFrom::<u64, _, _>::new(
        Max,
        BinaryFn::<u64>::new(|x, y| x.wrapping_mul(2).wrapping_sub(y)),
    )
    .with_device_ops(DeviceOps::new("x > y ? x : y", "2 * x - y", "0"))
}

// User semirings on the device (the same kernels, compiled from their
// operators' source without FMA contraction): exact against the CPU's generic
// loop, which sums in the same order.
props! { prop_mxm:
    dense_mxm_f32_user_plus_times: f32, SemiringFrom::<f32, _, _>::new(Plus, Times), false;
    dense_mxm_u64_user_max_twice_minus: u64, user_max_twice_minus(), false;
}

#[test]
fn argmax_and_log_softmax_rows_match_cpu() {
    if gpu("argmax_and_log_softmax_rows_match_cpu").is_none() {
        return;
    }
    fn p(l: Logits) -> TestResult {
        verdict(prop_rows(device(), &l))
    }
    qc(100).quickcheck(p as fn(Logits) -> TestResult);
}

// ---- large shapes: more blocks and warps than one grid holds ---------------------------

/// Tall-skinny products of GNN layers: 200k x 129 times 129 x 7 (the narrow
/// kernel, grid-stride over 1563 row blocks), 40k x 17 times 17 x 65 (the
/// wide one, two column blocks), 5003 x 1000 times 1000 x 256.
#[test]
fn dense_mxm_large_tall_skinny() {
    let Some(g) = gpu("dense_mxm_large_tall_skinny") else {
        return;
    };
    for (m, k, n) in [(200_003, 129, 7), (40_000, 17, 65), (5003, 1000, 256)] {
        let c = DenseOps::quarters(m, k, n);
        prop_mxm(g, &c, PlusTimes::<f32>::new(), false)
            .unwrap_or_else(|e| panic!("{m}x{k}x{n}: {e}"));
    }
    let c = DenseOps::quarters(20_011, 100, 33);
    prop_mxm(g, &c, MinPlus::<f32>::new(), false).unwrap();
}

/// `argmax_rows` and `log_softmax_rows` over 300k rows (a warp each, more
/// warps than the grid) of 7 and of 100 columns.
#[test]
fn rows_large() {
    let Some(g) = gpu("rows_large") else { return };
    for (m, n) in [(300_007, 7), (20_000, 100)] {
        let x: Vec<f32> = (0..m * n)
            .map(|i| match i % 97 {
                0 => f32::NAN,
                1 => 1e30,
                _ => common::dense::quarter(i),
            })
            .collect();
        prop_rows(g, &Logits { m, n, x }).unwrap_or_else(|e| panic!("{m}x{n}: {e}"));
    }
}

// ---- what the device refuses ------------------------------------------------------------

/// User-defined operators, and user semirings without their operators as
/// CUDA source, are `NoKernel` on the device, naming the operation; the output
/// is unchanged.
#[test]
fn user_operators_have_no_kernel() {
    let Some(g) = gpu("user_operators_have_no_kernel") else {
        return;
    };
    let a = g.upload_dense(&DenseMatrix::filled(3, 3, 1.0f32)).unwrap();
    let d = g
        .upload_vector(&Vector::from_dense(vec![1.0f32; 3]))
        .unwrap();
    let mut c = g.upload_dense(&DenseMatrix::filled(3, 3, 5.0f32)).unwrap();
    let no_kernel = |r: bitgraphblas::Result<()>, op: &str| match r {
        Err(Error::NoKernel { op: o, .. }) => assert_eq!(o, op),
        other => panic!("{op}: expected NoKernel, got {other:?}"),
    };
    let hypot = BinaryFn::<f32>::new(|x, y| (x * x + y * y).sqrt());
    let user_sr = SemiringFrom::<f32, _, _>::new(Plus, hypot);
    no_kernel(ops::dense_mxm(g, &mut c, user_sr, &a, &a), "dense_mxm");
    no_kernel(
        ops::apply_dense(g, &mut c, UnaryFn::<f32>(|x| x + 1.0), &a),
        "apply_dense",
    );
    no_kernel(ops::ewise_dense(g, &mut c, hypot, &a, &a), "ewise_dense");
    no_kernel(
        ops::scale_dense_cols(g, &mut c, hypot, &a, &d),
        "scale_dense_cols",
    );
    assert_eq!(g.download_dense(&c).unwrap().as_slice(), &[5.0; 9]);
}

/// Every wrong shape is an `Err` naming the operation, the device output
/// unchanged.
#[test]
fn wrong_shapes_on_the_device_are_errors_and_change_nothing() {
    let Some(g) = gpu("wrong_shapes_on_the_device_are_errors_and_change_nothing") else {
        return;
    };
    check_bad_shapes(g);
}

/// ReLU (`BindSecond(Max, 0)`) on the device, NaN and signed zeros included.
#[test]
fn relu_on_the_device() {
    let Some(g) = gpu("relu_on_the_device") else {
        return;
    };
    let x =
        DenseMatrix::from_vec(1, 6, vec![-2.0f32, -0.0, 0.0, 3.5, f32::NAN, -f32::MAX]).unwrap();
    let gx = g.upload_dense(&x).unwrap();
    let mut y = g
        .upload_dense(&DenseMatrix::filled(1, 6, f32::NAN))
        .unwrap();
    ops::apply_dense(g, &mut y, BindSecond(Max, 0.0f32), &gx).unwrap();
    assert_eq!(
        g.download_dense(&y).unwrap().as_slice(),
        &[0.0, 0.0, 0.0, 3.5, 0.0, 0.0]
    );
}
