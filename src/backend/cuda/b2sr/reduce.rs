//! The device side of `mxm_reduce`: `⊕` over `(op(A) ⊕.⊗ op(B))<M>` for
//! `PLUS.PAIR`/`PLUS.TIMES`, from the exact count of the fused masked
//! kernel (`bin_bin_sum`) on CUDA cores (`cuda/pack.cu`) or on the 1-bit
//! tensor cores (`cuda/mxm.cu`).

use std::sync::atomic::{AtomicU8, Ordering};

use super::super::launch::{mxm, pack, Tiles};
use super::super::mem::{DMat, DevB2sr};
use super::super::{CudaBackend, CudaMatrix};
use super::writeback::MaskPat;
use crate::algebra::{Semiring, SemiringKind};
use crate::backend::cpu::b2sr::repeat_add;
use crate::container::{Flags, MatrixMask};
use crate::error::Result;
use crate::scalar::Scalar;

/// The kernel choice of [`CudaBackend::set_tensor_cores`]: 0 default, 1 tensor cores, 2 CUDA cores.
static TENSOR_CORES: AtomicU8 = AtomicU8::new(0);

/// Whether the default masked count runs on the tensor cores: where `A`'s
/// tile rows hold at least 8 tiles on average, so a mask tile meets enough
/// tile pairs to fill the mma's 256-bit k dimension. Measured on an H200
/// (`cuda_mxm::bench_masked_count`, commit 5d19f0e, tensor-core ms against
/// CUDA-core ms, triangle counting): R-MAT scale 16 (116 tiles per 32x32 tile
/// row) 1.91 against 7.07 (k = 32) and 2.17 against 4.04 (k = 16); R-MAT 18
/// 23.4 against 73.1 and 21.1 against 36.0; a random geometric graph (5 tiles
/// per tile row) 0.034 against 0.034; the 1024^2 grid (3 tiles per tile row)
/// 0.138 against 0.113 and 0.199 against 0.190, where the tensor cores lose.
fn dense_tile_rows(a: &DevB2sr) -> bool {
    a.ntiles >= 8 * a.tile_rows
}

impl CudaBackend {
    /// `⊕` over `(op(A) ⊕.⊗ op(B))<M>` for `PLUS.PAIR`/`PLUS.TIMES` on B2SR
    /// operands of one tile size and a B2SR mask (any tile size), not
    /// complemented: the exact integer count of the fused masked kernel,
    /// turned into the result as the CPU does. `None` where these kernels do
    /// not apply (the caller takes the CSR dot products).
    pub(crate) fn mxm_reduce_b2sr<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        s: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<Option<S::T>> {
        let op = "mxm_reduce";
        let Some(kind) = S::KERNEL.map(|id| id.kind()) else {
            return Ok(None);
        };
        let (DMat::B2sr { pat: pa, value: va }, DMat::B2sr { pat: pb, value: vb }) =
            (&a.repr, &b.repr)
        else {
            return Ok(None);
        };
        let x = match kind {
            SemiringKind::PlusPair => S::T::one(),
            SemiringKind::PlusTimes => s.mul(*va, *vb),
            _ => return Ok(None),
        };
        if pa.k != pb.k
            || mask.complemented
            || mask.source.b2sr_mask().is_none()
            || (S::T::IS_FLOAT && x != S::T::one())
        {
            return Ok(None);
        }
        let pm = match self.mask_pattern(op, &mask, pa.k)? {
            MaskPat::Pattern(p) => p,
            _ => return Ok(Some(s.zero())),
        };
        let ao = self.oriented(pa, flags.transpose_a)?;
        // Rows of Bt are the columns of op(B).
        let bt = self.oriented(pb, !flags.transpose_b)?;
        let n = self.masked_count(&pm, &ao, &bt)?;
        if n == 0 {
            return Ok(Some(s.zero()));
        }
        if S::T::IS_FLOAT && n > 1 << 24 {
            return Ok(None); // not exact as a count
        }
        Ok(Some(repeat_add(&s, x, n as usize)))
    }

    /// Which kernel computes the masked count of `mxm_reduce` for 16x16 and
    /// 32x32 tiles: `None` (the default) lets the backend choose, `Some(true)`
    /// asks for the 1-bit tensor cores (mma AND.POPC, sm_80 and later),
    /// `Some(false)` for the CUDA-core kernel. Process-wide; for benchmarks
    /// and tests that compare the two.
    #[doc(hidden)]
    pub fn set_tensor_cores(on: Option<bool>) {
        TENSOR_CORES.store(
            match on {
                None => 0,
                Some(true) => 1,
                Some(false) => 2,
            },
            Ordering::Relaxed,
        );
    }

    /// Whether the masked count runs on the tensor cores for tile size `k`.
    fn use_tensor_cores(&self, a: &DevB2sr) -> bool {
        let k = a.k;
        // "sm_90a": the number without the arch-specific suffix
        let sm = self.dev.arch.trim_start_matches("sm_");
        let sm = sm
            .trim_end_matches(|c: char| c.is_ascii_alphabetic())
            .parse::<u32>();
        let capable = (k == 16 || k == 32) && sm.is_ok_and(|v| v >= 80);
        capable
            && match TENSOR_CORES.load(Ordering::Relaxed) {
                1 => true,
                2 => false,
                _ => dense_tile_rows(a),
            }
    }

    /// `Σ_{(i,j) ∈ M} |A(i,:) ∧ Bt(j,:)|` (`bin_bin_sum`, exact in 64 bits).
    fn masked_count(&self, m: &DevB2sr, a: &DevB2sr, bt: &DevB2sr) -> Result<u64> {
        let total = self.dev.zeros::<u64>(1)?;
        let count = if self.use_tensor_cores(a) {
            mxm::b2sr_tc_tensor
        } else {
            pack::b2sr_tc
        };
        count(
            a.k,
            Tiles::of(&self.dev, m)?,
            m.tile_rows as u32,
            m.ntiles as u64,
            Tiles::of(&self.dev, a)?,
            Tiles::of(&self.dev, bt)?,
            total.ptr(),
        )
        .run(&self.dev, m.ntiles * 32)?;
        self.dev.read_u64(&total)
    }
}
