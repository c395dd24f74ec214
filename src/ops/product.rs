//! Products with a semiring: matrix-vector, vector-matrix, matrix-matrix, the
//! masked reduction of a product, and sparse times dense.

use super::check::{
    check_matrix_output, check_mmask, check_vector_output, dims_of, need, shape_of,
};
use crate::algebra::{FlippedSemiring, Semiring};
use crate::backend::{Backend, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, MaskArg, MatrixMaskArg, NoMask};
use crate::error::{Error, Result};

/// `w<mask> = accum(w, A ⊕.⊗ u)`; with `desc.transpose_a()`, `A' ⊕.⊗ u`.
///
/// `w_i = ⊕_j a_ij ⊗ u_j` over the `j` where both `a_ij` and `u_j` are
/// present; `w_i` is absent where there is no such `j`.
///
/// ```
/// use bitgraphblas::{ops, algebra::PlusTimes, Cpu, Desc, Matrix, Vector};
/// // A = [[1, 2, 0], [0, 0, 3]]
/// let a = Matrix::from_triplets(2, 3, vec![(0, 0, 1i64), (0, 1, 2), (1, 2, 3)])?;
/// let u = Vector::from_dense(vec![1i64, 10, 100]);
/// let mut w = Vector::empty(2);
/// ops::mxv(&Cpu::new(), &mut w, PlusTimes::<i64>::new(), &a, &u, &Desc::new())?;
/// assert_eq!(w.to_vec(0), vec![21, 300]);
/// // u of the wrong length: an error, and w keeps its value.
/// let short = Vector::from_dense(vec![1i64, 2]);
/// assert!(ops::mxv(&Cpu::new(), &mut w, PlusTimes::<i64>::new(), &a, &short, &Desc::new()).is_err());
/// assert_eq!(w.to_vec(0), vec![21, 300]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn mxv<B, S, M, A>(
    b: &B,
    w: &mut B::Vector<S::T>,
    semiring: S,
    a: &B::Matrix<S::T>,
    u: &B::Vector<S::T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    S: Semiring,
    M: MaskArg<B>,
    A: Accumulate<S::T>,
{
    let (m, n) = dims_of(a, desc.flags().transpose_a);
    need("mxv", u.len() == n, || {
        format!("A is {m}x{n}, u has length {}", u.len())
    })?;
    check_vector_output("mxv", desc.mask_arg(), w.len(), m, || {
        format!("A is {m}x{n}, w has length {}", w.len())
    })?;
    b.mxv(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        semiring,
        a,
        u,
        desc.flags(),
    )
}

