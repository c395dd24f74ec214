//! Properties of the element-wise, structural and scaling operations (ewise
//! add/mult/union, apply, select, reduce, extract, assign, transpose, scale)
//! against dense specs, generic over the backend. The accumulator, where the
//! descriptor asks for one, is `Minus` (order-sensitive: `accum(old, new)`).

use bitgraphblas::algebra::{BinaryOp, IndexOp, Minus, Monoid, UnaryOp};
use bitgraphblas::{ops, DenseMatrix, Format, Matrix, Vector};
use quickcheck::{Arbitrary, Gen};

use super::gen::{below, dim, with_desc, DescCfg, SpMat, SpVec, FORMATS};
use super::oracle::{compare, mask_allows, spec_write, AccumFn};
use super::props::{ctx, mmask, vmask, TestBackend};
use super::{cells_of_matrix, cells_of_vector, TestScalar};

pub fn minus<T: TestScalar>(o: T, n: T) -> T {
    BinaryOp::<T>::apply(&Minus, o, n)
}

/// Distinct indices below `n`, in random order.
pub fn distinct(g: &mut Gen, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).filter(|_| below(g, 3) == 0).collect();
    for i in (1..v.len()).rev() {
        v.swap(i, below(g, i + 1));
    }
    v
}

/// Indices below `n` with repeats (empty when `n == 0`).
pub fn any_indices(g: &mut Gen, n: usize) -> Vec<usize> {
    if n == 0 {
        return vec![];
    }
    (0..below(g, 2 * n + 2)).map(|_| below(g, n)).collect()
}

/// Which element-wise operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ewise {
    Add,
    Mult,
    Union,
}
const EWISE: [Ewise; 3] = [Ewise::Add, Ewise::Mult, Ewise::Union];

fn ewise_spec<T: TestScalar, Op: BinaryOp<T>>(
    kind: Ewise,
    op: Op,
    x: Option<T>,
    y: Option<T>,
    alpha: T,
    beta: T,
) -> Option<T> {
    match (kind, x, y) {
        (_, Some(x), Some(y)) => Some(op.apply(x, y)),
        (Ewise::Mult, _, _) | (_, None, None) => None,
        (Ewise::Add, x, y) => x.or(y),
        (Ewise::Union, Some(x), None) => Some(op.apply(x, beta)),
        (Ewise::Union, None, Some(y)) => Some(op.apply(alpha, y)),
    }
}

/// The built-in predicates, drawn from `pick`, with thunks `k` and `s`.
pub fn index_op<T: TestScalar>(pick: usize, k: i64, s: T) -> IndexOp<T> {
    match pick % 14 {
        0 => IndexOp::Tril(k),
        1 => IndexOp::Triu(k),
        2 => IndexOp::Diag(k),
        3 => IndexOp::OffDiag(k),
        4 => IndexOp::RowLe(k),
        5 => IndexOp::RowGt(k),
        6 => IndexOp::ColLe(k),
        7 => IndexOp::ColGt(k),
        8 => IndexOp::ValueEq(s),
        9 => IndexOp::ValueNe(s),
        10 => IndexOp::ValueGt(s),
        11 => IndexOp::ValueGe(s),
        12 => IndexOp::ValueLt(s),
        _ => IndexOp::ValueLe(s),
    }
}

/// The predicate's meaning, written out independently of the library.
fn keep_spec<T: TestScalar>(p: IndexOp<T>, v: T, i: usize, j: usize) -> bool {
    let (i, j) = (i as i64, j as i64);
    match p {
        IndexOp::Tril(k) => j - i <= k,
        IndexOp::Triu(k) => j - i >= k,
        IndexOp::Diag(k) => j - i == k,
        IndexOp::OffDiag(k) => j - i != k,
        IndexOp::RowLe(k) => i <= k,
        IndexOp::RowGt(k) => i > k,
        IndexOp::ColLe(k) => j <= k,
        IndexOp::ColGt(k) => j > k,
        IndexOp::ValueEq(s) => v == s,
        IndexOp::ValueNe(s) => v != s,
        IndexOp::ValueGt(s) => v > s,
        IndexOp::ValueGe(s) => v >= s,
        IndexOp::ValueLt(s) => v < s,
        IndexOp::ValueLe(s) => v <= s,
    }
}

