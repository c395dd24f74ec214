//! Descriptors: masks, accumulators, replace and transpose flags.
//!
//! `w<mask> = accum(w, op(...))`: the operation computes `t`; with an
//! accumulator `z = accum(w, t)` on the union of their patterns (else `z = t`);
//! then, where the mask allows, `w` takes `z` (an absent `z_i` deletes `w_i`), and
//! where it does not, `w` keeps its entry, or loses it under `replace`.

use crate::algebra::{BinaryOp, BuiltinOp};
use crate::backend::Backend;
use crate::scalar::Scalar;

/// A mask type over a backend's source type: the struct, `Clone`,
/// `Copy`, and its builder methods (the vector and matrix masks differ only
/// in the source and in their docs).
macro_rules! mask_type {
    ($(#[$doc:meta])* $name:ident, $source:ident, $source_doc:literal) => {
        $(#[$doc])*
        pub struct $name<'a, B: Backend> {
            #[doc = $source_doc]
            pub source: &'a B::$source,
            /// Use presence, not value.
            pub structural: bool,
            /// Allow where the mask does not.
            pub complemented: bool,
        }

        impl<B: Backend> Clone for $name<'_, B> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<B: Backend> Copy for $name<'_, B> {}

        impl<'a, B: Backend> $name<'a, B> {
            /// A valued mask over `source`.
            pub fn new(source: &'a B::$source) -> Self {
                $name {
                    source,
                    structural: false,
                    complemented: false,
                }
            }
            /// Read presence only.
            pub fn structure(mut self) -> Self {
                self.structural = true;
                self
            }
            /// Complement the mask.
            pub fn complement(mut self) -> Self {
                self.complemented = !self.complemented;
                self
            }
        }
    };
}

mask_type!(
    /// A vector mask on backend `B`: by value (default) or by structure, complemented or not.
    ///
    /// A valued mask allows index `i` where the mask vector holds a nonzero value;
    /// a structural one ([`Mask::structure`]) wherever it holds any value.
    ///
    /// ```
    /// use bitgraphblas::{ops, Cpu, Desc, Vector};
    /// let m = Vector::from_entries(4, vec![(0, 1i32), (2, 0)])?;
    /// let (cpu, mut w, mut s) = (Cpu::new(), Vector::empty(4), Vector::empty(4));
    /// ops::assign_scalar(&cpu, &mut w, 9i32, None, &Desc::new().mask(m.as_mask()))?;
    /// assert_eq!(w.entries(), vec![(0, 9)]); // m_2 = 0 does not allow
    /// ops::assign_scalar(&cpu, &mut s, 9i32, None, &Desc::new().mask(m.as_mask().structure()))?;
    /// assert_eq!(s.entries(), vec![(0, 9), (2, 9)]);
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    Mask,
    MaskSource,
    "The mask vector."
);

mask_type!(
    /// A matrix mask on backend `B` (for `mxm`, element-wise and other matrix results).
    ///
    /// ```
    /// use bitgraphblas::{ops, algebra::PlusTimes, Cpu, Desc, Matrix};
    /// let a = Matrix::from_triplets(2, 2, vec![(0, 0, 1i64), (0, 1, 2), (1, 0, 3), (1, 1, 4)])?;
    /// let diag = Matrix::from_triplets(2, 2, vec![(0, 0, true), (1, 1, true)])?;
    /// let mut c = Matrix::empty(2, 2);
    /// // Only the diagonal of A A: [[7, 10], [15, 22]].
    /// ops::mxm(&Cpu::new(), &mut c, PlusTimes::<i64>::new(), &a, &a, &Desc::new().mask(diag.as_mask()))?;
    /// assert_eq!((c.get(0, 0), c.get(1, 1), c.nvals()), (Some(7), Some(22), 2));
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    MatrixMask,
    MatrixMaskSource,
    "The mask matrix."
);

/// No mask: every output entry may change (what [`Desc::new`] holds).
///
/// ```
/// use bitgraphblas::container::{MaskArg, NoMask};
/// use bitgraphblas::{Cpu, Desc};
/// let d = Desc::new();
/// let m: &NoMask = d.mask_arg();
/// assert!(MaskArg::<Cpu>::vector_mask(m).is_none());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMask;

/// What a descriptor may hold as a vector mask: [`NoMask`] or a [`Mask`].
///
/// ```
/// use bitgraphblas::{container::MaskArg, Desc, Vector};
/// let m = Vector::from_entries(3, vec![(1, true)])?;
/// let d = Desc::new().mask(m.as_mask().complement());
/// let mask = d.mask_arg().vector_mask().unwrap();
/// assert!(mask.complemented && !mask.structural);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub trait MaskArg<B: Backend> {
    /// The mask, if any.
    fn vector_mask(&self) -> Option<Mask<'_, B>>;
}
impl<B: Backend> MaskArg<B> for NoMask {
    fn vector_mask(&self) -> Option<Mask<'_, B>> {
        None
    }
}
impl<B: Backend> MaskArg<B> for Mask<'_, B> {
    fn vector_mask(&self) -> Option<Mask<'_, B>> {
        Some(*self)
    }
}

