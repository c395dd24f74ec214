//! Every failure a caller can cause comes back as `Err` and leaves the output
//! unchanged: dimension mismatches for every operation, indices out of range,
//! repeated assign indices, masks of the wrong shape, invalid construction.

use bitgraphblas::algebra::{Ainv, LorLand, Plus, PlusTimes, Times};
use bitgraphblas::storage::Csr;
use bitgraphblas::{
    ops, Cpu, DenseMatrix, Desc, Error, Format, IndexOp, Matrix, TileSize, Vector, VectorFormat,
};

/// Runs `$call`, expects `Err($pat)`, and checks `$out` did not change.
macro_rules! fails {
    ($pat:pat, $out:expr, $call:expr) => {{
        let before = $out.clone();
        let r = $call;
        assert!(
            matches!(r, Err($pat)),
            "{}: expected {}, got {:?}",
            stringify!($call),
            stringify!($pat),
            r
        );
        assert_eq!(
            $out,
            before,
            "{}: output changed on error",
            stringify!($call)
        );
    }};
}
macro_rules! dims {
    ($out:expr, $call:expr) => {
        fails!(Error::DimensionMismatch { .. }, $out, $call)
    };
}

fn mat(r: usize, c: usize) -> Matrix<f64> {
    let t = (0..r.min(c)).map(|i| (i, i, 1.0 + i as f64)).collect();
    Matrix::from_triplets(r, c, t).unwrap()
}
fn vecf(n: usize) -> Vector<f64> {
    Vector::from_dense((0..n).map(|i| i as f64).collect())
}

#[test]
fn semiring_ops_dimension_mismatch() {
    let cpu = Cpu::new();
    let s = PlusTimes::<f64>::new();
    let a = mat(3, 4);
    let mut w = vecf(3);
    dims!(w, ops::mxv(&cpu, &mut w, s, &a, &vecf(5), &Desc::new()));
    dims!(w, ops::mxv(&cpu, &mut w, s, &a, &vecf(3), &Desc::new()));
    let mut w4 = vecf(4);
    dims!(w4, ops::mxv(&cpu, &mut w4, s, &a, &vecf(4), &Desc::new()));
    dims!(
        w4,
        ops::mxv(&cpu, &mut w4, s, &a, &vecf(4), &Desc::new().transpose_a())
    );
    let m = vecf(2);
    dims!(
        w,
        ops::mxv(
            &cpu,
            &mut w,
            s,
            &a,
            &vecf(4),
            &Desc::new().mask(m.as_mask())
        )
    );
    dims!(w4, ops::vxm(&cpu, &mut w4, s, &vecf(4), &a, &Desc::new()));
    dims!(w, ops::vxm(&cpu, &mut w, s, &vecf(3), &a, &Desc::new()));
    dims!(
        w4,
        ops::vxm(
            &cpu,
            &mut w4,
            s,
            &vecf(3),
            &a,
            &Desc::new().mask(m.as_mask().structure())
        )
    );
    // B2SR inputs go through the same checks.
    let ab = mat(3, 4)
        .to_pattern(Format::B2sr(TileSize::T8), 1.0)
        .unwrap();
    dims!(w, ops::mxv(&cpu, &mut w, s, &ab, &vecf(5), &Desc::new()));

    let mut c = mat(3, 2);
    dims!(c, ops::mxm(&cpu, &mut c, s, &a, &mat(5, 2), &Desc::new()));
    dims!(c, ops::mxm(&cpu, &mut c, s, &a, &mat(4, 3), &Desc::new()));
    dims!(
        c,
        ops::mxm(&cpu, &mut c, s, &a, &mat(4, 2), &Desc::new().transpose_b())
    );
    let mm = mat(2, 3);
    dims!(
        c,
        ops::mxm(
            &cpu,
            &mut c,
            s,
            &a,
            &mat(4, 2),
            &Desc::new().mask(mm.as_mask())
        )
    );
    let mut cb = mat(3, 2)
        .to_pattern(Format::B2sr(TileSize::T4), 1.0)
        .unwrap();
    dims!(
        cb,
        ops::mxm(&cpu, &mut cb, s, &ab, &mat(5, 2), &Desc::new())
    );

    let mk = mat(3, 2);
    assert!(matches!(
        ops::mxm_reduce(&cpu, s, &a, &mat(5, 2), &Desc::new().mask(mk.as_mask())),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        ops::mxm_reduce(&cpu, s, &a, &mat(4, 2), &Desc::new().mask(mm.as_mask())),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        ops::mxm_reduce(&cpu, s, &a, &mat(4, 2), &Desc::new()),
        Err(Error::InvalidArgument { .. })
    ));

    let mut cd = DenseMatrix::filled(3, 2, 7.0);
    let bd = DenseMatrix::filled(5, 2, 1.0);
    dims!(cd, ops::mxm_dense(&cpu, &mut cd, s, &a, &bd, &Desc::new()));
    let bd = DenseMatrix::filled(4, 3, 1.0);
    dims!(cd, ops::mxm_dense(&cpu, &mut cd, s, &a, &bd, &Desc::new()));
    dims!(
        cd,
        ops::mxm_dense(
            &cpu,
            &mut cd,
            s,
            &a,
            &DenseMatrix::filled(4, 2, 1.0),
            &Desc::new().transpose_a()
        )
    );

    // LorLand on bool, the BFS shapes.
    let g = Matrix::from_triplets(4, 4, vec![(0, 1, true)]).unwrap();
    let mut next = Vector::<bool>::empty(5);
    dims!(
        next,
        ops::vxm(
            &cpu,
            &mut next,
            LorLand,
            &Vector::empty(4),
            &g,
            &Desc::new()
        )
    );
}

