//! Properties of the standard calls built on other backend entry points
//! (row and column extract and assign, scalar assign into a matrix,
//! sub-assign, positional apply, reductions to an empty-able scalar, the
//! COLLE/COLGT selects) against small dense references, generic over the
//! backend. Each property returns the outputs it computed (after checking
//! them), so a device test can also compare them with the CPU's. The
//! accumulator, where the descriptor asks for one, is `Minus`
//! (order-sensitive: `accum(old, new)`). Out-of-range lines are generated
//! now and then: those calls must fail and leave the output unchanged.

use bitgraphblas::algebra::{
    BinaryOp, IndexOp, Max, Min, Minus, Monoid, Plus, PositionalOp, Times,
};
use bitgraphblas::{ops, Desc, Format, Matrix, TileSize, Vector};
use quickcheck::{Arbitrary, Gen};

use super::gen::{below, dim, with_desc, DescCfg, SpMat, SpVec, FORMATS};
use super::oracle::{compare, mask_allows, spec_write, AccumFn};
use super::props::{ctx, mmask, vmask, TestBackend};
use super::props_elem::{any_indices, distinct, minus};
use super::{cells_of_matrix, cells_of_vector, TestScalar};

/// Dense cells (row-major for matrices).
pub type Cells<T> = Vec<Option<T>>;

/// What `assign` leaves at one place: `accum(old, x)`, `old` where `x` is
/// absent under an accumulator, else `x`.
fn assigned<T: TestScalar>(accum: bool, old: Option<T>, x: Option<T>) -> Option<T> {
    match (accum, old, x) {
        (true, Some(o), Some(x)) => Some(minus(o, x)),
        (true, o, None) => o,
        (_, _, x) => x,
    }
}

/// GraphBLAS assign on dense cells: the places `targets` take `t` (through
/// the accumulator), then the mask (over all of `old`) and replace.
pub fn assign_ref<T: TestScalar>(
    cfg: &DescCfg,
    old: &[Option<T>],
    targets: &[usize],
    t: &[Option<T>],
    allowed: Option<&[bool]>,
) -> Cells<T> {
    let mut z = old.to_vec();
    for (k, &p) in targets.iter().enumerate() {
        z[p] = assigned(cfg.accum, old[p], t[k]);
    }
    spec_write(old, &z, allowed, None, cfg.replace)
}

/// Sub-assign on dense cells: the region `targets` read out, `S<mask> =
/// accum(S, t)` on it (the mask over the region), written back.
pub fn subassign_ref<T: TestScalar>(
    cfg: &DescCfg,
    old: &[Option<T>],
    targets: &[usize],
    t: &[Option<T>],
    allowed: Option<&[bool]>,
) -> Cells<T> {
    let s: Cells<T> = targets.iter().map(|&p| old[p]).collect();
    let s2 = write_ref(cfg, &s, t, allowed);
    let mut z = old.to_vec();
    for (k, &p) in targets.iter().enumerate() {
        z[p] = s2[k];
    }
    z
}

/// `w<mask> = accum(w, t)` with the case's accumulator and replace.
pub fn write_ref<T: TestScalar>(
    cfg: &DescCfg,
    old: &[Option<T>],
    t: &[Option<T>],
    allowed: Option<&[bool]>,
) -> Cells<T> {
    let acc = minus::<T>;
    let accum: AccumFn<'_, T> = cfg.accum.then_some(&acc);
    spec_write(old, t, allowed, accum, cfg.replace)
}

/// The cells a call's output must hold after it returned `r`: `expected`, or
/// with `want_err` (the call must have failed) the cells it started from.
fn must_leave<T: TestScalar>(
    what: &str,
    r: bitgraphblas::Result<()>,
    want_err: bool,
    expected: &[Option<T>],
    before: impl FnOnce() -> Cells<T>,
) -> Result<Cells<T>, String> {
    if !want_err {
        ctx(what, r)?;
        return Ok(expected.to_vec());
    }
    if r.is_ok() {
        return Err(format!("{what}: returned Ok on bad input"));
    }
    Ok(before())
}

/// Runs `call` on `c0` uploaded: with `want_err`, it must fail and leave the
/// output as it was; else the output must be `expected`. Returns the output.
fn run_matrix<B: TestBackend, T: TestScalar>(
    b: &B,
    what: &str,
    c0: &Matrix<T>,
    expected: &[Option<T>],
    want_err: bool,
    call: impl FnOnce(&mut B::Matrix<T>) -> bitgraphblas::Result<()>,
) -> Result<Cells<T>, String> {
    let mut out = ctx("upload C", b.upload_matrix(c0))?;
    let r = call(&mut out);
    let expected = must_leave(what, r, want_err, expected, || cells_of_matrix(c0))?;
    let got = ctx("download C", b.download_matrix(&out))?;
    ctx("validate C", got.validate())?;
    let cells = cells_of_matrix(&got);
    compare(what, c0.ncols(), &expected, &cells)?;
    Ok(cells)
}

