//! The oracle.
//!
//! * Products: sprs computes `&a * &b` on `CsMat<Sr<S>>`, where the newtype
//!   `Sr<S>` makes sprs's multiply-accumulate run semiring `S`. The newtype holds
//!   an `Option`: `None` is "no product term", so presence is modelled exactly
//!   (an output entry exists only if some term `a_ik ⊗ b_kj` exists; sprs's
//!   symbolic phase builds that pattern from the structure) and no value is
//!   ever combined with the semiring's identity (ANY has none).
//! * Writing the result: [`spec_write`], ten lines after SuiteSparse's
//!   `GB_spec_mask.m` / `GB_spec_accum.m`, on dense per-index options.

use std::marker::PhantomData;
use std::ops::{Add, AddAssign, Mul};

use bitgraphblas::algebra::Semiring;
use bitgraphblas::Scalar;

use super::{MaskKind, SpMat, TestScalar};

/// One semiring value for sprs: `None` = no term.
pub struct Sr<S: Semiring>(pub Option<S::T>, PhantomData<fn() -> S>);

impl<S: Semiring> Clone for Sr<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Semiring> Copy for Sr<S> {}
impl<S: Semiring> std::fmt::Debug for Sr<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}
impl<S: Semiring> Default for Sr<S> {
    fn default() -> Self {
        Sr(None, PhantomData)
    }
}
impl<S: Semiring + Default> Add for Sr<S> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Sr(
            match (self.0, o.0) {
                (Some(a), Some(b)) => Some(S::default().add(a, b)),
                (a, None) => a,
                (None, b) => b,
            },
            PhantomData,
        )
    }
}
impl<S: Semiring + Default> AddAssign for Sr<S> {
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}
impl<'x, S: Semiring + Default> Mul<&'x Sr<S>> for &'x Sr<S> {
    type Output = Sr<S>;
    fn mul(self, o: &'x Sr<S>) -> Sr<S> {
        Sr(
            match (self.0, o.0) {
                (Some(a), Some(b)) => Some(S::default().mul(a, b)),
                _ => None,
            },
            PhantomData,
        )
    }
}
impl<S: Semiring + Default> num_traits::Zero for Sr<S> {
    fn zero() -> Self {
        Sr(None, PhantomData)
    }
    fn is_zero(&self) -> bool {
        self.0.is_none()
    }
}

/// `A ⊕.⊗ B` by sprs, as row-major dense cells of `a.nrows x b.ncols`.
pub fn oracle_mxm<S: Semiring + Default>(a: &SpMat<S::T>, b: &SpMat<S::T>) -> Vec<Option<S::T>> {
    assert_eq!(a.ncols, b.nrows, "oracle called with mismatched shapes");
    let to_sprs = |m: &SpMat<S::T>| {
        let mut t = sprs::TriMat::new((m.nrows, m.ncols));
        for &(i, j, v) in &m.entries {
            t.add_triplet(i, j, Sr::<S>(Some(v), PhantomData));
        }
        t.to_csr::<usize>()
    };
    let (sa, sb) = (to_sprs(a), to_sprs(b));
    let c: sprs::CsMat<Sr<S>> = &sa * &sb;
    let mut out = vec![None; a.nrows * b.ncols];
    for (v, (i, j)) in c.iter() {
        // sprs stores exactly the structural product pattern, and a term exists
        // at every stored position.
        assert!(v.0.is_some(), "oracle: stored entry without a term");
        out[i * b.ncols + j] = v.0;
    }
    out
}

/// `A ⊕.⊗ u` by sprs (u as an `n x 1` matrix).
pub fn oracle_mxv<S: Semiring + Default>(a: &SpMat<S::T>, u: &[Option<S::T>]) -> Vec<Option<S::T>> {
    let um = SpMat {
        nrows: u.len(),
        ncols: 1,
        entries: u
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|x| (i, 0, x)))
            .collect(),
    };
    oracle_mxm::<S>(a, &um)
}

/// `u ⊕.⊗ A` by sprs (u as a `1 x n` matrix, the multiply's first operand).
pub fn oracle_vxm<S: Semiring + Default>(u: &[Option<S::T>], a: &SpMat<S::T>) -> Vec<Option<S::T>> {
    let um = SpMat {
        nrows: 1,
        ncols: u.len(),
        entries: u
            .iter()
            .enumerate()
            .filter_map(|(j, v)| v.map(|x| (0, j, x)))
            .collect(),
    };
    oracle_mxm::<S>(&um, a)
}

/// The positions a mask allows, from the mask's cells (`None` for no mask).
pub fn mask_allows<M: Scalar>(kind: MaskKind, cells: &[Option<M>]) -> Option<Vec<bool>> {
    if kind == MaskKind::None {
        return None;
    }
    Some(
        cells
            .iter()
            .map(|c| {
                let m = match c {
                    None => false,
                    Some(v) => kind.structural() || v.is_nonzero(),
                };
                m != kind.complemented()
            })
            .collect(),
    )
}

/// An optional accumulator `accum(old, new)` for [`spec_write`].
pub type AccumFn<'a, T> = Option<&'a dyn Fn(T, T) -> T>;

/// GraphBLAS `w<mask> = accum(w, t)` with replace, on dense options
/// (SuiteSparse `GB_spec_accum.m` then `GB_spec_mask.m`).
pub fn spec_write<T: Copy>(
    old: &[Option<T>],
    t: &[Option<T>],
    allowed: Option<&[bool]>,
    accum: AccumFn<'_, T>,
    replace: bool,
) -> Vec<Option<T>> {
    assert_eq!(old.len(), t.len());
    (0..old.len())
        .map(|i| {
            let z = match (accum, old[i], t[i]) {
                (Some(f), Some(o), Some(n)) => Some(f(o, n)),
                (Some(_), o, None) => o,
                (_, _, n) => n,
            };
            match allowed {
                None => z,
                Some(m) if m[i] => z,
                Some(_) if replace => None,
                Some(_) => old[i],
            }
        })
        .collect()
}

/// Compares expected and computed cells (presence exactly, values by `close`).
pub fn compare<T: TestScalar>(
    what: &str,
    ncols: usize,
    expected: &[Option<T>],
    got: &[Option<T>],
) -> Result<(), String> {
    compare_entries(what, ncols, expected, got, |_, e, g| match (e, g) {
        (None, None) => true,
        (Some(a), Some(b)) => T::close(a, b),
        _ => false,
    })
}

/// Compares `? x ncols` matrices entry by entry: `ok(p, e, g)` for every
/// position `p`, else an error naming the first failing row and column.
pub fn compare_entries<T: Copy + std::fmt::Debug>(
    what: &str,
    ncols: usize,
    expected: &[T],
    got: &[T],
    ok: impl Fn(usize, T, T) -> bool,
) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!(
            "{what}: {} cells expected, {} computed",
            expected.len(),
            got.len()
        ));
    }
    let ncols = ncols.max(1);
    match (0..got.len()).find(|&p| !ok(p, expected[p], got[p])) {
        None => Ok(()),
        Some(p) => Err(format!(
            "{what}: at ({}, {}) expected {:?}, computed {:?}",
            p / ncols,
            p % ncols,
            expected[p],
            got[p]
        )),
    }
}

/// Turns a property result into a quickcheck result, printing the failure.
pub fn verdict(r: Result<(), String>) -> quickcheck::TestResult {
    match r {
        Ok(()) => quickcheck::TestResult::passed(),
        Err(e) => quickcheck::TestResult::error(e),
    }
}