#[test]
fn elementwise_and_structural_dimension_mismatch() {
    let cpu = Cpu::new();
    let mut w = vecf(3);
    dims!(
        w,
        ops::ewise_add(&cpu, &mut w, Plus, &vecf(3), &vecf(4), &Desc::new())
    );
    dims!(
        w,
        ops::ewise_mult(&cpu, &mut w, Plus, &vecf(4), &vecf(4), &Desc::new())
    );
    dims!(
        w,
        ops::ewise_union(
            &cpu,
            &mut w,
            Plus,
            &vecf(3),
            0.0,
            &vecf(2),
            0.0,
            &Desc::new()
        )
    );
    let m = vecf(4);
    dims!(
        w,
        ops::ewise_add(
            &cpu,
            &mut w,
            Plus,
            &vecf(3),
            &vecf(3),
            &Desc::new().mask(m.as_mask())
        )
    );
    dims!(w, ops::apply(&cpu, &mut w, Ainv, &vecf(4), &Desc::new()));
    dims!(
        w,
        ops::apply(&cpu, &mut w, Ainv, &vecf(3), &Desc::new().mask(m.as_mask()))
    );
    dims!(
        w,
        ops::select(&cpu, &mut w, IndexOp::ValueGt(1.0), &vecf(2), &Desc::new())
    );
    dims!(
        w,
        ops::reduce_rows(&cpu, &mut w, Plus, &mat(4, 3), &Desc::new())
    );
    dims!(
        w,
        ops::reduce_rows(&cpu, &mut w, Plus, &mat(3, 4), &Desc::new().transpose_a())
    );
    dims!(
        w,
        ops::reduce_rows(
            &cpu,
            &mut w,
            Plus,
            &mat(3, 4),
            &Desc::new().mask(m.as_mask())
        )
    );
    dims!(
        w,
        ops::extract(&cpu, &mut w, &vecf(9), &[0, 1], &Desc::new())
    );
    dims!(
        w,
        ops::assign(&cpu, &mut w, &vecf(3), &[0, 1], &Desc::new())
    );
    dims!(
        w,
        ops::assign_scalar(&cpu, &mut w, 1.0, None, &Desc::new().mask(m.as_mask()))
    );

    let mut c = mat(3, 4);
    dims!(
        c,
        ops::ewise_add_matrix(&cpu, &mut c, Plus, &mat(3, 4), &mat(4, 3), &Desc::new())
    );
    dims!(
        c,
        ops::ewise_mult_matrix(
            &cpu,
            &mut c,
            Times,
            &mat(3, 4),
            &mat(3, 4),
            &Desc::new().transpose_a()
        )
    );
    dims!(
        c,
        ops::ewise_union_matrix(
            &cpu,
            &mut c,
            Plus,
            &mat(3, 5),
            0.0,
            &mat(3, 5),
            0.0,
            &Desc::new()
        )
    );
    let mm = mat(4, 3);
    dims!(
        c,
        ops::ewise_add_matrix(
            &cpu,
            &mut c,
            Plus,
            &mat(3, 4),
            &mat(3, 4),
            &Desc::new().mask(mm.as_mask())
        )
    );
    dims!(
        c,
        ops::apply_matrix(&cpu, &mut c, Ainv, &mat(3, 4), &Desc::new().transpose_a())
    );
    dims!(
        c,
        ops::select_matrix(&cpu, &mut c, IndexOp::Tril(0), &mat(4, 4), &Desc::new())
    );
    dims!(
        c,
        ops::extract_matrix(
            &cpu,
            &mut c,
            &mat(9, 9),
            &[0, 1],
            &[0, 1, 2, 3],
            &Desc::new()
        )
    );
    dims!(
        c,
        ops::assign_matrix(&cpu, &mut c, &mat(2, 2), &[0, 1], &[0, 1, 2], &Desc::new())
    );
    dims!(
        c,
        ops::assign_matrix(
            &cpu,
            &mut c,
            &mat(2, 3),
            &[0, 1],
            &[0, 1, 2],
            &Desc::new().transpose_a()
        )
    );
    dims!(c, ops::transpose(&cpu, &mut c, &mat(3, 4), &Desc::new()));
    dims!(
        c,
        ops::transpose(&cpu, &mut c, &mat(4, 3), &Desc::new().transpose_a())
    );
    dims!(
        c,
        ops::transpose(&cpu, &mut c, &mat(4, 3), &Desc::new().mask(mm.as_mask()))
    );
    dims!(
        c,
        ops::scale_rows(&cpu, &mut c, Times, &vecf(4), &mat(3, 4))
    );
    dims!(
        c,
        ops::scale_cols(&cpu, &mut c, Times, &mat(3, 4), &vecf(3))
    );
    dims!(
        c,
        ops::scale_rows(&cpu, &mut c, Times, &vecf(4), &mat(4, 3))
    );
    let mut cd = DenseMatrix::filled(3, 2, 7.0);
    dims!(
        cd,
        ops::scale_dense_rows(
            &cpu,
            &mut cd,
            Times,
            &vecf(2),
            &DenseMatrix::filled(3, 2, 1.0)
        )
    );
    dims!(
        cd,
        ops::scale_dense_rows(
            &cpu,
            &mut cd,
            Times,
            &vecf(3),
            &DenseMatrix::filled(3, 3, 1.0)
        )
    );
}

