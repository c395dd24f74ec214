//! The GraphBLAS operations. Each checks shapes (a mismatch is an
//! [`Error::DimensionMismatch`] and leaves the output unchanged), then calls the
//! backend's entry point.
//!
//! ```
//! use bitgraphblas::{ops, algebra::LorLand, Cpu, Desc, Format, Matrix, TileSize, Vector};
//! // 0 -> 1 -> 2
//! let a = Matrix::from_triplets(3, 3, vec![(0, 1, true), (1, 2, true)]).unwrap()
//!     .to_format(Format::B2sr(TileSize::T4)).unwrap();
//! let frontier = Vector::from_entries(3, vec![(0, true)]).unwrap();
//! let mut next = Vector::empty(3);
//! // next = A' frontier: the out-neighbours of the frontier.
//! ops::vxm(&Cpu::new(), &mut next, LorLand, &frontier, &a, &Desc::new()).unwrap();
//! assert_eq!(next.get(1), Some(true));
//! assert_eq!(next.nvals(), 1);
//! ```

use crate::algebra::{BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::backend::{Backend, EwiseKind, MatrixShape, VectorShape};
use crate::container::{Accumulate, Desc, MaskArg, MatrixMaskArg};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

fn dims_of<M: MatrixShape>(m: &M, transpose: bool) -> (usize, usize) {
    if transpose {
        (m.ncols(), m.nrows())
    } else {
        (m.nrows(), m.ncols())
    }
}

pub(crate) fn need(op: &'static str, ok: bool, detail: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::dims(op, detail()))
    }
}

fn check_vmask<B: Backend, M: MaskArg<B>>(op: &'static str, m: &M, len: usize) -> Result<()>
where
    B::MaskSource: VectorShape,
{
    if let Some(mask) = m.vector_mask() {
        need(op, mask.source.len() == len, || {
            format!("mask has length {}, output {len}", mask.source.len())
        })?;
    }
    Ok(())
}

fn check_mmask<B: Backend, M: MatrixMaskArg<B>>(
    op: &'static str,
    m: &M,
    shape: (usize, usize),
) -> Result<()>
where
    B::MatrixMaskSource: MatrixShape,
{
    if let Some(mask) = m.matrix_mask() {
        let ms = (mask.source.nrows(), mask.source.ncols());
        need(op, ms == shape, || {
            format!("mask is {}x{}, output {}x{}", ms.0, ms.1, shape.0, shape.1)
        })?;
    }
    Ok(())
}

/// `w<mask> = accum(w, A ⊕.⊗ u)`; with `desc.transpose_a()`, `A' ⊕.⊗ u`.
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
    need("mxv", w.len() == m, || {
        format!("A is {m}x{n}, w has length {}", w.len())
    })?;
    check_vmask("mxv", desc.mask_arg(), m)?;
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

/// `w<mask> = accum(w, u ⊕.⊗ A)`, that is `A' ⊕.⊗ u` (with `desc.transpose_a()`, `A ⊕.⊗ u`).
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
    need("vxm", w.len() == m, || {
        format!("A is {n}x{m}, w has length {}", w.len())
    })?;
    check_vmask("vxm", desc.mask_arg(), m)?;
    let mut flags = desc.flags();
    flags.transpose_a = !flags.transpose_a;
    b.mxv(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        semiring,
        a,
        u,
        flags,
    )
}

/// `C<mask> = accum(C, A ⊕.⊗ B)` (with transposes from `desc`).
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
    need("mxm", (c.nrows(), c.ncols()) == (m, n), || {
        format!("C is {}x{}, A B is {m}x{n}", c.nrows(), c.ncols())
    })?;
    check_mmask("mxm", desc.mask_arg(), (m, n))?;
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

