//! Host masks: any host vector or matrix seen as a mask (its bits or its
//! pattern), and the shape traits of the host containers.

use super::{generic, Cpu};
use crate::backend::{MatrixShape, VectorShape};
use crate::container::{Mask, Matrix, MatrixMask, MatrixRepr, Vector};
use crate::scalar::Scalar;
use crate::storage::{BitVec, Csr, DenseMatrix};

/// A host vector of any element type, seen as a mask.
pub trait HostMask: VectorShape + Sync {
    /// The positions the mask selects: present entries (`structural`) or present
    /// nonzero entries.
    fn mask_bits(&self, structural: bool) -> BitVec;
}

impl<T: Scalar> HostMask for Vector<T> {
    fn mask_bits(&self, structural: bool) -> BitVec {
        if structural {
            self.pattern()
        } else {
            self.nonzero_pattern()
        }
    }
}

/// A host matrix of any element type, seen as a mask.
pub trait HostMatrixMask: MatrixShape + Sync {
    /// The entries the mask selects, as a pattern.
    fn mask_pattern(&self, structural: bool) -> Csr<bool>;
    /// The selected entries as a B2SR pattern, when the matrix is stored so
    /// (lets the B2SR kernels use the mask without unpacking it).
    fn mask_b2sr(&self, _structural: bool) -> Option<&crate::storage::B2sr> {
        None
    }
    /// The CSR structure (row pointers, column indices), borrowed, when the
    /// matrix is stored as CSR: all a structural mask needs, without a copy.
    fn csr_structure(&self) -> Option<(&[usize], &[u32])> {
        None
    }
}

impl<T: Scalar> HostMatrixMask for Matrix<T> {
    fn mask_pattern(&self, structural: bool) -> Csr<bool> {
        let csr = self.as_csr();
        if structural {
            csr.map(|_| true)
        } else {
            generic::select_csr(
                (|v: T, _: usize, _: usize| v.is_nonzero()) as fn(T, usize, usize) -> bool,
                &csr,
            )
            .map(|_| true)
        }
    }
    fn mask_b2sr(&self, structural: bool) -> Option<&crate::storage::B2sr> {
        match self.repr() {
            MatrixRepr::B2sr { pattern, value } if structural || value.is_nonzero() => {
                Some(pattern)
            }
            _ => None,
        }
    }
    fn csr_structure(&self) -> Option<(&[usize], &[u32])> {
        match self.repr() {
            MatrixRepr::Csr(c) => Some((c.row_ptr(), c.col_idx())),
            MatrixRepr::B2sr { .. } => None,
        }
    }
}

impl<T: Scalar> VectorShape for Vector<T> {
    fn len(&self) -> usize {
        Vector::len(self)
    }
}
impl<T: Scalar> MatrixShape for Matrix<T> {
    fn nrows(&self) -> usize {
        Matrix::nrows(self)
    }
    fn ncols(&self) -> usize {
        Matrix::ncols(self)
    }
}
impl<T: Scalar> MatrixShape for DenseMatrix<T> {
    fn nrows(&self) -> usize {
        DenseMatrix::nrows(self)
    }
    fn ncols(&self) -> usize {
        DenseMatrix::ncols(self)
    }
}

impl<T: Scalar> Vector<T> {
    /// This vector as a (valued) CPU mask.
    pub fn as_mask(&self) -> Mask<'_, Cpu> {
        Mask::new(self as &dyn HostMask)
    }
}
impl<T: Scalar> Matrix<T> {
    /// This matrix as a (valued) CPU mask.
    pub fn as_mask(&self) -> MatrixMask<'_, Cpu> {
        MatrixMask::new(self as &dyn HostMatrixMask)
    }
}