/// Regression: `transpose` with `transpose_a` computes `C = A`, so its shape
/// check must use `A`'s shape (it checked `A'`'s and let a non-square `C`
/// change shape).
#[test]
fn transpose_with_transposed_input_is_a_copy() {
    let cpu = Cpu::new();
    let a = mat(3, 4);
    let mut c = Matrix::empty(3, 4);
    ops::transpose(&cpu, &mut c, &a, &Desc::new().transpose_a()).unwrap();
    assert_eq!(c.to_sprs(), a.to_sprs());
}

#[test]
fn indices_out_of_range_and_repeated() {
    let cpu = Cpu::new();
    let mut w = vecf(3);
    fails!(
        Error::IndexOutOfBounds { index: 5, .. },
        w,
        ops::extract(&cpu, &mut w, &vecf(4), &[0, 5, 1], &Desc::new())
    );
    fails!(
        Error::IndexOutOfBounds { .. },
        w,
        ops::assign(&cpu, &mut w, &vecf(2), &[0, 3], &Desc::new())
    );
    fails!(
        Error::InvalidArgument { .. },
        w,
        ops::assign(&cpu, &mut w, &vecf(2), &[1, 1], &Desc::new())
    );
    fails!(
        Error::IndexOutOfBounds { .. },
        w,
        ops::assign_scalar(&cpu, &mut w, 1.0, Some(&[3]), &Desc::new())
    );
    fails!(
        Error::InvalidArgument { .. },
        w,
        ops::assign_scalar(&cpu, &mut w, 1.0, Some(&[2, 0, 2]), &Desc::new())
    );
    let mut c = mat(3, 4);
    fails!(
        Error::IndexOutOfBounds { .. },
        c,
        ops::extract_matrix(
            &cpu,
            &mut c,
            &mat(5, 5),
            &[0, 1, 5],
            &[0, 1, 2, 3],
            &Desc::new()
        )
    );
    fails!(
        Error::IndexOutOfBounds { .. },
        c,
        ops::extract_matrix(
            &cpu,
            &mut c,
            &mat(5, 5),
            &[0, 1, 2],
            &[0, 1, 2, 9],
            &Desc::new()
        )
    );
    fails!(
        Error::IndexOutOfBounds { .. },
        c,
        ops::assign_matrix(&cpu, &mut c, &mat(2, 2), &[0, 3], &[0, 1], &Desc::new())
    );
    fails!(
        Error::IndexOutOfBounds { .. },
        c,
        ops::assign_matrix(&cpu, &mut c, &mat(2, 2), &[0, 1], &[0, 4], &Desc::new())
    );
    fails!(
        Error::InvalidArgument { .. },
        c,
        ops::assign_matrix(&cpu, &mut c, &mat(2, 2), &[1, 1], &[0, 1], &Desc::new())
    );
    fails!(
        Error::InvalidArgument { .. },
        c,
        ops::assign_matrix(&cpu, &mut c, &mat(2, 2), &[0, 1], &[2, 2], &Desc::new())
    );
}

