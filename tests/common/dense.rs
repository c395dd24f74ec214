//! Inputs and comparisons of the dense-matrix operations (`ops::dense_mxm`,
//! `apply_dense`, `ewise_dense`, `scale_dense_cols`, `argmax_rows`,
//! `log_softmax_rows`), shared by the CPU properties (against plain
//! references) and the CUDA ones (against the CPU backend).
//!
//! Shapes sit on the CUDA kernels' edges (blocks of 128 or 64 rows, 16 or 64
//! columns, slices of 16 along `k`; a warp per row) and on the degenerate
//! ones (0 rows, 0 columns, `k = 0`). Float logits mix ties, NaN, infinities,
//! signed zeros and huge magnitudes.

use std::fmt;

use bitgraphblas::algebra::{Abs, Plus, PlusTimes};
use bitgraphblas::{ops, Backend, DenseMatrix, Error, Scalar, ScalarType, Vector};
use quickcheck::{Arbitrary, Gen};

use super::gen::{below, unit, SpVec};
use super::oracle::compare_entries;
use super::TestScalar;

/// Rows: around 64 and 128 (the kernels' row blocks).
pub const M_EDGES: [usize; 12] = [0, 1, 2, 3, 7, 63, 64, 65, 127, 128, 129, 257];
/// The inner dimension: around 16 (the k slices), and 0.
pub const K_EDGES: [usize; 11] = [0, 1, 2, 15, 16, 17, 18, 31, 33, 64, 100];
/// Columns: around 16 and 64 (the two kernels' widths), and 32 (a warp).
pub const N_EDGES: [usize; 14] = [0, 1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128];

/// An edge size, or (one draw in three) anything up to `max`.
pub fn pick(g: &mut Gen, edges: &[usize], max: usize) -> usize {
    if below(g, 3) == 0 {
        below(g, max + 1)
    } else {
        *g.choose(edges).expect("not empty")
    }
}

/// `m x k` `A` and `E` (the second operand of `ewise_dense`), `k x n` `B`,
/// and `d` of length `k` (column scales of `A`, some absent, any format).
#[derive(Clone)]
pub struct DenseOps<T> {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub a: Vec<T>,
    pub b: Vec<T>,
    pub e: Vec<T>,
    pub d: SpVec<T>,
}

impl<T: TestScalar> Arbitrary for DenseOps<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (
            pick(g, &M_EDGES, 300),
            pick(g, &K_EDGES, 120),
            pick(g, &N_EDGES, 80),
        );
        let mut draw = |len: usize| (0..len).map(|_| T::draw(g)).collect::<Vec<T>>();
        let (a, b, e) = (draw(m * k), draw(k * n), draw(m * k));
        DenseOps {
            m,
            k,
            n,
            a,
            b,
            e,
            d: SpVec::gen(g, k),
        }
    }
}

/// Shapes, and the values only when there are few (a failing case prints it).
impl<T: fmt::Debug> fmt::Debug for DenseOps<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DenseOps {{ m: {}, k: {}, n: {}", self.m, self.k, self.n)?;
        if self.a.len() + self.b.len() <= 64 {
            write!(
                f,
                ", a: {:?}, b: {:?}, e: {:?}, d: {:?}",
                self.a, self.b, self.e, self.d
            )?;
        }
        write!(f, " }}")
    }
}

/// Quarter-integers in [-2, 2] from an index (sums of their products are
/// exact in `f32`, whatever their order, up to 2^20 terms).
pub fn quarter(i: usize) -> f32 {
    ((i.wrapping_mul(7919) >> 3) % 17) as f32 / 4.0 - 2.0
}

impl DenseOps<f32> {
    /// `A` and `B` of quarter-integers (no `E`, no `d`): the large products,
    /// whose sums are exact on every path.
    pub fn quarters(m: usize, k: usize, n: usize) -> Self {
        DenseOps {
            m,
            k,
            n,
            a: (0..m * k).map(quarter).collect(),
            b: (0..k * n).map(|i| quarter(i + 3)).collect(),
            e: vec![],
            d: SpVec {
                vals: vec![],
                format: bitgraphblas::VectorFormat::Dense,
            },
        }
    }
}

impl<T: Scalar> DenseOps<T> {
    /// `A` (`m x k`).
    pub fn a(&self) -> DenseMatrix<T> {
        DenseMatrix::from_vec(self.m, self.k, self.a.clone()).expect("sizes")
    }
    /// `B` (`k x n`).
    pub fn b(&self) -> DenseMatrix<T> {
        DenseMatrix::from_vec(self.k, self.n, self.b.clone()).expect("sizes")
    }
    /// `E` (`m x k`).
    pub fn e(&self) -> DenseMatrix<T> {
        DenseMatrix::from_vec(self.m, self.k, self.e.clone()).expect("sizes")
    }
}

