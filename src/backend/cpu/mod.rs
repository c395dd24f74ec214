//! The CPU backend: host memory, rayon threads. B2SR inputs with built-in
//! semirings go to the bit kernels in `b2sr`; everything else takes the
//! `generic` CSR path. [`dispatch_counts`] tells tests which tier ran.

mod affine;
pub(crate) mod b2sr;
mod bfs_levels;
mod bfs_record;
mod bits;
mod brandes;
mod dense;
mod dense_view;
mod ext;
pub(crate) mod generic;
mod mask;
mod reduce;
mod short_rows;
mod sssp;
mod writeback;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use self::dense_view::{dense_view, for_chunks_mut};
pub use self::mask::{HostMask, HostMatrixMask};
use self::writeback::{allowed_bits, write_matrix, write_vector, RowMask};
use rayon::prelude::*;

use super::{Backend, Content, EwiseKind};
use crate::algebra::{BinaryOp, BitDomain, BitSemiring, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::container::{
    Accumulate, BitInput, BitOutput, BitPlanes, Flags, Format, Mask, Matrix, MatrixMask,
    MatrixRepr, NoAccum, Threshold, Vector, VectorFormat, VectorRepr,
};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::b2sr::Profile;
use crate::storage::{BitLayout, BitMatrix, BitVec, Csr, DenseMatrix};

/// The CPU backend. Cheap to create; uses rayon's global thread pool.
///
/// ```
/// use bitgraphblas::{Backend, Cpu};
/// assert_eq!(Cpu::new().name(), "cpu");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

impl Cpu {
    /// The CPU backend.
    pub fn new() -> Self {
        Cpu
    }
}

static SPECIALISED: AtomicUsize = AtomicUsize::new(0);
static GENERIC: AtomicUsize = AtomicUsize::new(0);

/// Which kernels the dense-bit products ([`crate::ops::bmm`] and the others)
/// run on this CPU: `"avx512-vpopcntdq"` (AVX-512 with VPOPCNTDQ, detected at
/// run time), `"popcnt"` (scalar popcounts) or `"portable"`; the environment
/// variable `BITGRAPHBLAS_CPU_BITS=portable`, read once, forces the portable
/// kernels. Every path gives the same integers.
///
/// ```
/// let isa = bitgraphblas::backend::cpu::bits_isa();
/// assert!(["avx512-vpopcntdq", "popcnt", "portable"].contains(&isa));
/// ```
pub fn bits_isa() -> &'static str {
    bits::isa_name()
}

/// How many CPU operations ran on a specialised B2SR kernel and how many on the
/// generic path, since the process started (for tests and logging).
pub fn dispatch_counts() -> (usize, usize) {
    (
        SPECIALISED.load(Ordering::Relaxed),
        GENERIC.load(Ordering::Relaxed),
    )
}

#[allow(dead_code)] // called by the specialised B2SR kernels
pub(crate) fn count_specialised() {
    SPECIALISED.fetch_add(1, Ordering::Relaxed);
}
fn count_generic() {
    GENERIC.fetch_add(1, Ordering::Relaxed);
}

/// `a` as CSR, transposed when asked.
fn csr_of<T: Scalar>(a: &Matrix<T>, transpose: bool) -> std::borrow::Cow<'_, Csr<T>> {
    let c = a.as_csr();
    if transpose {
        std::borrow::Cow::Owned(c.transpose())
    } else {
        c
    }
}

/// The values of `u` when every entry is present.
fn full_values<T: Scalar>(u: &Vector<T>) -> Option<&[T]> {
    match u.repr() {
        VectorRepr::Dense {
            values,
            present: None,
        } => Some(values),
        _ => None,
    }
}

/// A value buffer for an output that overwrites every entry of `w`: `w`'s own
/// when it is dense (no allocation, no page faults), else a new one. `w` is
/// left empty; the caller stores the result back.
fn take_full_buffer<T: Scalar>(w: &mut Vector<T>) -> Vec<T> {
    let n = w.len();
    match std::mem::replace(w, Vector::empty(n)).into_repr() {
        VectorRepr::Dense { values, .. } => values,
        _ => vec![T::default(); n],
    }
}