#[test]
fn invalid_construction() {
    // Vectors.
    assert!(matches!(
        Vector::from_entries(3, vec![(1, 1.0), (1, 2.0)]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Vector::from_entries(3, vec![(3, 1.0)]),
        Err(Error::IndexOutOfBounds { index: 3, .. })
    ));
    use bitgraphblas::container::VectorRepr;
    let bad = [
        VectorRepr::Sparse {
            indices: vec![2, 1],
            values: vec![1.0, 2.0],
        },
        VectorRepr::Sparse {
            indices: vec![1, 1],
            values: vec![1.0, 2.0],
        },
        VectorRepr::Sparse {
            indices: vec![3],
            values: vec![1.0],
        },
        VectorRepr::Sparse {
            indices: vec![0],
            values: vec![],
        },
        VectorRepr::Dense {
            values: vec![1.0; 2],
            present: None,
        },
        VectorRepr::Dense {
            values: vec![1.0; 3],
            present: Some(bitgraphblas::storage::BitVec::zeros(4)),
        },
        VectorRepr::Bits(bitgraphblas::storage::BitVec::zeros(2)),
    ];
    for r in bad {
        assert!(
            matches!(
                Vector::from_repr(3, r.clone()),
                Err(Error::InvalidStorage { .. })
            ),
            "{r:?}"
        );
    }
    assert!(matches!(
        Vector::filled(3, 2.0).to_format(VectorFormat::Bits),
        Err(Error::InvalidArgument { .. })
    ));

    // CSR.
    let bad_csr = [
        (vec![0, 1], vec![0u32], "row_ptr too short"),
        (vec![1, 1, 1], vec![0], "row_ptr[0] != 0"),
        (vec![0, 1, 3], vec![0, 1], "row_ptr end != nnz"),
        // Regression: decreasing row_ptr with the right end made validate() panic.
        (vec![0, 2, 1], vec![0], "decreasing row_ptr"),
        (vec![0, 2, 2], vec![1, 0], "unsorted columns"),
        (vec![0, 2, 2], vec![1, 1], "repeated column"),
        (vec![0, 1, 1], vec![2], "column out of range"),
    ];
    for (ptr, cols, what) in bad_csr {
        let vals = vec![1.0f32; cols.len()];
        assert!(
            matches!(
                Csr::try_new(2, 2, ptr, cols, vals),
                Err(Error::InvalidStorage { .. })
            ),
            "{what}"
        );
    }
    assert!(matches!(
        Csr::try_new(2, 2, vec![0, 1, 1], vec![0], vec![1.0f32, 2.0]),
        Err(Error::InvalidStorage { .. })
    ));
    assert!(matches!(
        Matrix::from_triplets(2, 2, vec![(0, 0, 1.0), (0, 0, 2.0)]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Matrix::from_triplets(2, 2, vec![(2, 0, 1.0)]),
        Err(Error::IndexOutOfBounds { .. })
    ));
    assert!(matches!(
        Matrix::from_triplets(2, 2, vec![(0, 2, 1.0)]),
        Err(Error::IndexOutOfBounds { .. })
    ));
    assert!(matches!(
        DenseMatrix::from_vec(2, 2, vec![1.0; 3]),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        TileSize::from_k(12),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        "x".parse::<TileSize>(),
        Err(Error::InvalidArgument { .. })
    ));
    // B2SR holds one value: converting a valued matrix is an error...
    let valued = mat(3, 3);
    assert!(matches!(
        valued.to_format(Format::B2sr(TileSize::T4)),
        Err(Error::InvalidArgument { .. })
    ));
}

/// Regression: `Format::Auto` on a valued matrix whose pattern B2SR would
/// store well returned an error (B2SR cannot hold the values); it keeps CSR.
#[test]
fn auto_format_keeps_valued_matrices_in_csr() {
    let n: usize = 512;
    let band: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| (i.saturating_sub(2)..(i + 3).min(n)).map(move |j| (i, j, (i + j) as f64)))
        .collect();
    let a = Matrix::from_triplets(n, n, band).unwrap();
    let auto = a.to_format(Format::Auto).unwrap();
    assert_eq!(auto.format(), Format::Csr);
    assert_eq!(auto, a);
    // The same pattern, iso-valued, does convert.
    let iso = a.to_pattern(Format::Csr, 1.0).unwrap();
    assert!(matches!(
        iso.to_format(Format::Auto).unwrap().format(),
        Format::B2sr(_)
    ));
}
