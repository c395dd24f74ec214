//! Vertex reorderings: every order is a bijection, permuting is undone by the
//! inverse, products commute with the renumbering, RCM wins on shuffled
//! bands, degree order is non-increasing, bad input is an `Err`.

use bitgraphblas::algebra::PlusTimes;
use bitgraphblas::reorder::{Order, Permutation};
use bitgraphblas::storage::Csr;
use bitgraphblas::{ops, Cpu, Desc, Format, Matrix, TileSize, Vector};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

fn below(g: &mut Gen, n: usize) -> usize {
    (u64::arbitrary(g) % n as u64) as usize
}

/// A random square graph: empty, 1x1, isolated vertices, self loops,
/// several components, symmetric or not, integer values.
#[derive(Clone, Debug)]
struct Graph {
    n: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl Arbitrary for Graph {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = match below(g, 8) {
            0 => below(g, 2),
            1 => 1,
            _ => 1 + below(g, 90),
        };
        let symmetric = bool::arbitrary(g);
        let m = if n == 0 { 0 } else { below(g, 4 * n + 1) };
        // Sometimes keep the edges inside a few separate blocks (components).
        let blocks = 1 + below(g, 4);
        let mut e = std::collections::BTreeMap::new();
        for _ in 0..m {
            let i = below(g, n);
            let j = if bool::arbitrary(g) && n > blocks {
                let b = i * blocks / n;
                let lo = b * n / blocks;
                let hi = ((b + 1) * n / blocks).max(lo + 1);
                lo + below(g, hi - lo)
            } else {
                below(g, n)
            };
            let v = (1 + below(g, 9)) as f64;
            e.insert((i, j), v);
            if symmetric {
                e.insert((j, i), v);
            }
        }
        Graph {
            n,
            entries: e.into_iter().map(|((i, j), v)| (i, j, v)).collect(),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let me = self.clone();
        if me.entries.is_empty() {
            return Box::new(std::iter::empty());
        }
        let half = Graph {
            n: me.n,
            entries: me.entries[..me.entries.len() / 2].to_vec(),
        };
        Box::new(std::iter::once(half))
    }
}

impl Graph {
    fn matrix(&self) -> Matrix<f64> {
        Matrix::from_triplets(self.n, self.n, self.entries.clone()).unwrap()
    }
}

fn qc(tests: u64) -> QuickCheck {
    QuickCheck::new().tests(tests)
}

fn is_bijection(p: &Permutation, n: usize) -> bool {
    let mut seen = vec![false; n];
    p.len() == n
        && p.old_to_new().iter().all(|&v| {
            let v = v as usize;
            v < n && !std::mem::replace(&mut seen[v], true)
        })
        && (0..n).all(|i| p.new_to_old()[p.old_to_new()[i] as usize] as usize == i)
}

#[test]
fn every_order_is_a_bijection_and_the_inverse_undoes_it() {
    fn prop(g: Graph) -> TestResult {
        let a = g.matrix();
        for o in Order::ALL {
            let p = o.compute(&a.as_csr()).unwrap();
            if !is_bijection(&p, g.n) {
                return TestResult::error(format!("{o}: not a bijection: {p:?}"));
            }
            let b = p.permute_symmetric(&a).unwrap();
            b.validate().unwrap();
            if b.nvals() != a.nvals() {
                return TestResult::error(format!("{o}: entries lost"));
            }
            for &(i, j, v) in &g.entries {
                let (pi, pj) = (p.vertex_to_new(i).unwrap(), p.vertex_to_new(j).unwrap());
                if b.get(pi, pj) != Some(v) {
                    return TestResult::error(format!("{o}: ({i}, {j}) did not move"));
                }
            }
            if p.inverse().permute_symmetric(&b).unwrap() != a {
                return TestResult::error(format!("{o}: the inverse does not undo it"));
            }
            // B2SR stays B2SR at the same size.
            let t = a.to_pattern(Format::B2sr(TileSize::T4), 1.0).unwrap();
            let tb = p.permute_symmetric(&t).unwrap();
            if tb.format() != Format::B2sr(TileSize::T4)
                || tb.to_sprs() != b.to_pattern(Format::Csr, 1.0).unwrap().to_sprs()
            {
                return TestResult::error(format!("{o}: B2SR permutes differently"));
            }
        }
        TestResult::passed()
    }
    qc(300).quickcheck(prop as fn(Graph) -> TestResult);
}

#[test]
fn mxv_commutes_with_the_renumbering() {
    fn prop(g: Graph, seed: u32) -> TestResult {
        let a = g.matrix();
        let cpu = Cpu::new();
        let u = Vector::from_dense(
            (0..g.n)
                .map(|i| ((i as u32 ^ seed) % 7) as f64 - 3.0)
                .collect(),
        );
        let mut w = Vector::empty(g.n);
        ops::mxv(&cpu, &mut w, PlusTimes::<f64>::new(), &a, &u, &Desc::new()).unwrap();
        for o in Order::ALL {
            let p = o.compute(&a.as_csr()).unwrap();
            let b = p.permute_symmetric(&a).unwrap();
            let up = p.to_permuted(&u).unwrap();
            let mut wp = Vector::empty(g.n);
            ops::mxv(
                &cpu,
                &mut wp,
                PlusTimes::<f64>::new(),
                &b,
                &up,
                &Desc::new(),
            )
            .unwrap();
            let back = p.to_original(&wp).unwrap();
            if back
                .to_vec(f64::NAN)
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
                != w.to_vec(f64::NAN)
                    .iter()
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            {
                return TestResult::error(format!("{o}: {back:?} != {w:?}"));
            }
            let dense = wp.to_vec(f64::NAN);
            let sl = p.slice_to_original(&dense).unwrap();
            if sl.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                != w.to_vec(f64::NAN)
                    .iter()
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            {
                return TestResult::error(format!("{o}: slice_to_original differs"));
            }
        }
        TestResult::passed()
    }
    qc(200).quickcheck(prop as fn(Graph, u32) -> TestResult);
}

#[test]
fn degree_order_is_non_increasing() {
    fn prop(g: Graph) -> TestResult {
        let a = g.matrix();
        let n = g.n;
        // degree in the symmetrised graph without self loops
        let mut nb = vec![std::collections::BTreeSet::new(); n];
        for &(i, j, _) in &g.entries {
            if i != j {
                nb[i].insert(j);
                nb[j].insert(i);
            }
        }
        let p = Order::Degree.compute(&a.as_csr()).unwrap();
        let q = p.new_to_old();
        for w in q.windows(2) {
            let (x, y) = (w[0] as usize, w[1] as usize);
            let (dx, dy) = (nb[x].len(), nb[y].len());
            if dx < dy || (dx == dy && x > y) {
                return TestResult::error(format!("{x} (degree {dx}) before {y} (degree {dy})"));
            }
        }
        TestResult::passed()
    }
    qc(300).quickcheck(prop as fn(Graph) -> TestResult);
}

/// Largest `|i - j|` over the entries.
fn bandwidth(a: &Csr<f64>) -> usize {
    (0..a.nrows())
        .flat_map(|i| {
            a.row(i)
                .0
                .iter()
                .map(move |&j| (j as i64 - i as i64).unsigned_abs())
        })
        .max()
        .unwrap_or(0) as usize
}

/// A deterministic shuffle of `0..n`.
fn shuffle(n: usize, seed: u64) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    let mut s = seed;
    for i in (1..n).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        p.swap(i, (s >> 33) as usize % (i + 1));
    }
    p
}

