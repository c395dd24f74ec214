//! `extract` (a sub-vector or sub-matrix at given indices) and `assign` (write
//! into an output at given indices, from a vector, a matrix or a scalar).

use super::check::{
    check_indices, check_matrix_output, check_mmask, check_targets, check_vector_output,
    check_vmask, dims_of, need, shape_of,
};
use super::compose::{full_matrix, or_all};
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, Flags, MaskArg, MatrixMask, MatrixMaskArg};
use crate::error::Result;
use crate::scalar::Scalar;

/// `w<mask> = accum(w, u(indices))`: `w_k = u_{indices[k]}` (indices may repeat;
/// one out of range is an [`Error::IndexOutOfBounds`](crate::Error::IndexOutOfBounds)).
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Vector};
/// let u = Vector::from_entries(4, vec![(0, 10i32), (2, 30)])?;
/// let mut w = Vector::empty(3);
/// ops::extract(&Cpu::new(), &mut w, &u, &[2, 1, 0], &Desc::new())?;
/// assert_eq!(w.entries(), vec![(0, 30), (2, 10)]); // u_1 is absent, so is w_1
/// assert!(ops::extract(&Cpu::new(), &mut w, &u, &[0, 1, 4], &Desc::new()).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn extract<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    u: &B::Vector<T>,
    indices: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    check_indices("extract", indices, u.len())?;
    check_vector_output("extract", desc.mask_arg(), w.len(), indices.len(), || {
        format!("w has length {}, {} indices", w.len(), indices.len())
    })?;
    b.extract_vector(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        u,
        indices,
        desc.flags(),
    )
}

/// `C<mask> = accum(C, A(rows, cols))`: `c_kl = a_{rows[k], cols[l]}`.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Matrix};
/// // A = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
/// let e = (0..3).flat_map(|i| (0..3).map(move |j| (i, j, (3 * i + j + 1) as f64))).collect();
/// let a = Matrix::from_triplets(3, 3, e)?;
/// let mut c = Matrix::empty(2, 2);
/// ops::extract_matrix(&Cpu::new(), &mut c, &a, &[0, 2], &[1, 2], &Desc::new())?;
/// assert_eq!((c.get(0, 0), c.get(1, 1)), (Some(2.0), Some(9.0)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn extract_matrix<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    a: &B::Matrix<T>,
    rows: &[usize],
    cols: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let (m, n) = dims_of(a, desc.flags().transpose_a);
    check_indices("extract_matrix", rows, m)?;
    check_indices("extract_matrix", cols, n)?;
    let (sc, sel) = (shape_of(c), (rows.len(), cols.len()));
    check_matrix_output("extract_matrix", desc.mask_arg(), sc, sel, || {
        format!("C is {}x{}, selection {}x{}", sc.0, sc.1, sel.0, sel.1)
    })?;
    b.extract_matrix(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        a,
        rows,
        cols,
        desc.flags(),
    )
}

/// `w(indices)<mask> = accum(w(indices), u)`: `w_{indices[k]}` takes `u_k`;
/// entries of `w` outside `indices` are kept. Indices must be distinct.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Vector};
/// let mut w = Vector::filled(4, 0i32);
/// let u = Vector::from_dense(vec![7, 8]);
/// ops::assign(&Cpu::new(), &mut w, &u, &[3, 1], &Desc::new())?;
/// assert_eq!(w.to_vec(-1), vec![0, 8, 0, 7]);
/// assert!(ops::assign(&Cpu::new(), &mut w, &u, &[2, 2], &Desc::new()).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn assign<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    u: &B::Vector<T>,
    indices: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    check_targets("assign", &[(indices, w.len())])?;
    need("assign", u.len() == indices.len(), || {
        format!("u has length {}, {} indices", u.len(), indices.len())
    })?;
    check_vmask("assign", desc.mask_arg(), w.len())?;
    b.assign_vector(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        u,
        indices,
        desc.flags(),
    )
}