/// `⊕` over `(A ⊕.⊗ B)<mask>` without storing the product (mask required).
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
pub fn mxm_dense<B, S, A>(
    b: &B,
    c: &mut B::Dense<S::T>,
    semiring: S,
    a: &B::Matrix<S::T>,
    bd: &B::Dense<S::T>,
    desc: &Desc<crate::container::NoMask, A>,
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

macro_rules! ewise_vector_fn {
    ($(#[$doc:meta])* $name:ident, $kind:expr, $opname:literal $(, $extra:ident)*) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name<B, T, Op, M, A>(
            b: &B,
            w: &mut B::Vector<T>,
            op: Op,
            u: &B::Vector<T>,
            $($extra: T,)*
            v: &B::Vector<T>,
            desc: &Desc<M, A>,
        ) -> Result<()>
        where
            B: Backend,
            B::MaskSource: VectorShape,
            T: Scalar,
            Op: BinaryOp<T>,
            M: MaskArg<B>,
            A: Accumulate<T>,
        {
            need($opname, u.len() == v.len() && w.len() == u.len(), || {
                format!("w has length {}, u {}, v {}", w.len(), u.len(), v.len())
            })?;
            check_vmask($opname, desc.mask_arg(), w.len())?;
            b.ewise_vector(w, desc.mask_arg().vector_mask(), desc.accum_op(), $kind, op, u, v, desc.flags())
        }
    };
}

ewise_vector_fn!(/// `w<mask> = accum(w, u ⊕ v)` on the union of patterns.
    ewise_add, EwiseKind::Add, "ewise_add");
ewise_vector_fn!(/// `w<mask> = accum(w, u ⊗ v)` on the intersection of patterns.
    ewise_mult, EwiseKind::Mult, "ewise_mult");
ewise_vector_fn!(/// `w<mask> = accum(w, op(u or alpha, v or beta))` on the union of patterns.
    ewise_union, EwiseKind::Union { alpha, beta }, "ewise_union", alpha, beta);

macro_rules! ewise_matrix_fn {
    ($(#[$doc:meta])* $name:ident, $kind:expr, $opname:literal $(, $extra:ident)*) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name<B, T, Op, M, A>(
            b: &B,
            c: &mut B::Matrix<T>,
            op: Op,
            a: &B::Matrix<T>,
            $($extra: T,)*
            bm: &B::Matrix<T>,
            desc: &Desc<M, A>,
        ) -> Result<()>
        where
            B: Backend,
            B::MatrixMaskSource: MatrixShape,
            T: Scalar,
            Op: BinaryOp<T>,
            M: MatrixMaskArg<B>,
            A: Accumulate<T>,
        {
            let sa = dims_of(a, desc.flags().transpose_a);
            let sb = dims_of(bm, desc.flags().transpose_b);
            let sc = (c.nrows(), c.ncols());
            need($opname, sa == sb && sa == sc, || format!("C is {sc:?}, A {sa:?}, B {sb:?}"))?;
            check_mmask($opname, desc.mask_arg(), sc)?;
            b.ewise_matrix(c, desc.mask_arg().matrix_mask(), desc.accum_op(), $kind, op, a, bm, desc.flags())
        }
    };
}

ewise_matrix_fn!(/// `C<mask> = accum(C, A ⊕ B)` on the union of patterns.
    ewise_add_matrix, EwiseKind::Add, "ewise_add_matrix");
ewise_matrix_fn!(/// `C<mask> = accum(C, A ⊗ B)` on the intersection of patterns.
    ewise_mult_matrix, EwiseKind::Mult, "ewise_mult_matrix");
ewise_matrix_fn!(/// `C<mask> = accum(C, op(A or alpha, B or beta))` on the union of patterns.
    ewise_union_matrix, EwiseKind::Union { alpha, beta }, "ewise_union_matrix", alpha, beta);

/// `w<mask> = accum(w, f(u))`.
pub fn apply<B, T, F, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    f: F,
    u: &B::Vector<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    F: UnaryOp<T>,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    need("apply", w.len() == u.len(), || {
        format!("w has length {}, u {}", w.len(), u.len())
    })?;
    check_vmask("apply", desc.mask_arg(), w.len())?;
    b.apply_vector(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        f,
        u,
        desc.flags(),
    )
}