/// `w<mask> = accum(w, u ⊕.⊗ A)` (with `desc.transpose_a()`, `u ⊕.⊗ A'`).
///
/// `w_j = ⊕_i u_i ⊗ a_ij`: the vector is the multiply's first operand, as in
/// the GraphBLAS C API (it matters for `MIN.FIRST`, `MIN.SECOND` and user
/// semirings on operators such as `MINUS`). The push step of a traversal:
/// from the frontier `u` along the out-edges.
///
/// ```
/// use bitgraphblas::{ops, algebra::LorLand, Cpu, Desc, Matrix, Vector};
/// // Edges 0 -> 1, 0 -> 2, 1 -> 0; vertices 0 and 1 are visited.
/// let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (0, 2, true), (1, 0, true)])?;
/// let frontier = Vector::from_entries(3, vec![(0, true)])?;
/// let visited = Vector::from_entries(3, vec![(0, true), (1, true)])?;
/// let mut next = Vector::empty(3);
/// // next<!visited> = frontier A: the unvisited out-neighbours.
/// let d = Desc::new().mask(visited.as_mask().complement()).replace();
/// ops::vxm(&Cpu::new(), &mut next, LorLand, &frontier, &a, &d)?;
/// assert_eq!(next.entries(), vec![(2, true)]);
///
/// // The operand order: MIN.SECOND takes the matrix entry, MIN.FIRST the vector's.
/// use bitgraphblas::algebra::{MinFirst, MinSecond};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 5u32)])?;
/// let u = Vector::from_entries(2, vec![(0, 7u32)])?;
/// let mut w = Vector::empty(2);
/// ops::vxm(&Cpu::new(), &mut w, MinSecond::<u32>::new(), &u, &a, &Desc::new())?;
/// assert_eq!(w.entries(), vec![(1, 5)]);
/// ops::vxm(&Cpu::new(), &mut w, MinFirst::<u32>::new(), &u, &a, &Desc::new())?;
/// assert_eq!(w.entries(), vec![(1, 7)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn vxm<B, S, M, A>(
    b: &B,
    w: &mut B::Vector<S::T>,
    semiring: S,
    u: &B::Vector<S::T>,
    a: &B::Matrix<S::T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    S: Semiring,
    M: MaskArg<B>,
    A: Accumulate<S::T>,
{
    let (n, m) = dims_of(a, desc.flags().transpose_a);
    need("vxm", u.len() == n, || {
        format!("A is {n}x{m}, u has length {}", u.len())
    })?;
    check_vector_output("vxm", desc.mask_arg(), w.len(), m, || {
        format!("A is {n}x{m}, w has length {}", w.len())
    })?;
    // u ⊕.⊗ A = A' ⊕.⊗' u, with ⊗' taking its operands the other way round.
    let mut flags = desc.flags();
    flags.transpose_a = !flags.transpose_a;
    b.mxv(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        FlippedSemiring(semiring),
        a,
        u,
        flags,
    )
}

/// `C<mask> = accum(C, A ⊕.⊗ B)` (with transposes from `desc`).
///
/// ```
/// use bitgraphblas::{ops, algebra::PlusTimes, Cpu, Desc, Matrix};
/// // [[1, 2], [0, 3]] times [[4, 0], [5, 6]]
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1.0f64), (0, 1, 2.0), (1, 1, 3.0)])?;
/// let b = Matrix::from_triplets(2, 2, vec![(0, 0, 4.0), (1, 0, 5.0), (1, 1, 6.0)])?;
/// let mut c = Matrix::empty(2, 2);
/// ops::mxm(&Cpu::new(), &mut c, PlusTimes::<f64>::new(), &a, &b, &Desc::new())?;
/// assert_eq!(c.get(0, 0), Some(14.0));
/// assert_eq!(c.get(0, 1), Some(12.0));
/// assert_eq!(c.get(1, 0), Some(15.0));
/// // A B' instead: B' = [[4, 5], [0, 6]].
/// ops::mxm(&Cpu::new(), &mut c, PlusTimes::<f64>::new(), &a, &b, &Desc::new().transpose_b())?;
/// assert_eq!(c.get(0, 1), Some(17.0));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn mxm<B, S, M, A>(
    b: &B,
    c: &mut B::Matrix<S::T>,
    semiring: S,
    a: &B::Matrix<S::T>,
    bm: &B::Matrix<S::T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    S: Semiring,
    M: MatrixMaskArg<B>,
    A: Accumulate<S::T>,
{
    let (m, k) = dims_of(a, desc.flags().transpose_a);
    let (k2, n) = dims_of(bm, desc.flags().transpose_b);
    need("mxm", k == k2, || format!("A is {m}x{k}, B is {k2}x{n}"))?;
    check_matrix_output("mxm", desc.mask_arg(), shape_of(c), (m, n), || {
        format!("C is {}x{}, A B is {m}x{n}", c.nrows(), c.ncols())
    })?;
    b.mxm(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        semiring,
        a,
        bm,
        desc.flags(),
    )
}

