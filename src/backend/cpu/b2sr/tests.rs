//! Smoke checks: every B2SR kernel against the generic path on random inputs,
//! for every tile size, with and without masks. (The big property suite lives
//! in `tests/`.)

use super::super::generic;
use super::super::writeback::RowMask;
use super::*;
use crate::algebra::{AnyPair, LorLand, MaxMin, MaxTimes, MinPlus, MinSecond, PlusPair, PlusTimes};
use crate::container::{Flags, Matrix, VectorRepr};
use crate::storage::{Csr, DenseMatrix, TileSize};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 17
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random pattern with clustered and scattered entries.
fn random_csr<T: Scalar>(rng: &mut Rng, nrows: usize, ncols: usize, nnz: usize) -> Csr<T> {
    let t = (0..nnz).map(|_| {
        let i = rng.below(nrows);
        let j = if rng.below(2) == 0 {
            (i + rng.below(9)).min(ncols - 1)
        } else {
            rng.below(ncols)
        };
        (i, j, T::one())
    });
    Csr::from_triplets(nrows, ncols, t.collect::<Vec<_>>(), |x, _| x).unwrap()
}

fn random_bits(rng: &mut Rng, n: usize, every: usize) -> BitVec {
    BitVec::from_indices(n, (0..n).filter(|_| rng.below(every) == 0))
}

fn same<T: Scalar>(x: &Vector<T>, y: &Vector<T>) {
    assert_eq!(x.len(), y.len());
    assert_eq!(x.entries(), y.entries());
}

const SHAPES: [(usize, usize, usize); 4] =
    [(1, 1, 1), (37, 53, 200), (130, 130, 900), (300, 77, 40)];

fn each_case(mut f: impl FnMut(&mut Rng, &B2sr, &Csr<bool>)) {
    let mut rng = Rng(7);
    for &(m, n, nnz) in &SHAPES {
        let csr = random_csr::<bool>(&mut rng, m, n, nnz);
        for ts in TileSize::FIXED {
            let b = B2sr::from_csr(&csr, ts).unwrap();
            f(&mut rng, &b, &csr);
        }
    }
}

fn check_mxv<S: Semiring>(s: S, value: S::T, vals: impl Fn(usize) -> S::T) {
    each_case(|rng, b, _| {
        let (m, n) = (b.nrows(), b.ncols());
        let bits = random_bits(rng, n, 3);
        let dense = Vector::from_dense((0..n).map(&vals).collect());
        let partial = dense.to_format(crate::VectorFormat::Sparse).unwrap();
        let partial = {
            let keep = random_bits(rng, n, 2);
            let e = partial
                .entries()
                .into_iter()
                .filter(|e| keep.get(e.0))
                .collect();
            Vector::from_entries(n, e).unwrap()
        };
        for u in [Vector::from_bits(bits), dense, partial] {
            for mask in [None, Some(random_bits(rng, m, 2))] {
                let got = super::mxv(s, b, value, &u, mask.as_ref());
                let want = generic::mxv_b2sr(s, b, value, &u, mask.as_ref());
                same(&got, &want);
            }
            // Transposed: against the generic product with the transpose.
            // (valued: every entry, and a sparse few, as a small frontier pushes)
            let uts = match u.repr() {
                VectorRepr::Bits(_) => vec![Vector::from_bits(random_bits(rng, m, 3))],
                _ => {
                    let keep = random_bits(rng, m, 9);
                    let few = keep.iter_ones().map(|i| (i, vals(i))).collect();
                    vec![
                        Vector::from_dense((0..m).map(&vals).collect()),
                        Vector::from_entries(m, few).unwrap(),
                    ]
                }
            };
            for ut in uts {
                for mask in [None, Some(random_bits(rng, n, 2))] {
                    let got = super::vxm(s, b, value, &ut, mask.as_ref());
                    let want = generic::mxv_b2sr(s, &b.transpose(), value, &ut, mask.as_ref());
                    same(&got, &want);
                }
            }
        }
    });
}