/// A vector case: `u`, `v`, `w`, `mask` of one length; an extract selection
/// (`xi`, with repeats) with its output `xw` and mask `xmask`; an assign
/// selection (`ai`, distinct) with its input `au`.
#[derive(Clone, Debug)]
pub struct VecCase<T> {
    pub u: SpVec<T>,
    pub v: SpVec<T>,
    pub w: SpVec<T>,
    pub mask: SpVec<T>,
    pub xi: Vec<usize>,
    pub xw: SpVec<T>,
    pub xmask: SpVec<T>,
    pub ai: Vec<usize>,
    pub au: SpVec<T>,
    pub cfg: DescCfg,
    pub alpha: T,
    pub beta: T,
    pub pick: usize,
    pub k: i64,
    pub s: T,
}

impl<T: TestScalar> Arbitrary for VecCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = dim(g);
        let xi = any_indices(g, n);
        let ai = distinct(g, n);
        VecCase {
            u: SpVec::gen(g, n),
            v: SpVec::gen(g, n),
            w: SpVec::gen(g, n),
            mask: SpVec::gen(g, n),
            xw: SpVec::gen(g, xi.len()),
            xmask: SpVec::gen(g, xi.len()),
            au: SpVec::gen(g, ai.len()),
            xi,
            ai,
            cfg: DescCfg::arbitrary(g),
            alpha: T::draw(g),
            beta: T::draw(g),
            pick: below(g, 1000),
            k: below(g, 20) as i64 - 10,
            s: T::draw(g),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let mut out = Vec::new();
        for u in self.u.shrink_entries() {
            out.push(VecCase { u, ..self.clone() });
        }
        for v in self.v.shrink_entries() {
            out.push(VecCase { v, ..self.clone() });
        }
        for cfg in self.cfg.shrink() {
            out.push(VecCase {
                cfg,
                ..self.clone()
            });
        }
        Box::new(out.into_iter())
    }
}

/// Runs one vector-output op `$call` (with `$d` the descriptor and `$w` the
/// output) and compares with `$expected`.
macro_rules! vector_out {
    ($b:expr, $what:expr, $cfg:expr, $w0:expr, $mask:expr, $expected:expr, |$w:ident, $d:ident| $call:expr) => {{
        let m = ctx("upload mask", $b.upload_vector(&$mask.vector()))?;
        let mut $w = ctx("upload w", $b.upload_vector(&$w0.vector()))?;
        let mk = vmask::<B, T>($cfg.mask, &m);
        let r = with_desc!(&$cfg, mk, Minus, |$d| $call);
        ctx($what, r)?;
        let got = ctx("download w", $b.download_vector(&$w))?;
        ctx("validate w", got.validate())?;
        compare(
            &format!("{} {:?}", $what, $cfg),
            1,
            &$expected,
            &cells_of_vector(&got),
        )?;
    }};
}

fn write_spec<T: TestScalar>(
    cfg: &DescCfg,
    old: &[Option<T>],
    t: &[Option<T>],
    mask: &[Option<T>],
) -> Vec<Option<T>> {
    let allowed = mask_allows(cfg.mask, mask);
    let acc = minus::<T>;
    let accum: AccumFn<'_, T> = cfg.accum.then_some(&acc);
    spec_write(old, t, allowed.as_deref(), accum, cfg.replace)
}