/// An `m x n` matrix of `f32` logits whose rows are each of one kind: ties
/// (all equal, few distinct values, signed zeros), NaN somewhere, infinities,
/// huge magnitudes (±1e30, ±f32::MAX), or arbitrary reals.
#[derive(Clone)]
pub struct Logits {
    pub m: usize,
    pub n: usize,
    pub x: Vec<f32>,
}

impl Arbitrary for Logits {
    fn arbitrary(g: &mut Gen) -> Self {
        let m = pick(g, &M_EDGES, 300);
        let n = pick(g, &[0, 1, 2, 3, 7, 31, 32, 33, 64, 65, 100, 200], 80);
        let mut x = Vec::with_capacity(m * n);
        for _ in 0..m {
            let kind = below(g, 8);
            let c = (below(g, 5) as f32 - 2.0) * 0.5;
            for _ in 0..n {
                let r = (unit(g) * 20.0 - 10.0) as f32;
                x.push(match kind {
                    0 => c,
                    1 => below(g, 3) as f32,
                    2 => *g.choose(&[0.0f32, -0.0]).expect("not empty"),
                    3 if below(g, 4) == 0 => f32::NAN,
                    4 => *g
                        .choose(&[1e30f32, -1e30, f32::MAX, -f32::MAX, 3.0, -3.0])
                        .expect("not empty"),
                    5 if below(g, 3) == 0 => *g
                        .choose(&[f32::INFINITY, f32::NEG_INFINITY])
                        .expect("not empty"),
                    6 => f32::NEG_INFINITY,
                    _ => r,
                });
            }
        }
        Logits { m, n, x }
    }
}

impl fmt::Debug for Logits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Logits {{ m: {}, n: {}", self.m, self.n)?;
        if self.x.len() <= 64 {
            write!(f, ", x: {:?}", self.x)?;
        }
        write!(f, " }}")
    }
}

impl Logits {
    /// The matrix.
    pub fn matrix(&self) -> DenseMatrix<f32> {
        DenseMatrix::from_vec(self.m, self.n, self.x.clone()).expect("sizes")
    }
}

/// Half an ulp at 1 (the unit roundoff) of a float type; 0 for the others.
fn unit_roundoff<T: Scalar>() -> f64 {
    match T::TYPE {
        ScalarType::F32 => f32::EPSILON as f64 / 2.0,
        ScalarType::F64 => f64::EPSILON / 2.0,
        _ => 0.0,
    }
}

/// Equal, or both NaN.
fn same<T: Scalar>(e: T, g: T) -> bool {
    e == g || (e.to_f64().is_nan() && g.to_f64().is_nan())
}

/// Equal values (or both NaN), entry by entry.
pub fn same_values<T: Scalar>(
    what: &str,
    ncols: usize,
    expected: &[T],
    got: &[T],
) -> Result<(), String> {
    compare_entries(what, ncols, expected, got, |_, e, g| same(e, g))
}

/// Compares two results of `A B` over `PLUS_TIMES` (`m x n`), each computed
/// in some order of floating-point sums: entry `(i, j)` may differ by
/// `2 γ_{k+1} Σ_k |a_ik b_kj|` (the bound of any summation order, for
/// each side; `γ_k = k u / (1 - k u)`), and must be equal for integers.
/// Both NaN, or equal (infinities), also agree.
pub fn close_products<T: Scalar>(
    what: &str,
    c: &DenseOps<T>,
    expected: &[T],
    got: &[T],
) -> Result<(), String> {
    let (k, n) = (c.k, c.n);
    if got.len() != c.m * n {
        return Err(format!("{what}: {} values for {}x{n}", got.len(), c.m));
    }
    let ku = (k + 1) as f64 * unit_roundoff::<T>();
    let gamma = ku / (1.0 - ku);
    let what = format!("{what} (k = {k})");
    compare_entries(&what, n, expected, got, |p, e, g| {
        let (i, j) = (p / n, p % n);
        same(e, g)
            || (T::IS_FLOAT && {
                let mag: f64 = (0..k)
                    .map(|q| (c.a[i * k + q].to_f64() * c.b[q * n + j].to_f64()).abs())
                    .sum();
                (e.to_f64() - g.to_f64()).abs() <= 2.0 * gamma * mag + f64::MIN_POSITIVE
            })
    })
}

