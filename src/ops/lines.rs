//! One row or one column of a matrix as a vector: `extract_col` (GraphBLAS
//! `GrB_Col_extract`, a row through the transpose descriptor) and
//! `assign_row` / `assign_col` (`GrB_Row_assign`, `GrB_Col_assign`). They are
//! written on the backend's extract, reduce, scale and assign (see
//! `compose.rs`), so every backend runs them.

use super::check::{check_indices, check_targets, check_vector_output, check_vmask, dims_of, need};
use super::compose::{all, column, line_matrix};
use crate::algebra::Identity;
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, Flags, MaskArg, NoAccum};
use crate::error::Result;
use crate::scalar::Scalar;

/// `w<mask> = accum(w, A(rows, j))`: `w_k = a_{rows[k], j}` (rows may repeat).
/// With `desc.transpose_a()` it reads `A'(rows, j)`, that is row `j` of `A` at
/// the columns `rows` (the C API's row extract). An index out of range is an
/// [`Error::IndexOutOfBounds`](crate::Error::IndexOutOfBounds).
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Matrix, Vector};
/// // A = [[1, 2, 0], [0, 5, 6]]
/// let a = Matrix::from_triplets(2, 3, vec![(0, 0, 1i32), (0, 1, 2), (1, 1, 5), (1, 2, 6)])?;
/// let mut col = Vector::empty(2);
/// ops::extract_col(&Cpu::new(), &mut col, &a, &[0, 1], 1, &Desc::new())?;
/// assert_eq!(col.entries(), vec![(0, 2), (1, 5)]);
/// let mut row = Vector::empty(3);
/// ops::extract_col(&Cpu::new(), &mut row, &a, &[2, 1, 0], 1, &Desc::new().transpose_a())?;
/// assert_eq!(row.entries(), vec![(0, 6), (1, 5)]); // A(1, [2, 1, 0])
/// assert!(ops::extract_col(&Cpu::new(), &mut col, &a, &[0, 1], 3, &Desc::new()).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn extract_col<B, T, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    a: &B::Matrix<T>,
    rows: &[usize],
    j: usize,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    let flags = desc.flags();
    let (m, n) = dims_of(a, flags.transpose_a);
    check_indices("extract_col", rows, m)?;
    check_indices("extract_col", &[j], n)?;
    check_vector_output("extract_col", desc.mask_arg(), w.len(), rows.len(), || {
        format!("w has length {}, {} indices", w.len(), rows.len())
    })?;
    let t = column(b, a, rows, j, flags.transpose_a)?;
    let mask = desc.mask_arg().vector_mask();
    b.apply_vector(w, mask, desc.accum_op(), Identity, &t, flags)
}

/// `C(rows, j)<mask> = accum(C(rows, j), u)`: vector assign into column `j`
/// (`GrB_Col_assign`). The mask has `C`'s row count and acts on column `j`
/// only: with replace, entries of column `j` it does not allow are deleted;
/// the other columns never change. Rows must be distinct.
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, Desc, Matrix, Vector};
/// let mut c = Matrix::from_triplets(3, 2, vec![(0, 1, 1i64), (2, 1, 7), (2, 0, 9)])?;
/// let u = Vector::from_dense(vec![10i64, 20]);
/// ops::assign_col(&Cpu::new(), &mut c, &u, &[1, 2], 1, &Desc::new().accum(Plus))?;
/// assert_eq!((c.get(0, 1), c.get(1, 1), c.get(2, 1), c.get(2, 0)), (Some(1), Some(10), Some(27), Some(9)));
/// assert!(ops::assign_col(&Cpu::new(), &mut c, &u, &[1, 1], 1, &Desc::new()).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn assign_col<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    u: &B::Vector<T>,
    rows: &[usize],
    j: usize,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    check_line("assign_col", c.ncols(), j, (rows, c.nrows()), u, desc)?;
    assign_line(b, c, u, rows, j, false, desc)
}

/// `C(i, cols)<mask> = accum(C(i, cols), u)`: vector assign into row `i`
/// (`GrB_Row_assign`). The mask has `C`'s column count and acts on row `i`
/// only. Columns must be distinct.
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, Matrix, Vector};
/// let mut c = Matrix::from_triplets(2, 4, vec![(1, 0, 1.0f32), (1, 3, 2.0), (0, 0, 5.0)])?;
/// let u = Vector::from_entries(2, vec![(1, 8.0f32)])?;
/// // Row 1 at columns 3 and 2: C(1, 3) has no new value, so it goes.
/// ops::assign_row(&Cpu::new(), &mut c, &u, 1, &[3, 2], &Desc::new())?;
/// assert_eq!((c.get(1, 0), c.get(1, 2), c.get(1, 3), c.get(0, 0)), (Some(1.0), Some(8.0), None, Some(5.0)));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn assign_row<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    u: &B::Vector<T>,
    i: usize,
    cols: &[usize],
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    check_line("assign_row", c.nrows(), i, (cols, c.ncols()), u, desc)?;
    assign_line(b, c, u, cols, i, true, desc)
}

/// The checks of a row or column assign: the line `at < lines`, the targets
/// `idx` distinct and `< len`, `u` one entry per target, the mask of length `len`.
fn check_line<B, T, M, A>(
    op: &'static str,
    lines: usize,
    at: usize,
    (idx, len): (&[usize], usize),
    u: &B::Vector<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    M: MaskArg<B>,
{
    check_indices(op, &[at], lines)?;
    check_targets(op, &[(idx, len)])?;
    need(op, u.len() == idx.len(), || {
        format!("u has length {}, {} indices", u.len(), idx.len())
    })?;
    check_vmask(op, desc.mask_arg(), len)
}

/// Row `at` (`row`) or column `at` of `C` out as a vector, the vector assign
/// on it, and the whole line written back (the rest of `C` is untouched).
fn assign_line<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    u: &B::Vector<T>,
    idx: &[usize],
    at: usize,
    row: bool,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    T: Scalar,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    let (m, n) = (c.nrows(), c.ncols());
    let mut line = column(b, c, &all(if row { n } else { m }), at, row)?;
    let mask = desc.mask_arg().vector_mask();
    b.assign_vector(&mut line, mask, desc.accum_op(), u, idx, desc.flags())?;
    let lm = line_matrix(b, &line, row)?;
    let (rows, cols) = if row {
        (vec![at], all(n))
    } else {
        (all(m), vec![at])
    };
    b.assign_matrix(c, None, NoAccum, &lm, &rows, &cols, Flags::default())
}
