//! Properties of the semiring operations (mxv, vxm, mxm, mxm_reduce,
//! mxm_dense) against the sprs oracle, generic over the backend: inputs are
//! uploaded with `b.upload_*`, results downloaded and compared.

use bitgraphblas::backend::{MatrixShape, VectorShape};
use bitgraphblas::{
    ext, ops, Backend, BackendExt, DenseMatrix, Format, Mask, MatrixMask, Scalar, VectorFormat,
};
use quickcheck::{Arbitrary, Gen};

use super::gen::{below, dim, with_desc, DescCfg, MaskKind, SpMat, SpVec, FORMATS};
use super::oracle::{
    compare, mask_allows, oracle_mxm, oracle_mxv, oracle_vxm, spec_write, AccumFn,
};
use super::{TestScalar, TestSemiring};

/// A backend whose masks know their shape (what `ops` needs to check them).
pub trait TestBackend: BackendExt<MaskSource: VectorShape, MatrixMaskSource: MatrixShape> {}
impl<B: BackendExt<MaskSource: VectorShape, MatrixMaskSource: MatrixShape>> TestBackend for B {}

/// Converts a library error into the property's error string.
pub fn ctx<T>(what: &str, r: bitgraphblas::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: returned Err({e})"))
}

/// The vector mask a [`MaskKind`] asks for, over `v`.
pub fn vmask<B: Backend, M: Scalar>(kind: MaskKind, v: &B::Vector<M>) -> Option<Mask<'_, B>> {
    if kind == MaskKind::None {
        return None;
    }
    let mut m = B::mask(v);
    if kind.structural() {
        m = m.structure();
    }
    if kind.complemented() {
        m = m.complement();
    }
    Some(m)
}

/// The matrix mask a [`MaskKind`] asks for, over `m`.
pub fn mmask<B: Backend, M: Scalar>(kind: MaskKind, v: &B::Matrix<M>) -> Option<MatrixMask<'_, B>> {
    if kind == MaskKind::None {
        return None;
    }
    let mut m = B::matrix_mask(v);
    if kind.structural() {
        m = m.structure();
    }
    if kind.complemented() {
        m = m.complement();
    }
    Some(m)
}

/// `mxv` (or `vxm`) case: `A` is stored `nrows x ncols`; `u` has the length
/// of the product's inner dimension (`ncols` for `mxv` on `A`, `nrows` for
/// `vxm` on `A`, the other way round with `cfg.ta`).
#[derive(Clone, Debug)]
pub struct MxvCase<T> {
    pub a: SpMat<T>,
    pub iso: T,
    pub u: SpVec<T>,
    pub w: SpVec<T>,
    pub mask: SpVec<T>,
    pub cfg: DescCfg,
    pub vxm: bool,
}

impl<T: TestScalar> Arbitrary for MxvCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (r, c) = (dim(g), dim(g));
        let mut cfg = DescCfg::arbitrary(g);
        cfg.tb = false;
        let vxm = bool::arbitrary(g);
        let (ulen, wlen) = if cfg.ta != vxm { (r, c) } else { (c, r) };
        MxvCase {
            a: SpMat::gen(g, r, c),
            iso: T::draw(g),
            u: SpVec::gen(g, ulen),
            w: SpVec::gen(g, wlen),
            mask: SpVec::gen(g, wlen),
            cfg,
            vxm,
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let mut v = Vec::new();
        for a in self.a.shrink_entries() {
            v.push(MxvCase { a, ..self.clone() });
        }
        for u in self.u.shrink_entries() {
            v.push(MxvCase { u, ..self.clone() });
        }
        for w in self.w.shrink_entries() {
            v.push(MxvCase { w, ..self.clone() });
        }
        for cfg in self.cfg.shrink() {
            v.push(MxvCase {
                cfg,
                ..self.clone()
            });
        }
        Box::new(v.into_iter())
    }
}

