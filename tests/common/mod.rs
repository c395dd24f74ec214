//! Shared test helpers: generators (density-biased matrices and vectors, mask
//! and descriptor choices), the oracle (sprs products over any semiring through
//! a `MulAcc` newtype, plus a dense GraphBLAS spec of mask/accumulate/replace),
//! and comparisons. The property bodies in [`props`] are generic over
//! `B: bitgraphblas::Backend`, so a device backend can run the same properties.
#![allow(dead_code, unused_imports)]

pub mod dense;
pub mod gen;
pub mod oracle;
pub mod props;
pub mod props_elem;
pub mod props_std;

pub use gen::*;
pub use oracle::*;

use bitgraphblas::algebra::Semiring;
use bitgraphblas::Scalar;

/// The seed of a randomised test: `BITGRAPHBLAS_SEED` when set, else the
/// clock; printed, so that a failing run can be replayed.
pub fn seed() -> u64 {
    let s = std::env::var("BITGRAPHBLAS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    eprintln!("seed {s}");
    s
}

/// Scalars the generators and comparisons know: how to draw a test value and
/// how to compare (exact for integers and bool, approximate for floats).
pub trait TestScalar: Scalar + quickcheck::Arbitrary {
    /// A value biased to small magnitudes (often zero, sometimes extreme).
    fn draw(g: &mut quickcheck::Gen) -> Self;
    /// True when `a` and `b` agree (floats: within a relative tolerance).
    fn close(a: Self, b: Self) -> bool;
}

macro_rules! int_test_scalar {
    ($($t:ty),*) => {$(
        impl TestScalar for $t {
            fn draw(g: &mut quickcheck::Gen) -> Self {
                match gen::below(g, 20) {
                    0 => <$t>::MAX,
                    1 => <$t>::MIN,
                    2 | 3 => 0,
                    _ => {
                        let v = gen::below(g, 17) as i64 - if <$t>::MIN == 0 { 0 } else { 8 };
                        v as $t
                    }
                }
            }
            fn close(a: Self, b: Self) -> bool {
                a == b
            }
        }
    )*};
}
int_test_scalar!(i32, u32, i64, u64);

impl TestScalar for bool {
    fn draw(g: &mut quickcheck::Gen) -> Self {
        gen::below(g, 4) != 0
    }
    fn close(a: Self, b: Self) -> bool {
        a == b
    }
}

macro_rules! float_test_scalar {
    ($($t:ty, $tol:expr);*) => {$(
        impl TestScalar for $t {
            /// Mostly quarter-integers in [-8, 8] (sums and products of these are
            /// exact, so the order of accumulation does not matter), zero often,
            /// and sometimes an arbitrary real in [-10, 10].
            fn draw(g: &mut quickcheck::Gen) -> Self {
                match gen::below(g, 10) {
                    0 | 1 => 0.0,
                    2 => (gen::unit(g) * 20.0 - 10.0) as $t,
                    _ => (gen::below(g, 65) as $t - 32.0) / 4.0,
                }
            }
            fn close(a: Self, b: Self) -> bool {
                if a == b || (a.is_nan() && b.is_nan()) {
                    return true;
                }
                let scale = a.abs().max(b.abs()).max(1.0);
                (a - b).abs() <= $tol * scale
            }
        }
    )*};
}
float_test_scalar!(f32, 1e-3; f64, 1e-9);

/// A semiring the oracle can instantiate (`Default` gives the value).
pub trait TestSemiring: Semiring<T: TestScalar> + Default + std::fmt::Debug + 'static {}
impl<S: Semiring<T: TestScalar> + Default + std::fmt::Debug + 'static> TestSemiring for S {}