/// [`run_matrix`] for a vector output.
fn run_vector<B: TestBackend, T: TestScalar>(
    b: &B,
    what: &str,
    w0: &Vector<T>,
    expected: &[Option<T>],
    want_err: bool,
    call: impl FnOnce(&mut B::Vector<T>) -> bitgraphblas::Result<()>,
) -> Result<Cells<T>, String> {
    let mut out = ctx("upload w", b.upload_vector(w0))?;
    let r = call(&mut out);
    let expected = must_leave(what, r, want_err, expected, || cells_of_vector(w0))?;
    let got = ctx("download w", b.download_vector(&out))?;
    ctx("validate w", got.validate())?;
    let cells = cells_of_vector(&got);
    compare(what, 1, &expected, &cells)?;
    Ok(cells)
}

/// A format drawn from [`FORMATS`].
fn any_format(g: &mut Gen) -> Format {
    FORMATS[below(g, FORMATS.len())]
}

/// An index below `n`, or (one time in eight, or when `n == 0`) `n` itself:
/// out of range.
fn line_index(g: &mut Gen, n: usize) -> usize {
    if n == 0 || below(g, 8) == 0 {
        n
    } else {
        below(g, n)
    }
}

/// Distinct indices below `n`, or `None` (every index) one time in four.
fn maybe_all(g: &mut Gen, n: usize) -> Option<Vec<usize>> {
    (below(g, 4) != 0).then(|| distinct(g, n))
}

// ---- row and column assign ---------------------------------------------------

/// `assign_row` (`row`) or `assign_col` into `C` (`m x n`): the line `at`
/// (sometimes out of range), distinct targets `idx` along it, `u` one entry
/// per target, a mask along the line.
#[derive(Clone, Debug)]
pub struct LineCase<T> {
    pub c: SpMat<T>,
    pub format: Format,
    pub iso: T,
    pub row: bool,
    pub at: usize,
    pub idx: Vec<usize>,
    pub u: SpVec<T>,
    pub mask: SpVec<T>,
    pub cfg: DescCfg,
}

impl<T: TestScalar> Arbitrary for LineCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = (dim(g), dim(g));
        let row = bool::arbitrary(g);
        let (lines, len) = if row { (m, n) } else { (n, m) };
        let idx = distinct(g, len);
        LineCase {
            c: SpMat::gen(g, m, n),
            format: any_format(g),
            iso: T::draw(g),
            row,
            at: line_index(g, lines),
            u: SpVec::gen(g, idx.len()),
            mask: SpVec::gen(g, len),
            idx,
            cfg: DescCfg::arbitrary(g),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let cfgs: Vec<_> = self.cfg.shrink().collect();
        let me = self.clone();
        Box::new(
            cfgs.into_iter()
                .map(move |cfg| LineCase { cfg, ..me.clone() }),
        )
    }
}

/// `C(i, idx)<mask> = accum(C(i, idx), u)` or `C(idx, j)<mask> = ...`.
pub fn prop_assign_line<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &LineCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let (cm, used) = c.c.in_format(c.format, c.iso);
    let (m, n) = (used.nrows, used.ncols);
    let old = used.cells();
    let lines = if c.row { m } else { n };
    let want_err = c.at >= lines;
    let mut expected = old.clone();
    if !want_err {
        // the line's places in C, then the vector assign along it
        let places: Vec<usize> = if c.row {
            (0..n).map(|j| c.at * n + j).collect()
        } else {
            (0..m).map(|i| i * n + c.at).collect()
        };
        let line: Cells<T> = places.iter().map(|&p| old[p]).collect();
        let allowed = mask_allows(c.cfg.mask, &c.mask.vals);
        let z = assign_ref(&c.cfg, &line, &c.idx, &c.u.vals, allowed.as_deref());
        for (k, &p) in places.iter().enumerate() {
            expected[p] = z[k];
        }
    }
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let mk = ctx("upload mask", b.upload_vector(&c.mask.vector()))?;
    let what = format!(
        "assign_{} {:?} C {:?}",
        if c.row { "row" } else { "col" },
        c.cfg,
        c.format
    );
    let got = run_matrix(b, &what, &cm, &expected, want_err, |out| {
        with_desc!(&c.cfg, vmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
            if c.row {
                ops::assign_row(b, out, &u, c.at, &c.idx, &d)
            } else {
                ops::assign_col(b, out, &u, &c.idx, c.at, &d)
            }
        })
    })?;
    Ok(vec![got])
}

// ---- column (and row) extract ---------------------------------------------------