/// `C<mask> = accum(C, f(A))` (`f(A')` with `desc.transpose_a()`).
pub fn apply_matrix<B, T, F, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    f: F,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    F: UnaryOp<T>,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let sa = dims_of(a, desc.flags().transpose_a);
    need("apply_matrix", (c.nrows(), c.ncols()) == sa, || {
        format!("C is {}x{}, A {sa:?}", c.nrows(), c.ncols())
    })?;
    check_mmask("apply_matrix", desc.mask_arg(), sa)?;
    b.apply_matrix(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        f,
        a,
        desc.flags(),
    )
}

/// `w<mask> = accum(w, select(u))`: the entries of `u` the predicate keeps.
pub fn select<B, T, P, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    pred: P,
    u: &B::Vector<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    P: IndexUnaryOp<T>,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    need("select", w.len() == u.len(), || {
        format!("w has length {}, u {}", w.len(), u.len())
    })?;
    check_vmask("select", desc.mask_arg(), w.len())?;
    b.select_vector(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        pred,
        u,
        desc.flags(),
    )
}

/// `C<mask> = accum(C, select(A))`.
pub fn select_matrix<B, T, P, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    pred: P,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    P: IndexUnaryOp<T>,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    let sa = dims_of(a, desc.flags().transpose_a);
    need("select_matrix", (c.nrows(), c.ncols()) == sa, || {
        format!("C is {}x{}, A {sa:?}", c.nrows(), c.ncols())
    })?;
    check_mmask("select_matrix", desc.mask_arg(), sa)?;
    b.select_matrix(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        pred,
        a,
        desc.flags(),
    )
}

/// `w<mask> = accum(w, ⊕_j A(i, j))` (columns with `desc.transpose_a()`).
pub fn reduce_rows<B, T, Mo, M, A>(
    b: &B,
    w: &mut B::Vector<T>,
    monoid: Mo,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MaskSource: VectorShape,
    T: Scalar,
    Mo: Monoid<T>,
    M: MaskArg<B>,
    A: Accumulate<T>,
{
    let (m, _) = dims_of(a, desc.flags().transpose_a);
    need("reduce_rows", w.len() == m, || {
        format!("w has length {}, A has {m} rows", w.len())
    })?;
    check_vmask("reduce_rows", desc.mask_arg(), m)?;
    b.reduce_rows(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        monoid,
        a,
        desc.flags(),
    )
}

/// `⊕` over the present entries of `u`.
pub fn reduce<B: Backend, T: Scalar, Mo: Monoid<T>>(
    b: &B,
    monoid: Mo,
    u: &B::Vector<T>,
) -> Result<T> {
    b.reduce_vector(monoid, u)
}

/// `⊕` over the stored entries of `A`.
pub fn reduce_matrix<B: Backend, T: Scalar, Mo: Monoid<T>>(
    b: &B,
    monoid: Mo,
    a: &B::Matrix<T>,
) -> Result<T> {
    b.reduce_matrix(monoid, a)
}

fn check_indices(op: &'static str, idx: &[usize], len: usize) -> Result<()> {
    match idx.iter().find(|&&i| i >= len) {
        Some(&i) => Err(Error::IndexOutOfBounds { op, index: i, len }),
        None => Ok(()),
    }
}

/// `w<mask> = accum(w, u(indices))`.
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
    need("extract", w.len() == indices.len(), || {
        format!("w has length {}, {} indices", w.len(), indices.len())
    })?;
    check_vmask("extract", desc.mask_arg(), w.len())?;
    b.extract_vector(
        w,
        desc.mask_arg().vector_mask(),
        desc.accum_op(),
        u,
        indices,
        desc.flags(),
    )
}

/// `C<mask> = accum(C, A(rows, cols))`.
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
    let sc = (c.nrows(), c.ncols());
    need("extract_matrix", sc == (rows.len(), cols.len()), || {
        format!(
            "C is {}x{}, selection {}x{}",
            sc.0,
            sc.1,
            rows.len(),
            cols.len()
        )
    })?;
    check_mmask("extract_matrix", desc.mask_arg(), sc)?;
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

