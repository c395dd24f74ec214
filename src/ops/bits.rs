//! The dense-bit operations (issue 17): conversions between `f32` and bits,
//! and the bit products of binary neural-network layers, BMM, BSpMM and
//! their bit-plane (any-bitwidth) forms. Each checks its operands' shapes,
//! layouts, semiring and bit widths, and returns an [`Error`] naming the
//! operation (outputs unchanged) before it calls the backend.
//!
//! A binary GCN layer (BitGNN's `BMM.FBB` then `BSpMM.BBF`):
//!
//! ```
//! use bitgraphblas::{ops, algebra::BitSemiring, Backend, BitInput, BitOutput, Cpu, DenseMatrix,
//!     Matrix, Scales, Threshold};
//! use bitgraphblas::storage::BitLayout;
//! let cpu = Cpu::new();
//! // 3 vertices with 4 features, weights 4 x 2 binarised by sign
//! let x = DenseMatrix::from_vec(3, 4, vec![
//!     0.5f32, -1.0, 2.0, 0.1,
//!     -0.2, -0.3, 0.4, 1.0,
//!     1.0, 1.0, -1.0, -1.0,
//! ])?;
//! let wf = DenseMatrix::from_vec(4, 2, vec![1.0f32, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, -1.0])?;
//! let mut w = cpu.bits_new(4, 2, BitLayout::ColMajor)?;
//! ops::binarize(&cpu, &mut w, &wf, Threshold::Sign)?;
//! // h = sign(x w), re-binarised inside the product
//! let mut h = cpu.bits_new(3, 2, BitLayout::RowMajor)?;
//! let out = BitOutput::Bits { out: &mut h, scales: Scales::default(), threshold: Threshold::Sign };
//! ops::bmm(&cpu, out, BitSemiring::PLUS_XNOR, BitInput::F32(&x), &w)?;
//! // x w = [-2.4, 0.4], [0.1, -0.7], [2, 0]
//! assert_eq!(h.words(), &[0b10, 0b01, 0b11]);
//! // aggregate over the graph (with self loops): 0/1 adjacency by +1/-1 bits
//! let a = Matrix::from_triplets(3, 3, vec![(0, 0, true), (0, 1, true), (1, 1, true), (2, 1, true), (2, 2, true)])?;
//! let mut y = DenseMatrix::filled(3, 2, 0.0f32);
//! ops::bspmm(&cpu, BitOutput::Scaled { out: &mut y, scales: Scales::default() },
//!     BitSemiring::PLUS_LAND_SIGNED, &a, &h)?;
//! assert_eq!(y.as_slice(), &[0.0, 0.0, 1.0, -1.0, 2.0, 0.0]);
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use super::check::{need, shape_of, shape_str as dims};
use crate::algebra::{BitDomain, BitSemiring};
use crate::backend::{Backend, BitShape};
use crate::container::{BitInput, BitOutput, BitPlanes, Scales, Threshold};
use crate::error::{Error, Result};
use crate::storage::BitLayout;

/// `b` is in `layout`, else an error naming the operand and the fix.
fn need_layout<M: BitShape>(
    op: &'static str,
    what: &str,
    b: &M,
    layout: BitLayout,
    why: &str,
) -> Result<()> {
    if b.layout() == layout {
        return Ok(());
    }
    Err(Error::invalid(
        op,
        format!(
            "{what} is {} but must be {} ({why}): make a {} copy with ops::bit_transpose",
            b.layout().name(),
            layout.name(),
            layout.name()
        ),
    ))
}

/// A threshold's shape: `PerColumn` is `1 x n`.
fn check_threshold<B: Backend>(op: &'static str, t: &Threshold<'_, B>, n: usize) -> Result<()> {
    if let Threshold::PerColumn(d) = t {
        let s = shape_of(*d);
        need(op, s == (1, n), || {
            format!("the per-column threshold is {}, must be 1x{n}", dims(s))
        })?;
    }
    Ok(())
}

