//! Hand-sized regressions for bugs the property suites found (each also
//! covered there): the ANY monoid has no identity, so reductions must combine
//! present values only and use the identity only when there are none; an
//! iso NaN is one value.

use bitgraphblas::algebra::{Any, AnyPair};
use bitgraphblas::{ops, Cpu, DenseMatrix, Desc, Format, Matrix, TileSize, Vector};

#[test]
fn any_reductions_return_a_present_value() {
    let cpu = Cpu::new();
    // any(identity = 0, 3) was 0.
    let u = Vector::from_entries(4, vec![(1, 3i32), (2, 5)]).unwrap();
    let r = ops::reduce(&cpu, Any, &u).unwrap();
    assert!(r == 3 || r == 5, "reduce(any) = {r}");
    assert_eq!(ops::reduce(&cpu, Any, &Vector::<i32>::empty(4)).unwrap(), 0);
    let a = Matrix::from_triplets(3, 3, vec![(0, 1, 7u32), (2, 2, 7)]).unwrap();
    for f in [
        Format::Csr,
        Format::B2sr(TileSize::T4),
        Format::B2sr(TileSize::T64),
    ] {
        let af = a.to_format(f).unwrap();
        assert_eq!(ops::reduce_matrix(&cpu, Any, &af).unwrap(), 7, "{f:?}");
        // ANY.PAIR: a row with an entry gives 1 (was any(0, 1) = 0).
        let b = DenseMatrix::filled(3, 2, 9u32);
        let mut c = DenseMatrix::filled(3, 2, 4u32);
        ops::mxm_dense(&cpu, &mut c, AnyPair::<u32>::new(), &af, &b, &Desc::new()).unwrap();
        assert_eq!(c.as_slice(), &[1, 1, 0, 0, 1, 1], "{f:?}");
        let d = Desc::new().mask(af.as_mask().structure());
        assert_eq!(
            ops::mxm_reduce(&cpu, AnyPair::<u32>::new(), &af, &af, &d).unwrap(),
            1,
            "{f:?}"
        );
    }
}

/// An iso-valued matrix whose value is NaN is B2SR-able: every entry holds the
/// same value, though `NaN != NaN` (the iso check used `==` and refused it).
#[test]
fn iso_nan_matrix_converts_to_b2sr() {
    let a = Matrix::from_triplets(5, 5, vec![(0, 1, f64::NAN), (3, 4, f64::NAN)]).unwrap();
    assert!(a.iso_value().is_some_and(f64::is_nan));
    for f in [Format::B2sr(TileSize::T4), Format::Auto] {
        let b = a.to_format(f).unwrap();
        let back = b.as_csr();
        assert_eq!(back.col_idx(), a.as_csr().col_idx());
        assert!(back.values().iter().all(|v| v.is_nan()));
    }
    let p = a.to_pattern(Format::B2sr(TileSize::T8), f64::NAN).unwrap();
    assert_eq!(p.format(), Format::B2sr(TileSize::T8));
    // NaN and a number are two values: no B2SR.
    let mixed = Matrix::from_triplets(2, 2, vec![(0, 0, f64::NAN), (1, 1, 1.0)]).unwrap();
    assert!(mixed.to_format(Format::B2sr(TileSize::T4)).is_err());
}
