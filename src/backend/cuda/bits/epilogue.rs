//! What a bit product writes, for the kernels: the output's kind and
//! address, and the epilogue parameters ([`Epi`]) shared by every product
//! kernel (`cuda/bits_common.cuh`): the semiring's value as a linear form of
//! AND popcounts, the scales, the threshold and the dequantisation.

use super::super::device::DevPtr;
use super::super::launch::bits::Epi;
use super::super::{CudaBackend, CudaDense};
use super::{need, CudaBits};
use crate::backend::{BitShape, MatrixShape};
use crate::container::{BitOutput, BitPlanes, Scales, Threshold};
use crate::error::Result;
use crate::storage::BitLayout;

pub(super) use crate::algebra::bits::Linear;

/// The dequantisation of a bit-plane product: the left operand's
/// per-tensor scale and zero point (bmm_planes), the right operand's (per
/// column or per tensor), and `k`.
#[derive(Clone, Copy)]
pub(super) struct Dequant {
    pub sa: DevPtr<f32>,
    pub za: DevPtr<f32>,
    pub sw: DevPtr<f32>,
    pub zw: DevPtr<f32>,
    pub wcol: bool,
    pub k: usize,
}

impl Dequant {
    /// No dequantisation (products over a semiring).
    pub fn none() -> Dequant {
        Dequant {
            sa: DevPtr::null(),
            za: DevPtr::null(),
            sw: DevPtr::null(),
            zw: DevPtr::null(),
            wcol: false,
            k: 0,
        }
    }
    /// The right operand's (or the only operand's) parameters, with the
    /// left operand's where given.
    pub fn of(
        right: &BitPlanes<CudaBackend>,
        left: Option<&BitPlanes<CudaBackend>>,
        k: usize,
    ) -> Dequant {
        let (sa, za) = left.map_or((DevPtr::null(), DevPtr::null()), |a| {
            (a.scale().data.ptr(), a.zero().data.ptr())
        });
        Dequant {
            sa,
            za,
            sw: right.scale().data.ptr(),
            zw: right.zero().data.ptr(),
            wcol: right.per_column(),
            k,
        }
    }
}

/// The output kind, in the order of the entry names' (`kernels::BIT_OUTPUTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Counts = 0,
    Scaled = 1,
    Bits = 2,
}

/// A product's output as the kernels take it.
pub(super) struct Target {
    pub kind: Kind,
    /// The output's elements (i32, f32) or words.
    pub out: DevPtr<u8>,
    /// `u64` words per line of a bits output (0 otherwise).
    pub out_w64: u64,
    /// Its shape.
    pub m: usize,
    pub n: usize,
    pub epi: Epi,
}

fn ptr(d: Option<&CudaDense<f32>>) -> DevPtr<f32> {
    d.map_or(DevPtr::null(), |d| d.data.ptr())
}

fn check_dense(
    op: &'static str,
    what: &str,
    d: Option<&CudaDense<f32>>,
    shape: (usize, usize),
) -> Result<()> {
    match d {
        Some(d) => need(op, (d.nrows(), d.ncols()) == shape, || {
            format!(
                "{what} is {}x{}, not {}x{}",
                d.nrows(),
                d.ncols(),
                shape.0,
                shape.1
            )
        }),
        None => Ok(()),
    }
}

impl Target {
    /// `out` (m x n) with the value form `lin` and dequantisation `dq`,
    /// checked again here: the kernels index by these shapes.
    pub fn of(
        op: &'static str,
        out: BitOutput<'_, CudaBackend>,
        (m, n): (usize, usize),
        lin: Linear,
        dq: Dequant,
    ) -> Result<Target> {
        let shape = out.shape();
        need(op, shape == (m, n), || {
            format!("the output is {}x{}, the product {m}x{n}", shape.0, shape.1)
        })?;
        let (kind, out_ptr, out_w64, scales, threshold): (_, _, _, Scales<'_, CudaBackend>, _) =
            match out {
                BitOutput::Counts(c) => (
                    Kind::Counts,
                    c.data.ptr().cast(),
                    0,
                    Scales::default(),
                    None,
                ),
                BitOutput::Scaled { out, scales } => {
                    (Kind::Scaled, out.data.ptr().cast(), 0, scales, None)
                }
                BitOutput::Bits {
                    out,
                    scales,
                    threshold,
                } => {
                    need(op, out.layout() == BitLayout::RowMajor, || {
                        "a bit output must be row-major".into()
                    })?;
                    let o: &CudaBits = out;
                    (
                        Kind::Bits,
                        o.data.ptr().cast(),
                        o.stride as u64,
                        scales,
                        Some(threshold),
                    )
                }
            };
        check_dense(op, "the row scale", scales.row, (m, 1))?;
        check_dense(op, "the column scale", scales.col, (1, n))?;
        check_dense(op, "the bias", scales.bias, (1, n))?;
        let (t, tcol) = match threshold {
            None | Some(Threshold::Sign) => (0.0, None),
            Some(Threshold::Value(t)) => (t, None),
            Some(Threshold::PerColumn(d)) => (0.0, Some(d)),
        };
        check_dense(op, "the threshold", tcol, (1, n))?;
        Ok(Target {
            kind,
            out: out_ptr,
            out_w64,
            m,
            n,
            epi: Epi {
                alpha: lin.alpha,
                beta: lin.beta,
                gamma: lin.gamma,
                dk: lin.dk,
                clamp: lin.clamp,
                row: ptr(scales.row),
                col: ptr(scales.col),
                bias: ptr(scales.bias),
                t,
                tcol: ptr(tcol),
                sa: dq.sa,
                za: dq.za,
                sw: dq.sw,
                zw: dq.zw,
                wcol: dq.wcol,
                kf: dq.k as f64,
            },
        })
    }

    /// Whether the output is i32 counts.
    pub fn counts(&self) -> bool {
        self.kind == Kind::Counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::{BitDomain, BitSemiring};

    /// The linear form gives the value table's value at every semiring.
    #[test]
    fn linear_matches_the_value_table() {
        for s in BitSemiring::ALL {
            for (and, pa, pw, k) in [
                (0, 0, 0, 0),
                (2, 3, 2, 4),
                (1, 5, 1, 9),
                (3, 3, 3, 3),
                (0, 7, 0, 7),
            ] {
                let l = Linear::of(s, k as usize);
                let v = if l.clamp {
                    and.min(1)
                } else {
                    l.alpha * and + l.beta * pa + l.gamma * pw + l.dk
                };
                assert_eq!(v as i64, s.value(and, pa, pw, k), "{s} {and} {pa} {pw} {k}");
            }
        }
        let x = Linear::of(
            BitSemiring::PlusTimes(BitDomain::Signed, BitDomain::Signed),
            10,
        );
        assert_eq!((x.alpha, x.beta, x.gamma, x.dk), (4, -2, -2, 10));
    }
}