/// What a descriptor may hold as a matrix mask: [`NoMask`] or a [`MatrixMask`].
///
/// ```
/// use bitgraphblas::{container::MatrixMaskArg, Desc, Matrix};
/// let m = Matrix::from_triplets(2, 2, vec![(0, 1, true)])?;
/// let d = Desc::new().mask(m.as_mask().structure());
/// assert!(d.mask_arg().matrix_mask().unwrap().structural);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub trait MatrixMaskArg<B: Backend> {
    /// The mask, if any.
    fn matrix_mask(&self) -> Option<MatrixMask<'_, B>>;
}
impl<B: Backend> MatrixMaskArg<B> for NoMask {
    fn matrix_mask(&self) -> Option<MatrixMask<'_, B>> {
        None
    }
}
impl<B: Backend> MatrixMaskArg<B> for MatrixMask<'_, B> {
    fn matrix_mask(&self) -> Option<MatrixMask<'_, B>> {
        Some(*self)
    }
}

/// No accumulator: the result replaces the old entries (where the mask allows).
///
/// ```
/// use bitgraphblas::{ops, Cpu, Desc, IndexOp, Vector};
/// let mut w = Vector::from_dense(vec![1i32, 2, 3]);
/// let u = Vector::from_dense(vec![10i32, 20, 30]);
/// // No accumulator: w becomes the result, and its old entries go.
/// ops::select(&Cpu::new(), &mut w, IndexOp::RowGt(1), &u, &Desc::new())?;
/// assert_eq!(w.entries(), vec![(2, 30)]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAccum;

/// An accumulator: [`NoAccum`] or [`Accum`] of a [`BinaryOp`].
///
/// ```
/// use bitgraphblas::{algebra::Max, container::{Accum, Accumulate, NoAccum}};
/// assert_eq!(Accum(Max).combine(3, 5), 5);
/// assert_eq!(Accumulate::<i32>::combine(&NoAccum, 3, 1), 1);
/// assert!(!<NoAccum as Accumulate<i32>>::ACTIVE);
/// ```
pub trait Accumulate<T: Scalar>: Copy + Send + Sync {
    /// False for [`NoAccum`].
    const ACTIVE: bool;
    /// The built-in operator, if any.
    const BUILTIN: Option<BuiltinOp>;
    /// `accum(old, new)`.
    fn combine(&self, old: T, new: T) -> T;
}

impl<T: Scalar> Accumulate<T> for NoAccum {
    const ACTIVE: bool = false;
    const BUILTIN: Option<BuiltinOp> = None;
    #[inline]
    fn combine(&self, _old: T, new: T) -> T {
        new
    }
}

