//! Descriptors: masks, accumulators, replace and transpose flags.
//!
//! `w<mask> = accum(w, op(...))`: the operation computes `t`; with an
//! accumulator `z = accum(w, t)` on the union of their patterns (else `z = t`);
//! then, where the mask allows, `w` takes `z` (an absent `z_i` deletes `w_i`), and
//! where it does not, `w` keeps its entry, or loses it under `replace`.

use crate::algebra::{BinaryOp, BuiltinOp};
use crate::backend::Backend;
use crate::scalar::Scalar;

/// A vector mask on backend `B`: by value (default) or by structure, complemented or not.
///
/// ```
/// use bitgraphblas::{Cpu, Desc, Vector};
/// let visited = Vector::from_entries(4, vec![(0, true)]).unwrap();
/// let d = Desc::new().mask(visited.as_mask().complement()).replace();
/// assert!(d.flags().replace);
/// ```
pub struct Mask<'a, B: Backend> {
    /// The mask vector.
    pub source: &'a B::MaskSource,
    /// Use presence, not value.
    pub structural: bool,
    /// Allow where the mask does not.
    pub complemented: bool,
}

impl<B: Backend> Clone for Mask<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for Mask<'_, B> {}

impl<'a, B: Backend> Mask<'a, B> {
    /// A valued mask over `source`.
    pub fn new(source: &'a B::MaskSource) -> Self {
        Mask {
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

/// A matrix mask on backend `B` (for `mxm`, element-wise and other matrix results).
pub struct MatrixMask<'a, B: Backend> {
    /// The mask matrix.
    pub source: &'a B::MatrixMaskSource,
    /// Use presence, not value.
    pub structural: bool,
    /// Allow where the mask does not.
    pub complemented: bool,
}

impl<B: Backend> Clone for MatrixMask<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for MatrixMask<'_, B> {}

impl<'a, B: Backend> MatrixMask<'a, B> {
    /// A valued mask over `source`.
    pub fn new(source: &'a B::MatrixMaskSource) -> Self {
        MatrixMask {
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

/// No mask.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMask;

/// What a descriptor may hold as a vector mask: [`NoMask`] or a [`Mask`].
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
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAccum;

/// An accumulator: [`NoAccum`] or [`Accum`] of a [`BinaryOp`].
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

/// A binary operator used as an accumulator (what [`Desc::accum`] stores).
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
/// use bitgraphblas::{algebra::Plus, Desc};
/// let d = Desc::new().accum(Plus).transpose_a();
/// assert!(d.flags().transpose_a);
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