/// `w<mask> = accum(w, A(rows, j))` (`A'` with `cfg.ta`): rows may repeat;
/// `j` is sometimes out of range.
#[derive(Clone, Debug)]
pub struct ExtractColCase<T> {
    pub a: SpMat<T>,
    pub format: Format,
    pub iso: T,
    pub rows: Vec<usize>,
    pub j: usize,
    pub w: SpVec<T>,
    pub mask: SpVec<T>,
    pub cfg: DescCfg,
}

impl<T: TestScalar> Arbitrary for ExtractColCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = (dim(g), dim(g));
        let cfg = DescCfg::arbitrary(g);
        let (rm, rn) = if cfg.ta { (n, m) } else { (m, n) };
        let rows = any_indices(g, rm);
        ExtractColCase {
            a: SpMat::gen(g, m, n),
            format: any_format(g),
            iso: T::draw(g),
            j: line_index(g, rn),
            w: SpVec::gen(g, rows.len()),
            mask: SpVec::gen(g, rows.len()),
            rows,
            cfg,
        }
    }
}

/// [`ExtractColCase`] against `t_k = A(rows[k], j)` read from the dense cells.
pub fn prop_extract_col<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &ExtractColCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let (am, used) = c.a.in_format(c.format, c.iso);
    let used = if c.cfg.ta { used.transpose() } else { used };
    let want_err = c.j >= used.ncols;
    let cells = used.cells();
    let t: Cells<T> = c
        .rows
        .iter()
        .map(|&i| {
            if want_err {
                None
            } else {
                cells[i * used.ncols + c.j]
            }
        })
        .collect();
    let allowed = mask_allows(c.cfg.mask, &c.mask.vals);
    let expected = write_ref(&c.cfg, &c.w.vals, &t, allowed.as_deref());
    let a = ctx("upload A", b.upload_matrix(&am))?;
    let mk = ctx("upload mask", b.upload_vector(&c.mask.vector()))?;
    let what = format!("extract_col {:?} A {:?}", c.cfg, c.format);
    let got = run_vector(b, &what, &c.w.vector(), &expected, want_err, |w| {
        with_desc!(&c.cfg, vmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
            ops::extract_col(b, w, &a, &c.rows, c.j, &d)
        })
    })?;
    Ok(vec![got])
}

// ---- scalar assign and sub-assign into a matrix ------------------------------------

/// A scalar into `C(rows, cols)` (`None`: every row or column), with a mask
/// of `C`'s shape (`assign`) and one of the region's (`subassign`).
#[derive(Clone, Debug)]
pub struct ScalarCase<T> {
    pub c: SpMat<T>,
    pub format: Format,
    pub iso: T,
    pub rows: Option<Vec<usize>>,
    pub cols: Option<Vec<usize>>,
    pub s: T,
    pub cmask: SpMat<T>,
    pub rmask: SpMat<T>,
    pub cfg: DescCfg,
}

impl<T: TestScalar> Arbitrary for ScalarCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = (dim(g), dim(g));
        let (rows, cols) = (maybe_all(g, m), maybe_all(g, n));
        let (rl, cl) = (
            rows.as_ref().map_or(m, Vec::len),
            cols.as_ref().map_or(n, Vec::len),
        );
        ScalarCase {
            c: SpMat::gen(g, m, n),
            format: any_format(g),
            iso: T::draw(g),
            rows,
            cols,
            s: T::draw(g),
            cmask: SpMat::gen(g, m, n),
            rmask: SpMat::gen(g, rl, cl),
            cfg: DescCfg::arbitrary(g),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let cfgs: Vec<_> = self.cfg.shrink().collect();
        let me = self.clone();
        Box::new(
            cfgs.into_iter()
                .map(move |cfg| ScalarCase { cfg, ..me.clone() }),
        )
    }
}

/// The row-major places of `C(rows, cols)` in an `_ x ncols` matrix.
fn region(rows: &[usize], cols: &[usize], ncols: usize) -> Vec<usize> {
    rows.iter()
        .flat_map(|&i| cols.iter().map(move |&j| i * ncols + j))
        .collect()
}