/// The scales' shapes: `row` `m x 1`, `col` and `bias` `1 x n`.
fn check_scales<B: Backend>(op: &'static str, s: &Scales<'_, B>, m: usize, n: usize) -> Result<()> {
    for (name, d, want) in [
        ("row scale", s.row, (m, 1)),
        ("column scale", s.col, (1, n)),
        ("bias", s.bias, (1, n)),
    ] {
        if let Some(d) = d {
            let got = shape_of(d);
            need(op, got == want, || {
                format!("the {name} is {}, must be {}", dims(got), dims(want))
            })?;
        }
    }
    Ok(())
}

/// The output is `m x n`, its scales and threshold fit, and a bit output
/// is row-major.
fn check_output<B: Backend>(
    op: &'static str,
    out: &BitOutput<'_, B>,
    m: usize,
    n: usize,
) -> Result<()> {
    let s = out.shape();
    need(op, s == (m, n), || {
        format!("the output is {}, the product {}", dims(s), dims((m, n)))
    })?;
    match out {
        BitOutput::Counts(_) => Ok(()),
        BitOutput::Scaled { scales, .. } => check_scales(op, scales, m, n),
        BitOutput::Bits {
            out,
            scales,
            threshold,
        } => {
            need_layout(
                op,
                "the bit output",
                *out,
                BitLayout::RowMajor,
                "products write rows",
            )?;
            check_scales(op, scales, m, n)?;
            check_threshold(op, threshold, n)
        }
    }
}

/// The inner dimension fits the `i32` popcount sums.
fn check_inner(op: &'static str, k: usize) -> Result<()> {
    if k > i32::MAX as usize {
        return Err(Error::invalid(
            op,
            format!("the inner dimension {k} is larger than i32::MAX (counts are i32)"),
        ));
    }
    Ok(())
}

/// `Counts` of codes up to `k * max` fit `i32`.
fn check_code_counts<B: Backend>(
    op: &'static str,
    out: &BitOutput<'_, B>,
    k: usize,
    max: u64,
) -> Result<()> {
    if matches!(out, BitOutput::Counts(_)) && (k as u128) * (max as u128) > i32::MAX as u128 {
        return Err(Error::invalid(
            op,
            format!(
                "i32 counts could overflow: k = {k} times the largest code product {max} \
                 passes i32::MAX (ask for Scaled, or use fewer bits)"
            ),
        ));
    }
    Ok(())
}

/// `out = bits of x`: `out_ij = (x_ij >= t_j)` (NaN gives 0). `out` has
/// `x`'s shape, in either layout: weights go straight to the column-major
/// form [`bmm`] reads.
///
/// ```
/// use bitgraphblas::{ops, Backend, Cpu, DenseMatrix, Threshold};
/// use bitgraphblas::storage::BitLayout;
/// let cpu = Cpu::new();
/// let x = DenseMatrix::from_vec(2, 2, vec![0.5f32, 3.0, 1.0, -2.0])?;
/// // a folded batch norm: one threshold per column
/// let t = DenseMatrix::from_vec(1, 2, vec![1.0f32, 0.0])?;
/// let mut b = cpu.bits_new(2, 2, BitLayout::RowMajor)?;
/// ops::binarize(&cpu, &mut b, &x, Threshold::PerColumn(&t))?;
/// assert_eq!(b.words(), &[0b10, 0b01]);
/// // a threshold of the wrong length: an error, b unchanged
/// let t3 = DenseMatrix::filled(1, 3, 0.0f32);
/// let e = ops::binarize(&cpu, &mut b, &x, Threshold::PerColumn(&t3)).unwrap_err();
/// assert!(e.to_string().contains("binarize"));
/// assert_eq!(b.words(), &[0b10, 0b01]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn binarize<B: Backend>(
    backend: &B,
    out: &mut B::Bits,
    x: &B::Dense<f32>,
    threshold: Threshold<'_, B>,
) -> Result<()> {
    const OP: &str = "binarize";
    let (so, sx) = (shape_of(out), shape_of(x));
    need(OP, so == sx, || {
        format!("out is {}, x {}", dims(so), dims(sx))
    })?;
    check_threshold(OP, &threshold, sx.1)?;
    backend.binarize(out, x, threshold)
}