/// `w<mask> = accum(w, A ⊕.⊗ u)` (or `u ⊕.⊗ A`) for `A` in every format.
pub fn prop_mxv<B: TestBackend, S: TestSemiring>(b: &B, c: &MxvCase<S::T>) -> Result<(), String> {
    let s = S::default();
    let add = |x, y| s.add(x, y);
    let accum: AccumFn<'_, S::T> = c.cfg.accum.then_some(&add);
    let allowed = mask_allows(c.cfg.mask, &c.mask.vals);
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    let m = ctx("upload mask", b.upload_vector(&c.mask.vector()))?;
    // The same mask as a bool vector (a mask may have any element type).
    let mask_bool = SpVec {
        vals: c
            .mask
            .vals
            .iter()
            .map(|v| v.map(|x| x.is_nonzero()))
            .collect(),
        format: c.mask.format,
    };
    let mb = ctx("upload mask", b.upload_vector(&mask_bool.vector()))?;
    let op = if c.vxm { "vxm" } else { "mxv" };
    for fmt in FORMATS {
        let (a, used) = c.a.in_format(fmt, c.iso);
        let used = if c.cfg.ta { used.transpose() } else { used };
        let t = if c.vxm {
            oracle_vxm::<S>(&c.u.vals, &used)
        } else {
            oracle_mxv::<S>(&used, &c.u.vals)
        };
        let expected = spec_write(&c.w.vals, &t, allowed.as_deref(), accum, c.cfg.replace);
        let a = ctx("upload A", b.upload_matrix(&a))?;
        macro_rules! run {
            ($mask:expr, $what:expr) => {{
                let mut w = ctx("upload w", b.upload_vector(&c.w.vector()))?;
                let r = with_desc!(&c.cfg, $mask, s.add_op(), |d| if c.vxm {
                    ops::vxm(b, &mut w, s, &u, &a, &d)
                } else {
                    ops::mxv(b, &mut w, s, &a, &u, &d)
                });
                ctx(op, r)?;
                let w = ctx("download w", b.download_vector(&w))?;
                ctx("validate w", w.validate())?;
                compare(
                    &format!("{op} {} A {fmt:?} {:?}{}", S::NAME, c.cfg, $what),
                    1,
                    &expected,
                    &super::cells_of_vector(&w),
                )?;
            }};
        }
        run!(vmask::<B, S::T>(c.cfg.mask, &m), "");
        if fmt == Format::Csr || fmt == Format::B2sr(bitgraphblas::TileSize::T8) {
            run!(vmask::<B, bool>(c.cfg.mask, &mb), " (bool mask)");
        }
    }
    Ok(())
}

/// `mxm` case: `C` is `m x n`, `A` is stored `m x k` (`k x m` with `ta`),
/// `B` is stored `k x n` (`n x k` with `tb`).
#[derive(Clone, Debug)]
pub struct MxmCase<T> {
    pub a: SpMat<T>,
    pub b: SpMat<T>,
    pub iso_a: T,
    pub iso_b: T,
    pub c: SpMat<T>,
    pub c_format: Format,
    pub iso_c: T,
    pub mask: SpMat<T>,
    pub mask_format: Format,
    pub cfg: DescCfg,
    /// Pairs format `i` of `A` with format `i + shift` of `B`.
    pub shift: usize,
}