/// A binary operator used as an accumulator (what [`Desc::accum`] stores):
/// `w = accum(w, t)` on the union of patterns.
///
/// ```
/// use bitgraphblas::{ops, algebra::Plus, Cpu, Desc, IndexOp, Vector};
/// let mut w = Vector::from_dense(vec![1i32, 2, 3]);
/// let u = Vector::from_dense(vec![10i32, 20, 30]);
/// ops::select(&Cpu::new(), &mut w, IndexOp::RowGt(1), &u, &Desc::new().accum(Plus))?;
/// assert_eq!(w.to_vec(0), vec![1, 2, 33]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Accum<Op>(pub Op);

impl<T: Scalar, Op: BinaryOp<T>> Accumulate<T> for Accum<Op> {
    const ACTIVE: bool = true;
    const BUILTIN: Option<BuiltinOp> = Op::BUILTIN;
    #[inline]
    fn combine(&self, old: T, new: T) -> T {
        self.0.apply(old, new)
    }
}

/// The plain flags of a descriptor.
///
/// ```
/// use bitgraphblas::{container::Flags, Desc};
/// let f = Desc::new().transpose_b().replace().flags();
/// assert_eq!(f, Flags { replace: true, transpose_a: false, transpose_b: true });
/// // The transpose setters toggle.
/// assert!(!Desc::new().transpose_a().transpose_a().flags().transpose_a);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// Delete output entries the mask does not allow.
    pub replace: bool,
    /// Use the transpose of the first matrix input.
    pub transpose_a: bool,
    /// Use the transpose of the second matrix input.
    pub transpose_b: bool,
}

/// A descriptor: mask, accumulator and flags for one operation.
///
/// ```
/// use bitgraphblas::{ops, algebra::{Plus, PlusTimes}, Cpu, Desc, Matrix, Vector};
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, 2.0f32), (1, 1, 3.0)])?;
/// let u = Vector::from_dense(vec![1.0f32, 1.0]);
/// let mut w = Vector::from_dense(vec![100.0f32, 100.0]);
/// // w += A' u
/// let d = Desc::new().accum(Plus).transpose_a();
/// ops::mxv(&Cpu::new(), &mut w, PlusTimes::<f32>::new(), &a, &u, &d)?;
/// assert_eq!(w.to_vec(0.0), vec![100.0, 105.0]);
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Desc<M = NoMask, A = NoAccum> {
    mask: M,
    accum: A,
    flags: Flags,
}

impl Desc<NoMask, NoAccum> {
    /// No mask, no accumulator, no flags.
    pub fn new() -> Self {
        Desc::default()
    }
}

impl<M, A> Desc<M, A> {
    /// Set the mask (a [`Mask`] or [`MatrixMask`]).
    pub fn mask<M2>(self, mask: M2) -> Desc<M2, A> {
        Desc {
            mask,
            accum: self.accum,
            flags: self.flags,
        }
    }
    /// Set the accumulator (any [`BinaryOp`]).
    pub fn accum<Op>(self, op: Op) -> Desc<M, Accum<Op>> {
        Desc {
            mask: self.mask,
            accum: Accum(op),
            flags: self.flags,
        }
    }
    /// Delete output entries outside the mask.
    pub fn replace(mut self) -> Self {
        self.flags.replace = true;
        self
    }
    /// Transpose the first matrix input.
    pub fn transpose_a(mut self) -> Self {
        self.flags.transpose_a = !self.flags.transpose_a;
        self
    }
    /// Transpose the second matrix input.
    pub fn transpose_b(mut self) -> Self {
        self.flags.transpose_b = !self.flags.transpose_b;
        self
    }
    /// The mask argument.
    pub fn mask_arg(&self) -> &M {
        &self.mask
    }
    /// The accumulator.
    pub fn accum_op(&self) -> A
    where
        A: Copy,
    {
        self.accum
    }
    /// The flags.
    pub fn flags(&self) -> Flags {
        self.flags
    }
}