/// `out` = the mean of `|x|` along each row (`rows = true`: `out` is
/// `m x 1`) or each column (`1 x n`): the Bi-GCN / XNOR-Net scaling
/// factors, for [`Scales`]. An empty row or column gives 0.
///
/// ```
/// use bitgraphblas::{ops, Cpu, DenseMatrix};
/// let x = DenseMatrix::from_vec(2, 2, vec![1.0f32, -3.0, 0.0, 2.0])?;
/// let mut c = DenseMatrix::filled(1, 2, 0.0f32);
/// ops::mean_abs(&Cpu::new(), &mut c, &x, false)?;
/// assert_eq!(c.as_slice(), &[0.5, 2.5]);
/// assert!(ops::mean_abs(&Cpu::new(), &mut c, &x, true).is_err()); // c is 1x2, rows need 2x1
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn mean_abs<B: Backend>(
    backend: &B,
    out: &mut B::Dense<f32>,
    x: &B::Dense<f32>,
    rows: bool,
) -> Result<()> {
    let (so, (m, n)) = (shape_of(out), shape_of(x));
    let want = if rows { (m, 1) } else { (1, n) };
    need("mean_abs", so == want, || {
        format!(
            "out is {}, the means of x ({}) {}",
            dims(so),
            dims((m, n)),
            dims(want)
        )
    })?;
    backend.mean_abs(out, x, rows)
}

/// `out` = the bits of `b` as `f32` in `domain` (`Binary`: 0/1, `Signed`:
/// -1/+1); `b` in either layout.
///
/// ```
/// use bitgraphblas::{ops, algebra::BitDomain, Cpu, DenseMatrix};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let b = BitMatrix::from_fn(2, 2, BitLayout::RowMajor, |i, j| i == j)?;
/// let mut x = DenseMatrix::filled(2, 2, 9.0f32);
/// ops::unpack_bits(&Cpu::new(), &mut x, &b, BitDomain::Binary)?;
/// assert_eq!(x.as_slice(), &[1.0, 0.0, 0.0, 1.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn unpack_bits<B: Backend>(
    backend: &B,
    out: &mut B::Dense<f32>,
    b: &B::Bits,
    domain: BitDomain,
) -> Result<()> {
    let (so, sb) = (shape_of(out), shape_of(b));
    need("unpack_bits", so == sb, || {
        format!("out is {}, b {}", dims(so), dims(sb))
    })?;
    backend.unpack_bits(out, b, domain)
}

/// `out` = the same logical matrix as `b` in the other layout (`out` must
/// have `b`'s shape and the other layout).
///
/// ```
/// use bitgraphblas::{ops, Backend, Cpu};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let cpu = Cpu::new();
/// let a = BitMatrix::from_fn(70, 3, BitLayout::ColMajor, |i, j| i % 3 == j)?;
/// let mut r = cpu.bits_new(70, 3, BitLayout::RowMajor)?;
/// ops::bit_transpose(&cpu, &mut r, &a)?;
/// assert_eq!(r.get(69, 0), Some(true));
/// // the same layout: an error
/// let mut c = cpu.bits_new(70, 3, BitLayout::ColMajor)?;
/// assert!(ops::bit_transpose(&cpu, &mut c, &a).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn bit_transpose<B: Backend>(backend: &B, out: &mut B::Bits, b: &B::Bits) -> Result<()> {
    const OP: &str = "bit_transpose";
    let (so, sb) = (shape_of(out), shape_of(b));
    need(OP, so == sb, || {
        format!("out is {}, b {}", dims(so), dims(sb))
    })?;
    if out.layout() == b.layout() {
        return Err(Error::invalid(
            OP,
            format!(
                "out and b are both {}: out must be in the other layout",
                b.layout().name()
            ),
        ));
    }
    backend.bit_transpose(out, b)
}