impl<T: TestScalar> Arbitrary for MxmCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (dim(g), dim(g), dim(g));
        let cfg = DescCfg::arbitrary(g);
        let a = if cfg.ta {
            SpMat::gen(g, k, m)
        } else {
            SpMat::gen(g, m, k)
        };
        let bm = if cfg.tb {
            SpMat::gen(g, n, k)
        } else {
            SpMat::gen(g, k, n)
        };
        MxmCase {
            a,
            b: bm,
            iso_a: T::draw(g),
            iso_b: T::draw(g),
            c: SpMat::gen(g, m, n),
            c_format: *g.choose(&FORMATS).unwrap(),
            iso_c: T::draw(g),
            mask: SpMat::gen(g, m, n),
            mask_format: *g.choose(&FORMATS).unwrap(),
            cfg,
            shift: below(g, FORMATS.len()),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let mut v = Vec::new();
        for a in self.a.shrink_entries() {
            v.push(MxmCase { a, ..self.clone() });
        }
        for b in self.b.shrink_entries() {
            v.push(MxmCase { b, ..self.clone() });
        }
        for c in self.c.shrink_entries() {
            v.push(MxmCase { c, ..self.clone() });
        }
        for cfg in self.cfg.shrink() {
            v.push(MxmCase {
                cfg,
                ..self.clone()
            });
        }
        Box::new(v.into_iter())
    }
}

impl<T: TestScalar> MxmCase<T> {
    /// The inputs in format pair `i`, and the triplets they hold after the
    /// transposes of the descriptor.
    #[allow(clippy::type_complexity)]
    pub fn inputs(
        &self,
        i: usize,
    ) -> (
        Format,
        Format,
        bitgraphblas::Matrix<T>,
        bitgraphblas::Matrix<T>,
        SpMat<T>,
        SpMat<T>,
    ) {
        let fa = FORMATS[i];
        let fb = FORMATS[(i + self.shift) % FORMATS.len()];
        let (a, ua) = self.a.in_format(fa, self.iso_a);
        let (bm, ub) = self.b.in_format(fb, self.iso_b);
        let ua = if self.cfg.ta { ua.transpose() } else { ua };
        let ub = if self.cfg.tb { ub.transpose() } else { ub };
        (fa, fb, a, bm, ua, ub)
    }
}

/// `C<mask> = accum(C, A ⊕.⊗ B)` for format pairs covering every format.
pub fn prop_mxm<B: TestBackend, S: TestSemiring>(b: &B, c: &MxmCase<S::T>) -> Result<(), String> {
    let s = S::default();
    let add = |x, y| s.add(x, y);
    let accum: AccumFn<'_, S::T> = c.cfg.accum.then_some(&add);
    let (c0, c_used) = c.c.in_format(c.c_format, c.iso_c);
    let (mk, m_used) = c.mask.in_format(c.mask_format, c.iso_c);
    let allowed = mask_allows(c.cfg.mask, &m_used.cells());
    let mk = ctx("upload mask", b.upload_matrix(&mk))?;
    for i in 0..FORMATS.len() {
        let (fa, fb, a, bm, ua, ub) = c.inputs(i);
        let t = oracle_mxm::<S>(&ua, &ub);
        let expected = spec_write(
            &c_used.cells(),
            &t,
            allowed.as_deref(),
            accum,
            c.cfg.replace,
        );
        let a = ctx("upload A", b.upload_matrix(&a))?;
        let bm = ctx("upload B", b.upload_matrix(&bm))?;
        let mut out = ctx("upload C", b.upload_matrix(&c0))?;
        let mask = mmask::<B, S::T>(c.cfg.mask, &mk);
        let r = with_desc!(&c.cfg, mask, s.add_op(), |d| ops::mxm(
            b, &mut out, s, &a, &bm, &d
        ));
        ctx("mxm", r)?;
        let out = ctx("download C", b.download_matrix(&out))?;
        ctx("validate C", out.validate())?;
        compare(
            &format!(
                "mxm {} A {fa:?} B {fb:?} C {:?} {:?}",
                S::NAME,
                c.c_format,
                c.cfg
            ),
            c.c.ncols,
            &expected,
            &super::cells_of_matrix(&out),
        )?;
    }
    Ok(())
}

