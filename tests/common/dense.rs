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

use bitgraphblas::{DenseMatrix, Scalar, ScalarType};
use quickcheck::{Arbitrary, Gen};

use super::gen::{below, unit, SpVec};
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
    if expected.len() != got.len() || got.len() != c.m * n {
        return Err(format!(
            "{what}: {} values expected, {} computed, for {}x{n}",
            expected.len(),
            got.len(),
            c.m
        ));
    }
    let u = unit_roundoff::<T>();
    let ku = (k + 1) as f64 * u;
    let gamma = ku / (1.0 - ku);
    for (p, (&e, &g)) in expected.iter().zip(got).enumerate() {
        let (i, j) = (p / n, p % n);
        let (ef, gf) = (e.to_f64(), g.to_f64());
        let ok = e == g
            || (ef.is_nan() && gf.is_nan())
            || (T::IS_FLOAT && {
                let mag: f64 = (0..k)
                    .map(|q| (c.a[i * k + q].to_f64() * c.b[q * n + j].to_f64()).abs())
                    .sum();
                (ef - gf).abs() <= 2.0 * gamma * mag + f64::MIN_POSITIVE
            });
        if !ok {
            return Err(format!(
                "{what}: at ({i}, {j}) expected {e:?}, computed {g:?} (k = {k})"
            ));
        }
    }
    Ok(())
}

/// Equal values (or both NaN), entry by entry of an `? x ncols` matrix.
pub fn same_values<T: Scalar>(
    what: &str,
    ncols: usize,
    expected: &[T],
    got: &[T],
) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!(
            "{what}: {} values expected, {} computed",
            expected.len(),
            got.len()
        ));
    }
    let nan = |x: T| x.to_f64().is_nan();
    match expected
        .iter()
        .zip(got)
        .position(|(&e, &g)| e != g && !(nan(e) && nan(g)))
    {
        None => Ok(()),
        Some(p) => Err(format!(
            "{what}: at ({}, {}) expected {:?}, computed {:?}",
            p / ncols.max(1),
            p % ncols.max(1),
            expected[p],
            got[p]
        )),
    }
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
    if expected.len() != got.len() {
        return Err(format!(
            "{what}: {} values expected, {} computed",
            expected.len(),
            got.len()
        ));
    }
    let u = f32::EPSILON as f64 / 2.0;
    for (p, (&e, &g)) in expected.iter().zip(got).enumerate() {
        let ok = e == g
            || (e.is_nan() && g.is_nan())
            || ((e as f64 - g as f64).abs()
                <= 1e-6 * ((e as f64).abs() + 1.0) + 2.0 * (n as f64 + 4.0) * u);
        if !ok {
            return Err(format!(
                "{what}: at ({}, {}) expected {e:?}, computed {g:?}",
                p / n.max(1),
                p % n.max(1)
            ));
        }
    }
    Ok(())
}