/// `w<mask> = accum(w, u op v)` for ewise add, mult and union.
pub fn prop_ewise_vector<B: TestBackend, T: TestScalar, Op: BinaryOp<T> + std::fmt::Debug>(
    b: &B,
    c: &VecCase<T>,
    op: Op,
) -> Result<(), String> {
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let v = ctx("upload v", b.upload_vector(&c.v.vector()))?;
    for kind in EWISE {
        let t: Vec<Option<T>> = (0..c.u.len())
            .map(|i| ewise_spec(kind, op, c.u.vals[i], c.v.vals[i], c.alpha, c.beta))
            .collect();
        let expected = write_spec(&c.cfg, &c.w.vals, &t, &c.mask.vals);
        let what = format!("ewise {kind:?} {op:?}");
        vector_out!(b, &what, c.cfg, c.w, c.mask, expected, |w, d| match kind {
            Ewise::Add => ops::ewise_add(b, &mut w, op, &u, &v, &d),
            Ewise::Mult => ops::ewise_mult(b, &mut w, op, &u, &v, &d),
            Ewise::Union => ops::ewise_union(b, &mut w, op, &u, c.alpha, &v, c.beta, &d),
        });
    }
    Ok(())
}

/// `w<mask> = accum(w, f(u))`.
pub fn prop_apply_vector<B: TestBackend, T: TestScalar, F: UnaryOp<T> + std::fmt::Debug>(
    b: &B,
    c: &VecCase<T>,
    f: F,
) -> Result<(), String> {
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let t: Vec<Option<T>> = c.u.vals.iter().map(|x| x.map(|x| f.apply(x))).collect();
    let expected = write_spec(&c.cfg, &c.w.vals, &t, &c.mask.vals);
    vector_out!(
        b,
        &format!("apply {f:?}"),
        c.cfg,
        c.w,
        c.mask,
        expected,
        |w, d| ops::apply(b, &mut w, f, &u, &d)
    );
    Ok(())
}

/// `w<mask> = accum(w, select(u))` for the predicate `pick` names.
pub fn prop_select_vector<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &VecCase<T>,
) -> Result<(), String> {
    let p = index_op(c.pick, c.k, c.s);
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let t: Vec<Option<T>> = (0..c.u.len())
        .map(|i| c.u.vals[i].filter(|&x| keep_spec(p, x, i, 0)))
        .collect();
    let expected = write_spec(&c.cfg, &c.w.vals, &t, &c.mask.vals);
    vector_out!(
        b,
        &format!("select {p:?}"),
        c.cfg,
        c.w,
        c.mask,
        expected,
        |w, d| ops::select(b, &mut w, p, &u, &d)
    );
    Ok(())
}

/// `⊕` over the present entries of `u` (identity when none).
pub fn prop_reduce_vector<B: TestBackend, T: TestScalar, M: Monoid<T> + std::fmt::Debug>(
    b: &B,
    c: &VecCase<T>,
    m: M,
) -> Result<(), String> {
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let expected =
        c.u.vals
            .iter()
            .flatten()
            .copied()
            .reduce(|x, y| m.apply(x, y))
            .unwrap_or_else(|| m.identity());
    let got = ctx("reduce", ops::reduce(b, m, &u))?;
    if !T::close(expected, got) {
        return Err(format!(
            "reduce {m:?}: expected {expected:?}, computed {got:?}"
        ));
    }
    Ok(())
}

/// `w<mask> = accum(w, u(xi))` (indices may repeat).
pub fn prop_extract_vector<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &VecCase<T>,
) -> Result<(), String> {
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let t: Vec<Option<T>> = c.xi.iter().map(|&i| c.u.vals[i]).collect();
    let expected = write_spec(&c.cfg, &c.xw.vals, &t, &c.xmask.vals);
    vector_out!(b, "extract", c.cfg, c.xw, c.xmask, expected, |w, d| {
        ops::extract(b, &mut w, &u, &c.xi, &d)
    });
    Ok(())
}

/// The GraphBLAS assign spec: `z = w` with `z(ai) = accum(w(ai), u)` (no
/// accumulator: `z(ai) = u`, absent `u` entries delete), then `w<mask> = z`.
fn assign_spec<T: TestScalar>(c: &VecCase<T>, u: &[Option<T>], ai: &[usize]) -> Vec<Option<T>> {
    let mut z = c.w.vals.clone();
    for (k, &i) in ai.iter().enumerate() {
        z[i] = match (c.cfg.accum, c.w.vals[i], u[k]) {
            (true, Some(o), Some(n)) => Some(minus(o, n)),
            (true, o, None) => o,
            (_, _, n) => n,
        };
    }
    let allowed = mask_allows(c.cfg.mask, &c.mask.vals);
    spec_write(&c.w.vals, &z, allowed.as_deref(), None, c.cfg.replace)
}

