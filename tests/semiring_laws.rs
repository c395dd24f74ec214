//! Semiring laws for every built-in semiring at every element type it is
//! implemented for, checked exhaustively over triples of a value domain.
//!
//! Where a law does not hold, the test says so and checks it on the domain
//! where it does:
//! * float `PLUS`/`TIMES` are not associative or distributive under rounding:
//!   checked on small integers and quarters (exact in f32/f64);
//! * `MIN.PLUS` on integers: `plus` wraps, so `zero ⊗ x = zero` (`MAX + x`)
//!   fails for every `x != 0`, and distributivity fails on overflow: checked
//!   on small values; on floats `+inf` annihilates finite values only
//!   (`inf + -inf` is NaN);
//! * `MAX.TIMES` on floats: `-inf * 0` is NaN and `-inf * x` is `+inf` for
//!   `x < 0`, and `a * max(b, c) = max(ab, ac)` needs `a >= 0`: checked on
//!   non-negative (annihilation: positive) values; on unsigned integers
//!   distributivity needs no overflow;
//! * `PLUS.PAIR` is not distributive (`pair(a, b + c) = 1`, `1 + 1 = 2`) and
//!   `zero` does not annihilate (`pair(0, x) = 1`);
//! * `MIN.SECOND`: `second(zero, x) = x`, so only right annihilation holds;
//! * `ANY.PAIR`: `ANY` has no identity and is commutative only up to the choice
//!   it makes: checked instead that `any(x, y)` is `x` or `y`; zero does not
//!   annihilate `PAIR`.

use bitgraphblas::algebra::{
    AnyPair, LorLand, MaxMin, MaxTimes, MinPlus, MinSecond, Monoid, PlusPair, PlusTimes, Semiring,
};
use bitgraphblas::Scalar;

/// Which laws to check on a domain.
#[derive(Clone, Copy, Default)]
struct Laws {
    add_identity: bool,
    add_comm: bool,
    add_assoc: bool,
    mul_assoc: bool,
    distrib: bool,
    annihilate_left: bool,
    annihilate_right: bool,
    /// `any(x, y) ∈ {x, y}` (for ANY, instead of identity and commutativity).
    add_selects: bool,
}

const ALL: Laws = Laws {
    add_identity: true,
    add_comm: true,
    add_assoc: true,
    mul_assoc: true,
    distrib: true,
    annihilate_left: true,
    annihilate_right: true,
    add_selects: false,
};

fn eq<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a != a && b != b)
}