/// Fills `out`'s planes with the codes of `x`: `round(x / scale + zero)`
/// clamped to `[0, 2^b - 1]` (round half away from zero; NaN gives the
/// zero point rounded), with `out`'s own width and parameters (build `out`
/// with [`BitPlanes::new`]).
///
/// ```
/// use bitgraphblas::{ops, Backend, BitPlanes, Cpu, DenseMatrix};
/// use bitgraphblas::storage::BitLayout;
/// let cpu = Cpu::new();
/// let planes = (0..8).map(|_| cpu.bits_new(1, 3, BitLayout::RowMajor)).collect::<Result<Vec<_>, _>>()?;
/// let mut q = BitPlanes::<Cpu>::new(planes, DenseMatrix::filled(1, 1, 0.1f32), DenseMatrix::filled(1, 1, 0.0f32))?;
/// ops::quantize(&cpu, &mut q, &DenseMatrix::from_vec(1, 3, vec![0.0f32, 0.5, 100.0])?)?;
/// let mut x = DenseMatrix::filled(1, 3, 0.0f32);
/// ops::dequantize(&cpu, &mut x, &q)?;
/// assert_eq!(x.as_slice(), &[0.0, 0.5, 25.5]); // 100 clamps to code 255
/// // x of another shape
/// assert!(ops::quantize(&cpu, &mut q, &DenseMatrix::filled(3, 1, 0.0f32)).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn quantize<B: Backend>(backend: &B, out: &mut BitPlanes<B>, x: &B::Dense<f32>) -> Result<()> {
    let (so, sx) = ((out.nrows(), out.ncols()), shape_of(x));
    need("quantize", so == sx, || {
        format!("the planes are {}, x {}", dims(so), dims(sx))
    })?;
    backend.quantize(out, x)
}

/// `out = scale * (code - zero)` for every code of `p`.
///
/// ```
/// use bitgraphblas::{ops, BitPlanes, Cpu, DenseMatrix};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let p = vec![BitMatrix::from_fn(1, 2, BitLayout::RowMajor, |_, j| j == 1)?];
/// let q = BitPlanes::<Cpu>::new(p, DenseMatrix::filled(1, 1, 2.0f32), DenseMatrix::filled(1, 1, 0.5f32))?;
/// let mut x = DenseMatrix::filled(1, 2, 0.0f32);
/// ops::dequantize(&Cpu::new(), &mut x, &q)?;
/// assert_eq!(x.as_slice(), &[-1.0, 1.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn dequantize<B: Backend>(
    backend: &B,
    out: &mut B::Dense<f32>,
    p: &BitPlanes<B>,
) -> Result<()> {
    let (so, sp) = (shape_of(out), (p.nrows(), p.ncols()));
    need("dequantize", so == sp, || {
        format!("out is {}, the planes {}", dims(so), dims(sp))
    })?;
    backend.dequantize(out, p)
}

/// BMM: `a ⊕.⊗ w` with `a` `m x k` (bits, row-major, or `f32`) and `w`
/// `k x n` (bits, column-major), written as `out` asks (BitGNN's `BBF`,
/// `BBB`, `FBF`, `FBB`). The semirings' values are in
/// [`crate::algebra::bits`]; with `f32` on the left the value is
/// `Σ_k x_ik * dr(w_kj)` (`f32`: not `Counts`; `LorLand` is not defined).
///
/// ```
/// use bitgraphblas::{ops, algebra::BitSemiring, Backend, BitInput, BitOutput, Cpu, DenseMatrix, Scales};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let cpu = Cpu::new();
/// let a = BitMatrix::from_fn(2, 3, BitLayout::RowMajor, |i, j| i <= j)?; // rows 111, 011
/// let w = BitMatrix::from_fn(3, 2, BitLayout::ColMajor, |i, j| i != j)?; // columns 110, 101
/// let mut c = DenseMatrix::filled(2, 2, 0i32);
/// ops::bmm(&cpu, BitOutput::Counts(&mut c), BitSemiring::PLUS_XNOR, BitInput::Bits(&a), &w)?;
/// // +1/-1: row 0 (+,+,+) . (-,+,+) = 1 and . (+,-,+) = 1; row 1 (-,+,+) . (-,+,+) = 3, . (+,-,+) = -1
/// assert_eq!(c.as_slice(), &[1, 1, 3, -1]);
/// // scaled by a per-column factor
/// let alpha = DenseMatrix::from_vec(1, 2, vec![0.5f32, 2.0])?;
/// let mut f = DenseMatrix::filled(2, 2, 0.0f32);
/// let out = BitOutput::Scaled { out: &mut f, scales: Scales { col: Some(&alpha), ..Scales::default() } };
/// ops::bmm(&cpu, out, BitSemiring::PLUS_XNOR, BitInput::Bits(&a), &w)?;
/// assert_eq!(f.as_slice(), &[0.5, 2.0, 1.5, -2.0]);
/// // w row-major: an error that says how to fix it
/// let wr = BitMatrix::from_fn(3, 2, BitLayout::RowMajor, |i, j| i != j)?;
/// let e = ops::bmm(&cpu, BitOutput::Counts(&mut c), BitSemiring::PLUS_XNOR, BitInput::Bits(&a), &wr);
/// assert!(e.unwrap_err().to_string().contains("bit_transpose"));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn bmm<B: Backend>(
    backend: &B,
    out: BitOutput<'_, B>,
    semiring: BitSemiring,
    a: BitInput<'_, B>,
    w: &B::Bits,
) -> Result<()> {
    check_bmm("bmm", &out, semiring, a, w)?;
    backend.bmm(out, semiring, a, w)
}