/// `assign_matrix_scalar` and `subassign_matrix_scalar`.
pub fn prop_scalar_matrix<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &ScalarCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let (cm, used) = c.c.in_format(c.format, c.iso);
    let (m, n) = (used.nrows, used.ncols);
    let rows = c.rows.clone().unwrap_or_else(|| (0..m).collect());
    let cols = c.cols.clone().unwrap_or_else(|| (0..n).collect());
    let places = region(&rows, &cols, n);
    let t = vec![Some(c.s); places.len()];
    let old = used.cells();
    let (rows_arg, cols_arg) = (c.rows.as_deref(), c.cols.as_deref());
    let mut outs = Vec::new();
    for sub in [false, true] {
        let mask = if sub { &c.rmask } else { &c.cmask };
        let allowed = mask_allows(c.cfg.mask, &mask.cells());
        let expected = if sub {
            subassign_ref(&c.cfg, &old, &places, &t, allowed.as_deref())
        } else {
            assign_ref(&c.cfg, &old, &places, &t, allowed.as_deref())
        };
        let mk = ctx("upload mask", b.upload_matrix(&mask.matrix()))?;
        let what = format!(
            "{}assign_matrix_scalar {:?} C {:?}",
            if sub { "sub" } else { "" },
            c.cfg,
            c.format
        );
        outs.push(run_matrix(b, &what, &cm, &expected, false, |out| {
            with_desc!(&c.cfg, mmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
                if sub {
                    ops::subassign_matrix_scalar(b, out, c.s, rows_arg, cols_arg, &d)
                } else {
                    ops::assign_matrix_scalar(b, out, c.s, rows_arg, cols_arg, &d)
                }
            })
        })?);
    }
    Ok(outs)
}

/// `C(rows, cols)<mask> = accum(C(rows, cols), A)` with a region mask
/// (`A'` with `cfg.ta`).
#[derive(Clone, Debug)]
pub struct SubCase<T> {
    pub c: SpMat<T>,
    pub format: Format,
    pub iso: T,
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub a: SpMat<T>,
    pub a_format: Format,
    pub iso_a: T,
    pub mask: SpMat<T>,
    pub cfg: DescCfg,
}

impl<T: TestScalar> Arbitrary for SubCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = (dim(g), dim(g));
        let (rows, cols) = (distinct(g, m), distinct(g, n));
        let cfg = DescCfg::arbitrary(g);
        let (ar, ac) = if cfg.ta {
            (cols.len(), rows.len())
        } else {
            (rows.len(), cols.len())
        };
        SubCase {
            c: SpMat::gen(g, m, n),
            format: any_format(g),
            iso: T::draw(g),
            a: SpMat::gen(g, ar, ac),
            a_format: any_format(g),
            iso_a: T::draw(g),
            mask: SpMat::gen(g, rows.len(), cols.len()),
            rows,
            cols,
            cfg,
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let cfgs: Vec<_> = self.cfg.shrink().collect();
        let me = self.clone();
        Box::new(
            cfgs.into_iter()
                .map(move |cfg| SubCase { cfg, ..me.clone() }),
        )
    }
}

/// `subassign_matrix`.
pub fn prop_subassign_matrix<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &SubCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let (cm, used) = c.c.in_format(c.format, c.iso);
    let (am, a_used) = c.a.in_format(c.a_format, c.iso_a);
    let a_used = if c.cfg.ta { a_used.transpose() } else { a_used };
    let places = region(&c.rows, &c.cols, used.ncols);
    let allowed = mask_allows(c.cfg.mask, &c.mask.cells());
    let expected = subassign_ref(
        &c.cfg,
        &used.cells(),
        &places,
        &a_used.cells(),
        allowed.as_deref(),
    );
    let a = ctx("upload A", b.upload_matrix(&am))?;
    let mk = ctx("upload mask", b.upload_matrix(&c.mask.matrix()))?;
    let what = format!(
        "subassign_matrix {:?} C {:?} A {:?}",
        c.cfg, c.format, c.a_format
    );
    let got = run_matrix(b, &what, &cm, &expected, false, |out| {
        with_desc!(&c.cfg, mmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
            ops::subassign_matrix(b, out, &a, &c.rows, &c.cols, &d)
        })
    })?;
    Ok(vec![got])
}

// ---- vector sub-assign ----------------------------------------------------------

/// `w(idx)<mask> = accum(w(idx), u or s)` with a mask of length `idx.len()`;
/// the scalar form also with every index (`all_mask` of `w`'s length).
#[derive(Clone, Debug)]
pub struct SubVecCase<T> {
    pub w: SpVec<T>,
    pub idx: Vec<usize>,
    pub u: SpVec<T>,
    pub mask: SpVec<T>,
    pub all_mask: SpVec<T>,
    pub s: T,
    pub cfg: DescCfg,
}

impl<T: TestScalar> Arbitrary for SubVecCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = dim(g);
        let idx = distinct(g, n);
        SubVecCase {
            w: SpVec::gen(g, n),
            u: SpVec::gen(g, idx.len()),
            mask: SpVec::gen(g, idx.len()),
            all_mask: SpVec::gen(g, n),
            idx,
            s: T::draw(g),
            cfg: DescCfg::arbitrary(g),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let cfgs: Vec<_> = self.cfg.shrink().collect();
        let me = self.clone();
        Box::new(
            cfgs.into_iter()
                .map(move |cfg| SubVecCase { cfg, ..me.clone() }),
        )
    }
}

