//! A dataset's graph and features on a backend, in the forms the layers
//! read (only those a model needs are built), and the three aggregations:
//! GCN's `D^-1/2 (A + I) D^-1/2 h + bias` (two diagonal scalings around a
//! pattern product, one fused call `ext::mxm_dense_scaled`: the normalised
//! matrix is never built), SAGE's mean `D^-1 A h` and GraphConv's sum `A h`;
//! and the binary aggregation `BSpMM.BBB`.

use bitgraphblas::algebra::{BitSemiring, PlusTimes};
use bitgraphblas::backend::{auto_formats, Backend, Product};
use bitgraphblas::ext::{self, DenseScales};
use bitgraphblas::storage::{BitLayout, Csr};
use bitgraphblas::{
    ops, BackendExt, BitOutput, DenseMatrix, Desc, Format, Matrix, Scalar, Scales, Threshold,
    Vector,
};

use super::dataset::Dataset;
use super::error::{GnnError, GnnResult};
use super::layers::BinLinear;

/// Which device forms a model reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// `A + I` and `D^-1/2` (GCN aggregation).
    pub gcn: bool,
    /// `A + I` as a bit pattern for `bspmm` (binary aggregation).
    pub closed_bits: bool,
    /// `A` (mean and sum aggregation).
    pub plain: bool,
    /// `D^-1` (mean aggregation).
    pub mean: bool,
    /// The features as the layers read them.
    pub features: FeatureForm,
}

/// How a model reads the node features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeatureForm {
    /// A sparse `f32` matrix (the f32 models' `X W`).
    #[default]
    Sparse,
    /// Bits when the features are all 0/1, else dense `f32` (the binary
    /// models' first weight product).
    BitsOrDense,
    /// As `BitsOrDense`, but 0/1 features whose pattern of ones takes fewer
    /// bytes than their bits are kept as that pattern (Cora, CiteSeer), for
    /// a first product that writes bits (`bigcn-bin`: on an H200, with the
    /// kernel changes of the same run, Cora 0.027 -> 0.025 ms and CiteSeer
    /// 0.032 -> 0.026 ms). Into f32, `bspmm` on the pattern was slower than
    /// the BMM on bits (`bigcn` on Cora 0.027 -> 0.035 ms), so the other
    /// binary models keep the bits.
    PatternBitsOrDense,
    /// One bit plane (scale 1, zero point 0): the k-bit models' first
    /// product; the features must be 0/1.
    Plane,
}

/// The features on the device.
pub enum Features<B: Backend> {
    /// Sparse `f32`.
    Sparse(B::Matrix<f32>),
    /// 0/1 features as row-major bits.
    Bits(B::Bits),
    /// 0/1 features as the sparse pattern of their ones (CSR), where that
    /// takes fewer bytes than the bits (few ones a row: Cora, CiteSeer).
    Pattern(B::Matrix<bool>),
    /// Other features, dense.
    Dense(B::Dense<f32>),
    /// 0/1 features as a one-bit plane.
    Plane(bitgraphblas::BitPlanes<B>),
}

/// A dataset's graph operators and features, resident on a backend.
pub struct GnnGraph<B: Backend> {
    nodes: usize,
    format: Format,
    ahat: Option<B::Matrix<f32>>,
    ahat_bits: Option<B::Matrix<bool>>,
    adj: Option<B::Matrix<f32>>,
    dinv_sqrt: Option<B::Vector<f32>>,
    inv_deg: Option<B::Vector<f32>>,
    /// The node features.
    pub features: Features<B>,
}

/// `m`'s pattern with every stored entry `one`, in `format`.
fn pattern_as<T: Scalar>(m: &Matrix<bool>, format: Format, one: T) -> GnnResult<Matrix<T>> {
    let csr = m.as_csr();
    let rp = csr.row_ptr();
    let triplets = (0..m.nrows())
        .flat_map(|i| {
            csr.col_idx()[rp[i]..rp[i + 1]]
                .iter()
                .map(move |&j| (i, j as usize, one))
        })
        .collect();
    Ok(Matrix::from_triplets(m.nrows(), m.ncols(), triplets)?.to_format(format)?)
}

