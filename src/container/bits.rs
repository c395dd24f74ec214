//! The operands and outputs of the bit products ([`crate::ops::bmm`],
//! [`crate::ops::bspmm`], [`crate::ops::bmm_planes`],
//! [`crate::ops::bspmm_planes`]): what the left operand is, what the product
//! writes (integers, scaled `f32`, or bits re-binarised inside the product),
//! and bit-plane matrices of `b`-bit integers.
//!
//! ```
//! use bitgraphblas::{ops, Backend, BitInput, BitOutput, Cpu, DenseMatrix};
//! use bitgraphblas::algebra::BitSemiring;
//! use bitgraphblas::storage::{BitLayout, BitMatrix};
//! let cpu = Cpu::new();
//! let a = BitMatrix::from_fn(2, 3, BitLayout::RowMajor, |i, j| i <= j)?; // 111, 011
//! let w = BitMatrix::from_fn(3, 1, BitLayout::ColMajor, |i, _| i > 0)?; // 011'
//! let mut c = DenseMatrix::filled(2, 1, 0i32);
//! ops::bmm(&cpu, BitOutput::Counts(&mut c), BitSemiring::PLUS_LAND, BitInput::Bits(&a), &w)?;
//! assert_eq!(c.as_slice(), &[2, 2]);
//! # Ok::<(), bitgraphblas::Error>(())
//! ```

use crate::backend::{Backend, BitShape, MatrixShape};
use crate::error::{Error, Result};
use crate::storage::BitLayout;

/// The left operand of `bmm`: bits (`m x k`, row-major) or `f32`
/// activations (`m x k` dense; their values are used as they are and the
/// semiring's left domain is ignored).
///
/// ```
/// use bitgraphblas::{BitInput, Cpu, DenseMatrix};
/// let x = DenseMatrix::filled(2, 3, 0.5f32);
/// let a: BitInput<'_, Cpu> = BitInput::F32(&x);
/// assert!(matches!(a, BitInput::F32(_)));
/// ```
pub enum BitInput<'a, B: Backend> {
    /// Packed bits, read in the semiring's left domain.
    Bits(&'a B::Bits),
    /// `f32` values (the BitGNN `F..` variants).
    F32(&'a B::Dense<f32>),
}

impl<B: Backend> Clone for BitInput<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for BitInput<'_, B> {}

impl<B: Backend> BitInput<'_, B> {
    /// `(nrows, ncols)` of the operand.
    ///
    /// ```
    /// use bitgraphblas::{BitInput, Cpu, DenseMatrix};
    /// let x = DenseMatrix::filled(2, 3, 0.5f32);
    /// assert_eq!(BitInput::<Cpu>::F32(&x).shape(), (2, 3));
    /// ```
    pub fn shape(&self) -> (usize, usize) {
        match self {
            BitInput::Bits(b) => (b.nrows(), b.ncols()),
            BitInput::F32(x) => (x.nrows(), x.ncols()),
        }
    }
}

/// Per-row and per-column factors applied to a product's integer value `v`:
/// `s_ij = v_ij * row_i * col_j + bias_j` (an absent factor is 1, an absent
/// bias 0). `row` is an `m x 1` dense matrix, `col` and `bias` are `1 x n`.
/// These are the Bi-GCN / XNOR-Net scaling factors
/// ([`crate::ops::mean_abs`]) and a folded batch norm's shift.
///
/// ```
/// use bitgraphblas::{Cpu, DenseMatrix, Scales};
/// let beta = DenseMatrix::filled(1, 4, 0.25f32);
/// let s: Scales<'_, Cpu> = Scales { col: Some(&beta), ..Scales::default() };
/// assert!(s.row.is_none() && s.bias.is_none());
/// ```
pub struct Scales<'a, B: Backend> {
    /// `m x 1`: row `i`'s factor.
    pub row: Option<&'a B::Dense<f32>>,
    /// `1 x n`: column `j`'s factor.
    pub col: Option<&'a B::Dense<f32>>,
    /// `1 x n`: added to column `j` after the factors.
    pub bias: Option<&'a B::Dense<f32>>,
}