/// The checks of [`bmm`], under the name `op` (for the fused operations
/// that contain a BMM).
pub(crate) fn check_bmm<B: Backend>(
    op: &'static str,
    out: &BitOutput<'_, B>,
    semiring: BitSemiring,
    a: BitInput<'_, B>,
    w: &B::Bits,
) -> Result<()> {
    let ((m, k), sw) = (a.shape(), shape_of(w));
    need(op, k == sw.0, || {
        format!("a is {}, w {}", dims((m, k)), dims(sw))
    })?;
    match a {
        BitInput::Bits(a) => {
            need_layout(op, "a", a, BitLayout::RowMajor, "bmm reads its rows")?;
        }
        BitInput::F32(_) => {
            if semiring == BitSemiring::LorLand {
                return Err(Error::invalid(
                    op,
                    "lor_land is not defined on an f32 left operand",
                ));
            }
            if matches!(out, BitOutput::Counts(_)) {
                return Err(Error::invalid(
                    op,
                    "an f32 left operand gives f32 values: ask for BitOutput::Scaled or Bits",
                ));
            }
        }
    }
    need_layout(op, "w", w, BitLayout::ColMajor, "bmm reads its columns")?;
    check_inner(op, k)?;
    check_output(op, out, m, sw.1)
}

/// BSpMM: `A ⊕.⊗ x` with `A` an `m x k` pattern (its stored entries are 1,
/// absent ones 0, values are not read; B2SR at any tile size or CSR) and
/// `x` `k x n` row-major bits, written as `out` asks. The semiring's left
/// domain must be `Binary`; `popc(a)` is the row's degree.
///
/// ```
/// use bitgraphblas::{ops, algebra::BitSemiring, Backend, BitOutput, Cpu, DenseMatrix, Format,
///     Matrix, Scales, Threshold, TileSize};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let cpu = Cpu::new();
/// let a = Matrix::from_triplets(2, 3, vec![(0, 0, true), (0, 2, true), (1, 1, true)])?
///     .to_format(Format::B2sr(TileSize::T4))?;
/// let x = BitMatrix::from_fn(3, 2, BitLayout::RowMajor, |i, j| i + j >= 2)?; // 00, 01, 11
/// let mut c = DenseMatrix::filled(2, 2, 0i32);
/// ops::bspmm(&cpu, BitOutput::Counts(&mut c), BitSemiring::PLUS_LAND, &a, &x)?;
/// assert_eq!(c.as_slice(), &[1, 1, 0, 1]);
/// // the +1/-1 aggregate re-binarised by sign (BSpMM.BBB)
/// let mut h = cpu.bits_new(2, 2, BitLayout::RowMajor)?;
/// let out = BitOutput::Bits { out: &mut h, scales: Scales::default(), threshold: Threshold::Sign };
/// ops::bspmm(&cpu, out, BitSemiring::PLUS_LAND_SIGNED, &a, &x)?;
/// assert_eq!(h.words(), &[0b11, 0b10]); // values 0, 0 and -1, 1
/// // Signed on the sparse side: an error
/// assert!(ops::bspmm(&cpu, BitOutput::Counts(&mut c), BitSemiring::PLUS_XNOR, &a, &x).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn bspmm<B: Backend>(
    backend: &B,
    out: BitOutput<'_, B>,
    semiring: BitSemiring,
    a: &B::Matrix<bool>,
    x: &B::Bits,
) -> Result<()> {
    check_bspmm("bspmm", &out, semiring, a, x)?;
    backend.bspmm(out, semiring, a, x)
}