/// `A` with the diagonal added where it is missing.
fn with_self_loops(a: &Matrix<bool>) -> GnnResult<Matrix<bool>> {
    let csr = a.as_csr();
    let rp = csr.row_ptr();
    let mut t = Vec::with_capacity(csr.nnz() + a.nrows());
    for i in 0..a.nrows() {
        let row = &csr.col_idx()[rp[i]..rp[i + 1]];
        t.extend(row.iter().map(|&j| (i, j as usize, true)));
        if !row.contains(&(i as u32)) {
            t.push((i, i, true));
        }
    }
    Ok(Matrix::from_triplets(a.nrows(), a.ncols(), t)?)
}

/// Row lengths of a host matrix.
fn degrees(a: &Matrix<bool>) -> Vec<usize> {
    let csr = a.as_csr();
    csr.row_ptr().windows(2).map(|w| w[1] - w[0]).collect()
}

impl<B: Backend> GnnGraph<B> {
    /// Uploads what `needs` asks for. `format` is the adjacency's format
    /// (`Format::Auto`: the sampling profile's choice, as the backend
    /// prefers it for pattern products).
    pub fn upload(backend: &B, data: &Dataset, needs: Needs, format: Format) -> GnnResult<Self>
    where
        B: BackendExt,
    {
        let a = &data.adjacency;
        // the bit products read the pattern, the f32 aggregations values
        // (all 1), both by dense matrices: each in the format the backend
        // runs it best in
        let (format, value_format) = auto_formats(backend, format, &a.as_csr(), Product::ByDense);
        let mut g = GnnGraph {
            nodes: data.nodes(),
            format,
            ahat: None,
            ahat_bits: None,
            adj: None,
            dinv_sqrt: None,
            inv_deg: None,
            features: Features::Sparse(backend.upload_matrix(&Matrix::<f32>::empty(0, 0))?),
        };
        if needs.gcn || needs.closed_bits {
            let ahat = with_self_loops(a)?;
            if needs.gcn {
                let d: Vec<f32> = degrees(&ahat)
                    .iter()
                    .map(|&d| 1.0 / (d as f32).sqrt())
                    .collect();
                g.dinv_sqrt = Some(backend.upload_vector(&Vector::from_dense(d))?);
            }
            if needs.closed_bits {
                g.ahat_bits = Some(backend.upload_matrix_owned(ahat.to_format(format)?)?);
            }
            g.ahat = match (&g.ahat_bits, needs.gcn) {
                // one pattern for both (on the GPU, one copy of it)
                (Some(bits), true) if format == value_format => {
                    Some(ext::pattern_with(backend, bits, 1.0f32)?)
                }
                (_, true) => {
                    Some(backend.upload_matrix_owned(pattern_as(&ahat, value_format, 1.0f32)?)?)
                }
                (_, false) => None,
            };
        }
        if needs.plain || needs.mean {
            g.adj = Some(backend.upload_matrix_owned(pattern_as(a, value_format, 1.0f32)?)?);
        }
        if needs.mean {
            let inv: Vec<f32> = degrees(a)
                .iter()
                .map(|&d| if d == 0 { 0.0 } else { 1.0 / d as f32 })
                .collect();
            g.inv_deg = Some(backend.upload_vector(&Vector::from_dense(inv))?);
        }
        g.features = match needs.features {
            FeatureForm::Sparse => Features::Sparse(backend.upload_matrix(&data.features)?),
            FeatureForm::BitsOrDense | FeatureForm::PatternBitsOrDense => {
                let pattern_ok = needs.features == FeatureForm::PatternBitsOrDense;
                upload_features(backend, &data.features, data.binary_features(), pattern_ok)?
            }
            FeatureForm::Plane => {
                if !data.binary_features() {
                    return Err(GnnError::file(
                        format!("{} features", data.name),
                        "the k-bit models read 0/1 features; these have other values",
                    ));
                }
                let Features::Bits(x) = upload_features(backend, &data.features, true, false)?
                else {
                    unreachable!("0/1 features upload as bits")
                };
                let one = backend.upload_dense(&DenseMatrix::filled(1, 1, 1.0f32))?;
                let zero = backend.upload_dense(&DenseMatrix::filled(1, 1, 0.0f32))?;
                Features::Plane(bitgraphblas::BitPlanes::new(vec![x], one, zero)?)
            }
        };
        Ok(g)
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The adjacency's format.
    pub fn format(&self) -> Format {
        self.format
    }

    fn need<'a, T>(what: &'static str, x: &'a Option<T>) -> GnnResult<&'a T> {
        x.as_ref().ok_or_else(|| {
            GnnError::Library(bitgraphblas::Error::InvalidStorage {
                what: "GNN graph",
                detail: format!("{what} was not uploaded for this model"),
            })
        })
    }

    /// `A + I` and the scalings of a GCN aggregation: `D^-1/2` on both
    /// sides, the column factor `col` and the bias where given.
    #[allow(clippy::type_complexity)]
    fn gcn_parts<'a>(
        &'a self,
        col: Option<&'a B::Vector<f32>>,
        bias: Option<&'a B::Vector<f32>>,
    ) -> GnnResult<(&'a B::Matrix<f32>, DenseScales<'a, B, f32>)> {
        let d = Self::need("D^-1/2", &self.dinv_sqrt)?;
        let scales = DenseScales {
            left: Some(d),
            right: Some(d),
            col,
            bias,
        };
        Ok((Self::need("A + I", &self.ahat)?, scales))
    }