/// `w(ai)<mask> = accum(w(ai), u)`.
pub fn prop_assign_vector<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &VecCase<T>,
) -> Result<(), String> {
    let u = ctx("upload u", b.upload_vector(&c.au.vector()))?;
    let expected = assign_spec(c, &c.au.vals, &c.ai);
    vector_out!(b, "assign", c.cfg, c.w, c.mask, expected, |w, d| {
        ops::assign(b, &mut w, &u, &c.ai, &d)
    });
    Ok(())
}

/// `w(ai)<mask> = accum(w(ai), s)`, or every index when `pick` is even.
pub fn prop_assign_scalar<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &VecCase<T>,
) -> Result<(), String> {
    let all: Vec<usize> = (0..c.w.len()).collect();
    let (idx, opt) = if c.pick & 1 == 0 {
        (&all, None)
    } else {
        (&c.ai, Some(c.ai.as_slice()))
    };
    let u = vec![Some(c.s); idx.len()];
    let expected = assign_spec(c, &u, idx);
    vector_out!(b, "assign_scalar", c.cfg, c.w, c.mask, expected, |w, d| {
        ops::assign_scalar(b, &mut w, c.s, opt, &d)
    });
    Ok(())
}

/// A matrix case. The operation's `A` is `r x c` (stored `c x r` with `ta`),
/// `B` likewise with `tb`; `C` and the mask are `r x c`. Also: a row vector
/// `w`/`wmask` (length `r`) for reduce_rows, an extract selection `rows x
/// cols` into `A` with output `xc`/`xmask`, an assign selection (distinct
/// `arows`, `acols` of `C`) with input `aa`, and scale vectors of the stored `A`.
#[derive(Clone, Debug)]
pub struct MatCase<T> {
    pub a: SpMat<T>,
    pub b: SpMat<T>,
    pub iso_a: T,
    pub iso_b: T,
    pub c: SpMat<T>,
    pub c_format: Format,
    pub iso_c: T,
    pub mask: SpMat<T>,
    pub mask_format: Format,
    pub w: SpVec<T>,
    pub wmask: SpVec<T>,
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub xc: SpMat<T>,
    pub xmask: SpMat<T>,
    pub arows: Vec<usize>,
    pub acols: Vec<usize>,
    pub aa: SpMat<T>,
    pub drow: SpVec<T>,
    pub dcol: SpVec<T>,
    pub cfg: DescCfg,
    pub alpha: T,
    pub beta: T,
    pub pick: usize,
    pub k: i64,
    pub s: T,
    pub shift: usize,
}