/// `⊕` over `(A ⊕.⊗ B)<mask>` (the mask is required: kind `None` runs structural).
pub fn prop_mxm_reduce<B: TestBackend, S: TestSemiring>(
    b: &B,
    c: &MxmCase<S::T>,
) -> Result<(), String> {
    let s = S::default();
    let kind = if c.cfg.mask == MaskKind::None {
        MaskKind::Structural
    } else {
        c.cfg.mask
    };
    let (mk, m_used) = c.mask.in_format(c.mask_format, c.iso_c);
    let allowed = mask_allows(kind, &m_used.cells()).expect("a mask");
    let mk = ctx("upload mask", b.upload_matrix(&mk))?;
    let cfg = DescCfg {
        mask: kind,
        accum: false,
        replace: false,
        ..c.cfg
    };
    for i in 0..FORMATS.len() {
        let (fa, fb, a, bm, ua, ub) = c.inputs(i);
        let t = oracle_mxm::<S>(&ua, &ub);
        let expected = t
            .iter()
            .zip(&allowed)
            .filter_map(|(v, &ok)| if ok { *v } else { None })
            .reduce(|x, y| s.add(x, y))
            .unwrap_or_else(|| s.zero());
        let a = ctx("upload A", b.upload_matrix(&a))?;
        let bm = ctx("upload B", b.upload_matrix(&bm))?;
        let mask = mmask::<B, S::T>(kind, &mk);
        let r = with_desc!(&cfg, mask, s.add_op(), |d| ops::mxm_reduce(
            b, s, &a, &bm, &d
        ));
        let got = ctx("mxm_reduce", r)?;
        if !S::T::close(expected, got) {
            return Err(format!(
                "mxm_reduce {} A {fa:?} B {fb:?} mask {kind:?}: expected {expected:?}, computed {got:?}",
                S::NAME
            ));
        }
    }
    Ok(())
}

/// `mxm_dense` case: `A` stored `m x k` (`k x m` with `ta`), `B` dense `k x n`.
#[derive(Clone, Debug)]
pub struct DenseCase<T> {
    pub a: SpMat<T>,
    pub iso: T,
    pub b: Vec<T>,
    pub c: Vec<T>,
    pub n: usize,
    pub cfg: DescCfg,
    /// Row scales of `B` (length `k`), for `scale_dense_rows`.
    pub d: SpVec<T>,
}

impl<T: TestScalar> Arbitrary for DenseCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (dim(g), dim(g), below(g, 12));
        let mut cfg = DescCfg::arbitrary(g);
        cfg.mask = MaskKind::None;
        cfg.tb = false;
        let a = if cfg.ta {
            SpMat::gen(g, k, m)
        } else {
            SpMat::gen(g, m, k)
        };
        DenseCase {
            a,
            iso: T::draw(g),
            b: (0..k * n).map(|_| T::draw(g)).collect(),
            c: (0..m * n).map(|_| T::draw(g)).collect(),
            n,
            cfg,
            d: SpVec::gen(g, k),
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let v: Vec<_> = self
            .a
            .shrink_entries()
            .into_iter()
            .map(|a| DenseCase { a, ..self.clone() })
            .collect();
        Box::new(v.into_iter())
    }
}