/// The checks of [`bspmm`], under the name `op`.
pub(crate) fn check_bspmm<B: Backend>(
    op: &'static str,
    out: &BitOutput<'_, B>,
    semiring: BitSemiring,
    a: &B::Matrix<bool>,
    x: &B::Bits,
) -> Result<()> {
    let (sa, sx) = (shape_of(a), shape_of(x));
    need(op, sa.1 == sx.0, || {
        format!("A is {}, x {}", dims(sa), dims(sx))
    })?;
    need_layout(op, "x", x, BitLayout::RowMajor, "bspmm gathers its rows")?;
    if semiring.left() == BitDomain::Signed {
        return Err(Error::invalid(
            op,
            format!(
                "{semiring}: the left operand is a sparse pattern, its domain must be \
                 Binary (absent entries are 0)"
            ),
        ));
    }
    check_inner(op, sa.1)?;
    check_output(op, out, sa.0, sx.1)
}

/// Bit-plane BMM (QGTC): `v_ij = Σ_k a_ik w_kj` over the codes of `a`
/// (`m x k`, row-major planes, per-tensor parameters) and `w` (`k x n`,
/// column-major planes), as `b * c` AND-popcount products summed with
/// shifts. `Counts` writes `v` (an error where `k (2^b - 1)(2^c - 1)` passes
/// `i32::MAX`); `Scaled` and `Bits` use the dequantised product
/// `Σ_k xa_ik xw_kj` (see [`Backend::bmm_planes`]).
///
/// ```
/// use bitgraphblas::{ops, Backend, BitOutput, BitPlanes, Cpu, DenseMatrix, Scales};
/// use bitgraphblas::storage::BitLayout;
/// let cpu = Cpu::new();
/// let planes = |m, n, b, l| (0..b).map(|_| cpu.bits_new(m, n, l)).collect::<Result<Vec<_>, _>>();
/// let one = || DenseMatrix::filled(1, 1, 1.0f32);
/// let zero = || DenseMatrix::filled(1, 1, 0.0f32);
/// let mut a = BitPlanes::<Cpu>::new(planes(1, 3, 2, BitLayout::RowMajor)?, one(), zero())?;
/// let mut w = BitPlanes::<Cpu>::new(planes(3, 1, 3, BitLayout::ColMajor)?, one(), zero())?;
/// ops::quantize(&cpu, &mut a, &DenseMatrix::from_vec(1, 3, vec![1.0f32, 2.0, 3.0])?)?;
/// ops::quantize(&cpu, &mut w, &DenseMatrix::from_vec(3, 1, vec![7.0f32, 0.0, 5.0])?)?;
/// let mut c = DenseMatrix::filled(1, 1, 0i32);
/// ops::bmm_planes(&cpu, BitOutput::Counts(&mut c), &a, &w)?;
/// assert_eq!(c.as_slice(), &[22]);
/// let mut f = DenseMatrix::filled(1, 1, 0.0f32);
/// ops::bmm_planes(&cpu, BitOutput::Scaled { out: &mut f, scales: Scales::default() }, &a, &w)?;
/// assert_eq!(f.as_slice(), &[22.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn bmm_planes<B: Backend>(
    backend: &B,
    out: BitOutput<'_, B>,
    a: &BitPlanes<B>,
    w: &BitPlanes<B>,
) -> Result<()> {
    const OP: &str = "bmm_planes";
    let (sa, sw) = ((a.nrows(), a.ncols()), (w.nrows(), w.ncols()));
    need(OP, sa.1 == sw.0, || {
        format!("a is {}, w {}", dims(sa), dims(sw))
    })?;
    need_layout(
        OP,
        "a's planes",
        &a.planes()[0],
        BitLayout::RowMajor,
        "bmm reads its rows",
    )?;
    need_layout(
        OP,
        "w's planes",
        &w.planes()[0],
        BitLayout::ColMajor,
        "bmm reads its columns",
    )?;
    if a.per_column() {
        return Err(Error::invalid(
            OP,
            "a has per-column quantisation parameters: the left operand needs per-tensor ones (1x1)",
        ));
    }
    check_inner(OP, sa.1)?;
    let max = ((1u64 << a.bits()) - 1) * ((1u64 << w.bits()) - 1);
    check_code_counts(OP, &out, sa.1, max)?;
    check_output(OP, &out, sa.0, sw.1)?;
    backend.bmm_planes(out, a, w)
}