impl<T: TestScalar> Arbitrary for MatCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (r, c) = (dim(g), dim(g));
        let cfg = DescCfg::arbitrary(g);
        let a = if cfg.ta {
            SpMat::gen(g, c, r)
        } else {
            SpMat::gen(g, r, c)
        };
        let bm = if cfg.tb {
            SpMat::gen(g, c, r)
        } else {
            SpMat::gen(g, r, c)
        };
        let (rows, cols) = (any_indices(g, r), any_indices(g, c));
        let (arows, acols) = (distinct(g, r), distinct(g, c));
        let aa = if cfg.ta {
            SpMat::gen(g, acols.len(), arows.len())
        } else {
            SpMat::gen(g, arows.len(), acols.len())
        };
        let (sr, sc) = (a.nrows, a.ncols);
        MatCase {
            a,
            b: bm,
            iso_a: T::draw(g),
            iso_b: T::draw(g),
            c: SpMat::gen(g, r, c),
            c_format: *g.choose(&FORMATS).unwrap(),
            iso_c: T::draw(g),
            mask: SpMat::gen(g, r, c),
            mask_format: *g.choose(&FORMATS).unwrap(),
            w: SpVec::gen(g, r),
            wmask: SpVec::gen(g, r),
            xc: SpMat::gen(g, rows.len(), cols.len()),
            xmask: SpMat::gen(g, rows.len(), cols.len()),
            rows,
            cols,
            arows,
            acols,
            aa,
            drow: SpVec::gen(g, sr),
            dcol: SpVec::gen(g, sc),
            cfg,
            alpha: T::draw(g),
            beta: T::draw(g),
            pick: below(g, 1000),
            k: below(g, 20) as i64 - 10,
            s: T::draw(g),
            shift: below(g, FORMATS.len()),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let mut out = Vec::new();
        for a in self.a.shrink_entries() {
            out.push(MatCase { a, ..self.clone() });
        }
        for b in self.b.shrink_entries() {
            out.push(MatCase { b, ..self.clone() });
        }
        for c in self.c.shrink_entries() {
            out.push(MatCase { c, ..self.clone() });
        }
        for cfg in self.cfg.shrink() {
            out.push(MatCase {
                cfg,
                ..self.clone()
            });
        }
        Box::new(out.into_iter())
    }
}

impl<T: TestScalar> MatCase<T> {
    /// `A` in format `i` and the triplets of `A` as the operation reads it.
    fn a_in(&self, i: usize) -> (Format, Matrix<T>, SpMat<T>) {
        let f = FORMATS[i];
        let (m, used) = self.a.in_format(f, self.iso_a);
        (f, m, if self.cfg.ta { used.transpose() } else { used })
    }
    /// `B` in the format paired with `i`, as the operation reads it.
    fn b_in(&self, i: usize) -> (Format, Matrix<T>, SpMat<T>) {
        let f = FORMATS[(i + self.shift) % FORMATS.len()];
        let (m, used) = self.b.in_format(f, self.iso_b);
        (f, m, if self.cfg.tb { used.transpose() } else { used })
    }
}

/// Runs one matrix-output op and compares with the spec
/// `C<mask> = accum(C, t)` (accumulator `Minus`).
#[allow(clippy::too_many_arguments)]
fn matrix_out<B: TestBackend, T: TestScalar>(
    b: &B,
    what: &str,
    cfg: &DescCfg,
    c0: &SpMat<T>,
    c_format: Format,
    iso_c: T,
    mask: &SpMat<T>,
    mask_format: Format,
    t: &[Option<T>],
    spec_accum: bool,
    call: impl FnOnce(
        &mut B::Matrix<T>,
        Option<bitgraphblas::MatrixMask<'_, B>>,
    ) -> bitgraphblas::Result<()>,
) -> Result<(), String> {
    let (cm, c_used) = c0.in_format(c_format, iso_c);
    let (mk, m_used) = mask.in_format(mask_format, iso_c);
    let allowed = mask_allows(cfg.mask, &m_used.cells());
    let acc = minus::<T>;
    let accum: AccumFn<'_, T> = (spec_accum && cfg.accum).then_some(&acc);
    let expected = spec_write(&c_used.cells(), t, allowed.as_deref(), accum, cfg.replace);
    let mk = ctx("upload mask", b.upload_matrix(&mk))?;
    let mut out = ctx("upload C", b.upload_matrix(&cm))?;
    ctx(what, call(&mut out, mmask::<B, T>(cfg.mask, &mk)))?;
    let got = ctx("download C", b.download_matrix(&out))?;
    ctx("validate C", got.validate())?;
    compare(
        &format!("{what} C {c_format:?} {cfg:?}"),
        c0.ncols,
        &expected,
        &cells_of_matrix(&got),
    )
}