/// `C = accum(C, A ⊕.⊗ B)` with `B`, `C` dense, for `A` in every format.
/// Rows of `A` without entries give the semiring's zero.
pub fn prop_mxm_dense<B: TestBackend, S: TestSemiring>(
    b: &B,
    c: &DenseCase<S::T>,
) -> Result<(), String> {
    let s = S::default();
    let (m, k) = if c.cfg.ta {
        (c.a.ncols, c.a.nrows)
    } else {
        (c.a.nrows, c.a.ncols)
    };
    let bd = DenseMatrix::from_vec(k, c.n, c.b.clone()).expect("sizes");
    let bd = ctx("upload B", b.upload_dense(&bd))?;
    for fmt in FORMATS {
        let (a, used) = c.a.in_format(fmt, c.iso);
        let used = if c.cfg.ta { used.transpose() } else { used };
        let bsp = SpMat {
            nrows: k,
            ncols: c.n,
            entries: (0..k * c.n)
                .map(|p| (p / c.n.max(1), p % c.n.max(1), c.b[p]))
                .collect(),
        };
        let t = oracle_mxm::<S>(&used, &bsp);
        let expected: Vec<Option<S::T>> = t
            .iter()
            .zip(&c.c)
            .map(|(t, &old)| {
                let t = t.unwrap_or_else(|| s.zero());
                Some(if c.cfg.accum { s.add(old, t) } else { t })
            })
            .collect();
        let a = ctx("upload A", b.upload_matrix(&a))?;
        let mut out = ctx(
            "upload C",
            b.upload_dense(&DenseMatrix::from_vec(m, c.n, c.c.clone()).expect("sizes")),
        )?;
        let r = with_desc!(
            &c.cfg,
            None::<bitgraphblas::container::NoMask>,
            s.add_op(),
            |d| ops::mxm_dense(b, &mut out, s, &a, &bd, &d)
        );
        ctx("mxm_dense", r)?;
        let out = ctx("download C", b.download_dense(&out))?;
        let got: Vec<Option<S::T>> = out.as_slice().iter().map(|&x| Some(x)).collect();
        compare(
            &format!("mxm_dense {} A {fmt:?} {:?}", S::NAME, c.cfg),
            c.n,
            &expected,
            &got,
        )?;
    }
    Ok(())
}

/// [`ext::mxm_dense_scaled`] case: `C = diag(l) (A ⊕.⊗ (diag(r) B)) diag(s)
/// ⊕ bias`, `A` `m x k`, `B` dense `k x n`; each of `l`, `r`, `s`, `bias` absent or a
/// vector (full, as a device's fused path takes it, or any pattern and
/// format: entries it lacks leave their rows or columns as they are).
#[derive(Clone, Debug)]
pub struct ScaledCase<T> {
    pub a: SpMat<T>,
    pub iso: T,
    pub b: Vec<T>,
    pub n: usize,
    pub left: Option<SpVec<T>>,
    pub right: Option<SpVec<T>>,
    pub col: Option<SpVec<T>>,
    pub bias: Option<SpVec<T>>,
}

impl<T: TestScalar> Arbitrary for ScaledCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, k, n) = (dim(g), dim(g), below(g, 12));
        let full = bool::arbitrary(g);
        let mut vector = |len| match below(g, 3) {
            0 => None,
            _ if full => Some(full_vec(g, len)),
            _ => Some(SpVec::gen(g, len)),
        };
        let (left, right, col, bias) = (vector(m), vector(k), vector(n), vector(n));
        ScaledCase {
            a: SpMat::gen(g, m, k),
            iso: T::draw(g),
            b: (0..k * n).map(|_| T::draw(g)).collect(),
            n,
            left,
            right,
            col,
            bias,
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let v: Vec<_> = self
            .a
            .shrink_entries()
            .into_iter()
            .map(|a| ScaledCase { a, ..self.clone() })
            .collect();
        Box::new(v.into_iter())
    }
}

/// The expected result of a [`ScaledCase`] on the triplets `a`: `B`'s rows
/// scaled where `r` has an entry, the sprs product (the semiring's zero in
/// rows without entries), rows scaled where `l` has one, columns where `s`
/// has one, the bias added where it has one.
pub fn oracle_mxm_dense_scaled<S: TestSemiring>(
    a: &SpMat<S::T>,
    c: &ScaledCase<S::T>,
) -> Vec<Option<S::T>> {
    let s = S::default();
    let (m, n) = (a.nrows, c.n);
    let at = |v: &Option<SpVec<S::T>>, i: usize| v.as_ref().and_then(|v| v.vals[i]);
    let bsp = SpMat {
        nrows: a.ncols,
        ncols: n,
        entries: (0..a.ncols * n)
            .map(|p| {
                let (j, f) = (p / n, p % n);
                let v = c.b[p];
                (j, f, at(&c.right, j).map_or(v, |r| s.mul(r, v)))
            })
            .collect(),
    };
    let t = oracle_mxm::<S>(a, &bsp);
    (0..m * n)
        .map(|p| {
            let (i, f) = (p / n, p % n);
            let v = t[p].unwrap_or_else(|| s.zero());
            let v = at(&c.left, i).map_or(v, |l| s.mul(l, v));
            let v = at(&c.col, f).map_or(v, |x| s.mul(v, x));
            Some(at(&c.bias, f).map_or(v, |x| s.add(v, x)))
        })
        .collect()
}