impl<B: Backend> Default for Scales<'_, B> {
    fn default() -> Self {
        Scales {
            row: None,
            col: None,
            bias: None,
        }
    }
}
impl<B: Backend> Clone for Scales<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for Scales<'_, B> {}

impl<B: Backend> Scales<'_, B> {
    /// True when no factor and no bias is given (`s = v`).
    ///
    /// ```
    /// use bitgraphblas::{Cpu, Scales};
    /// assert!(Scales::<Cpu>::default().is_identity());
    /// ```
    pub fn is_identity(&self) -> bool {
        self.row.is_none() && self.col.is_none() && self.bias.is_none()
    }
}

/// Where a product's bit output (or [`crate::ops::binarize`]) switches on:
/// bit `= (s >= t)`.
///
/// ```
/// use bitgraphblas::{Cpu, DenseMatrix, Threshold};
/// let t = DenseMatrix::from_vec(1, 2, vec![0.0f32, 1.5])?;
/// let per_col: Threshold<'_, Cpu> = Threshold::PerColumn(&t);
/// assert!(matches!(per_col, Threshold::PerColumn(_)));
/// assert!(matches!(Threshold::<Cpu>::Sign, Threshold::Sign));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub enum Threshold<'a, B: Backend> {
    /// `t = 0`: the sign (0 counts as positive).
    Sign,
    /// One threshold for every entry.
    Value(f32),
    /// `1 x n`: column `j`'s threshold (a folded batch norm).
    PerColumn(&'a B::Dense<f32>),
}

impl<B: Backend> Clone for Threshold<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for Threshold<'_, B> {}

/// What a bit product writes into an `m x n` output.
///
/// ```
/// use bitgraphblas::{BitOutput, Cpu, DenseMatrix, Scales, Threshold};
/// use bitgraphblas::storage::{BitLayout, BitMatrix};
/// let mut bits = BitMatrix::zeros(4, 8, BitLayout::RowMajor)?;
/// let out: BitOutput<'_, Cpu> = BitOutput::Bits {
///     out: &mut bits,
///     scales: Scales::default(),
///     threshold: Threshold::Sign,
/// };
/// assert_eq!(out.kind(), "bits");
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub enum BitOutput<'a, B: Backend> {
    /// The integer value `v` (`i32`; `LorLand` gives 0 or 1).
    Counts(&'a mut B::Dense<i32>),
    /// `f32` `s` (see [`Scales`]).
    Scaled {
        /// The `m x n` output.
        out: &'a mut B::Dense<f32>,
        /// The factors and bias.
        scales: Scales<'a, B>,
    },
    /// Bits `s >= t`, row-major `m x n`, re-binarised inside the product
    /// (no `f32` written).
    Bits {
        /// The `m x n` row-major output.
        out: &'a mut B::Bits,
        /// The factors and bias applied before the comparison.
        scales: Scales<'a, B>,
        /// The threshold.
        threshold: Threshold<'a, B>,
    },
}

impl<B: Backend> BitOutput<'_, B> {
    /// `(nrows, ncols)` of the output.
    ///
    /// ```
    /// use bitgraphblas::{BitOutput, Cpu, DenseMatrix};
    /// let mut c = DenseMatrix::filled(3, 2, 0i32);
    /// assert_eq!(BitOutput::<Cpu>::Counts(&mut c).shape(), (3, 2));
    /// ```
    pub fn shape(&self) -> (usize, usize) {
        match self {
            BitOutput::Counts(c) => (c.nrows(), c.ncols()),
            BitOutput::Scaled { out, .. } => (out.nrows(), out.ncols()),
            BitOutput::Bits { out, .. } => (out.nrows(), out.ncols()),
        }
    }

    /// `"counts"`, `"scaled"` or `"bits"` (errors, benchmark ids).
    ///
    /// ```
    /// use bitgraphblas::{BitOutput, Cpu, DenseMatrix, Scales};
    /// let mut c = DenseMatrix::filled(1, 1, 0.0f32);
    /// let out: BitOutput<'_, Cpu> = BitOutput::Scaled { out: &mut c, scales: Scales::default() };
    /// assert_eq!(out.kind(), "scaled");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            BitOutput::Counts(_) => "counts",
            BitOutput::Scaled { .. } => "scaled",
            BitOutput::Bits { .. } => "bits",
        }
    }
}