/// `C<mask> = accum(C, A op B)` for ewise add, mult and union on matrices.
pub fn prop_ewise_matrix<B: TestBackend, T: TestScalar, Op: BinaryOp<T> + std::fmt::Debug>(
    b: &B,
    c: &MatCase<T>,
    op: Op,
) -> Result<(), String> {
    for i in 0..FORMATS.len() {
        let (fa, am, ua) = c.a_in(i);
        let (fb, bm, ub) = c.b_in(i);
        let (am, bm) = (
            ctx("upload A", b.upload_matrix(&am))?,
            ctx("upload B", b.upload_matrix(&bm))?,
        );
        let (ca, cb) = (ua.cells(), ub.cells());
        for kind in EWISE {
            let t: Vec<Option<T>> = (0..ca.len())
                .map(|p| ewise_spec(kind, op, ca[p], cb[p], c.alpha, c.beta))
                .collect();
            let what = format!("ewise matrix {kind:?} {op:?} A {fa:?} B {fb:?}");
            matrix_out(
                b,
                &what,
                &c.cfg,
                &c.c,
                c.c_format,
                c.iso_c,
                &c.mask,
                c.mask_format,
                &t,
                true,
                |out, mk| {
                    with_desc!(&c.cfg, mk, Minus, |d| match kind {
                        Ewise::Add => ops::ewise_add_matrix(b, out, op, &am, &bm, &d),
                        Ewise::Mult => ops::ewise_mult_matrix(b, out, op, &am, &bm, &d),
                        Ewise::Union =>
                            ops::ewise_union_matrix(b, out, op, &am, c.alpha, &bm, c.beta, &d),
                    })
                },
            )?;
        }
    }
    Ok(())
}

/// `C<mask> = accum(C, f(A))`.
pub fn prop_apply_matrix<B: TestBackend, T: TestScalar, F: UnaryOp<T> + std::fmt::Debug>(
    b: &B,
    c: &MatCase<T>,
    f: F,
) -> Result<(), String> {
    for i in 0..FORMATS.len() {
        let (fa, am, ua) = c.a_in(i);
        let am = ctx("upload A", b.upload_matrix(&am))?;
        let t: Vec<Option<T>> = ua.cells().iter().map(|x| x.map(|x| f.apply(x))).collect();
        let what = format!("apply matrix {f:?} A {fa:?}");
        matrix_out(
            b,
            &what,
            &c.cfg,
            &c.c,
            c.c_format,
            c.iso_c,
            &c.mask,
            c.mask_format,
            &t,
            true,
            |out, mk| with_desc!(&c.cfg, mk, Minus, |d| ops::apply_matrix(b, out, f, &am, &d)),
        )?;
    }
    Ok(())
}

/// `C<mask> = accum(C, select(A))`.
pub fn prop_select_matrix<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &MatCase<T>,
) -> Result<(), String> {
    let p = index_op(c.pick, c.k, c.s);
    for i in 0..FORMATS.len() {
        let (fa, am, ua) = c.a_in(i);
        let am = ctx("upload A", b.upload_matrix(&am))?;
        let nc = ua.ncols.max(1);
        let t: Vec<Option<T>> = ua
            .cells()
            .iter()
            .enumerate()
            .map(|(q, x)| x.filter(|&x| keep_spec(p, x, q / nc, q % nc)))
            .collect();
        let what = format!("select matrix {p:?} A {fa:?}");
        matrix_out(
            b,
            &what,
            &c.cfg,
            &c.c,
            c.c_format,
            c.iso_c,
            &c.mask,
            c.mask_format,
            &t,
            true,
            |out, mk| {
                with_desc!(&c.cfg, mk, Minus, |d| ops::select_matrix(
                    b, out, p, &am, &d
                ))
            },
        )?;
    }
    Ok(())
}