/// `w = accum(w, f(i))` for every `i` (no mask): in place into `w`'s buffer
/// when `w` is full, or with `w`'s old entries ignored when there is no
/// accumulator. `None` (nothing done) when `A` is active and `w` is not full.
fn write_full<T: Scalar, A: Accumulate<T>>(
    w: &mut Vector<T>,
    accum: A,
    f: impl Fn(usize) -> T + Sync,
) -> Option<()> {
    if A::ACTIVE && full_values(w).is_none() {
        return None;
    }
    let mut out = take_full_buffer(w);
    let n = out.len();
    for_chunks_mut(&mut out, 4096, n, |c, ch| {
        for (k, o) in ch.iter_mut().enumerate() {
            let i = c * 4096 + k;
            *o = if A::ACTIVE {
                accum.combine(*o, f(i))
            } else {
                f(i)
            }
        }
    });
    *w = Vector::from_dense(out);
    Some(())
}

/// `w<mask> = accum(w, t)` with `flags.replace`: the write of every vector
/// operation whose result `t` is computed apart.
fn write_masked<T: Scalar, A: Accumulate<T>>(
    w: &mut Vector<T>,
    t: Vector<T>,
    mask: Option<Mask<'_, Cpu>>,
    accum: A,
    flags: Flags,
) {
    write_vector(w, t, allowed_bits(mask).as_ref(), accum, flags.replace);
}

/// `C<mask> = accum(C, t)` with `flags.replace` (matrices).
fn write_into<T: Scalar, A: Accumulate<T>>(
    c: &mut Matrix<T>,
    t: Csr<T>,
    mask: Option<MatrixMask<'_, Cpu>>,
    accum: A,
    flags: Flags,
) {
    let m = RowMask::resolve(mask);
    if m.is_none() && !A::ACTIVE {
        *c = Matrix::from_csr(t);
        return;
    }
    *c = Matrix::from_csr(write_matrix(
        &c.as_csr(),
        t,
        m.as_ref(),
        accum,
        flags.replace,
    ));
}

impl Backend for Cpu {
    type Matrix<T: Scalar> = Matrix<T>;
    type Vector<T: Scalar> = Vector<T>;
    type Dense<T: Scalar> = DenseMatrix<T>;
    type Bits = BitMatrix;
    type MaskSource = dyn HostMask;
    type MatrixMaskSource = dyn HostMatrixMask;