/// A [`ScaledCase`]'s vectors `l`, `r`, `s`, `bias` on backend `b`.
struct ScaledVectors<B: Backend, T: Scalar>([Option<B::Vector<T>>; 4]);

impl<B: TestBackend, T: TestScalar> ScaledVectors<B, T> {
    fn upload(b: &B, c: &ScaledCase<T>) -> Result<Self, String> {
        let up = |v: &Option<SpVec<T>>| {
            v.as_ref()
                .map(|v| ctx("upload a scale", b.upload_vector(&v.vector())))
                .transpose()
        };
        Ok(ScaledVectors([
            up(&c.left)?,
            up(&c.right)?,
            up(&c.col)?,
            up(&c.bias)?,
        ]))
    }
    fn scales(&self) -> ext::DenseScales<'_, B, T> {
        let [left, right, col, bias] = &self.0;
        ext::DenseScales {
            left: left.as_ref(),
            right: right.as_ref(),
            col: col.as_ref(),
            bias: bias.as_ref(),
        }
    }
}

/// [`ext::mxm_dense_scaled`] on backend `b`, every format, against
/// [`oracle_mxm_dense_scaled`], into an output of old contents.
pub fn prop_mxm_dense_scaled<B: TestBackend, S: TestSemiring>(
    b: &B,
    c: &ScaledCase<S::T>,
) -> Result<(), String> {
    let s = S::default();
    let (m, k) = (c.a.nrows, c.a.ncols);
    let bd = DenseMatrix::from_vec(k, c.n, c.b.clone()).expect("sizes");
    let bd = ctx("upload B", b.upload_dense(&bd))?;
    let up = ScaledVectors::upload(b, c)?;
    let scales = up.scales();
    for fmt in FORMATS {
        let (a, used) = c.a.in_format(fmt, c.iso);
        let expected = oracle_mxm_dense_scaled::<S>(&used, c);
        let a = ctx("upload A", b.upload_matrix(&a))?;
        let old = DenseMatrix::from_vec(m, c.n, vec![c.iso; m * c.n]).expect("sizes");
        let mut out = ctx("upload C", b.upload_dense(&old))?;
        let r = ext::mxm_dense_scaled(b, &mut out, s, &a, &bd, scales);
        ctx("mxm_dense_scaled", r)?;
        let out = ctx("download C", b.download_dense(&out))?;
        let got: Vec<Option<S::T>> = out.as_slice().iter().map(|&x| Some(x)).collect();
        compare(
            &format!("mxm_dense_scaled {} A {fmt:?}", S::NAME),
            c.n,
            &expected,
            &got,
        )?;
    }
    Ok(())
}

/// [`ext::mxm_counts_scaled`] case: a [`ScaledCase`] over `f32` whose `B`
/// is replaced by integer counts `v` (`k x n`), each row drawn from one of
/// the packed forms' ranges or past them: bytes ([-128, 127]), even values
/// in [-256, 254], odd values past a byte, and values past `2^24` (where
/// reading them as `f32` rounds).
#[derive(Clone, Debug)]
pub struct CountsCase {
    pub scaled: ScaledCase<f32>,
    pub v: Vec<i32>,
}

