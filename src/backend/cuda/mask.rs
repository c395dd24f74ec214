//! Device vectors and matrices seen as masks: the [`DeviceMask`] and
//! [`DeviceMatrixMask`] sources of the backend's [`Mask`] and
//! [`crate::MatrixMask`], and the allowed positions of a vector mask as bits.

use super::csr::MaskPattern;
use super::device::{DBuf, DevPtr};
use super::launch::vec;
use super::mem::{bit_words, DMat, DVec, DevB2sr};
use super::{CudaBackend, CudaMatrix, CudaVector};
use crate::backend::{MatrixShape, VectorShape};
use crate::container::Mask;
use crate::error::Result;
use crate::scalar::Scalar;

/// A device vector of any element type, seen as a mask.
///
/// ```no_run
/// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Vector};
/// let gpu = CudaBackend::new(0)?;
/// let m = gpu.upload_vector(&Vector::from_dense(vec![true, false, true]))?;
/// let mask = CudaBackend::mask(&m); // a `Mask` whose source is this trait
/// # let _ = mask;
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub trait DeviceMask: VectorShape + Sync {
    /// The positions the mask allows (complement applied), as device bits.
    #[doc(hidden)]
    fn allowed_bits(
        &self,
        b: &CudaBackend,
        structural: bool,
        complemented: bool,
    ) -> Result<DeviceBits>;
    /// The device bits that already are the mask's pattern (before any
    /// complement), where no kernel is needed to make them: packed bits, or
    /// the presence bits of a structural mask.
    #[doc(hidden)]
    fn pattern_words(&self, _structural: bool) -> Option<DevPtr<u32>> {
        None
    }
}

/// A device matrix of any element type, seen as a mask.
///
/// ```no_run
/// use bitgraphblas::{backend::cuda::CudaBackend, Backend, Matrix};
/// let gpu = CudaBackend::new(0)?;
/// let m = gpu.upload_matrix(&Matrix::from_triplets(2, 2, vec![(0, 1, true)])?)?;
/// let mask = CudaBackend::matrix_mask(&m); // a `MatrixMask` whose source is this trait
/// # let _ = mask;
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub trait DeviceMatrixMask: MatrixShape + Sync {
    /// The B2SR pattern and whether its iso value is nonzero; `None` for CSR.
    #[doc(hidden)]
    fn b2sr_mask(&self) -> Option<(&DevB2srRef, bool)>;
    /// The selected pattern (every entry, or the nonzero ones) as device CSR.
    #[doc(hidden)]
    fn mask_pattern(&self, b: &CudaBackend, structural: bool) -> Result<MaskPattern>;
}

/// Device bits (opaque; for [`DeviceMask`]).
#[doc(hidden)]
pub struct DeviceBits(pub(crate) DBuf<u32>);

/// A device B2SR pattern (opaque; for [`DeviceMatrixMask`]).
#[doc(hidden)]
#[repr(transparent)]
pub struct DevB2srRef(pub(crate) DevB2sr);

impl<T: Scalar> DeviceMask for CudaVector<T> {
    fn allowed_bits(
        &self,
        b: &CudaBackend,
        structural: bool,
        complemented: bool,
    ) -> Result<DeviceBits> {
        let v = b.view(self)?;
        let out = b.dev.alloc::<u32>(bit_words(self.len))?;
        vec::vec_mask(
            v.vals,
            v.pres,
            self.len as u64,
            structural,
            complemented,
            out.ptr(),
        )
        .run(&b.dev, bit_words(self.len) * 32)?;
        Ok(DeviceBits(out))
    }
    fn pattern_words(&self, structural: bool) -> Option<DevPtr<u32>> {
        match &self.repr {
            DVec::Bits(b) => Some(b.ptr()),
            DVec::Dense { pres: Some(p), .. } if structural => Some(p.ptr()),
            _ => None,
        }
    }
}

impl<T: Scalar> DeviceMatrixMask for CudaMatrix<T> {
    fn b2sr_mask(&self) -> Option<(&DevB2srRef, bool)> {
        match &self.repr {
            DMat::B2sr { pat, value } => {
                // SAFETY: DevB2srRef is a transparent wrapper of DevB2sr.
                let r = unsafe { &*(pat as *const DevB2sr as *const DevB2srRef) };
                Some((r, value.is_nonzero()))
            }
            DMat::Csr { .. } => None,
        }
    }
    fn mask_pattern(&self, b: &CudaBackend, structural: bool) -> Result<MaskPattern> {
        b.mask_pattern_of(self, structural)
    }
}

impl CudaBackend {
    /// The positions a vector mask allows (complement applied), as bits.
    pub(crate) fn allowed(&self, mask: Option<Mask<'_, Self>>) -> Result<Option<DBuf<u32>>> {
        mask.map(|m| {
            m.source
                .allowed_bits(self, m.structural, m.complemented)
                .map(|b| b.0)
        })
        .transpose()
    }
}