    /// `D^-1/2 (A + I) D^-1/2 y + bias`.
    pub fn gcn(
        &self,
        b: &B,
        y: &B::Dense<f32>,
        bias: Option<&B::Vector<f32>>,
    ) -> GnnResult<B::Dense<f32>>
    where
        B: BackendExt,
    {
        let (ahat, scales) = self.gcn_parts(None, bias)?;
        let (n, k) = shape(y);
        let mut s = b.dense_for_output::<f32>(n, k)?;
        ext::mxm_dense_scaled(b, &mut s, PlusTimes::<f32>::new(), ahat, y, scales)?;
        Ok(s)
    }

    /// `A y`: the sum over the neighbours.
    pub fn sum(&self, b: &B, y: &B::Dense<f32>) -> GnnResult<B::Dense<f32>> {
        let a = Self::need("A", &self.adj)?;
        let (n, k) = shape(y);
        let mut p = b.dense_for_output::<f32>(n, k)?;
        ops::mxm_dense(b, &mut p, PlusTimes::<f32>::new(), a, y, &Desc::new())?;
        Ok(p)
    }

    /// `D^-1 A y`: the mean over the neighbours (0 for an isolated node).
    pub fn mean(&self, b: &B, y: &B::Dense<f32>) -> GnnResult<B::Dense<f32>>
    where
        B: BackendExt,
    {
        let inv = Self::need("D^-1", &self.inv_deg)?;
        let a = Self::need("A", &self.adj)?;
        let (n, k) = shape(y);
        let mut s = b.dense_for_output::<f32>(n, k)?;
        let scales = DenseScales {
            left: Some(inv),
            ..DenseScales::default()
        };
        ext::mxm_dense_scaled(b, &mut s, PlusTimes::<f32>::new(), a, y, scales)?;
        Ok(s)
    }

    /// `D^-1/2 (A + I) D^-1/2 (v diag(s)) + bias` for integer counts `v`
    /// (a binary layer's product before its column factor `s`), as
    /// [`ext::mxm_counts_scaled`] computes it: the factor after the sum.
    /// On the GPU, where rows are long, the counts are gathered as bytes.
    pub fn gcn_counts(
        &self,
        b: &B,
        v: &B::Dense<i32>,
        s: &B::Vector<f32>,
        bias: Option<&B::Vector<f32>>,
    ) -> GnnResult<B::Dense<f32>>
    where
        B: BackendExt,
    {
        let (ahat, scales) = self.gcn_parts(Some(s), bias)?;
        let (n, k) = shape(v);
        let mut out = b.dense_for_output::<f32>(n, k)?;
        ext::mxm_counts_scaled(b, &mut out, ahat, v, scales)?;
        Ok(out)
    }