/// `subassign` and `subassign_scalar` (at `idx` and at every index).
pub fn prop_subassign_vector<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &SubVecCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let all: Vec<usize> = (0..c.w.len()).collect();
    let mut outs = Vec::new();
    // 0: u at idx; 1: s at idx; 2: s everywhere
    for form in 0..3 {
        let (idx, mask) = if form == 2 {
            (&all, &c.all_mask)
        } else {
            (&c.idx, &c.mask)
        };
        let t = if form == 0 {
            c.u.vals.clone()
        } else {
            vec![Some(c.s); idx.len()]
        };
        let allowed = mask_allows(c.cfg.mask, &mask.vals);
        let expected = subassign_ref(&c.cfg, &c.w.vals, idx, &t, allowed.as_deref());
        let mk = ctx("upload mask", b.upload_vector(&mask.vector()))?;
        let what = format!("subassign form {form} {:?}", c.cfg);
        outs.push(run_vector(
            b,
            &what,
            &c.w.vector(),
            &expected,
            false,
            |w| {
                with_desc!(
                    &c.cfg,
                    vmask::<B, T>(c.cfg.mask, &mk),
                    Minus,
                    |d| match form {
                        0 => ops::subassign(b, w, &u, &c.idx, &d),
                        1 => ops::subassign_scalar(b, w, c.s, Some(&c.idx), &d),
                        _ => ops::subassign_scalar(b, w, c.s, None, &d),
                    }
                )
            },
        )?);
    }
    Ok(outs)
}

// ---- positional apply -------------------------------------------------------------

/// The positional operator `pick` names, with thunk `k`.
pub fn positional(pick: usize, k: i64) -> PositionalOp {
    match pick % 3 {
        0 => PositionalOp::RowIndex(k),
        1 => PositionalOp::ColIndex(k),
        _ => PositionalOp::DiagIndex(k),
    }
}

/// The number of a positional operator in `T`, written out independently:
/// exact in `i128`, then wrapped to `i64` and cast (integers, bool) or
/// rounded (floats).
fn position_spec<T: TestScalar>(op: PositionalOp, i: usize, j: usize) -> T {
    let (i, j) = (i as i128, j as i128);
    let exact = match op {
        PositionalOp::RowIndex(k) => i + k as i128,
        PositionalOp::ColIndex(k) => j + k as i128,
        PositionalOp::DiagIndex(k) => k as i128 + j - i,
    };
    if T::IS_FLOAT {
        T::from_f64(exact as f64)
    } else {
        T::from_i64(exact as i64)
    }
}

/// A thunk: small, or (rarely) at the ends of `i64`.
fn thunk(g: &mut Gen) -> i64 {
    match below(g, 12) {
        0 => i64::MAX,
        1 => i64::MIN,
        2 => 1 << 40,
        _ => below(g, 21) as i64 - 10,
    }
}

/// `C<mask> = accum(C, p(A))` (`A'` with `cfg.ta`), and the vector form on
/// `u`, `w`, `vmask`.
#[derive(Clone, Debug)]
pub struct PosCase<T> {
    pub a: SpMat<T>,
    pub format: Format,
    pub iso: T,
    pub c: SpMat<T>,
    pub mask: SpMat<T>,
    pub u: SpVec<T>,
    pub w: SpVec<T>,
    pub vmask: SpVec<T>,
    pub pick: usize,
    pub k: i64,
    pub cfg: DescCfg,
}

impl<T: TestScalar> Arbitrary for PosCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = (dim(g), dim(g));
        let cfg = DescCfg::arbitrary(g);
        let (rm, rn) = if cfg.ta { (n, m) } else { (m, n) };
        PosCase {
            a: SpMat::gen(g, m, n),
            format: any_format(g),
            iso: T::draw(g),
            c: SpMat::gen(g, rm, rn),
            mask: SpMat::gen(g, rm, rn),
            u: SpVec::gen(g, m),
            w: SpVec::gen(g, m),
            vmask: SpVec::gen(g, m),
            pick: below(g, 3),
            k: thunk(g),
            cfg,
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let cfgs: Vec<_> = self.cfg.shrink().collect();
        let me = self.clone();
        Box::new(
            cfgs.into_iter()
                .map(move |cfg| PosCase { cfg, ..me.clone() }),
        )
    }
}

