//! The GraphBLAS C API calls written on other entry points, on the CPU
//! backend against small dense references: building with a duplicate
//! operator, row and column extract and assign, scalar assign into a matrix,
//! sub-assign (vector, matrix, scalar), positional apply (ROWINDEX, COLINDEX,
//! DIAGINDEX with thunks), the COLLE/COLGT selects and reductions to a scalar
//! that may be empty. Every mask kind, accumulator (`Minus`) and replace;
//! inputs in every matrix format (CSR, B2SR at each tile size) and vector
//! format; empty and ragged shapes; out-of-range and repeated indices (an
//! `Err` that leaves the output unchanged).

mod common;

use std::collections::BTreeMap;

use bitgraphblas::algebra::{BinaryOp, First, Max, Minus, Plus, Second};
use bitgraphblas::{Cpu, Matrix, Vector};
use common::gen::{below, FORMATS};
use common::props_std::*;
use common::{qc, verdict, TestScalar};
use quickcheck::{Arbitrary, Gen, TestResult};

const TESTS: u64 = 200;

/// One quickcheck test per line: `name: Case<T> => property(&Cpu, &case)`.
macro_rules! props {
    ($($name:ident: $case:ident<$t:ty> => $prop:ident;)*) => {$(
        #[test]
        fn $name() {
            fn p(c: $case<$t>) -> TestResult {
                verdict($prop::<Cpu, $t>(&Cpu::new(), &c).map(|_| ()))
            }
            qc(TESTS).quickcheck(p as fn($case<$t>) -> TestResult);
        }
    )*};
}

props! {
    assign_line_i32: LineCase<i32> => prop_assign_line;
    assign_line_f64: LineCase<f64> => prop_assign_line;
    assign_line_bool: LineCase<bool> => prop_assign_line;
    extract_col_i32: ExtractColCase<i32> => prop_extract_col;
    extract_col_f32: ExtractColCase<f32> => prop_extract_col;
    extract_col_bool: ExtractColCase<bool> => prop_extract_col;
    scalar_matrix_i64: ScalarCase<i64> => prop_scalar_matrix;
    scalar_matrix_f64: ScalarCase<f64> => prop_scalar_matrix;
    scalar_matrix_bool: ScalarCase<bool> => prop_scalar_matrix;
    subassign_matrix_i32: SubCase<i32> => prop_subassign_matrix;
    subassign_matrix_f32: SubCase<f32> => prop_subassign_matrix;
    subassign_matrix_bool: SubCase<bool> => prop_subassign_matrix;
    subassign_vector_u32: SubVecCase<u32> => prop_subassign_vector;
    subassign_vector_f64: SubVecCase<f64> => prop_subassign_vector;
    subassign_vector_bool: SubVecCase<bool> => prop_subassign_vector;
    apply_index_i32: PosCase<i32> => prop_apply_index;
    apply_index_u32: PosCase<u32> => prop_apply_index;
    apply_index_i64: PosCase<i64> => prop_apply_index;
    apply_index_f64: PosCase<f64> => prop_apply_index;
    apply_index_bool: PosCase<bool> => prop_apply_index;
    select_col_i32: PosCase<i32> => prop_select_col;
    select_col_f64: PosCase<f64> => prop_select_col;
    reduce_scalar_i32: ScalarReduceCase<i32> => prop_reduce_scalar;
    reduce_scalar_u64: ScalarReduceCase<u64> => prop_reduce_scalar;
    reduce_scalar_f64: ScalarReduceCase<f64> => prop_reduce_scalar;
    reduce_scalar_bool: ScalarReduceCase<bool> => prop_reduce_scalar;
}

#[test]
fn bad_inputs_change_nothing() {
    for f in FORMATS {
        if let Err(e) = prop_bad_inputs(&Cpu::new(), f) {
            panic!("{e}");
        }
    }
}

// ---- building with a duplicate operator --------------------------------------

/// Triplets on a small grid (so places repeat), sometimes one out of range.
#[derive(Clone, Debug)]
struct BuildCase<T> {
    nrows: usize,
    ncols: usize,
    triplets: Vec<(usize, usize, T)>,
    pick: usize,
}

impl<T: TestScalar> Arbitrary for BuildCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (nrows, ncols) = (below(g, 5), below(g, 5));
        let n = below(g, 12);
        let mut triplets: Vec<_> = (0..n)
            .filter(|_| nrows > 0 && ncols > 0)
            .map(|_| (below(g, nrows), below(g, ncols), T::draw(g)))
            .collect();
        if below(g, 6) == 0 {
            let at = below(g, triplets.len() + 1);
            let bad = if bool::arbitrary(g) {
                (nrows, 0, T::draw(g))
            } else {
                (0, ncols + below(g, 3), T::draw(g))
            };
            triplets.insert(at, bad);
        }
        BuildCase {
            nrows,
            ncols,
            triplets,
            pick: below(g, 4),
        }
    }
}