    fn name(&self) -> &'static str {
        "cpu"
    }

    /// Valued products on CSR: measured on the graphs of `../shared/data`,
    /// the generic CSR product beats the B2SR valued kernel 2-4x
    /// (`benches/results/cpu-algorithms.md`).
    fn auto_format(&self, requested: Format, profile: &Profile, content: Content) -> Format {
        match (requested, content) {
            (Format::Auto, Content::Values | Content::ValuesTimesDense) => Format::Csr,
            _ => crate::backend::profile_choice(requested, profile),
        }
    }

    fn mask<T: Scalar>(v: &Vector<T>) -> Mask<'_, Self> {
        Mask::new(v as &dyn HostMask)
    }
    fn matrix_mask<T: Scalar>(m: &Matrix<T>) -> MatrixMask<'_, Self> {
        MatrixMask::new(m as &dyn HostMatrixMask)
    }

    fn upload_matrix<T: Scalar>(&self, m: &Matrix<T>) -> Result<Matrix<T>> {
        Ok(m.clone())
    }
    fn upload_matrix_owned<T: Scalar>(&self, m: Matrix<T>) -> Result<Matrix<T>> {
        Ok(m)
    }
    fn download_matrix<T: Scalar>(&self, m: &Matrix<T>) -> Result<Matrix<T>> {
        Ok(m.clone())
    }
    fn upload_vector<T: Scalar>(&self, v: &Vector<T>) -> Result<Vector<T>> {
        Ok(v.clone())
    }
    fn download_vector<T: Scalar>(&self, v: &Vector<T>) -> Result<Vector<T>> {
        Ok(v.clone())
    }
    fn download_vector_owned<T: Scalar>(&self, v: Vector<T>) -> Result<Vector<T>> {
        Ok(v)
    }
    fn upload_dense<T: Scalar>(&self, m: &DenseMatrix<T>) -> Result<DenseMatrix<T>> {
        Ok(m.clone())
    }
    fn download_dense<T: Scalar>(&self, m: &DenseMatrix<T>) -> Result<DenseMatrix<T>> {
        Ok(m.clone())
    }
    fn vector_new<T: Scalar>(
        &self,
        len: usize,
        fill: Option<T>,
        format: VectorFormat,
    ) -> Result<Vector<T>> {
        let v = match fill {
            Some(x) => Vector::filled(len, x),
            None => Vector::empty(len),
        };
        // Made in the format asked for already: not copied.
        if v.format() == format {
            return Ok(v);
        }
        v.to_format(format)
    }
    fn dense_new<T: Scalar>(&self, nrows: usize, ncols: usize, value: T) -> Result<DenseMatrix<T>> {
        Ok(DenseMatrix::filled(nrows, ncols, value))
    }
    fn convert<T: Scalar>(&self, m: &Matrix<T>, format: Format) -> Result<Matrix<T>> {
        m.to_format(format)
    }
    fn convert_vector<T: Scalar>(&self, v: &Vector<T>, format: VectorFormat) -> Result<Vector<T>> {
        v.to_format(format)
    }
    fn vector_nvals<T: Scalar>(&self, v: &Vector<T>) -> Result<usize> {
        Ok(v.nvals())
    }
    fn matrix_nvals<T: Scalar>(&self, m: &Matrix<T>) -> Result<usize> {
        Ok(m.nvals())
    }

    fn mxv<S: Semiring, A: Accumulate<S::T>>(
        &self,
        w: &mut Vector<S::T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        semiring: S,
        a: &Matrix<S::T>,
        u: &Vector<S::T>,
        flags: Flags,
    ) -> Result<()> {
        let allowed = allowed_bits(mask);
        // `w += A u` into a full `w` without a mask: accumulated in place.
        if let (MatrixRepr::Csr(c), false, None, true) =
            (a.repr(), flags.transpose_a, &allowed, A::ACTIVE)
        {
            if !matches!(u.repr(), VectorRepr::Bits(_))
                && matches!(w.repr(), VectorRepr::Dense { present: None, .. })
            {
                count_generic();
                let old = std::mem::replace(w, Vector::empty(c.nrows()));
                if let VectorRepr::Dense { mut values, .. } = old.into_repr() {
                    generic::mxv_csr_accum_into(semiring, c, u, accum, &mut values);
                    *w = Vector::from_dense(values);
                }
                return Ok(());
            }
        }
        let t = match (a.repr(), flags.transpose_a) {
            (MatrixRepr::B2sr { pattern, value }, false) => {
                b2sr::mxv(semiring, pattern, *value, u, allowed.as_ref())
            }
            (MatrixRepr::B2sr { pattern, value }, true) => {
                b2sr::vxm(semiring, pattern, *value, u, allowed.as_ref())
            }
            (MatrixRepr::Csr(c), false) => b2sr::mxv_csr_bits::<S>(c, u, allowed.as_ref())
                .unwrap_or_else(|| {
                    count_generic();
                    generic::mxv_csr(semiring, c, u, allowed.as_ref())
                }),
            (MatrixRepr::Csr(c), true) => {
                count_generic();
                // Push when `u` is sparse, or when `A` has no more entries
                // than rows and columns (transposing it would cost a push).
                if u.nvals() * 16 < u.len() || c.nnz() <= c.nrows() + c.ncols() {
                    generic::vxm_push(semiring, c, u, allowed.as_ref())
                } else {
                    generic::mxv_csr(semiring, &c.transpose(), u, allowed.as_ref())
                }
            }
        };
        write_vector(w, t, allowed.as_ref(), accum, flags.replace);
        Ok(())
    }

    fn mxm<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut Matrix<S::T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        semiring: S,
        a: &Matrix<S::T>,
        b: &Matrix<S::T>,
        flags: Flags,
    ) -> Result<()> {
        if mask.is_none() && !A::ACTIVE {
            if let Some(t) = b2sr::mxm_pattern(semiring, a, b, flags) {
                *c = t?;
                return Ok(());
            }
        }
        count_generic();
        let m = RowMask::resolve(mask);
        let t = generic::mxm_csr(
            semiring,
            &csr_of(a, flags.transpose_a),
            &csr_of(b, flags.transpose_b),
            m.as_ref(),
        );
        write_into(c, t, mask, accum, flags);
        Ok(())
    }

    fn mxm_reduce<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        semiring: S,
        a: &Matrix<S::T>,
        b: &Matrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        if let Some(r) = b2sr::mxm_reduce(semiring, mask, a, b, flags) {
            return r;
        }
        count_generic();
        // Rows of B' are the columns of B.
        let (a, bt) = (csr_of(a, flags.transpose_a), csr_of(b, !flags.transpose_b));
        // A structural CSR mask is used in place.
        if let (false, true, Some((rp, ci))) = (
            mask.complemented,
            mask.structural,
            mask.source.csr_structure(),
        ) {
            return Ok(generic::mxm_reduce_masked(semiring, rp, ci, &a, &bt));
        }
        let m = RowMask::resolve(Some(mask)).expect("a mask");
        Ok(generic::mxm_reduce_csr(semiring, &m, &a, &bt))
    }

    fn mxm_dense<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut DenseMatrix<S::T>,
        accum: A,
        semiring: S,
        a: &Matrix<S::T>,
        b: &DenseMatrix<S::T>,
        flags: Flags,
    ) -> Result<()> {
        // Without an accumulator the product goes straight into `c`'s storage.
        let mut t = DenseMatrix::filled(0, 0, semiring.zero());
        let out = if A::ACTIVE { &mut t } else { &mut *c };
        match (a.repr(), flags.transpose_a) {
            (MatrixRepr::B2sr { pattern, value }, false) => {
                b2sr::mxm_dense_into(semiring, pattern, *value, b, out)
            }
            _ => {
                count_generic();
                generic::mxm_dense_csr_into(semiring, &csr_of(a, flags.transpose_a), b, out)
            }
        }
        if A::ACTIVE {
            for (o, &x) in c.as_mut_slice().iter_mut().zip(t.as_slice()) {
                *o = accum.combine(*o, x);
            }
        }
        Ok(())
    }

    fn ewise_vector<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        kind: EwiseKind<T>,
        op: Op,
        u: &Vector<T>,
        v: &Vector<T>,
        flags: Flags,
    ) -> Result<()> {
        // Both inputs full, no mask: every entry is `op(u_i, v_i)`, in place.
        if let (None, Some(x), Some(y)) = (&mask, full_values(u), full_values(v)) {
            if write_full(w, accum, |i| op.apply(x[i], y[i])).is_some() {
                return Ok(());
            }
        }
        write_masked(w, generic::ewise_vector(kind, op, u, v), mask, accum, flags);
        Ok(())
    }

    fn ewise_matrix<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        kind: EwiseKind<T>,
        op: Op,
        a: &Matrix<T>,
        b: &Matrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let t = generic::ewise_csr(
            kind,
            op,
            &csr_of(a, flags.transpose_a),
            &csr_of(b, flags.transpose_b),
        );
        write_into(c, t, mask, accum, flags);
        Ok(())
    }

    fn apply_vector<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        f: F,
        u: &Vector<T>,
        flags: Flags,
    ) -> Result<()> {
        if let (None, Some(x)) = (&mask, full_values(u)) {
            if write_full(w, accum, |i| f.apply(x[i])).is_some() {
                return Ok(());
            }
        }
        write_masked(w, generic::apply_vector(f, u), mask, accum, flags);
        Ok(())
    }

    fn apply_matrix<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        f: F,
        a: &Matrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let t = csr_of(a, flags.transpose_a).map(|x| f.apply(x));
        write_into(c, t, mask, accum, flags);
        Ok(())
    }

    fn select_vector<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        pred: P,
        u: &Vector<T>,
        flags: Flags,
    ) -> Result<()> {
        write_masked(w, generic::select_vector(pred, u), mask, accum, flags);
        Ok(())
    }

    fn select_matrix<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        pred: P,
        a: &Matrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let t = generic::select_csr(pred, &csr_of(a, flags.transpose_a));
        write_into(c, t, mask, accum, flags);
        Ok(())
    }

    fn reduce_rows<T: Scalar, M: Monoid<T>, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        monoid: M,
        a: &Matrix<T>,
        flags: Flags,
    ) -> Result<()> {
        let t = generic::reduce_rows_csr(monoid, &csr_of(a, flags.transpose_a));
        write_masked(w, t, mask, accum, flags);
        Ok(())
    }

    fn reduce_vector<T: Scalar, M: Monoid<T>>(&self, monoid: M, u: &Vector<T>) -> Result<T> {
        Ok(reduce::reduce_vector(monoid, u))
    }

    fn reduce_matrix<T: Scalar, M: Monoid<T>>(&self, monoid: M, a: &Matrix<T>) -> Result<T> {
        Ok(reduce::reduce_matrix(monoid, a))
    }

    fn extract_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        u: &Vector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        write_masked(w, generic::extract_vector(u, indices), mask, accum, flags);
        Ok(())
    }

    fn extract_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &Matrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let t = generic::extract_csr(&csr_of(a, flags.transpose_a), rows, cols);
        write_into(c, t, mask, accum, flags);
        Ok(())
    }

    fn assign_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        u: &Vector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let allowed = allowed_bits(mask);
        if allowed.is_none() && matches!(w.repr(), VectorRepr::Dense { .. }) {
            // No mask and `w` dense: its entries at `indices` change in place
            // (no copy of `w`: a search's level vector costs the indices).
            let n = w.len();
            let VectorRepr::Dense {
                mut values,
                present,
            } = std::mem::replace(w, Vector::empty(n)).into_repr()
            else {
                unreachable!("w was checked dense above")
            };
            let mut present = present.unwrap_or_else(|| BitVec::ones(n));
            let uv = dense_view(u);
            for (k, &i) in indices.iter().enumerate() {
                let z = assigned(&accum, present.get(i).then(|| values[i]), uv.get(k));
                present.set(i, z.is_some());
                if let Some(x) = z {
                    values[i] = x;
                }
            }
            *w = dense_view::dense_from_parts(values, present.words().to_vec());
            return Ok(());
        }
        if allowed.is_none() && matches!(w.repr(), VectorRepr::Sparse { .. }) {
            // No mask and `w` sparse: the sorted updates merged into its
            // entries (a search's sparse level vector stays sparse).
            let n = w.len();
            let VectorRepr::Sparse {
                indices: wi,
                values: wval,
            } = std::mem::replace(w, Vector::empty(n)).into_repr()
            else {
                unreachable!("w was checked sparse above")
            };
            let uv = dense_view(u);
            let mut updates: Vec<(u32, Option<T>)> = indices
                .iter()
                .enumerate()
                .map(|(k, &i)| (i as u32, uv.get(k)))
                .collect();
            updates.sort_unstable_by_key(|e| e.0);
            let mut merged = Vec::with_capacity(wi.len() + updates.len());
            let mut old = wi.into_iter().zip(wval).peekable();
            for (i, x) in updates {
                while let Some(e) = old.next_if(|e| e.0 < i) {
                    merged.push(e);
                }
                let o = old.next_if(|e| e.0 == i).map(|e| e.1);
                if let Some(z) = assigned(&accum, o, x) {
                    merged.push((i, z));
                }
            }
            merged.extend(old);
            let (indices, values) = merged.into_iter().unzip();
            *w = Vector::from_repr(n, VectorRepr::Sparse { indices, values })?;
            return Ok(());
        }
        let (wv, uv) = (dense_view(w), dense_view(u));
        let mut values = wv.values.clone().into_owned();
        let mut present = wv
            .present
            .as_ref()
            .map_or_else(|| BitVec::ones(w.len()), |p| p.clone().into_owned());
        for (k, &i) in indices.iter().enumerate() {
            let z = assigned(&accum, wv.get(i), uv.get(k));
            present.set(i, z.is_some());
            if let Some(x) = z {
                values[i] = x;
            }
        }
        drop(wv);
        let z = dense_view::dense_from_parts(values, present.words().to_vec());
        write_vector(w, z, allowed.as_ref(), NoAccum, flags.replace);
        Ok(())
    }

    fn assign_vector_scalar<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut Vector<T>,
        mask: Option<Mask<'_, Self>>,
        accum: A,
        value: T,
        indices: Option<&[usize]>,
        flags: Flags,
    ) -> Result<()> {
        let Some(idx) = indices else {
            if mask.is_none() && write_full(w, accum, |_| value).is_some() {
                return Ok(());
            }
            // Every index: `w<mask> = accum(w, value)` in one pass.
            let allowed = allowed_bits(mask);
            let wv = dense_view(w);
            let z = dense_view::dense_from_fn(w.len(), |i| {
                let old = wv.get(i);
                let new = match (A::ACTIVE, old) {
                    (true, Some(o)) => accum.combine(o, value),
                    _ => value,
                };
                if allowed.as_ref().is_none_or(|m| m.get(i)) {
                    Some(new)
                } else if !flags.replace {
                    old
                } else {
                    None
                }
            });
            drop(wv);
            *w = z;
            return Ok(());
        };
        let u = Vector::filled(idx.len(), value);
        self.assign_vector(w, mask, accum, &u, idx, flags)
    }

    fn assign_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &Matrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        let (cc, ac) = (c.as_csr(), csr_of(a, flags.transpose_a));
        let mut row_of = vec![None; cc.nrows()];
        for (p, &i) in rows.iter().enumerate() {
            row_of[i] = Some(p);
        }
        let mut col_of: Vec<Option<u32>> = vec![None; cc.ncols()];
        for (k, &j) in cols.iter().enumerate() {
            col_of[j] = Some(k as u32);
        }
        let zrows = (0..cc.nrows())
            .map(|i| {
                let (c_cols, c_vals) = cc.row(i);
                let Some(p) = row_of[i] else {
                    return (c_cols.to_vec(), c_vals.to_vec());
                };
                let mut z: BTreeMap<u32, T> = BTreeMap::new();
                for (&j, &x) in c_cols.iter().zip(c_vals) {
                    // Inside the assigned region without an accumulator, old entries go.
                    if A::ACTIVE || col_of[j as usize].is_none() {
                        z.insert(j, x);
                    }
                }
                let (a_cols, a_vals) = ac.row(p);
                for (&k, &x) in a_cols.iter().zip(a_vals) {
                    let j = cols[k as usize] as u32;
                    let nv = match z.get(&j) {
                        Some(&o) if A::ACTIVE => accum.combine(o, x),
                        _ => x,
                    };
                    z.insert(j, nv);
                }
                z.into_iter().unzip()
            })
            .collect();
        let z = generic::csr_from_rows(cc.nrows(), cc.ncols(), zrows);
        drop(cc);
        write_into(
            c,
            z,
            mask,
            NoAccum,
            Flags {
                replace: flags.replace,
                ..Flags::default()
            },
        );
        Ok(())
    }

    fn transpose<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut Matrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &Matrix<T>,
        flags: Flags,
    ) -> Result<()> {
        // A transposed input descriptor cancels the transpose.
        if let (MatrixRepr::B2sr { pattern, value }, None, false, false) =
            (a.repr(), mask, A::ACTIVE, flags.transpose_a)
        {
            *c = Matrix::from_b2sr(pattern.transpose(), *value);
            return Ok(());
        }
        let t = csr_of(a, !flags.transpose_a).into_owned();
        write_into(c, t, mask, accum, flags);
        Ok(())
    }

    fn scale<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut Matrix<T>,
        op: Op,
        d: &Vector<T>,
        a: &Matrix<T>,
        rows: bool,
    ) -> Result<()> {
        *c = Matrix::from_csr(generic::scale_csr(op, d, &a.as_csr(), rows));
        Ok(())
    }

    fn scale_dense_rows<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut DenseMatrix<T>,
        op: Op,
        d: &Vector<T>,
        b: &DenseMatrix<T>,
    ) -> Result<()> {
        let dv = dense_view(d);
        let n = b.ncols();
        let mut out = b.clone();
        if n > 0 {
            out.as_mut_slice()
                .par_chunks_mut(n)
                .enumerate()
                .for_each(|(i, row)| {
                    if let Some(di) = dv.get(i) {
                        row.iter_mut().for_each(|x| *x = op.apply(di, *x));
                    }
                });
        }
        *c = out;
        Ok(())
    }

    fn dense_mxm<S: Semiring>(
        &self,
        c: &mut DenseMatrix<S::T>,
        semiring: S,
        a: &DenseMatrix<S::T>,
        b: &DenseMatrix<S::T>,
    ) -> Result<()> {
        dense::dense_mxm(c, semiring, a, b);
        Ok(())
    }

    fn scale_dense_cols<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut DenseMatrix<T>,
        op: Op,
        a: &DenseMatrix<T>,
        d: &Vector<T>,
    ) -> Result<()> {
        dense::scale_cols(c, op, a, d);
        Ok(())
    }

    fn apply_dense<T: Scalar, F: UnaryOp<T>>(
        &self,
        c: &mut DenseMatrix<T>,
        f: F,
        a: &DenseMatrix<T>,
    ) -> Result<()> {
        dense::apply(c, f, a);
        Ok(())
    }

    fn ewise_dense<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut DenseMatrix<T>,
        op: Op,
        a: &DenseMatrix<T>,
        b: &DenseMatrix<T>,
    ) -> Result<()> {
        dense::ewise(c, op, a, b);
        Ok(())
    }

    fn argmax_rows(&self, out: &mut DenseMatrix<u32>, a: &DenseMatrix<f32>) -> Result<()> {
        dense::argmax_rows(out, a);
        Ok(())
    }

    fn log_softmax_rows(&self, c: &mut DenseMatrix<f32>, a: &DenseMatrix<f32>) -> Result<()> {
        dense::log_softmax_rows(c, a);
        Ok(())
    }

    fn upload_bits(&self, m: &BitMatrix) -> Result<BitMatrix> {
        Ok(m.clone())
    }
    fn download_bits(&self, m: &BitMatrix) -> Result<BitMatrix> {
        Ok(m.clone())
    }
    fn bits_new(&self, nrows: usize, ncols: usize, layout: BitLayout) -> Result<BitMatrix> {
        BitMatrix::zeros(nrows, ncols, layout)
    }
    fn binarize(
        &self,
        out: &mut BitMatrix,
        x: &DenseMatrix<f32>,
        threshold: Threshold<'_, Self>,
    ) -> Result<()> {
        bits::binarize(out, x, threshold)
    }
    fn mean_abs(&self, out: &mut DenseMatrix<f32>, x: &DenseMatrix<f32>, rows: bool) -> Result<()> {
        bits::mean_abs(out, x, rows);
        Ok(())
    }
    fn unpack_bits(
        &self,
        out: &mut DenseMatrix<f32>,
        b: &BitMatrix,
        domain: BitDomain,
    ) -> Result<()> {
        bits::unpack_bits(out, b, domain)
    }
    fn bit_transpose(&self, out: &mut BitMatrix, b: &BitMatrix) -> Result<()> {
        bits::bit_transpose(out, b);
        Ok(())
    }
    fn quantize(&self, out: &mut BitPlanes<Self>, x: &DenseMatrix<f32>) -> Result<()> {
        bits::quantize(out, x)
    }
    fn dequantize(&self, out: &mut DenseMatrix<f32>, p: &BitPlanes<Self>) -> Result<()> {
        bits::dequantize(out, p)
    }
    fn bmm(
        &self,
        out: BitOutput<'_, Self>,
        semiring: BitSemiring,
        a: BitInput<'_, Self>,
        w: &BitMatrix,
    ) -> Result<()> {
        bits::bmm(out, semiring, a, w)
    }
    fn bspmm(
        &self,
        out: BitOutput<'_, Self>,
        semiring: BitSemiring,
        a: &Matrix<bool>,
        x: &BitMatrix,
    ) -> Result<()> {
        bits::bspmm(out, semiring, a, x)
    }
    fn bmm_planes(
        &self,
        out: BitOutput<'_, Self>,
        a: &BitPlanes<Self>,
        w: &BitPlanes<Self>,
    ) -> Result<()> {
        bits::bmm_planes(out, a, w)
    }
    fn bspmm_planes(
        &self,
        out: BitOutput<'_, Self>,
        a: &Matrix<bool>,
        x: &BitPlanes<Self>,
    ) -> Result<()> {
        bits::bspmm_planes(out, a, x)
    }
}

/// What `assign` leaves at one index: the old entry `old` combined with the
/// assigned `x` through `accum` (an absent `x` keeps `old` under an
/// accumulator and deletes it without one).
fn assigned<T: Scalar, A: Accumulate<T>>(accum: &A, old: Option<T>, x: Option<T>) -> Option<T> {
    match (A::ACTIVE, old, x) {
        (true, Some(o), Some(x)) => Some(accum.combine(o, x)),
        (true, o, None) => o,
        (_, _, x) => x,
    }
}