/// `apply_index_matrix` and `apply_index`.
pub fn prop_apply_index<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &PosCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let op = positional(c.pick, c.k);
    let (am, used) = c.a.in_format(c.format, c.iso);
    let used = if c.cfg.ta { used.transpose() } else { used };
    let nc = used.ncols;
    let t: Cells<T> = used
        .cells()
        .iter()
        .enumerate()
        .map(|(p, x)| x.map(|_| position_spec(op, p / nc.max(1), p % nc.max(1))))
        .collect();
    let allowed = mask_allows(c.cfg.mask, &c.mask.cells());
    let expected = write_ref(&c.cfg, &c.c.cells(), &t, allowed.as_deref());
    let a = ctx("upload A", b.upload_matrix(&am))?;
    let mk = ctx("upload mask", b.upload_matrix(&c.mask.matrix()))?;
    let what = format!("apply_index_matrix {op:?} {:?} A {:?}", c.cfg, c.format);
    let gm = run_matrix(b, &what, &c.c.matrix(), &expected, false, |out| {
        with_desc!(&c.cfg, mmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
            ops::apply_index_matrix(b, out, op, &a, &d)
        })
    })?;
    // the vector: row i, column 0
    let t: Cells<T> = (c.u.vals.iter().enumerate())
        .map(|(i, x)| x.map(|_| position_spec(op, i, 0)))
        .collect();
    let allowed = mask_allows(c.cfg.mask, &c.vmask.vals);
    let expected = write_ref(&c.cfg, &c.w.vals, &t, allowed.as_deref());
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let mk = ctx("upload mask", b.upload_vector(&c.vmask.vector()))?;
    let what = format!("apply_index {op:?} {:?}", c.cfg);
    let gv = run_vector(b, &what, &c.w.vector(), &expected, false, |w| {
        with_desc!(&c.cfg, vmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
            ops::apply_index(b, w, op, &u, &d)
        })
    })?;
    Ok(vec![gm, gv])
}

/// `select` with `ColLe(k)` and `ColGt(k)` on `A` in the case's format and
/// on the vector `u` (column 0), with the case's mask and descriptor.
pub fn prop_select_col<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &PosCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let k = c.k.clamp(-3, 80);
    let (am, used) = c.a.in_format(c.format, c.iso);
    let used = if c.cfg.ta { used.transpose() } else { used };
    let nc = used.ncols.max(1);
    let a = ctx("upload A", b.upload_matrix(&am))?;
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let mk = ctx("upload mask", b.upload_matrix(&c.mask.matrix()))?;
    let vk = ctx("upload mask", b.upload_vector(&c.vmask.vector()))?;
    let mut outs = Vec::new();
    for le in [true, false] {
        let (p, keep) = if le {
            (
                IndexOp::ColLe(k),
                (|j: i64, k: i64| j <= k) as fn(i64, i64) -> bool,
            )
        } else {
            (
                IndexOp::ColGt(k),
                (|j: i64, k: i64| j > k) as fn(i64, i64) -> bool,
            )
        };
        let t: Cells<T> = (used.cells().iter().enumerate())
            .map(|(q, x)| x.filter(|_| keep((q % nc) as i64, k)))
            .collect();
        let allowed = mask_allows(c.cfg.mask, &c.mask.cells());
        let expected = write_ref(&c.cfg, &c.c.cells(), &t, allowed.as_deref());
        let what = format!("select_matrix {p:?} {:?} A {:?}", c.cfg, c.format);
        outs.push(run_matrix(
            b,
            &what,
            &c.c.matrix(),
            &expected,
            false,
            |out| {
                with_desc!(&c.cfg, mmask::<B, T>(c.cfg.mask, &mk), Minus, |d| {
                    ops::select_matrix(b, out, p, &a, &d)
                })
            },
        )?);
        let t: Cells<T> = c.u.vals.iter().map(|x| x.filter(|_| keep(0, k))).collect();
        let allowed = mask_allows(c.cfg.mask, &c.vmask.vals);
        let expected = write_ref(&c.cfg, &c.w.vals, &t, allowed.as_deref());
        let what = format!("select {p:?} {:?}", c.cfg);
        outs.push(run_vector(
            b,
            &what,
            &c.w.vector(),
            &expected,
            false,
            |w| {
                with_desc!(&c.cfg, vmask::<B, T>(c.cfg.mask, &vk), Minus, |d| {
                    ops::select(b, w, p, &u, &d)
                })
            },
        )?);
    }
    Ok(outs)
}

// ---- reductions to a scalar that may be empty ------------------------------------------

/// `s = accum(s, ⊕ u)` and `s = accum(s, ⊕ A)`.
#[derive(Clone, Debug)]
pub struct ScalarReduceCase<T> {
    pub u: SpVec<T>,
    pub a: SpMat<T>,
    pub format: Format,
    pub iso: T,
    pub old: Option<T>,
    pub accum: bool,
    pub pick: usize,
}

impl<T: TestScalar> Arbitrary for ScalarReduceCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = dim(g);
        let (r, c) = (dim(g), dim(g));
        ScalarReduceCase {
            u: SpVec::gen(g, n),
            a: SpMat::gen(g, r, c),
            format: any_format(g),
            iso: T::draw(g),
            old: bool::arbitrary(g).then(|| T::draw(g)),
            accum: bool::arbitrary(g),
            pick: below(g, 4),
        }
    }
}