#[test]
fn mxv_kernels_match_generic() {
    let before = super::super::dispatch_counts().0;
    check_mxv(LorLand, true, |j| j % 3 != 0);
    check_mxv(AnyPair::<bool>::new(), true, |_| true);
    check_mxv(AnyPair::<i32>::new(), 1, |j| j as i32);
    check_mxv(PlusPair::<i64>::new(), 3, |j| j as i64);
    check_mxv(PlusTimes::<f32>::new(), 1.0, |j| (j % 7) as f32 * 0.3 - 1.0);
    check_mxv(PlusTimes::<f32>::new(), 0.1, |j| (j % 5) as f32 * 0.7);
    check_mxv(PlusTimes::<u32>::new(), 7, |j| j as u32);
    check_mxv(MinPlus::<f64>::new(), 2.0, |j| (j * 37 % 11) as f64);
    check_mxv(MaxTimes::<f32>::new(), 0.5, |j| (j * 13 % 17) as f32);
    check_mxv(MinSecond::<u64>::new(), 1, |j| (j * 7 % 23) as u64);
    check_mxv(MaxMin::<i32>::new(), 4, |j| (j % 9) as i32 - 3);
    assert!(super::super::dispatch_counts().0 > before, "kernels ran");
}

#[test]
fn lor_land_bits_result_is_packed() {
    each_case(|rng, b, _| {
        let u = Vector::from_bits(random_bits(rng, b.ncols(), 2));
        let t = super::mxv(LorLand, b, true, &u, None);
        assert!(matches!(t.repr(), VectorRepr::Bits(_)));
    });
}

#[test]
fn repeat_add_matches_fold() {
    let s = PlusTimes::<f32>::new();
    for n in [1, 2, 3, 10, 1000] {
        for x in [1.0f32, 0.1, 3.5] {
            let want = (1..n).fold(x, |a, _| a + x);
            assert_eq!(repeat_add(&s, x, n), want);
        }
    }
    let s = PlusTimes::<i32>::new();
    for n in [1usize, 5, 1 << 20, (1 << 33) + 7] {
        let want = 7i32.wrapping_mul(n as i32);
        assert_eq!(repeat_add(&s, 7, n), want);
    }
}

fn flags(ta: bool, tb: bool) -> Flags {
    Flags {
        transpose_a: ta,
        transpose_b: tb,
        ..Flags::default()
    }
}

#[test]
fn mxm_reduce_matches_generic() {
    let mut rng = Rng(11);
    for &(n, nnz) in &[(1usize, 1usize), (70, 400), (200, 1500)] {
        let a = random_csr::<i64>(&mut rng, n, n, nnz);
        let l = generic::select_csr(
            (|_: i64, i: usize, j: usize| j < i) as fn(i64, usize, usize) -> bool,
            &a,
        );
        let mcsr = random_csr::<i64>(&mut rng, n, n, nnz);
        for ts in TileSize::FIXED {
            let lb = Matrix::from_csr(l.clone())
                .to_format(crate::Format::B2sr(ts))
                .unwrap();
            let mb = Matrix::from_csr(mcsr.clone())
                .to_format(crate::Format::B2sr(ts))
                .unwrap();
            for (mask, mask_csr) in [(&lb, &l), (&mb, &mcsr)] {
                for (ta, tb) in [(false, true), (false, false), (true, false)] {
                    let m = mask.as_mask().structure();
                    let got = mxm_reduce(PlusPair::<i64>::new(), m, &lb, &lb, flags(ta, tb))
                        .expect("kernel applies")
                        .unwrap();
                    let rm = RowMask {
                        pattern: mask_csr.map(|_| true),
                        complemented: false,
                    };
                    let at = if ta { l.transpose() } else { l.clone() };
                    let bt = if tb { l.clone() } else { l.transpose() };
                    let want = generic::mxm_reduce_csr(PlusPair::<i64>::new(), &rm, &at, &bt);
                    assert_eq!(got, want, "n={n} ts={ts} ta={ta} tb={tb}");
                }
            }
        }
    }
}