fn check<S: Semiring>(s: S, dom: &[S::T], laws: Laws) -> Result<(), String> {
    let z = s.zero();
    let name = S::NAME;
    let fail = |law: &str, args: String| Err(format!("{name}: {law} fails at {args}"));
    for &x in dom {
        if laws.add_identity && !(eq(s.add(z, x), x) && eq(s.add(x, z), x)) {
            return fail("additive identity", format!("x = {x:?}"));
        }
        if laws.annihilate_left && !eq(s.mul(z, x), z) {
            return fail("zero ⊗ x = zero", format!("x = {x:?}"));
        }
        if laws.annihilate_right && !eq(s.mul(x, z), z) {
            return fail("x ⊗ zero = zero", format!("x = {x:?}"));
        }
        if let Some(t) = s.terminal() {
            if !eq(s.add(t, x), t) || !eq(s.add(x, t), t) {
                return fail("terminal absorbs", format!("x = {x:?}"));
            }
        }
        for &y in dom {
            if laws.add_comm && !eq(s.add(x, y), s.add(y, x)) {
                return fail("⊕ commutative", format!("{x:?}, {y:?}"));
            }
            if laws.add_selects {
                let r = s.add(x, y);
                if !(eq(r, x) || eq(r, y)) {
                    return fail("any(x, y) ∈ {x, y}", format!("{x:?}, {y:?}"));
                }
            }
            for &w in dom {
                if laws.add_assoc && !eq(s.add(s.add(x, y), w), s.add(x, s.add(y, w))) {
                    return fail("⊕ associative", format!("{x:?}, {y:?}, {w:?}"));
                }
                if laws.mul_assoc && !eq(s.mul(s.mul(x, y), w), s.mul(x, s.mul(y, w))) {
                    return fail("⊗ associative", format!("{x:?}, {y:?}, {w:?}"));
                }
                if laws.distrib {
                    let l = s.mul(x, s.add(y, w));
                    let r = s.add(s.mul(x, y), s.mul(x, w));
                    if !eq(l, r) {
                        return fail("left distributive", format!("{x:?}, {y:?}, {w:?}"));
                    }
                    let l = s.mul(s.add(y, w), x);
                    let r = s.add(s.mul(y, x), s.mul(w, x));
                    if !eq(l, r) {
                        return fail("right distributive", format!("{x:?}, {y:?}, {w:?}"));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Small integers (and, for floats, quarters): exact under every operation here.
fn small<T: Scalar>() -> Vec<T> {
    let mut v: Vec<T> = (-6..=6).map(|i| T::from_f64(i as f64)).collect();
    if T::IS_FLOAT {
        v.extend([0.25, -1.75, 2.5].map(T::from_f64));
    }
    dedup(v)
}

/// `small` plus the extremes (`MIN`/`MAX`, or `±inf`).
fn full<T: Scalar>() -> Vec<T> {
    let mut v = small::<T>();
    v.extend([T::lowest(), T::highest()]);
    if !T::IS_FLOAT && T::TYPE != bitgraphblas::ScalarType::Bool {
        // Values whose sums and products wrap.
        v.push(T::minus(T::highest(), T::one()));
        v.push(T::plus(T::lowest(), T::one()));
    }
    dedup(v)
}

fn dedup<T: Scalar>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in v {
        if !out.iter().any(|&y| y == x) {
            out.push(x);
        }
    }
    out
}

fn nonneg<T: Scalar>() -> Vec<T> {
    small::<T>()
        .into_iter()
        .filter(|&x| x >= T::zero())
        .collect()
}

fn positive<T: Scalar>() -> Vec<T> {
    small::<T>()
        .into_iter()
        .filter(|&x| x > T::zero())
        .collect()
}

fn ok(r: Result<(), String>) {
    if let Err(e) = r {
        panic!("{e}");
    }
}

#[test]
fn lor_land() {
    ok(check(LorLand, &[false, true], ALL));
    assert!(!LorLand.zero());
    assert_eq!(LorLand.terminal(), Some(true));
}

macro_rules! per_type {
    ($f:ident: $($t:ty),*) => {$( $f::<$t>(); )*};
}

fn plus_times<T: Scalar>()
where
    PlusTimes<T>: Semiring<T = T>,
{
    let s = PlusTimes::<T>::new();
    assert!(s.zero() == T::zero());
    if T::IS_FLOAT {
        // Identity holds for every value, infinities included.
        ok(check(
            s,
            &full::<T>(),
            Laws {
                add_identity: true,
                add_comm: true,
                ..Laws::default()
            },
        ));
        ok(check(s, &small::<T>(), ALL));
    } else {
        // Wrapping integers form a ring: every law, extremes included.
        ok(check(s, &full::<T>(), ALL));
    }
}

#[test]
fn plus_times_all_types() {
    per_type!(plus_times: i32, u32, i64, u64, f32, f64);
    // Spot values: integer plus and times wrap.
    assert_eq!(PlusTimes::<u32>::new().add(u32::MAX, 2), 1);
    assert_eq!(PlusTimes::<i32>::new().mul(i32::MAX, 2), -2);
}

fn plus_pair<T: Scalar>()
where
    PlusPair<T>: Semiring<T = T>,
{
    let s = PlusPair::<T>::new();
    let dom = if T::IS_FLOAT {
        small::<T>()
    } else {
        full::<T>()
    };
    // Not distributive and zero does not annihilate (see the module docs).
    let laws = Laws {
        distrib: false,
        annihilate_left: false,
        annihilate_right: false,
        ..ALL
    };
    ok(check(s, &dom, laws));
    assert!(check(
        s,
        &dom,
        Laws {
            distrib: true,
            ..Laws::default()
        }
    )
    .is_err());
    for &x in &dom {
        assert!(s.mul(x, s.zero()) == T::one() && s.mul(s.zero(), x) == T::one());
    }
}

#[test]
fn plus_pair_all_types() {
    per_type!(plus_pair: i32, u32, i64, u64, f32, f64);
}

fn min_plus<T: Scalar>()
where
    MinPlus<T>: Semiring<T = T>,
{
    let s = MinPlus::<T>::new();
    assert!(s.zero() == T::highest());
    assert_eq!(s.terminal(), Some(T::lowest()));
    // Min is a lattice operation: identity, commutativity, associativity
    // everywhere (extremes included).
    let min_laws = Laws {
        add_identity: true,
        add_comm: true,
        add_assoc: true,
        ..Laws::default()
    };
    ok(check(s, &full::<T>(), min_laws));
    if T::IS_FLOAT {
        // +inf annihilates finite values; all laws hold on small values.
        ok(check(s, &small::<T>(), ALL));
        assert!(
            s.mul(s.zero(), T::lowest()) != s.mul(s.zero(), T::lowest()),
            "inf + -inf is NaN"
        );
    } else {
        // Integer plus wraps: MAX + 1 != MAX, so zero annihilates only 0.
        ok(check(
            s,
            &small::<T>(),
            Laws {
                annihilate_left: false,
                annihilate_right: false,
                ..ALL
            },
        ));
        ok(check(s, &[T::zero()], ALL));
        assert!(s.mul(s.zero(), T::one()) != s.zero());
        // ⊗ (wrapping plus) is associative everywhere.
        ok(check(
            s,
            &full::<T>(),
            Laws {
                mul_assoc: true,
                ..Laws::default()
            },
        ));
    }
}

#[test]
fn min_plus_all_types() {
    per_type!(min_plus: i32, u32, i64, u64, f32, f64);
}

fn max_times<T: Scalar>()
where
    MaxTimes<T>: Semiring<T = T>,
{
    let s = MaxTimes::<T>::new();
    assert!(s.zero() == T::lowest());
    let max_laws = Laws {
        add_identity: true,
        add_comm: true,
        add_assoc: true,
        ..Laws::default()
    };
    ok(check(s, &full::<T>(), max_laws));
    if T::IS_FLOAT {
        // Distributive for a >= 0 only; -inf annihilates positive values only.
        ok(check(
            s,
            &nonneg::<T>(),
            Laws {
                annihilate_left: false,
                annihilate_right: false,
                ..ALL
            },
        ));
        ok(check(s, &positive::<T>(), ALL));
        assert!(
            s.mul(s.zero(), T::zero()) != s.mul(s.zero(), T::zero()),
            "-inf * 0 is NaN"
        );
        assert!(check(
            s,
            &small::<T>(),
            Laws {
                distrib: true,
                ..Laws::default()
            }
        )
        .is_err());
    } else {
        // Unsigned: zero is 0, which annihilates everything; distributive
        // without overflow.
        ok(check(
            s,
            &full::<T>(),
            Laws {
                annihilate_left: true,
                annihilate_right: true,
                mul_assoc: true,
                ..Laws::default()
            },
        ));
        ok(check(s, &small::<T>(), ALL));
    }
}

#[test]
fn max_times_all_types() {
    per_type!(max_times: u32, u64, f32, f64);
}

fn min_second<T: Scalar>()
where
    MinSecond<T>: Semiring<T = T>,
{
    let s = MinSecond::<T>::new();
    assert!(s.zero() == T::highest());
    // second(zero, x) = x: only right annihilation.
    ok(check(
        s,
        &full::<T>(),
        Laws {
            annihilate_left: false,
            ..ALL
        },
    ));
    assert!(s.mul(s.zero(), T::one()) == T::one());
}

#[test]
fn min_second_all_types() {
    per_type!(min_second: i32, u32, i64, u64, f32, f64);
}

fn max_min<T: Scalar>()
where
    MaxMin<T>: Semiring<T = T>,
{
    let s = MaxMin::<T>::new();
    assert!(s.zero() == T::lowest());
    // A distributive lattice: every law, extremes included.
    ok(check(s, &full::<T>(), ALL));
}

#[test]
fn max_min_all_types() {
    per_type!(max_min: i32, u32, i64, u64, f32, f64);
}

fn any_pair<T: Scalar>()
where
    AnyPair<T>: Semiring<T = T>,
{
    let s = AnyPair::<T>::new();
    // ANY: no identity, commutative only up to its choice; PAIR: always one.
    let laws = Laws {
        add_selects: true,
        add_assoc: true,
        mul_assoc: true,
        distrib: true,
        ..Laws::default()
    };
    ok(check(s, &full::<T>(), laws));
    for &x in &full::<T>() {
        assert!(s.mul(x, s.zero()) == T::one());
    }
}

#[test]
fn any_pair_all_types() {
    per_type!(any_pair: bool, i32, u32, i64, u64, f32, f64);
}

/// The monoids' identities and terminals, as GraphBLAS defines them (the
/// graphblast bug: AND with identity false, MAX with identity 0 on signed types).
#[test]
fn monoid_identities() {
    use bitgraphblas::algebra::{Land, Lor, Lxor, Max, Min, Plus, Times};
    assert!(Monoid::<bool>::identity(&Land));
    assert!(!Monoid::<bool>::identity(&Lor));
    assert!(!Monoid::<bool>::identity(&Lxor));
    assert_eq!(Monoid::<i32>::identity(&Max), i32::MIN);
    assert_eq!(Monoid::<f64>::identity(&Max), f64::NEG_INFINITY);
    assert_eq!(Monoid::<u64>::identity(&Min), u64::MAX);
    assert_eq!(Monoid::<f32>::identity(&Min), f32::INFINITY);
    assert_eq!(Monoid::<i64>::identity(&Times), 1);
    assert_eq!(Monoid::<u32>::identity(&Plus), 0);
    assert_eq!(Monoid::<i32>::terminal(&Times), Some(0));
    assert_eq!(Monoid::<f32>::terminal(&Times), None);
    assert_eq!(Monoid::<u32>::terminal(&Plus), None);
    assert_eq!(Monoid::<bool>::terminal(&Plus), Some(true));
    // Every monoid's identity is an identity over the full domain.
    fn identity_law<T: Scalar, M: Monoid<T>>(m: M) {
        for x in full::<T>() {
            assert!(
                eq(m.apply(m.identity(), x), x),
                "identity of {} at {x:?}",
                M::NAME
            );
            if let Some(t) = m.terminal() {
                assert!(eq(m.apply(t, x), t), "terminal of {} at {x:?}", M::NAME);
            }
        }
    }
    identity_law::<bool, _>(Land);
    identity_law::<bool, _>(Lor);
    identity_law::<bool, _>(Lxor);
    identity_law::<bool, _>(Plus);
    identity_law::<bool, _>(Times);
    identity_law::<i32, _>(Plus);
    identity_law::<i32, _>(Times);
    identity_law::<i32, _>(Max);
    identity_law::<i32, _>(Min);
    identity_law::<u64, _>(Max);
    identity_law::<u64, _>(Min);
    identity_law::<f64, _>(Max);
    identity_law::<f64, _>(Min);
    identity_law::<f32, _>(Plus);
    identity_law::<f32, _>(Times);
}
