//! A binary aggregation and the next layer's bit product in one call
//! (BitGNN's fused BSpMM and BMM): [`crate::ext::bspmm_bmm`].

use crate::algebra::BitSemiring;
use crate::backend::Backend;
use crate::container::{BitInput, BitOutput};
use crate::error::{Error, Result};

/// The generic `bspmm_bmm`: the two products one after the other, as
/// [`crate::ops::bspmm`] then [`crate::ops::bmm`] on the backend.
/// `h_out` must be [`BitOutput::Bits`].
///
/// ```
/// use bitgraphblas::ext::bits::bspmm_bmm_generic;
/// use bitgraphblas::{algebra::BitSemiring, BitOutput, Cpu, DenseMatrix, Matrix, Scales, Threshold};
/// use bitgraphblas::{Backend, BitLayout, BitMatrix};
/// let cpu = Cpu::new();
/// // A = [[1, 1], [0, 1]], x = [[1], [1]]: h = A x >= 1 is [[1], [1]]
/// let a = cpu.upload_matrix(&Matrix::from_triplets(2, 2, vec![(0, 0, true), (0, 1, true), (1, 1, true)])?)?;
/// let mut x = BitMatrix::zeros(2, 1, BitLayout::RowMajor)?;
/// x.set(0, 0, true)?;
/// x.set(1, 0, true)?;
/// let x = cpu.upload_bits(&x)?;
/// let mut w = BitMatrix::zeros(1, 1, BitLayout::ColMajor)?;
/// w.set(0, 0, true)?;
/// let w = cpu.upload_bits(&w)?;
/// let mut h = cpu.bits_new(2, 1, BitLayout::RowMajor)?;
/// let mut y = DenseMatrix::filled(2, 1, 0i32);
/// let h_out = BitOutput::Bits { out: &mut h, scales: Scales::default(), threshold: Threshold::Value(1.0) };
/// bspmm_bmm_generic(&cpu, h_out, BitSemiring::PLUS_LAND, &a, &x, BitOutput::Counts(&mut y), BitSemiring::PLUS_LAND, &w)?;
/// assert_eq!(y.as_slice(), &[1, 1]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn bspmm_bmm_generic<B: Backend>(
    backend: &B,
    h_out: BitOutput<'_, B>,
    aggregate: BitSemiring,
    a: &B::Matrix<bool>,
    x: &B::Bits,
    y_out: BitOutput<'_, B>,
    product: BitSemiring,
    w: &B::Bits,
) -> Result<()> {
    let BitOutput::Bits {
        out: h,
        scales,
        threshold,
    } = h_out
    else {
        return Err(not_bits());
    };
    backend.bspmm(
        BitOutput::Bits {
            out: &mut *h,
            scales,
            threshold,
        },
        aggregate,
        a,
        x,
    )?;
    backend.bmm(y_out, product, BitInput::Bits(h), w)
}

/// The error for a first output that is not bits.
pub(crate) fn not_bits() -> Error {
    Error::invalid(
        "bspmm_bmm",
        "the aggregation's output must be BitOutput::Bits (the second product reads it)",
    )
}