/// `log_softmax` values that agree to `f32` rounding: equal (infinities,
/// both NaN), or within `1e-6 (|e| + 1) + 2 (n + 4) u` (the rounding of
/// `a - max`, of the sum of `n` exponentials, and of its logarithm).
pub fn close_log_softmax(
    what: &str,
    n: usize,
    expected: &[f32],
    got: &[f32],
) -> Result<(), String> {
    let u = f32::EPSILON as f64 / 2.0;
    let tol = 2.0 * (n as f64 + 4.0) * u;
    compare_entries(what, n, expected, got, |_, e, g| {
        same(e, g) || (e as f64 - g as f64).abs() <= 1e-6 * ((e as f64).abs() + 1.0) + tol
    })
}

/// Calls `$then! { $prop: cases }` with the `dense_mxm` cases every backend
/// runs, one per built-in semiring family and several element types:
/// `name: element type, semiring, close;` (`close`: float `PLUS_TIMES`,
/// whose sums may run in another order).
#[allow(unused_macros)] // used by dense_ops and cuda_dense_ops only
macro_rules! dense_mxm_cases {
    ($then:ident! $prop:ident) => {
        $then! { $prop:
            dense_mxm_f32_plus_times: f32, bitgraphblas::algebra::PlusTimes::<f32>::new(), true;
            dense_mxm_f64_plus_times: f64, bitgraphblas::algebra::PlusTimes::<f64>::new(), true;
            dense_mxm_i32_plus_times: i32, bitgraphblas::algebra::PlusTimes::<i32>::new(), false;
            dense_mxm_u64_plus_pair: u64, bitgraphblas::algebra::PlusPair::<u64>::new(), false;
            dense_mxm_f32_plus_pair: f32, bitgraphblas::algebra::PlusPair::<f32>::new(), false;
            dense_mxm_f32_min_plus: f32, bitgraphblas::algebra::MinPlus::<f32>::new(), false;
            dense_mxm_i64_min_plus: i64, bitgraphblas::algebra::MinPlus::<i64>::new(), false;
            dense_mxm_f64_max_times: f64, bitgraphblas::algebra::MaxTimes::<f64>::new(), false;
            dense_mxm_u32_min_second: u32, bitgraphblas::algebra::MinSecond::<u32>::new(), false;
            dense_mxm_f32_max_min: f32, bitgraphblas::algebra::MaxMin::<f32>::new(), false;
            dense_mxm_bool_lor_land: bool, bitgraphblas::algebra::LorLand, false;
            dense_mxm_u32_any_pair: u32, bitgraphblas::algebra::AnyPair::<u32>::new(), false;
        }
    };
}
pub(crate) use dense_mxm_cases;

/// Calls `$then! { $prop: cases }` with the element-wise cases every backend
/// runs: `name: element type, unary operator (apply_dense), binary operator
/// (ewise_dense, scale_dense_cols);`. ReLU is `BindSecond(Max, 0)`.
#[allow(unused_macros)] // used by dense_ops and cuda_dense_ops only
macro_rules! dense_map_cases {
    ($then:ident! $prop:ident) => {
        $then! { $prop:
            maps_f32_relu_plus: f32,
                bitgraphblas::algebra::BindSecond(bitgraphblas::algebra::Max, 0.0f32),
                bitgraphblas::algebra::Plus;
            maps_f32_abs_minus: f32, bitgraphblas::algebra::Abs, bitgraphblas::algebra::Minus;
            maps_f32_bind_first_div: f32,
                bitgraphblas::algebra::BindFirst(bitgraphblas::algebra::Div, 1.0f32),
                bitgraphblas::algebra::Div;
            maps_f32_ainv_times: f32, bitgraphblas::algebra::Ainv, bitgraphblas::algebra::Times;
            maps_i32_ainv_minus: i32, bitgraphblas::algebra::Ainv, bitgraphblas::algebra::Minus;
            maps_i32_lnot_absdiff: i32, bitgraphblas::algebra::Lnot, bitgraphblas::algebra::AbsDiff;
            maps_i32_bind_second_times_div: i32,
                bitgraphblas::algebra::BindSecond(bitgraphblas::algebra::Times, 3i32),
                bitgraphblas::algebra::Div;
            maps_u64_one_times: u64, bitgraphblas::algebra::One, bitgraphblas::algebra::Times;
            maps_f64_identity_second: f64, bitgraphblas::algebra::Identity,
                bitgraphblas::algebra::Second;
            maps_u32_bind_first_minus_min: u32,
                bitgraphblas::algebra::BindFirst(bitgraphblas::algebra::Minus, 7u32),
                bitgraphblas::algebra::Min;
            maps_bool_lnot_lxor: bool, bitgraphblas::algebra::Lnot, bitgraphblas::algebra::Lxor;
            maps_i64_abs_first: i64, bitgraphblas::algebra::Abs, bitgraphblas::algebra::First;
        }
    };
}
pub(crate) use dense_map_cases;