/// One row of `n` counts of the kind `kind % 4` (see [`CountsCase`]).
pub fn counts_row(g: &mut impl FnMut(u32) -> u32, kind: u32, n: usize) -> Vec<i32> {
    (0..n)
        .map(|_| match kind % 4 {
            0 => g(256) as i32 - 128,
            1 => 2 * (g(256) as i32 - 128),
            2 => 2 * (g(200) as i32) - 199,
            _ => (g(1 << 16) as i32 - (1 << 15)) * 1023 + 1,
        })
        .collect()
}

impl Arbitrary for CountsCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let scaled = ScaledCase::<f32>::arbitrary(g);
        let (k, n) = (scaled.a.ncols, scaled.n);
        let mut draw = |below_: u32| u32::arbitrary(g) % below_;
        let v = (0..k)
            .flat_map(|_| {
                let kind = draw(4);
                counts_row(&mut draw, kind, n)
            })
            .collect();
        CountsCase { scaled, v }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let v = self.v.clone();
        Box::new(self.scaled.shrink().map(move |scaled| CountsCase {
            scaled,
            v: v.clone(),
        }))
    }
}

/// [`ext::mxm_counts_scaled`] on backend `b`, every format, against
/// [`oracle_mxm_dense_scaled`] of the counts read as `f32`, into an output of
/// old contents; and equal bit for bit to [`ext::mxm_dense_scaled`] of those
/// `f32` on the same backend (the values it promises).
pub fn prop_mxm_counts_scaled<B: TestBackend>(b: &B, c: &CountsCase) -> Result<(), String> {
    use bitgraphblas::algebra::PlusTimes;
    let sc = &c.scaled;
    let (m, k, n) = (sc.a.nrows, sc.a.ncols, sc.n);
    let f: Vec<f32> = c.v.iter().map(|&x| x as f32).collect();
    let as_f32 = ScaledCase {
        b: f.clone(),
        ..sc.clone()
    };
    let vd = ctx(
        "upload V",
        b.upload_dense(&DenseMatrix::from_vec(k, n, c.v.clone()).expect("sizes")),
    )?;
    let fd = ctx(
        "upload V as f32",
        b.upload_dense(&DenseMatrix::from_vec(k, n, f).expect("sizes")),
    )?;
    let up = ScaledVectors::upload(b, sc)?;
    let scales = up.scales();
    for fmt in FORMATS {
        let (a, used) = sc.a.in_format(fmt, sc.iso);
        let expected = oracle_mxm_dense_scaled::<PlusTimes<f32>>(&used, &as_f32);
        let a = ctx("upload A", b.upload_matrix(&a))?;
        let old = DenseMatrix::from_vec(m, n, vec![sc.iso; m * n]).expect("sizes");
        let mut out = ctx("upload C", b.upload_dense(&old))?;
        ctx(
            "mxm_counts_scaled",
            ext::mxm_counts_scaled(b, &mut out, &a, &vd, scales),
        )?;
        let out = ctx("download C", b.download_dense(&out))?;
        let got: Vec<Option<f32>> = out.as_slice().iter().map(|&x| Some(x)).collect();
        compare(&format!("mxm_counts_scaled A {fmt:?}"), n, &expected, &got)?;
        let mut same = ctx("upload C", b.upload_dense(&old))?;
        let r = ext::mxm_dense_scaled(b, &mut same, PlusTimes::<f32>::new(), &a, &fd, scales);
        ctx("mxm_dense_scaled", r)?;
        let same = ctx("download C", b.download_dense(&same))?;
        if let Some(p) =
            (0..m * n).find(|&p| out.as_slice()[p].to_bits() != same.as_slice()[p].to_bits())
        {
            return Err(format!(
                "mxm_counts_scaled A {fmt:?}: at ({}, {}) {} where mxm_dense_scaled of the counts as f32 gives {}",
                p / n.max(1),
                p % n.max(1),
                out.as_slice()[p],
                same.as_slice()[p]
            ));
        }
    }
    Ok(())
}