/// `b`-bit unsigned codes (`b = 1..=8`) stored as `b` bit matrices (plane
/// `p` holds bit `p` of every code: QGTC's any-bitwidth layout), with an
/// affine dequantisation `x = scale * (code - zero)`, per tensor (`scale`
/// and `zero` are `1 x 1`) or per column (`1 x ncols`).
///
/// Build it with the planes' shape and layout and the quantisation
/// parameters, then fill it with [`crate::ops::quantize`].
///
/// ```
/// use bitgraphblas::{ops, Backend, BitPlanes, Cpu, DenseMatrix};
/// use bitgraphblas::storage::BitLayout;
/// let cpu = Cpu::new();
/// let planes = (0..2)
///     .map(|_| cpu.bits_new(1, 3, BitLayout::RowMajor))
///     .collect::<Result<Vec<_>, _>>()?;
/// let one = DenseMatrix::filled(1, 1, 1.0f32);
/// let mut q = BitPlanes::<Cpu>::new(planes, one.clone(), DenseMatrix::filled(1, 1, 0.0f32))?;
/// assert_eq!((q.bits(), q.nrows(), q.ncols()), (2, 1, 3));
/// ops::quantize(&cpu, &mut q, &DenseMatrix::from_vec(1, 3, vec![0.0f32, 2.2, 9.0])?)?;
/// // codes 0, 2, 3 (clamped): plane 0 = 0,0,1; plane 1 = 0,1,1
/// assert_eq!((q.planes()[0].words(), q.planes()[1].words()), (&[0b100][..], &[0b110][..]));
/// // nine planes: a bit width outside 1..=8
/// let nine = (0..9).map(|_| cpu.bits_new(1, 3, BitLayout::RowMajor)).collect::<Result<Vec<_>, _>>()?;
/// assert!(BitPlanes::<Cpu>::new(nine, one.clone(), one).is_err());
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub struct BitPlanes<B: Backend> {
    planes: Vec<B::Bits>,
    scale: B::Dense<f32>,
    zero: B::Dense<f32>,
}