/// Bit-plane BSpMM: `v_ij = Σ_k A_ik x_kj` over the codes of `x` (`k x n`,
/// row-major planes) as `b` pattern products summed with shifts. `Counts`
/// writes `v` (an error where `k (2^b - 1)` passes `i32::MAX`); `Scaled`
/// and `Bits` use the dequantised `x`: `sx_j (v - zx_j deg_i)`.
///
/// ```
/// use bitgraphblas::{ops, Backend, BitOutput, BitPlanes, Cpu, DenseMatrix, Format, Matrix, TileSize};
/// use bitgraphblas::storage::BitLayout;
/// let cpu = Cpu::new();
/// let a = Matrix::from_triplets(2, 2, vec![(0, 0, true), (0, 1, true), (1, 0, true)])?
///     .to_format(Format::B2sr(TileSize::T8))?;
/// let planes = (0..4).map(|_| cpu.bits_new(2, 1, BitLayout::RowMajor)).collect::<Result<Vec<_>, _>>()?;
/// let mut x = BitPlanes::<Cpu>::new(planes, DenseMatrix::filled(1, 1, 1.0f32), DenseMatrix::filled(1, 1, 0.0f32))?;
/// ops::quantize(&cpu, &mut x, &DenseMatrix::from_vec(2, 1, vec![5.0f32, 9.0])?)?;
/// let mut c = DenseMatrix::filled(2, 1, 0i32);
/// ops::bspmm_planes(&cpu, BitOutput::Counts(&mut c), &a, &x)?;
/// assert_eq!(c.as_slice(), &[14, 5]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn bspmm_planes<B: Backend>(
    backend: &B,
    out: BitOutput<'_, B>,
    a: &B::Matrix<bool>,
    x: &BitPlanes<B>,
) -> Result<()> {
    const OP: &str = "bspmm_planes";
    let (sa, sx) = (shape_of(a), (x.nrows(), x.ncols()));
    need(OP, sa.1 == sx.0, || {
        format!("A is {}, x {}", dims(sa), dims(sx))
    })?;
    need_layout(
        OP,
        "x's planes",
        &x.planes()[0],
        BitLayout::RowMajor,
        "bspmm gathers their rows",
    )?;
    check_inner(OP, sa.1)?;
    check_code_counts(OP, &out, sa.1, (1u64 << x.bits()) - 1)?;
    check_output(OP, &out, sa.0, sx.1)?;
    backend.bspmm_planes(out, a, x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{BitMatrix, DenseMatrix};
    use crate::Cpu;

    #[test]
    fn errors_name_the_operation_and_leave_outputs() {
        let cpu = Cpu::new();
        let a = BitMatrix::zeros(2, 3, BitLayout::RowMajor).unwrap();
        let w = BitMatrix::zeros(4, 2, BitLayout::ColMajor).unwrap();
        let mut c = DenseMatrix::filled(2, 2, 7i32);
        let e = bmm(
            &cpu,
            BitOutput::Counts(&mut c),
            BitSemiring::PLUS_LAND,
            BitInput::Bits(&a),
            &w,
        );
        assert!(e.unwrap_err().to_string().starts_with("bmm:"));
        assert_eq!(c.as_slice(), &[7; 4]);
    }
}