/// [`ext::mxv_affine`] case: `w = c ⊕ A ⊕.⊗ (d ⊗ u)`, `A` stored
/// `nrows x ncols`; with `full`, `d` and `u` are full dense vectors (the
/// fused path of a device backend), else any pattern and format.
#[derive(Clone, Debug)]
pub struct AffineCase<T> {
    pub a: SpMat<T>,
    pub iso: T,
    pub c: T,
    pub d: SpVec<T>,
    pub u: SpVec<T>,
    pub w: SpVec<T>,
}

/// A full dense vector of length `n` (every entry present).
fn full_vec<T: TestScalar>(g: &mut Gen, n: usize) -> SpVec<T> {
    SpVec {
        vals: (0..n).map(|_| Some(T::draw(g))).collect(),
        format: VectorFormat::Dense,
    }
}

impl<T: TestScalar> Arbitrary for AffineCase<T> {
    fn arbitrary(g: &mut Gen) -> Self {
        let (r, c) = (dim(g), dim(g));
        let full = bool::arbitrary(g);
        let (d, u) = if full {
            (full_vec(g, c), full_vec(g, c))
        } else {
            (SpVec::gen(g, c), SpVec::gen(g, c))
        };
        // the output: any old contents, or a full vector reused in place
        let w = if bool::arbitrary(g) {
            full_vec(g, r)
        } else {
            SpVec::gen(g, r)
        };
        AffineCase {
            a: SpMat::gen(g, r, c),
            iso: T::draw(g),
            c: T::draw(g),
            d,
            u,
            w,
        }
    }
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let v: Vec<_> = self
            .a
            .shrink_entries()
            .into_iter()
            .map(|a| AffineCase { a, ..self.clone() })
            .collect();
        Box::new(v.into_iter())
    }
}

/// The expected `c ⊕ A ⊕.⊗ (d ⊗ u)` of an [`AffineCase`] on the triplets `a`
/// (a plain loop: `t = d ⊗ u` where both are present, the sprs product, `c`
/// folded into every row).
pub fn oracle_affine<S: TestSemiring>(
    a: &SpMat<S::T>,
    c: S::T,
    d: &[Option<S::T>],
    u: &[Option<S::T>],
) -> Vec<Option<S::T>> {
    let s = S::default();
    let t: Vec<_> = d
        .iter()
        .zip(u)
        .map(|(x, y)| Some(s.mul((*x)?, (*y)?)))
        .collect();
    oracle_mxv::<S>(a, &t)
        .into_iter()
        .map(|r| Some(r.map_or(c, |r| s.add(c, r))))
        .collect()
}

/// [`ext::mxv_affine`] on backend `b`, every format it has kernels for, against
/// [`oracle_affine`]; the output must come back full (every entry present).
pub fn prop_mxv_affine<B: TestBackend, S: TestSemiring>(
    b: &B,
    c: &AffineCase<S::T>,
) -> Result<(), String> {
    let s = S::default();
    let d = ctx("upload d", b.upload_vector(&c.d.vector()))?;
    let u = ctx("upload u", b.upload_vector(&c.u.vector()))?;
    for fmt in FORMATS {
        let (a, used) = c.a.in_format(fmt, c.iso);
        let expected = oracle_affine::<S>(&used, c.c, &c.d.vals, &c.u.vals);
        let a = ctx("upload A", b.upload_matrix(&a))?;
        let mut w = ctx("upload w", b.upload_vector(&c.w.vector()))?;
        ctx("mxv_affine", ext::mxv_affine(b, &mut w, s, c.c, &a, &d, &u))?;
        let w = ctx("download w", b.download_vector(&w))?;
        ctx("validate w", w.validate())?;
        compare(
            &format!("mxv_affine {} A {fmt:?}", S::NAME),
            1,
            &expected,
            &super::cells_of_vector(&w),
        )?;
    }
    Ok(())
}
