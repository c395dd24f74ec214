//! The affine product `w = c ⊕ A ⊕.⊗ (d ⊗ u)` ([`crate::ext::mxv_affine`])
//! in one pass: the product kernels of `cuda/sr.cu` read `d_j ⊗ u_j` where
//! they gather `u_j`, and write every row as `c ⊕ value` instead of reading
//! the output (B2SR with tiles of at most 8x8: `b2sr_mxv_fused`; CSR: row
//! blocks). PageRank's iteration `x' = c + A' (x ⊙ s)` then reads `x`,
//! `s` and the matrix and writes `x'` once.
//!
//! On CSR with more than [`PRESCALE_ENTRIES`] entries per column on
//! average, a sequential pass first writes `t = d ⊗ u` and the product
//! gathers `t` alone: gathering two vectors at random costs more than one
//! more pass over them when each column is gathered often (H100, R-MAT 22:
//! 2.18 ms per product gathering both, 1.43 ms pre-scaled). B2SR products
//! gather `d` and `u` in the product (tiles read `k` consecutive values of
//! each): pre-scaling was slower or no faster on every graph measured (H100,
//! 20 PageRank iterations: grid 1024² 0.53 against 0.83 ms, cnr-2000 1.52
//! against 1.77 ms, ego-Twitter 1.43 against 1.40 ms;
//! `benches/results/algorithms-gpu-gpr7-cfa62ea-h100.md`).
//! The values are the same either way (`a ⊗ (d ⊗ u)` in both).

use std::sync::atomic::Ordering;

use super::super::codes::ACCUM_NONE;
use super::super::device::{bits_of, DBuf, DevPtr};
use super::super::launch::Sr;
use super::super::mem::{DMat, DVec, Parts};
use super::super::{CudaBackend, CudaMatrix, CudaVector};
use super::Io;
use crate::algebra::Semiring;
use crate::backend::{Backend, EwiseKind};
use crate::container::{Flags, NoAccum};
use crate::error::Result;
use crate::ext::affine::mxv_affine_generic;
use crate::scalar::Scalar;

/// Entries per column above which a CSR affine product scales `d ⊗ u` in
/// a pass of its own before the product (see the module documentation).
pub(crate) const PRESCALE_ENTRIES: usize = 2;

/// The values of a full vector (no presence bits).
pub(crate) fn full_vals<T: Scalar>(v: &CudaVector<T>) -> Option<DevPtr<T>> {
    match &v.repr {
        DVec::Dense { vals, pres: None } => Some(vals.ptr()),
        _ => None,
    }
}

impl CudaBackend {
    /// [`crate::Backend::mxv_affine`]: fused where `d` and `u` are full
    /// vectors, the semiring is built in and `A` is CSR or B2SR with tiles of
    /// at most 8x8; [`mxv_affine_generic`] otherwise. `w` is written in
    /// place when it is a full vector of the right length, else replaced.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mxv_affine_fused<S: Semiring>(
        &self,
        w: &mut CudaVector<S::T>,
        semiring: S,
        c: S::T,
        a: &CudaMatrix<S::T>,
        d: &CudaVector<S::T>,
        u: &CudaVector<S::T>,
    ) -> Result<()> {
        let id = Sr::of(&semiring, "mxv_affine").ok();
        let fits = match &a.repr {
            DMat::B2sr { pat, .. } => pat.k <= 8,
            DMat::Csr { .. } => true,
        };
        let (Some(id), Some(d_vals), Some(u_vals), true) = (id, full_vals(d), full_vals(u), fits)
        else {
            return mxv_affine_generic(self, w, semiring, c, a, d, u);
        };
        let n = a.nrows;
        if !(w.len == n && full_vals(w).is_some()) {
            *w = CudaVector {
                len: n,
                repr: DVec::Dense {
                    vals: self.dev.alloc::<S::T>(n)?,
                    pres: None,
                },
            };
        }
        let DVec::Dense { vals: out, .. } = &w.repr else {
            unreachable!("w was made a full vector above")
        };
        let prescale = match (self.dev.affine_prescale.load(Ordering::Relaxed), &a.repr) {
            (1, _) => true,
            (2, _) => false,
            (_, DMat::Csr { pat, .. }) => pat.nnz > PRESCALE_ENTRIES * a.ncols,
            (_, DMat::B2sr { .. }) => false,
        };
        if prescale {
            // t = d ⊗ u (full: both are), then the product gathers t alone
            let mut t = self.vector_new(a.ncols, None, crate::VectorFormat::Dense)?;
            let (mult, flags) = (EwiseKind::Mult, Flags::default());
            self.ewise_vector(&mut t, None, NoAccum, mult, semiring.mul_op(), d, u, flags)?;
            if let Some(t_vals) = full_vals(&t) {
                return self.affine_product(id, a, t_vals, out, Some((DevPtr::null(), bits_of(c))));
            }
        }
        self.affine_product(id, a, u_vals, out, Some((d_vals, bits_of(c))))
    }

    /// Whether affine products ([`crate::ext::mxv_affine`]) first write
    /// `t = d ⊗ u` in a pass of their own and gather `t` alone (`Some(true)`),
    /// gather `d_j` and `u_j` in the product (`Some(false)`), or choose
    /// (`None`, the default: pre-scaled on CSR with more than 2 entries per
    /// column, gathered otherwise; see `src/backend/cuda/mxv/affine.rs`). The results do not depend on it
    /// (benchmarks and tests compare the forms).
    ///
    /// ```no_run
    /// use bitgraphblas::backend::cuda::CudaBackend;
    /// let gpu = CudaBackend::new(0).unwrap();
    /// gpu.set_affine_prescale(Some(false)); // always gather d and u
    /// ```
    pub fn set_affine_prescale(&self, prescale: Option<bool>) {
        let code = match prescale {
            None => 0,
            Some(true) => 1,
            Some(false) => 2,
        };
        self.dev.affine_prescale.store(code, Ordering::Relaxed);
    }

    /// The fused product into the full `out` (see [`Self::mxv_affine_fused`]).
    fn affine_product<T: Scalar>(
        &self,
        m: Sr<T>,
        a: &CudaMatrix<T>,
        u_vals: DevPtr<T>,
        out: &DBuf<T>,
        affine: Option<(DevPtr<T>, u64)>,
    ) -> Result<()> {
        let io = Io {
            u: (u_vals, DevPtr::null()),
            allowed: DevPtr::null(),
            out: (out.ptr(), DevPtr::null()),
        };
        match a.repr.parts() {
            Parts::B2sr(pat, value) => {
                self.b2sr_mxv_fused(m, pat, bits_of(value), io, ACCUM_NONE, affine)
            }
            Parts::Csr(csr) => self.csr_mxv_blocks(m, csr, a.nrows, io, ACCUM_NONE, affine),
        }
    }
}