    /// `BSpMM.BBB`, then `lin`'s integer product of its result read as
    /// +1/-1 (`BMM.BBI`: `PLUS.XNOR` counts, before the layer's column
    /// factor), in one call ([`ext::bspmm_bmm`]: one kernel on the GPU, as
    /// BitGNN fuses them). Bit `ij` of the first is
    /// `Σ_{j' ∈ N(i) ∪ {i}} ±h_j'j >= t_j` (`h` read as +1/-1). Returns the
    /// bits and the counts.
    pub fn closed_sum_bits_then(
        &self,
        b: &B,
        h: &B::Bits,
        t: &B::Dense<f32>,
        lin: &BinLinear<B>,
    ) -> GnnResult<(B::Bits, B::Dense<i32>)>
    where
        B: BackendExt,
    {
        let a = Self::need("A + I bits", &self.ahat_bits)?;
        let (n, k) = shape(h);
        let mut q = b.bits_for_output(n, k, BitLayout::RowMajor)?;
        let mut v = b.dense_for_output::<i32>(n, lin.out())?;
        let first = BitOutput::Bits {
            out: &mut q,
            scales: Scales::default(),
            threshold: Threshold::PerColumn(t),
        };
        let (second, semiring, w) = lin.signed_counts(&mut v);
        ext::bspmm_bmm(
            b,
            first,
            BitSemiring::PLUS_LAND_SIGNED,
            a,
            h,
            second,
            semiring,
            w,
        )?;
        Ok((q, v))
    }
}

/// `(nrows, ncols)` of a backend container.
pub(crate) fn shape<M: bitgraphblas::backend::MatrixShape>(m: &M) -> (usize, usize) {
    (m.nrows(), m.ncols())
}

/// The features as bits or the pattern of their ones (all 0/1; the
/// pattern where `pattern_ok` and its CSR arrays take fewer bytes than the
/// bits), or dense `f32`.
fn upload_features<B: Backend>(
    backend: &B,
    x: &Matrix<f32>,
    binary: bool,
    pattern_ok: bool,
) -> GnnResult<Features<B>> {
    let (n, f) = (x.nrows(), x.ncols());
    let csr = x.as_csr();
    let rp = csr.row_ptr();
    let ones = csr.values().iter().filter(|&&v| v == 1.0).count();
    if binary && pattern_ok && 4 * (ones + n + 1) < n * f.div_ceil(64) * 8 {
        let (mut row_ptr, mut col_idx) = (Vec::with_capacity(n + 1), Vec::with_capacity(ones));
        row_ptr.push(0);
        for i in 0..n {
            let row = rp[i]..rp[i + 1];
            col_idx.extend(
                row.filter(|&p| csr.values()[p] == 1.0)
                    .map(|p| csr.col_idx()[p]),
            );
            row_ptr.push(col_idx.len());
        }
        let pattern = Csr::try_new(n, f, row_ptr, col_idx, vec![true; ones])?;
        return Ok(Features::Pattern(
            backend.upload_matrix_owned(Matrix::from_csr(pattern))?,
        ));
    }
    if binary {
        let mut bits = bitgraphblas::storage::BitMatrix::zeros(n, f, BitLayout::RowMajor)?;
        for i in 0..n {
            for (k, &j) in csr.col_idx()[rp[i]..rp[i + 1]].iter().enumerate() {
                if csr.values()[rp[i] + k] == 1.0 {
                    bits.set(i, j as usize, true)?;
                }
            }
        }
        return Ok(Features::Bits(backend.upload_bits(&bits)?));
    }
    let mut d = DenseMatrix::filled(n, f, 0.0f32);
    let s = d.as_mut_slice();
    for i in 0..n {
        for (k, &j) in csr.col_idx()[rp[i]..rp[i + 1]].iter().enumerate() {
            s[i * f + j as usize] = csr.values()[rp[i] + k];
        }
    }
    Ok(Features::Dense(backend.upload_dense(&d)?))
}
