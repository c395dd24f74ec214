//! The dense-matrix operations (`ops::dense_mxm`, `scale_dense_cols`,
//! `apply_dense`, `ewise_dense`, `argmax_rows`, `log_softmax_rows`) on the
//! CPU backend against plain references (a triple loop, entry-by-entry maps,
//! an f64 `log_softmax`), on awkward shapes (0 rows or columns, `k = 0`, odd
//! sizes around the CUDA kernels' tile edges; `tests/common/dense.rs`), and
//! every failure a caller can cause: a wrong shape is an `Err` naming the
//! operation, with the output unchanged.
//!
//! Integers and the non-arithmetic semirings must match exactly; the float
//! `PLUS_TIMES` products within the rounding bound of any summation order.

mod common;

use bitgraphblas::algebra::{
    AnyPair, BinaryOp, BindSecond, Max, MinPlus, Plus, PlusTimes, Semiring, SemiringFrom, Times,
    UnaryFn, UnaryOp,
};
use bitgraphblas::{ops, Cpu, DenseMatrix, Error, Scalar};
use common::dense::{
    check_bad_shapes, close_log_softmax, close_products, dense_map_cases, dense_mxm_cases,
    same_values, DenseOps, Logits,
};
use common::{qc, verdict, TestScalar};
use quickcheck::TestResult;

const TESTS: u64 = 60;

// ---- references ----------------------------------------------------------------------

/// `c_ij = ⊕_k a_ik ⊗ b_kj`, a triple loop in k order from the first term.
fn ref_mxm<S: Semiring>(s: S, c: &DenseOps<S::T>) -> Vec<S::T> {
    let (m, k, n) = (c.m, c.k, c.n);
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = None;
            for q in 0..k {
                let t = s.mul(c.a[i * k + q], c.b[q * n + j]);
                acc = Some(acc.map_or(t, |x| s.add(x, t)));
            }
            out.push(acc.unwrap_or_else(|| s.zero()));
        }
    }
    out
}

/// `argmax` as `torch.argmax` defines it: the first NaN if there is one,
/// else the first column holding the largest value.
fn ref_argmax(row: &[f32]) -> u32 {
    if let Some(j) = row.iter().position(|x| x.is_nan()) {
        return j as u32;
    }
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    row.iter().position(|&x| x == max).expect("a non-empty row") as u32
}

/// `log_softmax` of a row in f64 (rounded to f32 at the end).
fn ref_log_softmax(row: &[f32]) -> Vec<f32> {
    let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x as f64));
    let s: f64 = row.iter().map(|&x| (x as f64 - max).exp()).sum();
    row.iter()
        .map(|&x| ((x as f64 - max) - s.ln()) as f32)
        .collect()
}

// ---- properties -----------------------------------------------------------------------

fn ctx<T>(what: &str, r: bitgraphblas::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e}"))
}

/// A poisoned `rows x cols` output (its old values must all be overwritten).
fn poisoned<T: Scalar>(rows: usize, cols: usize) -> DenseMatrix<T> {
    DenseMatrix::filled(rows, cols, T::highest())
}

/// Runs `run` into a poisoned output of `shape`, expects `expected` exactly.
fn into_poisoned<T: Scalar>(
    what: &str,
    shape: (usize, usize),
    expected: &[T],
    run: impl FnOnce(&mut DenseMatrix<T>) -> bitgraphblas::Result<()>,
) -> Result<(), String> {
    let mut out = poisoned(shape.0, shape.1);
    ctx(what, run(&mut out))?;
    same_values(what, shape.1, expected, out.as_slice())
}

/// `dense_mxm` with `s` against the triple loop: exact, or within the
/// rounding bound where `close` (float `PLUS_TIMES`).
fn prop_mxm<S: Semiring>(c: &DenseOps<S::T>, s: S, close: bool) -> Result<(), String> {
    let mut out = poisoned(c.m, c.n);
    ctx(
        "dense_mxm",
        ops::dense_mxm(&Cpu::new(), &mut out, s, &c.a(), &c.b()),
    )?;
    let expected = ref_mxm(s, c);
    let what = format!("dense_mxm {}", S::NAME);
    if close {
        close_products(&what, c, &expected, out.as_slice())
    } else {
        same_values(&what, c.n, &expected, out.as_slice())
    }
}

/// `scale_dense_cols`, `apply_dense` and `ewise_dense` on `A` (`m x k`)
/// against entry-by-entry maps.
fn prop_maps<T: TestScalar, F: UnaryOp<T>, Op: BinaryOp<T>>(
    c: &DenseOps<T>,
    f: F,
    op: Op,
) -> Result<(), String> {
    let cpu = Cpu::new();
    let (m, k) = (c.m, c.k);
    let (a, e, d) = (c.a(), c.e(), c.d.vector());
    let apply: Vec<T> = c.a.iter().map(|&x| f.apply(x)).collect();
    into_poisoned(&format!("apply_dense {}", F::NAME), (m, k), &apply, |o| {
        ops::apply_dense(&cpu, o, f, &a)
    })?;
    let ewise: Vec<T> = (0..m * k).map(|p| op.apply(c.a[p], c.e[p])).collect();
    into_poisoned(&format!("ewise_dense {}", Op::NAME), (m, k), &ewise, |o| {
        ops::ewise_dense(&cpu, o, op, &a, &e)
    })?;
    let scale: Vec<T> = (0..m * k)
        .map(|p| c.d.vals[p % k].map_or(c.a[p], |dj| op.apply(c.a[p], dj)))
        .collect();
    let what = format!("scale_dense_cols {} d {:?}", Op::NAME, c.d.format);
    into_poisoned(&what, (m, k), &scale, |o| {
        ops::scale_dense_cols(&cpu, o, op, &a, &d)
    })
}

