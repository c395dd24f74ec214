//! Element-wise vector operations: `ewise_add`/`ewise_mult`/`ewise_union`
//! (with the gathered intersection of a sparse and a full operand), `apply`
//! and `select`.

use super::super::codes::{accum_code, op_code, select_code, unary_code};
use super::super::device::{bits_of, opt_ptr, DevPtr};
use super::super::launch::vec;
use super::super::mem::{bit_words, no_kernel, DVec};
use super::super::{CudaBackend, CudaVector};
use crate::algebra::{BinaryOp, IndexUnaryOp, UnaryOp};
use crate::backend::EwiseKind;
use crate::container::{Accumulate, Flags, Mask};
use crate::error::Result;
use crate::scalar::Scalar;

/// `(kind code, alpha, beta)` of an element-wise kind (the codes of the
/// `vec_ewise` and `ewise_fill` kernels).
pub(crate) fn ewise_kind<T: Scalar>(kind: EwiseKind<T>) -> (i32, T, T) {
    match kind {
        EwiseKind::Add => (0, T::zero(), T::zero()),
        EwiseKind::Mult => (1, T::zero(), T::zero()),
        EwiseKind::Union { alpha, beta } => (2, alpha, beta),
    }
}

impl CudaBackend {
    /// The `ewise_vector` entry point.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ewise_vector_op<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        kind: EwiseKind<T>,
        u: &CudaVector<T>,
        v: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        let code = op_code::<T, Op>("ewise")?;
        let acc = accum_code::<T, A>("ewise")?;
        let allowed = self.allowed(mask)?;
        let (k, alpha, beta) = ewise_kind(kind);
        if matches!(kind, EwiseKind::Mult) {
            if let Some(t) = self.ewise_mult_gather(code, u, v)? {
                return self.write_vector(w, t, allowed.as_ref(), acc, flags.replace);
            }
        }
        let n = u.len;
        // Full operands (dense, no presence bits) give a full result: the
        // union when either is full, the intersection when both are.
        let full = |x: &CudaVector<T>| matches!(x.repr, DVec::Dense { pres: None, .. });
        let full_out = match kind {
            EwiseKind::Mult => full(u) && full(v),
            _ => full(u) || full(v),
        };
        let (uv, vv) = (self.view(u)?, self.view(v)?);
        let vals = self.dev.alloc::<T>(n)?;
        let pres = if full_out {
            None
        } else {
            Some(self.dev.alloc::<u32>(bit_words(n))?)
        };
        vec::vec_ewise(
            k,
            code,
            bits_of(alpha),
            bits_of(beta),
            uv.vals,
            uv.pres,
            vv.vals,
            vv.pres,
            n as u64,
            vals.ptr(),
            opt_ptr(pres.as_ref()),
        )
        .run(&self.dev, bit_words(n) * 32)?;
        drop((uv, vv));
        let t = CudaVector {
            len: n,
            repr: DVec::Dense { vals, pres },
        };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    /// The intersection `u ⊙ v` where one operand is sparse and the other
    /// full (dense without presence bits): a sparse result with the sparse
    /// operand's pattern, gathered in `O(nnz)` (no pass over the length,
    /// which the general element-wise kernel makes twice, with a scatter of
    /// the sparse operand first). `None` for other operand formats.
    pub(crate) fn ewise_mult_gather<T: Scalar>(
        &self,
        op: i32,
        u: &CudaVector<T>,
        v: &CudaVector<T>,
    ) -> Result<Option<CudaVector<T>>> {
        let full = |x: &CudaVector<T>| match &x.repr {
            DVec::Dense { vals, pres: None } => Some(vals.ptr()),
            _ => None,
        };
        let (sparse, f_vals, swap) = match (&u.repr, full(v), full(u)) {
            (DVec::Sparse { .. }, Some(f), _) => (u, f, false),
            (_, _, Some(f)) if matches!(v.repr, DVec::Sparse { .. }) => (v, f, true),
            _ => return Ok(None),
        };
        let DVec::Sparse { idx, vals, nnz } = &sparse.repr else {
            unreachable!("matched a sparse operand above")
        };
        let nnz = *nnz;
        let out_idx = self.dev.copy(idx)?;
        let out_vals = self.dev.alloc::<T>(nnz)?;
        if nnz > 0 {
            vec::vec_ewise_gather(
                op,
                swap,
                idx.ptr(),
                vals.ptr(),
                nnz as u64,
                f_vals,
                out_vals.ptr(),
            )
            .run(&self.dev, nnz)?;
        }
        Ok(Some(CudaVector {
            len: u.len,
            repr: DVec::Sparse {
                idx: out_idx,
                vals: out_vals,
                nnz,
            },
        }))
    }

    /// The `apply_vector` entry point (the form of `u` kept).
    pub(crate) fn apply_vector_op<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        f: F,
        u: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        let (code, s) = unary_code(&f, "apply")?;
        let acc = accum_code::<T, A>("apply")?;
        let allowed = self.allowed(mask)?;
        let run = |vals: DevPtr<T>, n: usize| -> Result<_> {
            let out = self.dev.alloc::<T>(n)?;
            vec::vec_apply(code, bits_of(s), vals, n as u64, out.ptr()).run(&self.dev, n)?;
            Ok(out)
        };
        let repr = match &u.repr {
            DVec::Sparse { idx, vals, nnz } => DVec::Sparse {
                idx: self.dev.copy(idx)?,
                vals: run(vals.ptr(), *nnz)?,
                nnz: *nnz,
            },
            DVec::Dense { vals, pres } => DVec::Dense {
                vals: run(vals.ptr(), u.len)?,
                pres: pres.as_ref().map(|p| self.dev.copy(p)).transpose()?,
            },
            DVec::Bits(b) => DVec::Dense {
                vals: run(DevPtr::null(), u.len)?,
                pres: Some(self.dev.copy(b)?),
            },
        };
        let t = CudaVector { len: u.len, repr };
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }

    /// The `select_vector` entry point.
    pub(crate) fn select_vector_op<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        pred: P,
        u: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        let p = pred
            .builtin()
            .ok_or_else(|| no_kernel("select", "a user predicate"))?;
        let (code, k, th) = select_code(p);
        let acc = accum_code::<T, A>("select")?;
        let allowed = self.allowed(mask)?;
        let n = u.len;
        let uv = self.view(u)?;
        let vals = self.dev.alloc::<T>(n)?;
        let pres = self.dev.alloc::<u32>(bit_words(n))?;
        vec::vec_select(
            code,
            k,
            bits_of(th),
            uv.vals,
            uv.pres,
            n as u64,
            vals.ptr(),
            pres.ptr(),
        )
        .run(&self.dev, bit_words(n) * 32)?;
        drop(uv);
        let t = self.dense_vec(n, vals, pres);
        self.write_vector(w, t, allowed.as_ref(), acc, flags.replace)
    }
}
