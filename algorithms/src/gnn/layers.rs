//! The pieces GNN layers are made of, loaded from a [`Weights`] file onto
//! a backend, each applied with `ops` calls only: f32 linear maps, binary
//! linear maps (BMM on bits with Bi-GCN's per-column scale), k-bit linear
//! maps (bit planes, QGTC), biases and batch norms folded into thresholds.

use bitgraphblas::algebra::BindSecond;
use bitgraphblas::algebra::{BitSemiring, Max, Plus, PlusTimes};
use bitgraphblas::backend::Backend;
use bitgraphblas::storage::BitLayout;
use bitgraphblas::{
    ops, BitInput, BitOutput, BitPlanes, Cpu, DenseMatrix, Desc, Scales, Threshold, Vector,
};

use super::error::{GnnError, GnnResult};
use super::graph::{shape, Features};
use super::weights::Weights;

/// The input of a weight product: node features or a hidden layer.
pub enum Act<'a, B: Backend> {
    /// f32 values, dense.
    Dense(&'a B::Dense<f32>),
    /// f32 values, sparse (features).
    Sparse(&'a B::Matrix<f32>),
    /// 0/1 bits (binary features).
    Binary(&'a B::Bits),
    /// 0/1 features as the sparse pattern of their ones.
    Pattern(&'a B::Matrix<bool>),
    /// +1/-1 bits (a binarised hidden layer).
    Signed(&'a B::Bits),
    /// k-bit codes (bit planes).
    Planes(&'a BitPlanes<B>),
}

impl<'a, B: Backend> Act<'a, B> {
    /// The features as a weight product reads them.
    pub fn features(f: &'a Features<B>) -> Self {
        match f {
            Features::Sparse(x) => Act::Sparse(x),
            Features::Bits(x) => Act::Binary(x),
            Features::Pattern(x) => Act::Pattern(x),
            Features::Dense(x) => Act::Dense(x),
            Features::Plane(p) => Act::Planes(p),
        }
    }

    /// The bit product's left operand and the semiring that reads it with
    /// +1/-1 weights.
    fn bit_input(&self) -> GnnResult<(BitInput<'a, B>, BitSemiring)> {
        Ok(match *self {
            Act::Dense(x) => (BitInput::F32(x), BitSemiring::PLUS_LAND_SIGNED),
            Act::Binary(x) => (BitInput::Bits(x), BitSemiring::PLUS_LAND_SIGNED),
            Act::Signed(x) => (BitInput::Bits(x), BitSemiring::PLUS_XNOR),
            Act::Sparse(_) | Act::Pattern(_) | Act::Planes(_) => {
                return Err(GnnError::Library(bitgraphblas::Error::InvalidStorage {
                    what: "binary layer input",
                    detail: "sparse features or bit planes: a binary layer reads bits or dense f32"
                        .into(),
                }))
            }
        })
    }
}

/// An f32 `x W` with `W` `[in, out]`.
pub struct Linear<B: Backend> {
    weight: B::Dense<f32>,
}

impl<B: Backend> Linear<B> {
    /// `NAME.weight`, `[fin, fout]` (`fout = None`: read from the file).
    pub fn load(
        b: &B,
        w: &Weights,
        name: &str,
        fin: usize,
        fout: Option<usize>,
    ) -> GnnResult<Self> {
        let key = format!("{name}.weight");
        let fout = match fout {
            Some(f) => f,
            None => out_width(w, &key, 1)?,
        };
        Ok(Linear {
            weight: b.upload_dense(&w.f32_matrix(&key, fin, fout)?)?,
        })
    }

    /// The output width.
    pub fn out(&self) -> usize {
        shape(&self.weight).1
    }

    /// `x W`.
    pub fn apply(&self, b: &B, x: Act<'_, B>) -> GnnResult<B::Dense<f32>> {
        let n = match &x {
            Act::Dense(d) => shape(*d).0,
            Act::Sparse(m) => shape(*m).0,
            Act::Binary(_) | Act::Pattern(_) | Act::Signed(_) | Act::Planes(_) => {
                return Err(GnnError::Library(bitgraphblas::Error::InvalidStorage {
                    what: "f32 layer input",
                    detail: "bits: an f32 layer reads f32 values".into(),
                }))
            }
        };
        let mut y = b.dense_for_output::<f32>(n, self.out())?;
        match x {
            Act::Dense(d) => ops::dense_mxm(b, &mut y, PlusTimes::<f32>::new(), d, &self.weight)?,
            Act::Sparse(m) => ops::mxm_dense(
                b,
                &mut y,
                PlusTimes::<f32>::new(),
                m,
                &self.weight,
                &Desc::new(),
            )?,
            _ => unreachable!("refused above"),
        }
        Ok(y)
    }
}

/// Dimension `dim` of tensor `key`, which must have rank `dim + 1` (the
/// output width of a `[in, out]` weight with `dim = 1`, of a `[out]` scale
/// with `dim = 0`).
fn out_width(w: &Weights, key: &str, dim: usize) -> GnnResult<usize> {
    let s = w.shape(key)?;
    s.get(dim)
        .copied()
        .filter(|_| s.len() == dim + 1)
        .ok_or_else(|| {
            GnnError::tensor(
                w.path(),
                key,
                format!("has shape {s:?}, expected rank {}", dim + 1),
            )
        })
}

/// A bias `NAME.bias` added to every row.
pub struct Bias<B: Backend> {
    /// `[len]`.
    pub bias: B::Vector<f32>,
}

impl<B: Backend> Bias<B> {
    /// `NAME.bias`, `[len]`.
    pub fn load(b: &B, w: &Weights, name: &str, len: usize) -> GnnResult<Self> {
        let v = w.f32_vector(&format!("{name}.bias"), len)?;
        Ok(Bias {
            bias: b.upload_vector(&Vector::from_dense(v))?,
        })
    }

    /// `y + bias` (row by row).
    pub fn add(&self, b: &B, y: &B::Dense<f32>) -> GnnResult<B::Dense<f32>> {
        let (n, k) = shape(y);
        let mut z = b.dense_for_output::<f32>(n, k)?;
        ops::scale_dense_cols(b, &mut z, Plus, y, &self.bias)?;
        Ok(z)
    }
}

/// `max(y, 0)`.
pub fn relu<B: Backend>(b: &B, y: &B::Dense<f32>) -> GnnResult<B::Dense<f32>> {
    let (n, k) = shape(y);
    let mut z = b.dense_for_output::<f32>(n, k)?;
    ops::apply_dense(b, &mut z, BindSecond(Max, 0.0f32), y)?;
    Ok(z)
}

/// `y + z`.
pub fn add<B: Backend>(b: &B, y: &B::Dense<f32>, z: &B::Dense<f32>) -> GnnResult<B::Dense<f32>> {
    let (n, k) = shape(y);
    let mut s = b.dense_for_output::<f32>(n, k)?;
    ops::ewise_dense(b, &mut s, Plus, y, z)?;
    Ok(s)
}

/// A binary `x sign(W)`: the sign bits of `W` (`NAME.weight_bits`, packed
/// `[in, ceil(out / 8)]`) and Bi-GCN's per-column factor (`NAME.scale`,
/// `[out]`, the mean of `|W|`).
pub struct BinLinear<B: Backend> {
    weight: B::Bits,
    /// The same bits row-major: the right operand of `bspmm` for features
    /// stored as a pattern.
    weight_rows: B::Bits,
    scale: B::Dense<f32>,
    /// The factor as a vector: the column scale `s` of an aggregation of
    /// the integer product ([`GnnGraph::gcn_counts`](super::GnnGraph::gcn_counts)).
    col_scale: B::Vector<f32>,
}

impl<B: Backend> BinLinear<B> {
    /// Loads `NAME.weight_bits` and `NAME.scale` for `fin` inputs.
    pub fn load(
        b: &B,
        w: &Weights,
        name: &str,
        fin: usize,
        fout: Option<usize>,
    ) -> GnnResult<Self> {
        let skey = format!("{name}.scale");
        let fout = match fout {
            Some(f) => f,
            None => out_width(w, &skey, 0)?,
        };
        let scale = w.f32_vector(&skey, fout)?;
        let bits = |layout| w.packed_bits(&format!("{name}.weight_bits"), fin, fout, layout);
        Ok(BinLinear {
            weight: b.upload_bits(&bits(BitLayout::ColMajor)?)?,
            weight_rows: b.upload_bits(&bits(BitLayout::RowMajor)?)?,
            col_scale: b.upload_vector(&Vector::from_dense(scale.clone()))?,
            scale: b.upload_dense(&DenseMatrix::from_vec(1, fout, scale)?)?,
        })
    }

    /// The output width.
    pub fn out(&self) -> usize {
        shape(&self.weight).1
    }

    /// `x sign(W)` written as `out`: BMM on bits or f32; on a pattern of
    /// ones, BSpMM by the row-major weights (the same sums: `±w_kj` over the
    /// row's ones `k`, as PLUS.LAND_SIGNED counts them either way).
    fn product_into(&self, b: &B, out: BitOutput<'_, B>, x: Act<'_, B>) -> GnnResult<()> {
        if let Act::Pattern(p) = x {
            ops::bspmm(b, out, BitSemiring::PLUS_LAND_SIGNED, p, &self.weight_rows)?;
        } else {
            let (input, semiring) = x.bit_input()?;
            ops::bmm(b, out, semiring, input, &self.weight)?;
        }
        Ok(())
    }

    /// The rows of the product `x sign(W)`.
    fn rows(x: &Act<'_, B>) -> GnnResult<usize> {
        Ok(match x {
            Act::Pattern(p) => shape(*p).0,
            _ => x.bit_input()?.0.shape().0,
        })
    }

    /// `BMM.?BF`: `(x sign(W)) * scale`, f32.
    pub fn scaled(&self, b: &B, x: Act<'_, B>) -> GnnResult<B::Dense<f32>> {
        let mut y = b.dense_for_output::<f32>(Self::rows(&x)?, self.out())?;
        let out = BitOutput::Scaled {
            out: &mut y,
            scales: Scales {
                col: Some(&self.scale),
                ..Scales::default()
            },
        };
        self.product_into(b, out, x)?;
        Ok(y)
    }

    /// What a fused call passes to `bmm` for a +1/-1 input (the `Signed`
    /// activation) to get the integer product `x sign(W)` (`PLUS.XNOR`
    /// counts) into `v`: the output, the semiring and the weight bits. The
    /// layer's value is those counts times [`BinLinear::col_scale`].
    pub(crate) fn signed_counts<'o>(
        &'o self,
        v: &'o mut B::Dense<i32>,
    ) -> (BitOutput<'o, B>, BitSemiring, &'o B::Bits) {
        (BitOutput::Counts(v), BitSemiring::PLUS_XNOR, &self.weight)
    }

    /// The per-column factor (Bi-GCN's mean of `|W|`) as a vector.
    pub fn col_scale(&self) -> &B::Vector<f32> {
        &self.col_scale
    }

    /// `BMM.?BB`: bit `ij` is `(x sign(W))_ij >= t_j` (the integer product,
    /// unscaled: a positive scale before a threshold folds into it).
    pub fn bits(&self, b: &B, x: Act<'_, B>, t: &B::Dense<f32>) -> GnnResult<B::Bits> {
        let mut h = b.bits_for_output(Self::rows(&x)?, self.out(), BitLayout::RowMajor)?;
        let out = BitOutput::Bits {
            out: &mut h,
            scales: Scales::default(),
            threshold: Threshold::PerColumn(t),
        };
        self.product_into(b, out, x)?;
        Ok(h)
    }
}

/// A batch norm with a positive scale followed by a sign, folded into the
/// per-column threshold `t = mean - bias * sqrt(var + eps) / weight`
/// (f32, in that order): `BN(u) >= 0` exactly when `u >= t`.
pub struct BnThreshold<B: Backend> {
    /// `1 x n`.
    pub threshold: B::Dense<f32>,
}

impl<B: Backend> BnThreshold<B> {
    /// Folds `NAME.{weight, bias, running_mean, running_var, eps}`.
    pub fn load(b: &B, w: &Weights, name: &str, n: usize) -> GnnResult<Self> {
        let get = |p: &str| w.f32_vector(&format!("{name}.{p}"), n);
        let (gamma, beta, mean, var) = (
            get("weight")?,
            get("bias")?,
            get("running_mean")?,
            get("running_var")?,
        );
        let eps = w.f32_vector(&format!("{name}.eps"), 1)?[0];
        if let Some(j) = gamma.iter().position(|&g| g <= 0.0) {
            return Err(GnnError::tensor(
                w.path(),
                &format!("{name}.weight"),
                format!(
                    "entry {j} is {}: a batch norm folded into a sign needs a positive scale",
                    gamma[j]
                ),
            ));
        }
        if let Some(j) = var.iter().position(|&v| v + eps < 0.0) {
            return Err(GnnError::tensor(
                w.path(),
                &format!("{name}.running_var"),
                format!("entry {j} is {} (a variance is not negative)", var[j]),
            ));
        }
        let t: Vec<f32> = (0..n)
            .map(|j| mean[j] - beta[j] * (var[j] + eps).sqrt() / gamma[j])
            .collect();
        Ok(BnThreshold {
            threshold: b.upload_dense(&DenseMatrix::from_vec(1, n, t)?)?,
        })
    }
}

/// A k-bit `x Q(W)` (QGTC): `W` (`NAME.weight`, f32 `[in, out]`) quantised
/// at load to `bits` bits per tensor, zero point `2^(bits-1)`, scale
/// `max|W| / (2^(bits-1) - 1)` (1 for an all-zero `W`), as column-major
/// bit planes.
pub struct QLinear<B: Backend> {
    planes: BitPlanes<B>,
}

impl<B: Backend> QLinear<B> {
    /// Loads and quantises `NAME.weight`.
    pub fn load(
        b: &B,
        w: &Weights,
        name: &str,
        fin: usize,
        bits: u32,
        fout: Option<usize>,
    ) -> GnnResult<Self> {
        let key = format!("{name}.weight");
        let fout = match fout {
            Some(f) => f,
            None => out_width(w, &key, 1)?,
        };
        let wf = w.f32_matrix(&key, fin, fout)?;
        let max = wf.as_slice().iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let levels = ((1u32 << (bits - 1)) - 1) as f32;
        let scale = if max > 0.0 { max / levels } else { 1.0 };
        let zero = (1u32 << (bits - 1)) as f32;
        let cpu = Cpu::new();
        let host = planes_new(&cpu, fin, fout, bits, BitLayout::ColMajor, scale, zero)?;
        let mut host = host;
        ops::quantize(&cpu, &mut host, &wf)?;
        let planes = host
            .planes()
            .iter()
            .map(|p| b.upload_bits(p))
            .collect::<bitgraphblas::Result<Vec<_>>>()?;
        Ok(QLinear {
            planes: BitPlanes::new(
                planes,
                b.upload_dense(&DenseMatrix::filled(1, 1, scale))?,
                b.upload_dense(&DenseMatrix::filled(1, 1, zero))?,
            )?,
        })
    }

    /// The output width.
    pub fn out(&self) -> usize {
        self.planes.ncols()
    }

    /// `deq(x) deq(Q(W))`, f32.
    pub fn apply(&self, b: &B, x: &BitPlanes<B>) -> GnnResult<B::Dense<f32>> {
        let mut y = b.dense_for_output::<f32>(x.nrows(), self.out())?;
        let out = BitOutput::Scaled {
            out: &mut y,
            scales: Scales::default(),
        };
        ops::bmm_planes(b, out, x, &self.planes)?;
        Ok(y)
    }
}

/// `bits` planes of `m x n` in `layout` for [`ops::quantize`] to write
/// (unfilled until then), per-tensor `scale` and `zero`.
pub fn planes_new<B: Backend>(
    b: &B,
    m: usize,
    n: usize,
    bits: u32,
    layout: BitLayout,
    scale: f32,
    zero: f32,
) -> GnnResult<BitPlanes<B>> {
    let planes = (0..bits)
        .map(|_| b.bits_for_output(m, n, layout))
        .collect::<bitgraphblas::Result<Vec<_>>>()?;
    // filled on the backend, not uploaded: a forward pass copies nothing
    // from the host (so that it can be recorded, `ext::Replay`)
    Ok(BitPlanes::new(
        planes,
        b.dense_new(1, 1, scale)?,
        b.dense_new(1, 1, zero)?,
    )?)
}