/// `argmax_rows` and `log_softmax_rows` against the references.
fn prop_rows(l: &Logits) -> Result<(), String> {
    let cpu = Cpu::new();
    let x = l.matrix();
    let mut out = poisoned(l.m, 1);
    let r = ops::argmax_rows(&cpu, &mut out, &x);
    if l.n == 0 && l.m > 0 {
        return match r {
            Err(Error::InvalidArgument {
                op: "argmax_rows", ..
            }) => Ok(()),
            other => Err(format!("argmax_rows of {}x0: {other:?}", l.m)),
        };
    }
    ctx("argmax_rows", r)?;
    for i in 0..l.m {
        let row = &l.x[i * l.n..(i + 1) * l.n];
        let want = ref_argmax(row);
        if out.get(i, 0) != want {
            return Err(format!(
                "argmax_rows: row {i} {row:?}: expected {want}, computed {}",
                out.get(i, 0)
            ));
        }
    }
    let mut c = poisoned(l.m, l.n);
    ctx("log_softmax_rows", ops::log_softmax_rows(&cpu, &mut c, &x))?;
    let expected: Vec<f32> = (0..l.m)
        .flat_map(|i| ref_log_softmax(&l.x[i * l.n..(i + 1) * l.n]))
        .collect();
    close_log_softmax("log_softmax_rows", l.n, &expected, c.as_slice())
}

/// One quickcheck test per case: `$prop(&case, args...)` on `DenseOps<$t>`.
macro_rules! props {
    ($prop:ident: $($name:ident: $t:ty, $($arg:expr),+;)*) => {$(
        #[test]
        fn $name() {
            fn p(c: DenseOps<$t>) -> TestResult {
                verdict($prop(&c, $($arg),+))
            }
            qc(TESTS).quickcheck(p as fn(DenseOps<$t>) -> TestResult);
        }
    )*};
}

dense_mxm_cases!(props! prop_mxm);
dense_map_cases!(props! prop_maps);

// What only the CPU runs: user-defined semirings and operators (the GEMM
// path against the generic one for PLUS_TIMES), ANY.PAIR at another type.
props! { prop_mxm:
    dense_mxm_f32_user_plus_times: f32, SemiringFrom::<f32, _, _>::new(Plus, Times), true;
    dense_mxm_i64_user_max_plus: i64, SemiringFrom::<i64, _, _>::new(Max, Plus), false;
    dense_mxm_i32_any_pair: i32, AnyPair::<i32>::new(), false;
}
props! { prop_maps:
    maps_f32_closure_times: f32, UnaryFn::<f32>(|x| x * x - 1.0), Times;
}

#[test]
fn argmax_and_log_softmax_rows() {
    fn p(l: Logits) -> TestResult {
        verdict(prop_rows(&l))
    }
    qc(200).quickcheck(p as fn(Logits) -> TestResult);
}

// ---- fixed cases -------------------------------------------------------------------

/// The GEMM path splits rows over threads: a product large enough to be
/// cut into many row blocks (and an `m` that is no multiple of a block)
/// against the triple loop in f64.
#[test]
fn dense_mxm_f32_tall_skinny_row_blocks() {
    let (m, k, n) = (4099, 37, 7);
    let c = DenseOps::quarters(m, k, n);
    // quarter-integers: every sum is exact, whatever its order
    let mut out = poisoned(m, n);
    ops::dense_mxm(
        &Cpu::new(),
        &mut out,
        PlusTimes::<f32>::new(),
        &c.a(),
        &c.b(),
    )
    .unwrap();
    same_values(
        "tall-skinny",
        n,
        &ref_mxm(PlusTimes::<f32>::new(), &c),
        out.as_slice(),
    )
    .unwrap();
}

/// `k = 0`: every entry is the semiring's zero (the identity of `⊕`).
#[test]
fn dense_mxm_empty_inner_dimension_gives_zero() {
    let cpu = Cpu::new();
    let (a, b) = (
        DenseMatrix::filled(3, 0, 1.0f32),
        DenseMatrix::filled(0, 2, 1.0f32),
    );
    let mut c = DenseMatrix::filled(3, 2, f32::NAN);
    ops::dense_mxm(&cpu, &mut c, PlusTimes::<f32>::new(), &a, &b).unwrap();
    assert_eq!(c.as_slice(), &[0.0; 6]);
    ops::dense_mxm(&cpu, &mut c, MinPlus::<f32>::new(), &a, &b).unwrap();
    assert_eq!(c.as_slice(), &[f32::INFINITY; 6]);
}

/// ReLU as the doctests write it, on NaN and signed zeros too.
#[test]
fn relu_is_bind_second_max_zero() {
    let x = DenseMatrix::from_vec(1, 5, vec![-2.0f32, -0.0, 0.0, 3.5, f32::NAN]).unwrap();
    let mut y = poisoned(1, 5);
    ops::apply_dense(&Cpu::new(), &mut y, BindSecond(Max, 0.0f32), &x).unwrap();
    let got = y.as_slice();
    assert_eq!(got, &[0.0, 0.0, 0.0, 3.5, 0.0]);
    assert!(got.iter().all(|v| v.is_sign_positive() || *v == 0.0));
}

// ---- errors: every wrong shape is an Err naming the operation, output unchanged ------

/// Every wrong shape is an `Err` naming the operation, the output unchanged.
#[test]
fn wrong_shapes_are_errors_and_leave_outputs_unchanged() {
    check_bad_shapes(&Cpu::new());
}