/// `⊕` over `(A ⊕.⊗ B)<mask>` without storing the product (mask required;
/// without one it is an [`Error::InvalidArgument`]).
///
/// ```
/// use bitgraphblas::{ops, algebra::PlusPair, Cpu, Desc, IndexOp, Matrix};
/// // A triangle 0-1-2: L is its strictly lower triangle; count = sum((L L') .* L).
/// let e = vec![(0, 1, 1u64), (1, 0, 1), (1, 2, 1), (2, 1, 1), (0, 2, 1), (2, 0, 1)];
/// let a = Matrix::from_triplets(3, 3, e).unwrap();
/// let cpu = Cpu::new();
/// let mut l = Matrix::empty(3, 3);
/// ops::select_matrix(&cpu, &mut l, IndexOp::Tril(-1), &a, &Desc::new()).unwrap();
/// let d = Desc::new().mask(l.as_mask().structure()).transpose_b();
/// assert_eq!(ops::mxm_reduce(&cpu, PlusPair::<u64>::new(), &l, &l, &d).unwrap(), 1);
/// ```
pub fn mxm_reduce<B, S, M, A>(
    b: &B,
    semiring: S,
    a: &B::Matrix<S::T>,
    bm: &B::Matrix<S::T>,
    desc: &Desc<M, A>,
) -> Result<S::T>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    S: Semiring,
    M: MatrixMaskArg<B>,
{
    let (m, k) = dims_of(a, desc.flags().transpose_a);
    let (k2, n) = dims_of(bm, desc.flags().transpose_b);
    need("mxm_reduce", k == k2, || {
        format!("A is {m}x{k}, B is {k2}x{n}")
    })?;
    let mask = desc.mask_arg().matrix_mask().ok_or_else(|| {
        Error::invalid(
            "mxm_reduce",
            "a mask is required (use reduce_matrix of mxm otherwise)",
        )
    })?;
    check_mmask("mxm_reduce", desc.mask_arg(), (m, n))?;
    b.mxm_reduce(mask, semiring, a, bm, desc.flags())
}

/// `C = accum(C, A ⊕.⊗ B)` with `B`, `C` dense row-major (GNN aggregation).
///
/// ```
/// use bitgraphblas::{ops, algebra::PlusTimes, Cpu, DenseMatrix, Desc, Matrix};
/// // The path 0 - 1 - 2 (both directions) sums the neighbours' feature rows.
/// let e = vec![(0, 1, 1.0f32), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
/// let a = Matrix::from_triplets(3, 3, e)?;
/// let h = DenseMatrix::from_vec(3, 2, vec![1.0, 0.0, 0.0, 1.0, 2.0, 2.0])?;
/// let mut c = DenseMatrix::filled(3, 2, 0.0);
/// ops::mxm_dense(&Cpu::new(), &mut c, PlusTimes::<f32>::new(), &a, &h, &Desc::new())?;
/// assert_eq!(c.row(1), &[3.0, 2.0]);
/// assert_eq!(c.as_slice(), &[0.0, 1.0, 3.0, 2.0, 0.0, 1.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn mxm_dense<B, S, A>(
    b: &B,
    c: &mut B::Dense<S::T>,
    semiring: S,
    a: &B::Matrix<S::T>,
    bd: &B::Dense<S::T>,
    desc: &Desc<NoMask, A>,
) -> Result<()>
where
    B: Backend,
    S: Semiring,
    A: Accumulate<S::T>,
{
    let (m, k) = dims_of(a, desc.flags().transpose_a);
    need("mxm_dense", bd.nrows() == k, || {
        format!("A is {m}x{k}, B is {}x{}", bd.nrows(), bd.ncols())
    })?;
    need(
        "mxm_dense",
        (c.nrows(), c.ncols()) == (m, bd.ncols()),
        || {
            format!(
                "C is {}x{}, A B is {m}x{}",
                c.nrows(),
                c.ncols(),
                bd.ncols()
            )
        },
    )?;
    b.mxm_dense(c, desc.accum_op(), semiring, a, bd, desc.flags())
}