/// Runs `$body` with `$op` bound to the operator `pick` names (`Minus` and
/// `First` / `Second` see the input order).
macro_rules! with_dup {
    ($pick:expr, |$op:ident| $body:expr) => {
        match $pick % 4 {
            0 => {
                let $op = Minus;
                $body
            }
            1 => {
                let $op = First;
                $body
            }
            2 => {
                let $op = Second;
                $body
            }
            _ => {
                let $op = Plus;
                $body
            }
        }
    };
}

/// The left fold of each place's values in input order.
fn fold_places<K: Ord, T: TestScalar>(
    items: impl Iterator<Item = (K, T)>,
    op: impl BinaryOp<T>,
) -> BTreeMap<K, T> {
    let mut m = BTreeMap::new();
    for (k, v) in items {
        m.entry(k)
            .and_modify(|x: &mut T| *x = op.apply(*x, v))
            .or_insert(v);
    }
    m
}

fn prop_build<T: TestScalar>(c: &BuildCase<T>) -> Result<(), String> {
    let bad = (c.triplets.iter()).any(|&(i, j, _)| i >= c.nrows || j >= c.ncols);
    let places = fold_places(c.triplets.iter().map(|&(i, j, v)| ((i, j), v)), First);
    let repeated = places.len() < c.triplets.len();
    // without a dup operator: a repeat or an index out of range is an error
    let plain = Matrix::from_triplets(c.nrows, c.ncols, c.triplets.clone());
    if plain.is_ok() == (bad || repeated) {
        return Err(format!(
            "from_triplets: {plain:?} (bad {bad}, repeated {repeated})"
        ));
    }
    with_dup!(c.pick, |op| {
        let got = Matrix::from_triplets_dup(c.nrows, c.ncols, c.triplets.clone(), op);
        match (bad, got) {
            (true, Ok(m)) => return Err(format!("from_triplets_dup out of range: Ok({m:?})")),
            (true, Err(_)) => {}
            (false, Err(e)) => return Err(format!("from_triplets_dup: {e}")),
            (false, Ok(m)) => {
                m.validate().map_err(|e| e.to_string())?;
                let want = fold_places(c.triplets.iter().map(|&(i, j, v)| ((i, j), v)), op);
                let got: Vec<_> = (0..c.nrows)
                    .flat_map(|i| (0..c.ncols).map(move |j| (i, j)))
                    .filter_map(|(i, j)| m.get(i, j).map(|v| ((i, j), v)))
                    .collect();
                if got != want.into_iter().collect::<Vec<_>>() {
                    return Err(format!("from_triplets_dup {op:?}: got {got:?}"));
                }
            }
        }
        // the vector form, on row-major places
        let len = c.nrows * c.ncols;
        let entries: Vec<_> = c
            .triplets
            .iter()
            .map(|&(i, j, v)| {
                (
                    if bad && (i >= c.nrows || j >= c.ncols) {
                        len
                    } else {
                        i * c.ncols + j
                    },
                    v,
                )
            })
            .collect();
        let plain = Vector::from_entries(len, entries.clone());
        if plain.is_ok() == (bad || repeated) {
            return Err(format!("from_entries: {plain:?}"));
        }
        match (bad, Vector::from_entries_dup(len, entries.clone(), op)) {
            (true, Ok(v)) => return Err(format!("from_entries_dup out of range: Ok({v:?})")),
            (true, Err(_)) => {}
            (false, Err(e)) => return Err(format!("from_entries_dup: {e}")),
            (false, Ok(v)) => {
                v.validate().map_err(|e| e.to_string())?;
                let want: Vec<_> = fold_places(entries.into_iter(), op).into_iter().collect();
                if v.entries() != want {
                    return Err(format!("from_entries_dup {op:?}: got {:?}", v.entries()));
                }
            }
        }
        Ok(())
    })
}

#[test]
fn build_with_dup_i32() {
    fn p(c: BuildCase<i32>) -> TestResult {
        verdict(prop_build(&c))
    }
    qc(500).quickcheck(p as fn(BuildCase<i32>) -> TestResult);
}

#[test]
fn build_with_dup_f64() {
    fn p(c: BuildCase<f64>) -> TestResult {
        verdict(prop_build(&c))
    }
    qc(500).quickcheck(p as fn(BuildCase<f64>) -> TestResult);
}

#[test]
fn build_dup_folds_in_input_order() {
    // (10 - 3) - 2, not 10 - (3 - 2) nor any other order
    let t = vec![(1, 1, 10i32), (0, 0, 1), (1, 1, 3), (1, 1, 2)];
    let a = Matrix::from_triplets_dup(2, 2, t, Minus).unwrap();
    assert_eq!((a.get(1, 1), a.get(0, 0), a.nvals()), (Some(5), Some(1), 2));
    let v = Vector::from_entries_dup(3, vec![(2, 1.0f64), (2, 7.0), (0, 4.0)], Max).unwrap();
    assert_eq!(v.entries(), vec![(0, 4.0), (2, 7.0)]);
    assert!(Vector::from_entries_dup(3, vec![(3, 1.0f64)], Max).is_err());
    assert!(Vector::from_entries(3, vec![(1, 1.0f64), (1, 2.0)]).is_err());
    assert!(Matrix::from_triplets_dup(0, 0, Vec::<(usize, usize, f32)>::new(), Plus).is_ok());
}
