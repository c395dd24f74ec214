//! `impl Backend for CudaBackend`: each entry point delegates to the
//! inherent method of the file that does that job.

use super::auto;
use super::codes::accum_code;
use super::mask::{DeviceMask, DeviceMatrixMask};
use super::{CudaBackend, CudaBits, CudaDense, CudaMatrix, CudaVector};
use crate::algebra::{BinaryOp, BitDomain, BitSemiring, IndexUnaryOp, Monoid, Semiring, UnaryOp};
use crate::backend::{Backend, Content, EwiseKind};
use crate::container::{
    Accumulate, BitInput, BitOutput, BitPlanes, Flags, Format, Mask, Matrix, MatrixMask, Threshold,
    Vector, VectorFormat,
};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::storage::b2sr::Profile;
use crate::storage::{BitLayout, BitMatrix, DenseMatrix, TileSize};

impl Backend for CudaBackend {
    type Matrix<T: Scalar> = CudaMatrix<T>;
    type Vector<T: Scalar> = CudaVector<T>;
    type Dense<T: Scalar> = CudaDense<T>;
    type Bits = CudaBits;
    type MaskSource = dyn DeviceMask;
    type MatrixMaskSource = dyn DeviceMatrixMask;

    fn name(&self) -> &'static str {
        "cuda"
    }

    /// Valued products on tiles of at most 8x8: one launch does the whole
    /// product (the fused k <= 8 kernel), and `bin_full_full` at k = 8 runs
    /// twice as fast as at k = 32 on the grids (`benches/results/gpu-kernels.md`).
    fn auto_format(&self, requested: Format, profile: &Profile, content: Content) -> Format {
        // one model for both contents of vector products: boolean products
        // favour tiles more than the valued product it is fitted to (see
        // `auto`). Products by dense matrices run on CSR: a thread per
        // output element (x f32, `cuda/csr_spmm.cu`) or a few lanes a row
        // (x bits, vertical counters) gathers the operand's rows, where the tile
        // kernels walk a tile row's tiles one after another (H100, ncu, Cora's
        // `A + I` by 7 to 64 columns: 37 µs for B2SR x f32, 58 µs for
        // B2SR x bits at 4x4, docs/gpu-gnn-forward-profile.md)
        let size = auto::PatternSize::estimated(profile);
        match (requested, content) {
            (Format::Auto, Content::PatternTimesDense | Content::ValuesTimesDense) => Format::Csr,
            (Format::Auto, _) => auto::choose(&size, true),
            (Format::B2sr(TileSize::Auto), _) => auto::choose(&size, false),
            (f, _) => f,
        }
    }

    fn mask<T: Scalar>(v: &CudaVector<T>) -> Mask<'_, Self> {
        Mask::new(v as &dyn DeviceMask)
    }
    fn matrix_mask<T: Scalar>(m: &CudaMatrix<T>) -> MatrixMask<'_, Self> {
        MatrixMask::new(m as &dyn DeviceMatrixMask)
    }

    fn upload_matrix<T: Scalar>(&self, m: &Matrix<T>) -> Result<CudaMatrix<T>> {
        CudaMatrix::upload(&self.dev, m)
    }
    fn download_matrix<T: Scalar>(&self, m: &CudaMatrix<T>) -> Result<Matrix<T>> {
        m.download(&self.dev)
    }
    fn upload_vector<T: Scalar>(&self, v: &Vector<T>) -> Result<CudaVector<T>> {
        CudaVector::upload(&self.dev, v)
    }
    fn download_vector<T: Scalar>(&self, v: &CudaVector<T>) -> Result<Vector<T>> {
        v.download(&self.dev)
    }
    fn upload_dense<T: Scalar>(&self, m: &DenseMatrix<T>) -> Result<CudaDense<T>> {
        CudaDense::upload(&self.dev, m)
    }
    fn download_dense<T: Scalar>(&self, m: &CudaDense<T>) -> Result<DenseMatrix<T>> {
        m.download(&self.dev)
    }

    fn vector_new<T: Scalar>(
        &self,
        len: usize,
        fill: Option<T>,
        format: VectorFormat,
    ) -> Result<CudaVector<T>> {
        self.vector_new_op(len, fill, format)
    }

    fn dense_new<T: Scalar>(&self, nrows: usize, ncols: usize, value: T) -> Result<CudaDense<T>> {
        let data = self.fill(nrows * ncols, value)?;
        Ok(CudaDense { nrows, ncols, data })
    }

    /// No fill: the buffer as allocated (0xFF bytes in poison mode).
    fn dense_for_output<T: Scalar>(&self, nrows: usize, ncols: usize) -> Result<CudaDense<T>> {
        let len = nrows
            .checked_mul(ncols)
            .ok_or_else(|| crate::Error::TooLarge {
                what: "dense matrix",
                detail: format!("{nrows} x {ncols} elements exceed the address space"),
            })?;
        let data = self.dev.alloc(len)?;
        Ok(CudaDense { nrows, ncols, data })
    }

    fn convert<T: Scalar>(&self, m: &CudaMatrix<T>, format: Format) -> Result<CudaMatrix<T>> {
        self.convert_op(m, format)
    }

    fn convert_vector<T: Scalar>(
        &self,
        v: &CudaVector<T>,
        format: VectorFormat,
    ) -> Result<CudaVector<T>> {
        self.convert_vector_op(v, format)
    }

    fn vector_nvals<T: Scalar>(&self, v: &CudaVector<T>) -> Result<usize> {
        self.vector_nvals_op(v)
    }

    fn matrix_nvals<T: Scalar>(&self, m: &CudaMatrix<T>) -> Result<usize> {
        self.matrix_nvals_op(m)
    }

    fn mxv<S: Semiring, A: Accumulate<S::T>>(
        &self,
        w: &mut CudaVector<S::T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        semiring: S,
        a: &CudaMatrix<S::T>,
        u: &CudaVector<S::T>,
        flags: Flags,
    ) -> Result<()> {
        self.mxv_op::<S, A>(w, mask, semiring, a, u, flags)
    }

    fn mxm<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaMatrix<S::T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<()> {
        // The B2SR boolean product where it applies, the CSR merge otherwise.
        match self.mxm_b2sr(c, mask, accum, semiring, a, b, flags) {
            Err(Error::NoKernel { .. }) => {
                let acc = accum_code::<S::T, A>("mxm")?;
                self.mxm_csr(c, mask, acc, semiring, a, b, flags)
            }
            r => r,
        }
    }

    fn mxm_reduce<S: Semiring>(
        &self,
        mask: MatrixMask<'_, Self>,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaMatrix<S::T>,
        flags: Flags,
    ) -> Result<S::T> {
        match self.mxm_reduce_b2sr(mask, semiring, a, b, flags)? {
            Some(x) => Ok(x),
            None => self.mxm_reduce_csr(mask, semiring, a, b, flags),
        }
    }

    fn mxm_dense<S: Semiring, A: Accumulate<S::T>>(
        &self,
        c: &mut CudaDense<S::T>,
        _accum: A,
        semiring: S,
        a: &CudaMatrix<S::T>,
        b: &CudaDense<S::T>,
        flags: Flags,
    ) -> Result<()> {
        self.mxm_dense_op::<S, A>(c, semiring, a, b, flags)
    }

    fn ewise_vector<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        kind: EwiseKind<T>,
        _op: Op,
        u: &CudaVector<T>,
        v: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        self.ewise_vector_op::<T, Op, A>(w, mask, kind, u, v, flags)
    }

    fn ewise_matrix<T: Scalar, Op: BinaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        kind: EwiseKind<T>,
        _op: Op,
        a: &CudaMatrix<T>,
        b: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.ewise_matrix_op::<T, Op, A>(c, mask, kind, a, b, flags)
    }

    fn apply_vector<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        f: F,
        u: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        self.apply_vector_op::<T, F, A>(w, mask, f, u, flags)
    }

    fn apply_matrix<T: Scalar, F: UnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        f: F,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.apply_matrix_op::<T, F, A>(c, mask, f, a, flags)
    }

    fn select_vector<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        pred: P,
        u: &CudaVector<T>,
        flags: Flags,
    ) -> Result<()> {
        self.select_vector_op::<T, P, A>(w, mask, pred, u, flags)
    }

    fn select_matrix<T: Scalar, P: IndexUnaryOp<T>, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        pred: P,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.select_matrix_op::<T, P, A>(c, mask, pred, a, flags)
    }

    fn reduce_rows<T: Scalar, M: Monoid<T>, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        _monoid: M,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.reduce_rows_op::<T, M, A>(w, mask, a, flags)
    }

    fn reduce_vector<T: Scalar, M: Monoid<T>>(&self, _monoid: M, u: &CudaVector<T>) -> Result<T> {
        self.reduce_vector_op::<T, M>(u)
    }

    fn reduce_matrix<T: Scalar, M: Monoid<T>>(&self, monoid: M, a: &CudaMatrix<T>) -> Result<T> {
        self.reduce_matrix_op(monoid, a)
    }

    fn extract_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        u: &CudaVector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.extract_vector_op::<T, A>(w, mask, u, indices, flags)
    }

    fn extract_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        a: &CudaMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.extract_matrix_op::<T, A>(c, mask, a, rows, cols, flags)
    }

    fn assign_vector<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        u: &CudaVector<T>,
        indices: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.assign_vector_op::<T, A>(w, mask, Some(u), T::zero(), Some(indices), flags)
    }

    fn assign_vector_scalar<T: Scalar, A: Accumulate<T>>(
        &self,
        w: &mut CudaVector<T>,
        mask: Option<Mask<'_, Self>>,
        _accum: A,
        value: T,
        indices: Option<&[usize]>,
        flags: Flags,
    ) -> Result<()> {
        self.assign_vector_op::<T, A>(w, mask, None, value, indices, flags)
    }

    fn assign_matrix<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        _accum: A,
        a: &CudaMatrix<T>,
        rows: &[usize],
        cols: &[usize],
        flags: Flags,
    ) -> Result<()> {
        self.assign_matrix_op::<T, A>(c, mask, a, rows, cols, flags)
    }

    fn transpose<T: Scalar, A: Accumulate<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        mask: Option<MatrixMask<'_, Self>>,
        accum: A,
        a: &CudaMatrix<T>,
        flags: Flags,
    ) -> Result<()> {
        self.transpose_op(c, mask, accum, a, flags)
    }

    fn scale<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaMatrix<T>,
        _op: Op,
        d: &CudaVector<T>,
        a: &CudaMatrix<T>,
        rows: bool,
    ) -> Result<()> {
        self.scale_op::<T, Op>(c, d, a, rows)
    }

    fn scale_dense_rows<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        _op: Op,
        d: &CudaVector<T>,
        b: &CudaDense<T>,
    ) -> Result<()> {
        self.scale_dense_op::<T, Op>("scale_dense_rows", c, d, b, true)
    }

    fn dense_mxm<S: Semiring>(
        &self,
        c: &mut CudaDense<S::T>,
        semiring: S,
        a: &CudaDense<S::T>,
        b: &CudaDense<S::T>,
    ) -> Result<()> {
        self.dense_mxm_op(c, semiring, a, b)
    }

    fn scale_dense_cols<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        _op: Op,
        a: &CudaDense<T>,
        d: &CudaVector<T>,
    ) -> Result<()> {
        self.scale_dense_op::<T, Op>("scale_dense_cols", c, d, a, false)
    }

    fn apply_dense<T: Scalar, F: UnaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        f: F,
        a: &CudaDense<T>,
    ) -> Result<()> {
        self.apply_dense_op(c, f, a)
    }

    fn ewise_dense<T: Scalar, Op: BinaryOp<T>>(
        &self,
        c: &mut CudaDense<T>,
        _op: Op,
        a: &CudaDense<T>,
        b: &CudaDense<T>,
    ) -> Result<()> {
        self.ewise_dense_op::<T, Op>(c, a, b)
    }

    fn argmax_rows(&self, out: &mut CudaDense<u32>, a: &CudaDense<f32>) -> Result<()> {
        self.argmax_rows_op(out, a)
    }

    fn log_softmax_rows(&self, c: &mut CudaDense<f32>, a: &CudaDense<f32>) -> Result<()> {
        self.log_softmax_rows_op(c, a)
    }

    fn upload_bits(&self, m: &BitMatrix) -> Result<CudaBits> {
        self.upload_bits_op(m)
    }
    fn download_bits(&self, m: &CudaBits) -> Result<BitMatrix> {
        self.download_bits_op(m)
    }
    fn bits_new(&self, nrows: usize, ncols: usize, layout: BitLayout) -> Result<CudaBits> {
        self.bits_new_op(nrows, ncols, layout, true)
    }
    fn bits_for_output(&self, nrows: usize, ncols: usize, layout: BitLayout) -> Result<CudaBits> {
        self.bits_new_op(nrows, ncols, layout, false)
    }
    fn binarize(
        &self,
        out: &mut CudaBits,
        x: &CudaDense<f32>,
        threshold: Threshold<'_, Self>,
    ) -> Result<()> {
        self.binarize_op(out, x, threshold)
    }
    fn mean_abs(&self, out: &mut CudaDense<f32>, x: &CudaDense<f32>, rows: bool) -> Result<()> {
        self.mean_abs_op(out, x, rows)
    }
    fn unpack_bits(&self, out: &mut CudaDense<f32>, b: &CudaBits, domain: BitDomain) -> Result<()> {
        self.unpack_bits_op(out, b, domain)
    }
    fn bit_transpose(&self, out: &mut CudaBits, b: &CudaBits) -> Result<()> {
        self.bit_transpose_op(out, b)
    }
    fn quantize(&self, out: &mut BitPlanes<Self>, x: &CudaDense<f32>) -> Result<()> {
        self.quantize_op(out, x)
    }
    fn dequantize(&self, out: &mut CudaDense<f32>, p: &BitPlanes<Self>) -> Result<()> {
        self.dequantize_op(out, p)
    }
    fn bmm(
        &self,
        out: BitOutput<'_, Self>,
        semiring: BitSemiring,
        a: BitInput<'_, Self>,
        w: &CudaBits,
    ) -> Result<()> {
        self.bmm_op(out, semiring, a, w)
    }
    fn bspmm(
        &self,
        out: BitOutput<'_, Self>,
        semiring: BitSemiring,
        a: &CudaMatrix<bool>,
        x: &CudaBits,
    ) -> Result<()> {
        self.bspmm_op(out, semiring, a, x)
    }
    fn bmm_planes(
        &self,
        out: BitOutput<'_, Self>,
        a: &BitPlanes<Self>,
        w: &BitPlanes<Self>,
    ) -> Result<()> {
        self.bmm_planes_op(out, a, w)
    }
    fn bspmm_planes(
        &self,
        out: BitOutput<'_, Self>,
        a: &CudaMatrix<bool>,
        x: &BitPlanes<Self>,
    ) -> Result<()> {
        self.bspmm_planes_op(out, a, x)
    }
}