#[test]
fn mxm_pattern_matches_generic() {
    let mut rng = Rng(13);
    for &(m, k, n, nnz) in &[
        (1usize, 1usize, 1usize, 1usize),
        (40, 70, 33, 300),
        (150, 150, 150, 700),
    ] {
        let a = random_csr::<bool>(&mut rng, m, k, nnz);
        let b = random_csr::<bool>(&mut rng, k, n, nnz);
        for ts in TileSize::FIXED {
            let ab = Matrix::from_csr(a.clone())
                .to_format(crate::Format::B2sr(ts))
                .unwrap();
            let bb = Matrix::from_csr(b.clone())
                .to_format(crate::Format::B2sr(ts))
                .unwrap();
            let got = mxm_pattern(LorLand, &ab, &bb, Flags::default())
                .expect("kernel applies")
                .unwrap();
            let want = generic::mxm_csr(LorLand, &a, &b, None);
            assert_eq!(*got.as_csr(), want, "ts={ts}");
            // Transposed operands: (B' A')' shape = n x m.
            let got = mxm_pattern(LorLand, &bb, &ab, flags(true, true))
                .expect("kernel applies")
                .unwrap();
            let want = generic::mxm_csr(LorLand, &b.transpose(), &a.transpose(), None);
            assert_eq!(*got.as_csr(), want, "ts={ts} transposed");
        }
    }
}

/// `A ⊕.⊗ B` term by term (the first term starts each row), skipping nothing.
fn plain_mxm_dense<S: Semiring>(s: S, a: &Csr<S::T>, b: &DenseMatrix<S::T>) -> DenseMatrix<S::T> {
    let n = b.ncols();
    let data = (0..a.nrows() * n)
        .map(|e| {
            let (ac, av) = a.row(e / n);
            let terms = ac
                .iter()
                .zip(av)
                .map(|(&k, &x)| s.mul(x, b.get(k as usize, e % n)));
            terms.reduce(|x, y| s.add(x, y)).unwrap_or(s.zero())
        })
        .collect();
    DenseMatrix::from_vec(a.nrows(), n, data).unwrap()
}

#[test]
fn mxm_dense_skipping_dead_rows_is_exact() {
    // Most rows of B are the semiring's zero; A's values include ones whose
    // product with zero is not zero (MAX.TIMES: -2 x -inf = +inf), which must
    // still count. Reused output buffers of another shape are reshaped.
    each_case(|rng, b, csr| {
        let n = 3;
        let live = random_bits(rng, b.ncols(), 5);
        let pick = |zero: f64| {
            let data = (0..b.ncols() * n)
                .map(|i| {
                    if live.get(i / n) {
                        (i % 5) as f64 - 1.5
                    } else {
                        zero
                    }
                })
                .collect();
            DenseMatrix::from_vec(b.ncols(), n, data).unwrap()
        };
        let t: Vec<(usize, usize, f64)> = (0..csr.nrows())
            .flat_map(|i| csr.row(i).0.iter().map(move |&j| (i, j as usize)))
            .map(|(i, j)| (i, j, if (i + j) % 3 == 0 { -2.0 } else { 1.5 }))
            .collect();
        let signed = Csr::from_triplets(csr.nrows(), csr.ncols(), t, |x, _| x).unwrap();
        let mut out = DenseMatrix::filled(1, 1, 7.0);
        let d = pick(0.0);
        generic::mxm_dense_csr_into(PlusTimes::<f64>::new(), &signed, &d, &mut out);
        assert_eq!(out, plain_mxm_dense(PlusTimes::<f64>::new(), &signed, &d));
        let got = mxm_dense(PlusTimes::<f64>::new(), b, 1.5, &d);
        assert_eq!(
            got,
            plain_mxm_dense(PlusTimes::<f64>::new(), &csr.map(|_| 1.5), &d)
        );
        let d = pick(f64::NEG_INFINITY);
        generic::mxm_dense_csr_into(MaxTimes::<f64>::new(), &signed, &d, &mut out);
        assert_eq!(out, plain_mxm_dense(MaxTimes::<f64>::new(), &signed, &d));
        let got = mxm_dense(MaxTimes::<f64>::new(), b, -2.0, &d);
        assert_eq!(
            got,
            plain_mxm_dense(MaxTimes::<f64>::new(), &csr.map(|_| -2.0), &d)
        );
    });
}