/// `w(indices)<mask> = accum(w(indices), value)`; every index when `indices` is `None`.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Vector};
/// // BFS levels: the vertices of the frontier get level 2.
/// let mut level = Vector::from_entries(5, vec![(0, 0u32), (3, 1)])?;
/// let frontier = Vector::from_entries(5, vec![(1, true), (4, true)])?;
/// let d = Desc::new().mask(frontier.as_mask().structure());
/// ops::assign_scalar(&Cpu::new(), &mut level, 2, None, &d)?;
/// assert_eq!(level.entries(), vec![(0, 0), (1, 2), (3, 1), (4, 2)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn assign_scalar<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    value: T,
    indices: Option<&[usize]>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    if let Some(idx) = indices {
        check_targets("assign_scalar", &[(idx, w.len())])?;
    }
    check_vmask("assign_scalar", desc.mask_arg(), w.len())?;
    b.assign_vector_scalar(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        value,
        indices,
        desc.flags(),
    )
}

/// `C(rows, cols)<mask> = accum(C(rows, cols), A)`; indices must be distinct.
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, Desc, Matrix};
/// let mut c = Matrix::from_triplets(3, 3, vec![(0, 2, 1i64), (2, 2, 5)])?;
/// let a = Matrix::from_triplets(2, 1, vec![(0, 0, 10i64), (1, 0, 20)])?;
/// // Add A into column 2 at rows 0 and 1.
/// ops::assign_matrix(&Cpu::new(), &mut c, &a, &[0, 1], &[2], &Desc::new().accum(Plus))?;
/// assert_eq!((c.get(0, 2), c.get(1, 2), c.get(2, 2)), (Some(11), Some(20), Some(5)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn assign_matrix<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    a: &B::Matrix<T>,
    rows: &[usize],
    cols: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    check_targets("assign_matrix", &[(rows, c.nrows()), (cols, c.ncols())])?;
    let sa = dims_of(a, desc.flags().transpose_a);
    need("assign_matrix", sa == (rows.len(), cols.len()), || {
        format!(
            "A is {}x{}, selection {}x{}",
            sa.0,
            sa.1,
            rows.len(),
            cols.len()
        )
    })?;
    check_mmask("assign_matrix", desc.mask_arg(), shape_of(c))?;
    b.assign_matrix(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        a,
        rows,
        cols,
        desc.flags(),
    )
}

/// `C(rows, cols)<mask> = accum(C(rows, cols), value)` (`GrB_Matrix_assign`
/// with a scalar); every row (column) when `rows` (`cols`) is `None`. The
/// mask has `C`'s shape; indices must be distinct. The region is written as
/// a full matrix of `value`, so it costs `rows x cols` entries.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Matrix};
/// let mut c = Matrix::from_triplets(3, 3, vec![(0, 0, 1u32), (2, 2, 5)])?;
/// // Column 2, every row.
/// ops::assign_matrix_scalar(&Cpu::new(), &mut c, 7, None, Some(&[2]), &Desc::new())?;
/// assert_eq!((c.get(0, 2), c.get(2, 2), c.get(0, 0), c.nvals()), (Some(7), Some(7), Some(1), 4));
/// assert!(ops::assign_matrix_scalar(&Cpu::new(), &mut c, 7, Some(&[3]), None, &Desc::new()).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn assign_matrix_scalar<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    value: T,
    rows: Option<&[usize]>,
    cols: Option<&[usize]>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let op = "assign_matrix_scalar";
    let sets = [(rows, c.nrows()), (cols, c.ncols())];
    check_targets(op, &sets.map(|(s, n)| (s.unwrap_or(&[]), n)))?;
    check_mmask(op, desc.mask_arg(), shape_of(c))?;
    let mask = desc.mask_arg().matrix_mask();
    fill_region(b, c, mask, desc.accum_op(), value, rows, cols, desc.flags())
}

/// `C(rows, cols)<mask> = accum(C(rows, cols), value)` on checked arguments:
/// a full matrix of `value` assigned (the transpose flag does not apply).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fill_region<B: Backend, T: Scalar, A: Accumulate<T>>(
    b: &B,
    c: &mut B::Matrix<T>,
    mask: Option<MatrixMask<'_, B>>,
    accum: A,
    value: T,
    rows: Option<&[usize]>,
    cols: Option<&[usize]>,
    flags: Flags,
) -> Result<()> {
    let (rows, cols) = (or_all(rows, c.nrows()), or_all(cols, c.ncols()));
    let t = full_matrix(b, rows.len(), cols.len(), value)?;
    let flags = Flags {
        transpose_a: false,
        ..flags
    };
    b.assign_matrix(c, mask, accum, &t, &rows, &cols, flags)
}
