//! A matrix's pattern with one value of another type: the GNN layers read
//! one adjacency `A + I` both as a bit pattern (binary aggregation) and as
//! `f32` ones (the GCN aggregation). A device backend keeps one copy of the
//! pattern for both.

use crate::backend::Backend;
use crate::container::{Matrix, MatrixRepr};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::storage::Csr;

/// [`super::BackendExt::pattern_with`] from the other entry points: `a`
/// brought to the host, its pattern given `value` everywhere (in `a`'s
/// format), and the result brought back.
///
/// ```
/// use bitgraphblas::ext::pattern::pattern_with_generic;
/// use bitgraphblas::{Backend, Cpu, Matrix};
/// let cpu = Cpu::new();
/// let a = Matrix::from_triplets(2, 2, vec![(0, 1, true), (1, 0, true)])?;
/// let ones = pattern_with_generic(&cpu, &cpu.upload_matrix(&a)?, 1.0f32)?;
/// assert_eq!((ones.get(0, 1), ones.get(0, 0)), (Some(1.0), None));
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
pub fn pattern_with_generic<B: Backend, T: Scalar, U: Scalar>(
    b: &B,
    a: &B::Matrix<T>,
    value: U,
) -> Result<B::Matrix<U>> {
    let host = b.download_matrix(a)?;
    let (nrows, ncols) = (host.nrows(), host.ncols());
    let out = match host.into_repr() {
        MatrixRepr::B2sr { pattern, .. } => Matrix::from_b2sr(pattern, value),
        MatrixRepr::Csr(c) => {
            let nnz = c.nnz();
            let (row_ptr, col_idx, _) = c.into_parts();
            Matrix::from_csr(Csr::try_new(
                nrows,
                ncols,
                row_ptr,
                col_idx,
                vec![value; nnz],
            )?)
        }
    };
    b.upload_matrix_owned(out)
}