/// Runs `$body` with `$m` bound to the monoid `pick` names.
macro_rules! with_monoid {
    ($pick:expr, |$m:ident| $body:expr) => {
        match $pick % 4 {
            0 => {
                let $m = Plus;
                $body
            }
            1 => {
                let $m = Times;
                $body
            }
            2 => {
                let $m = Min;
                $body
            }
            _ => {
                let $m = Max;
                $body
            }
        }
    };
}

/// The fold of `xs` by `m`, `None` when empty.
fn fold<T: TestScalar, M: Monoid<T>>(m: M, xs: impl Iterator<Item = T>) -> Option<T> {
    xs.reduce(|x, y| m.apply(x, y))
}

/// [`ScalarReduceCase`] on `b`: the vector's and the matrix's result.
pub fn prop_reduce_scalar<B: TestBackend, T: TestScalar>(
    b: &B,
    c: &ScalarReduceCase<T>,
) -> Result<Vec<Cells<T>>, String> {
    let (am, used) = c.a.in_format(c.format, c.iso);
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let a = ctx("upload A", b.upload_matrix(&am))?;
    let mut outs = Vec::new();
    with_monoid!(c.pick, |m| {
        let rv = fold(m, c.u.vals.iter().flatten().copied());
        let rm = fold(m, used.entries.iter().map(|e| e.2));
        for (what, r) in [("vector", rv), ("matrix", rm)] {
            let expected = match (c.accum, c.old, r) {
                (true, Some(o), Some(x)) => Some(minus(o, x)),
                (true, o, None) => o,
                (_, _, x) => x,
            };
            let mut s = c.old;
            let res = match (what, c.accum) {
                ("vector", false) => ops::reduce_scalar(b, &mut s, m, &u, &Desc::new()),
                ("vector", true) => ops::reduce_scalar(b, &mut s, m, &u, &Desc::new().accum(Minus)),
                (_, false) => ops::reduce_matrix_scalar(b, &mut s, m, &a, &Desc::new()),
                (_, true) => ops::reduce_matrix_scalar(b, &mut s, m, &a, &Desc::new().accum(Minus)),
            };
            ctx(what, res)?;
            let w = format!(
                "reduce_scalar {what} {m:?} accum {} old {:?}",
                c.accum, c.old
            );
            compare(&w, 1, &[expected], &[s])?;
            outs.push(vec![s]);
        }
        Ok::<(), String>(())
    })?;
    Ok(outs)
}

// ---- bad input --------------------------------------------------------------------