/// Runs `call` on `out` (on backend `b`), expects an `Err` naming `op` (a
/// dimension mismatch, or an invalid argument where not `dims`), and checks
/// that `out` did not change.
fn refuses<B: Backend, T: Scalar>(
    b: &B,
    op: &str,
    dims: bool,
    out: &mut B::Dense<T>,
    call: impl FnOnce(&mut B::Dense<T>) -> bitgraphblas::Result<()>,
) {
    let before = b.download_dense(out).expect("download");
    match call(out) {
        Err(e @ Error::DimensionMismatch { .. }) if dims => {
            assert!(e.to_string().contains(op), "{e} does not name {op}")
        }
        Err(e @ Error::InvalidArgument { .. }) if !dims => {
            assert!(e.to_string().contains(op), "{e} does not name {op}")
        }
        other => panic!("{op}: expected an error (dimensions: {dims}), got {other:?}"),
    }
    let after = b.download_dense(out).expect("download");
    assert_eq!(after, before, "{op}: output changed on error");
}

/// Every wrong shape of each dense operation on `b`: an `Err` naming the
/// operation, the output unchanged; and an empty `argmax_rows` (no rows, no
/// columns) that is not an error.
pub fn check_bad_shapes<B: Backend>(b: &B) {
    let up = |r: usize, c: usize| {
        let m = DenseMatrix::from_vec(r, c, (0..r * c).map(|x| x as f32).collect()).unwrap();
        b.upload_dense(&m).expect("upload")
    };
    let upv = |n: usize| {
        let v = Vector::from_dense((0..n).map(|x| x as f32).collect());
        b.upload_vector(&v).expect("upload")
    };
    let s = PlusTimes::<f32>::new();
    let c = &mut up(3, 2);
    // inner dimensions: A 3x4, B 5x2; C 3x2 for a 3x3 product, and for a 2x2 one
    refuses(b, "dense_mxm", true, c, |c| {
        ops::dense_mxm(b, c, s, &up(3, 4), &up(5, 2))
    });
    refuses(b, "dense_mxm", true, c, |c| {
        ops::dense_mxm(b, c, s, &up(3, 4), &up(4, 3))
    });
    refuses(b, "dense_mxm", true, c, |c| {
        ops::dense_mxm(b, c, s, &up(2, 4), &up(4, 2))
    });
    // d of length 3 for 2 columns; C 3x2 for a 2x2 A
    refuses(b, "scale_dense_cols", true, c, |c| {
        ops::scale_dense_cols(b, c, Plus, &up(3, 2), &upv(3))
    });
    refuses(b, "scale_dense_cols", true, c, |c| {
        ops::scale_dense_cols(b, c, Plus, &up(2, 2), &upv(2))
    });
    refuses(b, "apply_dense", true, c, |c| {
        ops::apply_dense(b, c, Abs, &up(2, 3))
    });
    refuses(b, "ewise_dense", true, c, |c| {
        ops::ewise_dense(b, c, Plus, &up(3, 2), &up(2, 3))
    });
    refuses(b, "ewise_dense", true, c, |c| {
        ops::ewise_dense(b, c, Plus, &up(2, 3), &up(2, 3))
    });
    refuses(b, "log_softmax_rows", true, c, |c| {
        ops::log_softmax_rows(b, c, &up(3, 3))
    });
    // out 2x1 and 3x2 for a 3x2 A; a 3x0 A has no argmax
    let out = |(r, c): (usize, usize)| {
        b.upload_dense(&DenseMatrix::filled(r, c, 7u32))
            .expect("upload")
    };
    for (o, (m, n), dims) in [
        ((2, 1), (3, 2), true),
        ((3, 2), (3, 2), true),
        ((3, 1), (3, 0), false),
    ] {
        refuses(b, "argmax_rows", dims, &mut out(o), |o| {
            ops::argmax_rows(b, o, &up(m, n))
        });
    }
    // no rows, no columns: nothing to do, not an error
    let none = &mut out((0, 1));
    ops::argmax_rows(b, none, &up(0, 0)).expect("an empty argmax");
    assert_eq!(b.download_dense(none).expect("download").nrows(), 0);
}