#[test]
fn rcm_narrows_a_shuffled_path_and_grid() {
    for seed in 1..6 {
        // a path of 200 vertices, then a 15 x 15 grid, each shuffled
        let path: Vec<(usize, usize)> = (0..199).map(|i| (i, i + 1)).collect();
        let k = 15;
        let mut grid = Vec::new();
        for r in 0..k {
            for c in 0..k {
                if c + 1 < k {
                    grid.push((r * k + c, r * k + c + 1));
                }
                if r + 1 < k {
                    grid.push((r * k + c, (r + 1) * k + c));
                }
            }
        }
        for (n, edges, best) in [(200, path, 1), (k * k, grid, k)] {
            let s = shuffle(n, seed);
            let t: Vec<_> = edges
                .iter()
                .flat_map(|&(i, j)| [(s[i], s[j], 1.0), (s[j], s[i], 1.0)])
                .collect();
            let a = Matrix::from_triplets(n, n, t).unwrap();
            let before = bandwidth(&a.as_csr());
            let p = Order::Rcm.compute(&a.as_csr()).unwrap();
            let after = bandwidth(&p.permute_symmetric(&a).unwrap().as_csr());
            assert!(after <= before, "seed {seed}: {after} > {before}");
            assert!(after <= best + 1, "seed {seed}, n {n}: bandwidth {after}");
        }
    }
}

#[test]
fn bad_input_is_an_err() {
    let r = Csr::<f64>::empty(3, 4);
    for o in Order::ALL {
        assert!(o.compute(&r).is_err());
    }
    assert!(Permutation::from_old_to_new(vec![0, 0]).is_err());
    assert!(Permutation::from_old_to_new(vec![1, 2]).is_err());
    assert!(Permutation::from_new_to_old(vec![3, 0, 1]).is_err());
    let p = Permutation::from_old_to_new(vec![1, 0, 2]).unwrap();
    let a = Matrix::<f64>::empty(2, 2);
    assert!(p.permute_symmetric(&a).is_err());
    assert!(p.to_original(&Vector::<f64>::empty(2)).is_err());
    assert!(p.slice_to_original(&[1, 2]).is_err());
    assert!(p.vertex_to_new(3).is_err());
    assert!("bogus".parse::<Order>().is_err());
    for o in Order::ALL {
        assert_eq!(o.to_string().parse::<Order>().unwrap(), o);
    }
    // empty and 1x1
    for n in [0, 1] {
        let a = Matrix::<f64>::empty(n, n);
        for o in Order::ALL {
            assert_eq!(o.compute(&a.as_csr()).unwrap().len(), n);
        }
    }
}

#[test]
fn locality_raises_fill_on_a_shuffled_community_graph() {
    use bitgraphblas::storage::b2sr::Profile;
    let g = bitgraphblas::generate::sbm::<f64>(2000, 40, 20_000, 0.9, 3);
    let s = Permutation::from_new_to_old(shuffle(2000, 9)).unwrap();
    let a = s.permute_symmetric(&g).unwrap();
    let fill = |m: &Matrix<f64>| {
        Profile::sample_with(&m.as_csr(), usize::MAX, 1)
            .estimate(TileSize::T8)
            .unwrap()
            .fill
    };
    let p = Order::Locality.compute(&a.as_csr()).unwrap();
    let (before, after) = (fill(&a), fill(&p.permute_symmetric(&a).unwrap()));
    assert!(after > 2.0 * before, "fill {before} -> {after}");
}