#[test]
fn mxm_dense_matches_generic() {
    each_case(|rng, b, csr| {
        let n = 5;
        let data = (0..b.ncols() * n)
            .map(|_| rng.below(100) as f32 * 0.37 - 9.0)
            .collect();
        let d = DenseMatrix::from_vec(b.ncols(), n, data).unwrap();
        let got = mxm_dense(PlusTimes::<f32>::new(), b, 1.5, &d);
        let want = generic::mxm_dense_csr(PlusTimes::<f32>::new(), &csr.map(|_| 1.5f32), &d);
        assert_eq!(got, want);
        let got = mxm_dense(MinPlus::<f32>::new(), b, 1.5, &d);
        let want = generic::mxm_dense_csr(MinPlus::<f32>::new(), &csr.map(|_| 1.5f32), &d);
        assert_eq!(got, want);
        // A frontier-shaped B: most rows all zero (PLUS) or all infinite (MIN), skipped.
        let live = random_bits(rng, b.ncols(), 4);
        let pick = |zero: f32| {
            let data = (0..b.ncols() * n)
                .map(|i| {
                    if live.get(i / n) {
                        (i % 7) as f32 * 0.5
                    } else {
                        zero
                    }
                })
                .collect();
            DenseMatrix::from_vec(b.ncols(), n, data).unwrap()
        };
        let (dp, dm) = (pick(0.0), pick(f32::INFINITY));
        let got = mxm_dense(PlusTimes::<f32>::new(), b, 1.5, &dp);
        let want = generic::mxm_dense_csr(PlusTimes::<f32>::new(), &csr.map(|_| 1.5f32), &dp);
        assert_eq!(got, want);
        let got = mxm_dense(MinPlus::<f32>::new(), b, 1.5, &dm);
        let want = generic::mxm_dense_csr(MinPlus::<f32>::new(), &csr.map(|_| 1.5f32), &dm);
        assert_eq!(got, want);
    });
}

#[test]
fn csr_bits_kernel_matches_generic() {
    each_case(|rng, b, csr| {
        let u = Vector::from_bits(random_bits(rng, b.ncols(), 3));
        for mask in [None, Some(random_bits(rng, b.nrows(), 2))] {
            let got = mxv_csr_bits::<LorLand>(csr, &u, mask.as_ref()).expect("applies");
            same(&got, &generic::mxv_csr(LorLand, csr, &u, mask.as_ref()));
        }
        // False values: present entries that are false (some, then all).
        // `csr` (all true) has answered `iso_value` above, so this also checks
        // that `values_mut` forgets it.
        for falsy_at in [|k: usize| k.is_multiple_of(3), |_: usize| true] {
            let mut falsy = csr.clone();
            for (k, v) in falsy.values_mut().iter_mut().enumerate() {
                *v = !falsy_at(k);
            }
            let got = mxv_csr_bits::<LorLand>(&falsy, &u, None).expect("applies");
            same(&got, &generic::mxv_csr(LorLand, &falsy, &u, None));
            let got = mxv_csr_bits::<AnyPair<bool>>(&falsy, &u, None).expect("applies");
            same(
                &got,
                &generic::mxv_csr(AnyPair::<bool>::new(), &falsy, &u, None),
            );
        }
    });
}

/// A BFS step through the public API (`w<!visited, replace> = A' frontier`,
/// packed bits in and out): the B2SR push kernel against the generic path on
/// the same pattern stored as CSR with a user semiring (always generic).
#[test]
fn bfs_step_through_ops_matches_generic() {
    use crate::algebra::{Land, Lor, SemiringFrom};
    use crate::{ops, Cpu, Desc, Format};
    let cpu = Cpu::new();
    let mut rng = Rng(17);
    let csr = random_csr::<bool>(&mut rng, 300, 300, 1500);
    let user = SemiringFrom::<bool, _, _>::new(Lor, Land);
    for ts in TileSize::FIXED {
        let a = Matrix::from_csr(csr.clone())
            .to_format(Format::B2sr(ts))
            .unwrap();
        let ac = Matrix::from_csr(csr.clone());
        let frontier = Vector::from_bits(random_bits(&mut rng, 300, 20));
        let visited = Vector::<bool>::from_bits(random_bits(&mut rng, 300, 4));
        let d = Desc::new()
            .mask(visited.as_mask().structure().complement())
            .replace()
            .transpose_a();
        let before = super::super::dispatch_counts().0;
        let mut w = Vector::<bool>::from_bits(random_bits(&mut rng, 300, 2));
        let mut wg = w.clone();
        ops::mxv(&cpu, &mut w, LorLand, &a, &frontier, &d).unwrap();
        ops::mxv(&cpu, &mut wg, user, &ac, &frontier, &d).unwrap();
        assert!(
            super::super::dispatch_counts().0 > before,
            "specialised tier ran"
        );
        assert!(
            matches!(w.repr(), VectorRepr::Bits(_)),
            "frontier stays packed"
        );
        same(&w, &wg);
    }
}