/// Calls a caller can get wrong: indices out of range or repeated, operands
/// and masks of the wrong size. Each must be an `Err` and change nothing.
/// `C` is `5 x 4` in `format`.
pub fn prop_bad_inputs<B: TestBackend>(b: &B, format: Format) -> Result<(), String> {
    let e = vec![(0, 0, 1i32), (1, 2, 1), (4, 3, 1), (2, 1, 1)];
    let c0 = ctx("C", Matrix::from_triplets(5, 4, e))?;
    let c0 = ctx("C format", c0.to_format(format))?;
    let w0 = Vector::from_entries(5, vec![(1, 3i32), (4, 2)]).expect("valid");
    let up = |v: &Vector<i32>| ctx("upload", b.upload_vector(v));
    let (u2, u3, u5) = (
        up(&Vector::from_dense(vec![7, 8]))?,
        up(&Vector::from_dense(vec![7, 8, 9]))?,
        up(&Vector::filled(5, 1))?,
    );
    let v4 = up(&Vector::filled(4, 1))?;
    let mat = |r, c, x| {
        let m = Matrix::from_triplets(r, c, vec![(1, 1, x)]).expect("valid");
        ctx("upload", b.upload_matrix(&m))
    };
    let (m22, m54, m45) = (mat(2, 2, 1)?, mat(5, 4, 1)?, mat(4, 5, 1)?);
    let (a22, a23) = (mat(2, 2, 5)?, mat(2, 3, 5)?);
    let d = Desc::new();
    let bad_m = |what: &str, call: &dyn Fn(&mut B::Matrix<i32>) -> bitgraphblas::Result<()>| {
        run_matrix(b, &format!("{what} C {format:?}"), &c0, &[], true, call).map(|_| ())
    };
    let bad_v = |what: &str, call: &dyn Fn(&mut B::Vector<i32>) -> bitgraphblas::Result<()>| {
        run_vector(b, what, &w0, &[], true, call).map(|_| ())
    };
    // row and column assign
    bad_m("assign_col j", &|c| {
        ops::assign_col(b, c, &u2, &[0, 1], 4, &d)
    })?;
    bad_m("assign_col rows range", &|c| {
        ops::assign_col(b, c, &u2, &[0, 5], 1, &d)
    })?;
    bad_m("assign_col repeat", &|c| {
        ops::assign_col(b, c, &u2, &[3, 3], 1, &d)
    })?;
    bad_m("assign_col u", &|c| {
        ops::assign_col(b, c, &u3, &[0, 1], 1, &d)
    })?;
    bad_m("assign_col mask", &|c| {
        ops::assign_col(b, c, &u2, &[0, 1], 1, &d.mask(B::mask(&v4)))
    })?;
    bad_m("assign_row i", &|c| {
        ops::assign_row(b, c, &u2, 5, &[0, 1], &d)
    })?;
    bad_m("assign_row repeat", &|c| {
        ops::assign_row(b, c, &u2, 1, &[2, 2], &d)
    })?;
    bad_m("assign_row cols range", &|c| {
        ops::assign_row(b, c, &u2, 1, &[4, 0], &d)
    })?;
    bad_m("assign_row mask", &|c| {
        ops::assign_row(b, c, &u2, 1, &[0, 1], &d.mask(B::mask(&u5)))
    })?;
    // scalar assign and sub-assign
    let s = |x: &'static [usize]| Some(x);
    bad_m("assign_matrix_scalar range", &|c| {
        ops::assign_matrix_scalar(b, c, 1, s(&[5]), None, &d)
    })?;
    bad_m("assign_matrix_scalar repeat", &|c| {
        ops::assign_matrix_scalar(b, c, 1, None, s(&[1, 1]), &d)
    })?;
    bad_m("assign_matrix_scalar mask", &|c| {
        ops::assign_matrix_scalar(
            b,
            c,
            1,
            s(&[0, 1]),
            s(&[0, 1]),
            &d.mask(B::matrix_mask(&m22)),
        )
    })?;
    bad_m("subassign_matrix_scalar mask", &|c| {
        ops::subassign_matrix_scalar(
            b,
            c,
            1,
            s(&[0, 1]),
            s(&[0, 1]),
            &d.mask(B::matrix_mask(&m54)),
        )
    })?;
    bad_m("subassign_matrix repeat", &|c| {
        ops::subassign_matrix(b, c, &a22, &[0, 0], &[1, 2], &d)
    })?;
    bad_m("subassign_matrix range", &|c| {
        ops::subassign_matrix(b, c, &a22, &[0, 1], &[1, 4], &d)
    })?;
    bad_m("subassign_matrix A", &|c| {
        ops::subassign_matrix(b, c, &a23, &[0, 1], &[1, 2], &d)
    })?;
    bad_m("subassign_matrix mask", &|c| {
        ops::subassign_matrix(b, c, &a22, &[0, 1], &[1, 2], &d.mask(B::matrix_mask(&m54)))
    })?;
    // positional apply
    bad_m("apply_index_matrix shape", &|c| {
        ops::apply_index_matrix(b, c, PositionalOp::RowIndex(0), &m45, &d)
    })?;
    bad_m("apply_index_matrix mask", &|c| {
        ops::apply_index_matrix(
            b,
            c,
            PositionalOp::RowIndex(0),
            &m54,
            &d.mask(B::matrix_mask(&m45)),
        )
    })?;
    // vector outputs
    let cm = ctx("upload C", b.upload_matrix(&c0))?;
    bad_v("extract_col j", &|w| {
        ops::extract_col(b, w, &cm, &[0, 1, 2, 3, 4], 4, &d)
    })?;
    bad_v("extract_col rows", &|w| {
        ops::extract_col(b, w, &cm, &[0, 1, 2, 3, 5], 0, &d)
    })?;
    bad_v("extract_col w", &|w| {
        ops::extract_col(b, w, &cm, &[0, 1], 0, &d)
    })?;
    bad_v("extract_col transposed", &|w| {
        ops::extract_col(b, w, &cm, &[0, 1, 2, 3, 4], 0, &d.transpose_a())
    })?;
    bad_v("subassign mask", &|w| {
        ops::subassign(b, w, &u2, &[0, 1], &d.mask(B::mask(&u5)))
    })?;
    bad_v("subassign repeat", &|w| {
        ops::subassign(b, w, &u2, &[1, 1], &d)
    })?;
    bad_v("subassign u", &|w| ops::subassign(b, w, &u3, &[0, 1], &d))?;
    bad_v("subassign_scalar range", &|w| {
        ops::subassign_scalar(b, w, 1, s(&[5]), &d)
    })?;
    bad_v("subassign_scalar mask", &|w| {
        ops::subassign_scalar(b, w, 1, None, &d.mask(B::mask(&u2)))
    })?;
    bad_v("apply_index w", &|w| {
        ops::apply_index(b, w, PositionalOp::ColIndex(1), &v4, &d)
    })?;
    bad_v("apply_index mask", &|w| {
        ops::apply_index(b, w, PositionalOp::ColIndex(1), &u5, &d.mask(B::mask(&v4)))
    })?;
    Ok(())
}