/// `w<mask> = accum(w, ⊕_j A(i, j))` and `⊕` of all of `A`.
pub fn prop_reduce<B: TestBackend, T: TestScalar, M: Monoid<T> + std::fmt::Debug>(
    b: &B,
    c: &MatCase<T>,
    m: M,
) -> Result<(), String> {
    for i in 0..FORMATS.len() {
        let (fa, am, ua) = c.a_in(i);
        let am = ctx("upload A", b.upload_matrix(&am))?;
        let cells = ua.cells();
        let nc = ua.ncols;
        let t: Vec<Option<T>> = (0..ua.nrows)
            .map(|r| {
                cells[r * nc..(r + 1) * nc]
                    .iter()
                    .flatten()
                    .copied()
                    .reduce(|x, y| m.apply(x, y))
            })
            .collect();
        let expected = write_spec(&c.cfg, &c.w.vals, &t, &c.wmask.vals);
        vector_out!(
            b,
            &format!("reduce_rows {m:?} A {fa:?}"),
            c.cfg,
            c.w,
            c.wmask,
            expected,
            |w, d| ops::reduce_rows(b, &mut w, m, &am, &d)
        );
        let all = cells
            .iter()
            .flatten()
            .copied()
            .reduce(|x, y| m.apply(x, y))
            .unwrap_or_else(|| m.identity());
        let got = ctx("reduce_matrix", ops::reduce_matrix(b, m, &am))?;
        if !T::close(all, got) {
            return Err(format!(
                "reduce_matrix {m:?} A {fa:?}: expected {all:?}, computed {got:?}"
            ));
        }
    }
    Ok(())
}

/// `C<mask> = accum(C, A(rows, cols))` (indices may repeat).
pub fn prop_extract_matrix<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &MatCase<T>,
) -> Result<(), String> {
    for i in 0..FORMATS.len() {
        let (fa, am, ua) = c.a_in(i);
        let am = ctx("upload A", b.upload_matrix(&am))?;
        let cells = ua.cells();
        let t: Vec<Option<T>> = c
            .rows
            .iter()
            .flat_map(|&r| c.cols.iter().map(move |&q| (r, q)))
            .map(|(r, q)| cells[r * ua.ncols + q])
            .collect();
        let what = format!("extract matrix A {fa:?}");
        matrix_out(
            b,
            &what,
            &c.cfg,
            &c.xc,
            c.c_format,
            c.iso_c,
            &c.xmask,
            c.mask_format,
            &t,
            true,
            |out, mk| {
                with_desc!(&c.cfg, mk, Minus, |d| ops::extract_matrix(
                    b, out, &am, &c.rows, &c.cols, &d
                ))
            },
        )?;
    }
    Ok(())
}

/// `C(arows, acols)<mask> = accum(C(arows, acols), A)` (GrB_assign: the mask
/// and replace act on all of `C`).
pub fn prop_assign_matrix<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &MatCase<T>,
) -> Result<(), String> {
    for &f in &FORMATS {
        let (am, used) = c.aa.in_format(f, c.iso_a);
        let used = if c.cfg.ta { used.transpose() } else { used };
        let am = ctx("upload A", b.upload_matrix(&am))?;
        let (_, c_used) = c.c.in_format(c.c_format, c.iso_c);
        let (old, ua) = (c_used.cells(), used.cells());
        let mut z = old.clone();
        for (p, &r) in c.arows.iter().enumerate() {
            for (q, &j) in c.acols.iter().enumerate() {
                let (o, n) = (old[r * c.c.ncols + j], ua[p * used.ncols + q]);
                z[r * c.c.ncols + j] = match (c.cfg.accum, o, n) {
                    (true, Some(o), Some(n)) => Some(minus(o, n)),
                    (true, o, None) => o,
                    (_, _, n) => n,
                };
            }
        }
        let what = format!("assign matrix A {f:?}");
        matrix_out(
            b,
            &what,
            &c.cfg,
            &c.c,
            c.c_format,
            c.iso_c,
            &c.mask,
            c.mask_format,
            &z,
            false,
            |out, mk| {
                with_desc!(&c.cfg, mk, Minus, |d| ops::assign_matrix(
                    b, out, &am, &c.arows, &c.acols, &d
                ))
            },
        )?;
    }
    Ok(())
}