impl<B: Backend> BitPlanes<B> {
    /// From 1 to 8 planes of one shape and layout, and `scale` and `zero`
    /// of shape `1 x 1` (per tensor) or `1 x ncols` (per column), both the
    /// same; else an [`Error`] naming `BitPlanes::new`.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(4, 2, BitLayout::ColMajor)?];
    /// let (s, z) = (DenseMatrix::filled(1, 2, 0.5f32), DenseMatrix::filled(1, 2, 0.0f32));
    /// let q = BitPlanes::<Cpu>::new(p, s, z)?;
    /// assert_eq!((q.bits(), q.layout()), (1, BitLayout::ColMajor));
    /// // a scale of the wrong length
    /// let p = vec![cpu.bits_new(4, 2, BitLayout::ColMajor)?];
    /// let (s, z) = (DenseMatrix::filled(1, 3, 0.5f32), DenseMatrix::filled(1, 3, 0.0f32));
    /// assert!(BitPlanes::<Cpu>::new(p, s, z).is_err());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn new(planes: Vec<B::Bits>, scale: B::Dense<f32>, zero: B::Dense<f32>) -> Result<Self> {
        const OP: &str = "BitPlanes::new";
        if !(1..=8).contains(&planes.len()) {
            return Err(Error::invalid(
                OP,
                format!("{} planes: the bit width must be 1..=8", planes.len()),
            ));
        }
        let p0 = &planes[0];
        let (m, n, layout) = (p0.nrows(), p0.ncols(), p0.layout());
        if let Some((p, q)) = planes
            .iter()
            .enumerate()
            .find(|(_, q)| (q.nrows(), q.ncols(), q.layout()) != (m, n, layout))
        {
            return Err(Error::dims(
                OP,
                format!(
                    "plane {p} is {}x{} {}, plane 0 {m}x{n} {}",
                    q.nrows(),
                    q.ncols(),
                    q.layout().name(),
                    layout.name()
                ),
            ));
        }
        let ss = (scale.nrows(), scale.ncols());
        let zs = (zero.nrows(), zero.ncols());
        if ss != zs || !(ss == (1, 1) || ss == (1, n)) {
            return Err(Error::dims(
                OP,
                format!(
                    "scale is {}x{}, zero {}x{}: both must be 1x1 or 1x{n}",
                    ss.0, ss.1, zs.0, zs.1
                ),
            ));
        }
        Ok(BitPlanes {
            planes,
            scale,
            zero,
        })
    }

    /// The bit width `b` (the number of planes).
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = (0..3).map(|_| cpu.bits_new(2, 2, BitLayout::RowMajor)).collect::<Result<Vec<_>, _>>()?;
    /// let one = DenseMatrix::filled(1, 1, 1.0f32);
    /// assert_eq!(BitPlanes::<Cpu>::new(p, one.clone(), one)?.bits(), 3);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn bits(&self) -> u32 {
        self.planes.len() as u32
    }
    /// The planes, least significant first.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(2, 2, BitLayout::RowMajor)?];
    /// let one = DenseMatrix::filled(1, 1, 1.0f32);
    /// assert_eq!(BitPlanes::<Cpu>::new(p, one.clone(), one)?.planes()[0].count_ones(), 0);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn planes(&self) -> &[B::Bits] {
        &self.planes
    }
    /// The scale: `1 x 1` or `1 x ncols`.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(2, 2, BitLayout::RowMajor)?];
    /// let q = BitPlanes::<Cpu>::new(p, DenseMatrix::filled(1, 1, 0.1f32), DenseMatrix::filled(1, 1, 0.0f32))?;
    /// assert_eq!(q.scale().as_slice(), &[0.1]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn scale(&self) -> &B::Dense<f32> {
        &self.scale
    }
    /// The zero point: `1 x 1` or `1 x ncols`.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(2, 2, BitLayout::RowMajor)?];
    /// let q = BitPlanes::<Cpu>::new(p, DenseMatrix::filled(1, 1, 0.1f32), DenseMatrix::filled(1, 1, 1.0f32))?;
    /// assert_eq!(q.zero().as_slice(), &[1.0]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn zero(&self) -> &B::Dense<f32> {
        &self.zero
    }
    /// Number of rows of every plane.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(5, 2, BitLayout::RowMajor)?];
    /// let one = DenseMatrix::filled(1, 1, 1.0f32);
    /// assert_eq!(BitPlanes::<Cpu>::new(p, one.clone(), one)?.nrows(), 5);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn nrows(&self) -> usize {
        self.planes[0].nrows()
    }
    /// Number of columns of every plane.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(5, 2, BitLayout::RowMajor)?];
    /// let one = DenseMatrix::filled(1, 1, 1.0f32);
    /// assert_eq!(BitPlanes::<Cpu>::new(p, one.clone(), one)?.ncols(), 2);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn ncols(&self) -> usize {
        self.planes[0].ncols()
    }
    /// The layout of every plane.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(5, 2, BitLayout::ColMajor)?];
    /// let one = DenseMatrix::filled(1, 1, 1.0f32);
    /// assert_eq!(BitPlanes::<Cpu>::new(p, one.clone(), one)?.layout(), BitLayout::ColMajor);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn layout(&self) -> BitLayout {
        self.planes[0].layout()
    }
    /// True when the quantisation parameters are per column (`1 x ncols`
    /// with `ncols > 1`); a `1 x 1` pair is per tensor.
    ///
    /// ```
    /// use bitgraphblas::{Backend, BitPlanes, Cpu, DenseMatrix};
    /// use bitgraphblas::storage::BitLayout;
    /// let cpu = Cpu::new();
    /// let p = vec![cpu.bits_new(5, 2, BitLayout::ColMajor)?];
    /// let z = DenseMatrix::filled(1, 2, 0.0f32);
    /// assert!(BitPlanes::<Cpu>::new(p, z.clone(), z)?.per_column());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn per_column(&self) -> bool {
        self.scale.ncols() != 1
    }
    /// The planes, mutably (for a backend's `quantize`).
    pub(crate) fn planes_mut(&mut self) -> &mut [B::Bits] {
        &mut self.planes
    }
}