fn check_distinct(op: &'static str, idx: &[usize]) -> Result<()> {
    let mut s = idx.to_vec();
    s.sort_unstable();
    if s.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::invalid(op, "an index is repeated"));
    }
    Ok(())
}

/// `w(indices)<mask> = accum(w(indices), u)`; indices must be distinct.
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
    check_indices("assign", indices, w.len())?;
    check_distinct("assign", indices)?;
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
        check_indices("assign_scalar", idx, w.len())?;
        check_distinct("assign_scalar", idx)?;
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
    check_indices("assign_matrix", rows, c.nrows())?;
    check_indices("assign_matrix", cols, c.ncols())?;
    check_distinct("assign_matrix", rows)?;
    check_distinct("assign_matrix", cols)?;
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
    check_mmask("assign_matrix", desc.mask_arg(), (c.nrows(), c.ncols()))?;
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

/// `C<mask> = accum(C, A')` (with `desc.transpose_a()`, `C<mask> = accum(C, A)`).
pub fn transpose<B, T, M, A>(
    b: &B,
    c: &mut B::Matrix<T>,
    a: &B::Matrix<T>,
    desc: &Desc<M, A>,
) -> Result<()>
where
    B: Backend,
    B::MatrixMaskSource: MatrixShape,
    T: Scalar,
    M: MatrixMaskArg<B>,
    A: Accumulate<T>,
{
    // With `desc.transpose_a()` the input is read as `A'`, so `C = A`.
    let sa = dims_of(a, !desc.flags().transpose_a);
    need("transpose", (c.nrows(), c.ncols()) == sa, || {
        format!("C is {}x{}, A' {sa:?}", c.nrows(), c.ncols())
    })?;
    check_mmask("transpose", desc.mask_arg(), sa)?;
    b.transpose(
        c,
        desc.mask_arg().matrix_mask(),
        desc.accum_op(),
        a,
        desc.flags(),
    )
}

/// `C = diag(d) ⊗ A`: `c_ij = op(d_i, a_ij)` (row scaling; PageRank, GCN normalisation).
pub fn scale_rows<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Matrix<T>,
    op: Op,
    d: &B::Vector<T>,
    a: &B::Matrix<T>,
) -> Result<()> {
    need("scale_rows", d.len() == a.nrows(), || {
        format!("d has length {}, A has {} rows", d.len(), a.nrows())
    })?;
    need(
        "scale_rows",
        (c.nrows(), c.ncols()) == (a.nrows(), a.ncols()),
        || "C and A differ in shape".into(),
    )?;
    b.scale(c, op, d, a, true)
}

/// `C = A ⊗ diag(d)`: `c_ij = op(a_ij, d_j)` (column scaling).
pub fn scale_cols<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Matrix<T>,
    op: Op,
    a: &B::Matrix<T>,
    d: &B::Vector<T>,
) -> Result<()> {
    need("scale_cols", d.len() == a.ncols(), || {
        format!("d has length {}, A has {} columns", d.len(), a.ncols())
    })?;
    need(
        "scale_cols",
        (c.nrows(), c.ncols()) == (a.nrows(), a.ncols()),
        || "C and A differ in shape".into(),
    )?;
    b.scale(c, op, d, a, false)
}

/// `C = diag(d) ⊗ B` on dense matrices: `c_ij = op(d_i, b_ij)`.
pub fn scale_dense_rows<B: Backend, T: Scalar, Op: BinaryOp<T>>(
    b: &B,
    c: &mut B::Dense<T>,
    op: Op,
    d: &B::Vector<T>,
    bd: &B::Dense<T>,
) -> Result<()> {
    need("scale_dense_rows", d.len() == bd.nrows(), || {
        format!("d has length {}, B has {} rows", d.len(), bd.nrows())
    })?;
    need(
        "scale_dense_rows",
        (c.nrows(), c.ncols()) == (bd.nrows(), bd.ncols()),
        || "C and B differ in shape".into(),
    )?;
    b.scale_dense_rows(c, op, d, bd)
}