/// `C<mask> = accum(C, A_op')`, where `A_op` is `A` read through the
/// descriptor (so `C` is `c x r`).
pub fn prop_transpose<B: TestBackend, T: TestScalar>(b: &B, c: &MatCase<T>) -> Result<(), String> {
    let (c0, mask) = (c.c.transpose(), c.mask.transpose());
    for i in 0..FORMATS.len() {
        let (fa, am, ua) = c.a_in(i);
        let am = ctx("upload A", b.upload_matrix(&am))?;
        let t = ua.transpose().cells();
        let what = format!("transpose A {fa:?}");
        matrix_out(
            b,
            &what,
            &c.cfg,
            &c0,
            c.c_format,
            c.iso_c,
            &mask,
            c.mask_format,
            &t,
            true,
            |out, mk| with_desc!(&c.cfg, mk, Minus, |d| ops::transpose(b, out, &am, &d)),
        )?;
    }
    Ok(())
}

/// `C = diag(d) ⊗ A` and `C = A ⊗ diag(d)` with `op`; entries whose `d` is
/// absent are dropped.
pub fn prop_scale<B: TestBackend, T: TestScalar, Op: BinaryOp<T> + std::fmt::Debug>(
    b: &B,
    c: &MatCase<T>,
    op: Op,
) -> Result<(), String> {
    let drow = ctx("upload d", b.upload_vector(&c.drow.vector()))?;
    let dcol = ctx("upload d", b.upload_vector(&c.dcol.vector()))?;
    for &f in &FORMATS {
        let (am, used) = c.a.in_format(f, c.iso_a);
        let am = ctx("upload A", b.upload_matrix(&am))?;
        for rows in [true, false] {
            let mut expected = vec![None; used.nrows * used.ncols];
            for &(i, j, x) in &used.entries {
                expected[i * used.ncols + j] = if rows {
                    c.drow.vals[i].map(|d| op.apply(d, x))
                } else {
                    c.dcol.vals[j].map(|d| op.apply(x, d))
                };
            }
            let mut out = ctx(
                "upload C",
                b.upload_matrix(&Matrix::empty(used.nrows, used.ncols)),
            )?;
            let r = if rows {
                ops::scale_rows(b, &mut out, op, &drow, &am)
            } else {
                ops::scale_cols(b, &mut out, op, &am, &dcol)
            };
            ctx("scale", r)?;
            let got = ctx("download C", b.download_matrix(&out))?;
            ctx("validate C", got.validate())?;
            compare(
                &format!("scale rows={rows} {op:?} A {f:?}"),
                used.ncols,
                &expected,
                &cells_of_matrix(&got),
            )?;
        }
    }
    Ok(())
}

/// `C = diag(d) ⊗ B` on dense matrices; rows with `d_i` absent are `B`'s rows.
pub fn prop_scale_dense_rows<B: TestBackend, T: TestScalar, Op: BinaryOp<T> + std::fmt::Debug>(
    b: &B,
    c: &super::props::DenseCase<T>,
    op: Op,
) -> Result<(), String> {
    let (k, n) = (c.d.len(), c.n);
    let bd = DenseMatrix::from_vec(k, n, c.b.clone()).expect("sizes");
    let d = ctx("upload d", b.upload_vector(&c.d.vector()))?;
    let bd = ctx("upload B", b.upload_dense(&bd))?;
    let mut out = ctx(
        "upload C",
        b.upload_dense(&DenseMatrix::filled(k, n, T::zero())),
    )?;
    ctx(
        "scale_dense_rows",
        ops::scale_dense_rows(b, &mut out, op, &d, &bd),
    )?;
    let got = ctx("download C", b.download_dense(&out))?;
    let expected: Vec<Option<T>> = (0..k * n)
        .map(|p| {
            let x = c.b[p];
            Some(c.d.vals[p / n].map_or(x, |di| op.apply(di, x)))
        })
        .collect();
    let got: Vec<Option<T>> = got.as_slice().iter().map(|&x| Some(x)).collect();
    compare(&format!("scale_dense_rows {op:?}"), n, &expected, &got)
}

/// A vector built from a case vector, for callers outside this module.
pub fn host_vector<T: TestScalar>(v: &SpVec<T>) -> Vector<T> {
    v.vector()
}
