//! The models of `bitgraphblas gnn`: which layers each stacks, loaded from
//! a weights file, and their forward pass (generic over the backend).
//!
//! Every model's exact arithmetic is the one `scripts/gnn_models.py`
//! trains and exports (`infer`), so that the predictions of both agree.

use bitgraphblas::backend::Backend;
use bitgraphblas::storage::BitLayout;
use bitgraphblas::BackendExt;
use bitgraphblas::{ops, BitPlanes, Threshold};

use super::error::{GnnError, GnnResult};
use super::graph::{shape, FeatureForm, GnnGraph, Needs};
use super::layers::{add, planes_new, relu, Act, Bias, BinLinear, BnThreshold, Linear, QLinear};
use super::weights::Weights;

/// A model `bitgraphblas gnn --model` runs.
///
/// ```
/// use bitgraphblas_algorithms::gnn::Model;
/// assert_eq!(Model::parse("gcn-q4")?, Model::GcnQ(4));
/// assert_eq!(Model::BiGcnBin.name(), "bigcn-bin");
/// assert!(Model::parse("gat").is_err());
/// # Ok::<(), bitgraphblas_algorithms::gnn::GnnError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// GCN, 2 layers, f32.
    Gcn,
    /// GCN with k-bit weights and hidden activations (QGTC), k in 2..=8.
    GcnQ(u32),
    /// Bi-GCN: binary weight products, f32 aggregation ("full").
    BiGcn,
    /// Bi-GCN with binary aggregation in the first layer (BitGNN's "bin":
    /// BMM.BBB + BSpMM.BBB, then BMM.BBF + f32 aggregation).
    BiGcnBin,
    /// GraphSAGE, mean aggregation plus root weight, f32.
    Sage,
    /// GraphSAGE with binary weight products.
    BiSage,
    /// GraphSAINT-style: 2 GraphConv (sum plus root) and a Linear, f32.
    Saint,
    /// The same with binary weight products.
    BiSaint,
}

impl Model {
    /// Every model, in the order `--help` lists them.
    pub const ALL: [Model; 10] = [
        Model::Gcn,
        Model::GcnQ(8),
        Model::GcnQ(4),
        Model::GcnQ(2),
        Model::BiGcn,
        Model::BiGcnBin,
        Model::Sage,
        Model::BiSage,
        Model::Saint,
        Model::BiSaint,
    ];

    /// The model's name (`gcn`, `gcn-q4`, `bigcn-bin`, ...).
    pub fn name(self) -> String {
        match self {
            Model::Gcn => "gcn".into(),
            Model::GcnQ(k) => format!("gcn-q{k}"),
            Model::BiGcn => "bigcn".into(),
            Model::BiGcnBin => "bigcn-bin".into(),
            Model::Sage => "sage".into(),
            Model::BiSage => "bisage".into(),
            Model::Saint => "saint".into(),
            Model::BiSaint => "bisaint".into(),
        }
    }

    /// Every model's name.
    pub fn names() -> Vec<String> {
        Model::ALL.iter().map(|m| m.name()).collect()
    }

    /// One line on what the model computes.
    pub fn describe(self) -> &'static str {
        match self {
            Model::Gcn => "GCN, 2 layers, f32",
            Model::GcnQ(_) => "GCN with k-bit weights and hidden activations on bit planes (QGTC)",
            Model::BiGcn => "Bi-GCN: binary weight products, f32 aggregation",
            Model::BiGcnBin => {
                "Bi-GCN with binary aggregation (BitGNN bin: BMM.BBB + BSpMM.BBB, BMM.BBF + SpMM)"
            }
            Model::Sage => "GraphSAGE, mean aggregation plus root weight, f32",
            Model::BiSage => "GraphSAGE with binary weight products",
            Model::Saint => "GraphSAINT-style: 2 GraphConv (sum plus root) and a Linear, f32",
            Model::BiSaint => "GraphSAINT-style with binary weight products",
        }
    }

    /// The model called `name`.
    pub fn parse(name: &str) -> GnnResult<Model> {
        if let Some(k) = name.strip_prefix("gcn-q") {
            return match k.parse::<u32>() {
                Ok(k @ 2..=8) => Ok(Model::GcnQ(k)),
                _ => Err(GnnError::UnknownModel(name.to_string())),
            };
        }
        Model::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| GnnError::UnknownModel(name.to_string()))
    }

    /// The graph forms and feature form the model reads.
    pub fn needs(self) -> Needs {
        let binary = FeatureForm::BitsOrDense;
        match self {
            Model::Gcn => Needs {
                gcn: true,
                ..Needs::default()
            },
            Model::GcnQ(_) => Needs {
                gcn: true,
                features: FeatureForm::Plane,
                ..Needs::default()
            },
            Model::BiGcn => Needs {
                gcn: true,
                features: binary,
                ..Needs::default()
            },
            Model::BiGcnBin => Needs {
                gcn: true,
                closed_bits: true,
                features: FeatureForm::PatternBitsOrDense,
                ..Needs::default()
            },
            Model::Sage => Needs {
                mean: true,
                ..Needs::default()
            },
            Model::BiSage => Needs {
                mean: true,
                features: binary,
                ..Needs::default()
            },
            Model::Saint => Needs {
                plain: true,
                ..Needs::default()
            },
            Model::BiSaint => Needs {
                plain: true,
                features: binary,
                ..Needs::default()
            },
        }
    }
}

/// The hidden layer whose integer parts the tests compare bit for bit.
pub enum Hidden<B: Backend> {
    /// A binarised hidden layer (`n x hidden`, row-major bits).
    Bits(B::Bits),
    /// k-bit hidden activations.
    Codes(BitPlanes<B>),
}

/// What a forward pass leaves on the backend.
pub struct Inference<B: Backend> {
    /// `n x classes`, before the softmax.
    pub logits: B::Dense<f32>,
    /// The binary or k-bit hidden layer, for models that have one.
    pub hidden: Option<Hidden<B>>,
}

/// A weight product of either kind.
trait Product<B: Backend> {
    fn out(&self) -> usize;
    fn product(&self, b: &B, x: Act<'_, B>) -> GnnResult<B::Dense<f32>>;
}

impl<B: Backend> Product<B> for Linear<B> {
    fn out(&self) -> usize {
        Linear::out(self)
    }
    fn product(&self, b: &B, x: Act<'_, B>) -> GnnResult<B::Dense<f32>> {
        self.apply(b, x)
    }
}

impl<B: Backend> Product<B> for BinLinear<B> {
    fn out(&self) -> usize {
        BinLinear::out(self)
    }
    fn product(&self, b: &B, x: Act<'_, B>) -> GnnResult<B::Dense<f32>> {
        self.scaled(b, x)
    }
}

impl<B: Backend> Product<B> for QLinear<B> {
    fn out(&self) -> usize {
        QLinear::out(self)
    }
    fn product(&self, b: &B, x: Act<'_, B>) -> GnnResult<B::Dense<f32>> {
        match x {
            Act::Planes(p) => self.apply(b, p),
            _ => Err(GnnError::Library(bitgraphblas::Error::InvalidStorage {
                what: "k-bit layer input",
                detail: "a k-bit layer reads bit planes".into(),
            })),
        }
    }
}

/// `GCNConv`: `D^-1/2 (A + I) D^-1/2 (x W) + bias`.
struct GcnConv<B: Backend, L> {
    lin: L,
    bias: Bias<B>,
}

impl<B: BackendExt, L: Product<B>> GcnConv<B, L> {
    fn new(b: &B, w: &Weights, name: &str, lin: L) -> GnnResult<Self> {
        let bias = Bias::load(b, w, name, lin.out())?;
        Ok(GcnConv { lin, bias })
    }
    fn forward(&self, b: &B, g: &GnnGraph<B>, x: Act<'_, B>) -> GnnResult<B::Dense<f32>> {
        self.aggregate(b, g, &self.lin.product(b, x)?)
    }
    /// The layer after its product `y`: `D^-1/2 (A + I) D^-1/2 y + bias`.
    fn aggregate(&self, b: &B, g: &GnnGraph<B>, y: &B::Dense<f32>) -> GnnResult<B::Dense<f32>> {
        g.gcn(b, y, Some(&self.bias.bias))
    }
}

impl<B: BackendExt> GcnConv<B, BinLinear<B>> {
    /// The binary layer after its integer product `v`:
    /// `D^-1/2 (A + I) D^-1/2 (v diag(s)) + bias`, `s` the layer's factor.
    fn aggregate_counts(
        &self,
        b: &B,
        g: &GnnGraph<B>,
        v: &B::Dense<i32>,
    ) -> GnnResult<B::Dense<f32>> {
        g.gcn_counts(b, v, self.lin.col_scale(), Some(&self.bias.bias))
    }
}

/// How a `RootConv` aggregates its neighbours.
#[derive(Clone, Copy)]
enum Aggregate {
    /// `SAGEConv`: the mean.
    Mean,
    /// `GraphConv`: the sum.
    Sum,
}

/// `SAGEConv` / `GraphConv`: `agg(x W_neigh) + x W_root + bias`.
struct RootConv<B: Backend, L> {
    neigh: L,
    root: L,
    bias: Bias<B>,
    agg: Aggregate,
}

impl<B: BackendExt, L: Product<B>> RootConv<B, L> {
    fn load(
        b: &B,
        w: &Weights,
        name: &str,
        agg: Aggregate,
        load: impl Fn(&str, Option<usize>) -> GnnResult<L>,
    ) -> GnnResult<Self> {
        let neigh = load(&format!("{name}.neigh"), None)?;
        let root = load(&format!("{name}.root"), Some(neigh.out()))?;
        let bias = Bias::load(b, w, name, neigh.out())?;
        Ok(RootConv {
            neigh,
            root,
            bias,
            agg,
        })
    }
    fn out(&self) -> usize {
        self.neigh.out()
    }
    fn forward(
        &self,
        b: &B,
        g: &GnnGraph<B>,
        x: Act<'_, B>,
        x2: Act<'_, B>,
    ) -> GnnResult<B::Dense<f32>> {
        let y = self.neigh.product(b, x)?;
        let agg = match self.agg {
            Aggregate::Mean => g.mean(b, &y)?,
            Aggregate::Sum => g.sum(b, &y)?,
        };
        self.bias.add(b, &add(b, &agg, &self.root.product(b, x2)?)?)
    }
}

/// The bits of `z >= t` (row-major).
fn binarize<B: Backend>(b: &B, z: &B::Dense<f32>, t: &BnThreshold<B>) -> GnnResult<B::Bits> {
    let (n, k) = shape(z);
    let mut h = b.bits_for_output(n, k, BitLayout::RowMajor)?;
    ops::binarize(b, &mut h, z, Threshold::PerColumn(&t.threshold))?;
    Ok(h)
}

/// `act` twice: a `RootConv` reads its input in both products.
fn twice<'a, B: Backend>(x: &Act<'a, B>) -> (Act<'a, B>, Act<'a, B>) {
    let copy = |x: &Act<'a, B>| match *x {
        Act::Dense(d) => Act::Dense(d),
        Act::Sparse(m) => Act::Sparse(m),
        Act::Binary(v) => Act::Binary(v),
        Act::Pattern(p) => Act::Pattern(p),
        Act::Signed(v) => Act::Signed(v),
        Act::Planes(p) => Act::Planes(p),
    };
    (copy(x), copy(x))
}

enum Layers<B: Backend> {
    Gcn(GcnConv<B, Linear<B>>, GcnConv<B, Linear<B>>),
    GcnQ {
        conv1: GcnConv<B, QLinear<B>>,
        conv2: GcnConv<B, QLinear<B>>,
        bits: u32,
        act_scale: f32,
    },
    BiGcn(
        GcnConv<B, BinLinear<B>>,
        BnThreshold<B>,
        GcnConv<B, BinLinear<B>>,
    ),
    BiGcnBin {
        lin1: BinLinear<B>,
        bn1: BnThreshold<B>,
        bn1a: BnThreshold<B>,
        conv2: GcnConv<B, BinLinear<B>>,
    },
    Sage(RootConv<B, Linear<B>>, RootConv<B, Linear<B>>),
    BiSage(
        RootConv<B, BinLinear<B>>,
        BnThreshold<B>,
        RootConv<B, BinLinear<B>>,
    ),
    Saint(
        RootConv<B, Linear<B>>,
        RootConv<B, Linear<B>>,
        Linear<B>,
        Bias<B>,
    ),
    BiSaint {
        conv1: RootConv<B, BinLinear<B>>,
        bn2: BnThreshold<B>,
        conv2: RootConv<B, BinLinear<B>>,
        bn3: BnThreshold<B>,
        lin: BinLinear<B>,
        bias: Bias<B>,
    },
}

/// A model with its weights on a backend.
///
/// ```
/// use bitgraphblas::io::{data_path, ReadOptions};
/// use bitgraphblas::{Cpu, Format};
/// use bitgraphblas_algorithms::gnn::{Dataset, GnnGraph, Model, Network, Weights};
/// let cpu = Cpu::new();
/// let opts = ReadOptions::default();
/// let cora = Dataset::load(data_path("cora"), &opts)?;
/// let w = Weights::load(data_path("weights/bigcn-bin-cora.safetensors"), &opts)?;
/// let net = Network::load(&cpu, Model::BiGcnBin, &w, cora.features.ncols(), cora.classes())?;
/// let g = GnnGraph::upload(&cpu, &cora, Model::BiGcnBin.needs(), Format::Auto)?;
/// let predictions = net.predict(&cpu, &net.forward(&cpu, &g)?.logits)?;
/// assert!(cora.accuracy(&predictions, &cora.split.test) > 0.75);
/// # Ok::<(), bitgraphblas_algorithms::gnn::GnnError>(())
/// ```
pub struct Network<B: Backend> {
    model: Model,
    layers: Layers<B>,
}

impl<B: BackendExt> Network<B> {
    /// Loads `model` from `w` for `features` input features and `classes`
    /// classes; a tensor that is missing or does not fit is an `Err` naming
    /// it.
    pub fn load(
        b: &B,
        model: Model,
        w: &Weights,
        features: usize,
        classes: usize,
    ) -> GnnResult<Self> {
        if let Some(m) = w.meta("model") {
            if m != model.name() {
                return Err(GnnError::file(
                    w.path(),
                    format!("holds the weights of model {m}, not {}", model.name()),
                ));
            }
        }
        let c = Some(classes);
        let lin = |name: &str, fin, fout| Linear::load(b, w, name, fin, fout);
        let bin = |name: &str, fin, fout| BinLinear::load(b, w, name, fin, fout);
        let layers = match model {
            Model::Gcn => {
                let conv1 = GcnConv::new(b, w, "conv1", lin("conv1", features, None)?)?;
                let conv2 = GcnConv::new(b, w, "conv2", lin("conv2", conv1.lin.out(), c)?)?;
                Layers::Gcn(conv1, conv2)
            }
            Model::GcnQ(bits) => {
                let q = |name: &str, fin, fout| QLinear::load(b, w, name, fin, bits, fout);
                let conv1 = GcnConv::new(b, w, "conv1", q("conv1", features, None)?)?;
                let conv2 = GcnConv::new(b, w, "conv2", q("conv2", conv1.lin.out(), c)?)?;
                let act_scale = w.f32_vector("act2.scale", 1)?[0];
                if act_scale <= 0.0 {
                    return Err(GnnError::tensor(w.path(), "act2.scale", "must be positive"));
                }
                Layers::GcnQ {
                    conv1,
                    conv2,
                    bits,
                    act_scale,
                }
            }
            Model::BiGcn => {
                let conv1 = GcnConv::new(b, w, "conv1", bin("conv1", features, None)?)?;
                let h = conv1.lin.out();
                let bn2 = BnThreshold::load(b, w, "bn2", h)?;
                Layers::BiGcn(
                    conv1,
                    bn2,
                    GcnConv::new(b, w, "conv2", bin("conv2", h, c)?)?,
                )
            }
            Model::BiGcnBin => {
                let lin1 = bin("conv1", features, None)?;
                let h = lin1.out();
                Layers::BiGcnBin {
                    bn1: BnThreshold::load(b, w, "bn1", h)?,
                    bn1a: BnThreshold::load(b, w, "bn1a", h)?,
                    conv2: GcnConv::new(b, w, "conv2", bin("conv2", h, c)?)?,
                    lin1,
                }
            }
            Model::Sage | Model::Saint => {
                let agg = if model == Model::Sage {
                    Aggregate::Mean
                } else {
                    Aggregate::Sum
                };
                let conv1 = RootConv::load(b, w, "conv1", agg, |n, o| lin(n, features, o))?;
                let h = conv1.out();
                if model == Model::Sage {
                    let conv2 = RootConv::load(b, w, "conv2", agg, |n, _| lin(n, h, c))?;
                    Layers::Sage(conv1, conv2)
                } else {
                    let conv2 = RootConv::load(b, w, "conv2", agg, |n, o| lin(n, h, o))?;
                    let h2 = conv2.out();
                    Layers::Saint(
                        conv1,
                        conv2,
                        lin("lin", h2, c)?,
                        Bias::load(b, w, "lin", classes)?,
                    )
                }
            }
            Model::BiSage => {
                let conv1 =
                    RootConv::load(b, w, "conv1", Aggregate::Mean, |n, o| bin(n, features, o))?;
                let h = conv1.out();
                let bn2 = BnThreshold::load(b, w, "bn2", h)?;
                let conv2 = RootConv::load(b, w, "conv2", Aggregate::Mean, |n, _| bin(n, h, c))?;
                Layers::BiSage(conv1, bn2, conv2)
            }
            Model::BiSaint => {
                let conv1 =
                    RootConv::load(b, w, "conv1", Aggregate::Sum, |n, o| bin(n, features, o))?;
                let h = conv1.out();
                let conv2 = RootConv::load(b, w, "conv2", Aggregate::Sum, |n, o| bin(n, h, o))?;
                let h2 = conv2.out();
                Layers::BiSaint {
                    bn2: BnThreshold::load(b, w, "bn2", h)?,
                    bn3: BnThreshold::load(b, w, "bn3", h2)?,
                    lin: bin("lin", h2, c)?,
                    bias: Bias::load(b, w, "lin", classes)?,
                    conv1,
                    conv2,
                }
            }
        };
        Ok(Network { model, layers })
    }

    /// The model.
    pub fn model(&self) -> Model {
        self.model
    }

    /// The forward pass over `g` (whose features and graph forms were
    /// uploaded for this model): logits and the hidden layer, on the backend.
    pub fn forward(&self, b: &B, g: &GnnGraph<B>) -> GnnResult<Inference<B>> {
        let x = Act::features(&g.features);
        let n = g.nodes();
        Ok(match &self.layers {
            Layers::Gcn(c1, c2) => {
                let h = relu(b, &c1.forward(b, g, x)?)?;
                Inference {
                    logits: c2.forward(b, g, Act::Dense(&h))?,
                    hidden: None,
                }
            }
            Layers::GcnQ {
                conv1,
                conv2,
                bits,
                act_scale,
            } => {
                let h = relu(b, &conv1.forward(b, g, x)?)?;
                let mut codes = planes_new(
                    b,
                    n,
                    conv1.lin.out(),
                    *bits,
                    BitLayout::RowMajor,
                    *act_scale,
                    0.0,
                )?;
                ops::quantize(b, &mut codes, &h)?;
                let logits = conv2.forward(b, g, Act::Planes(&codes))?;
                Inference {
                    logits,
                    hidden: Some(Hidden::Codes(codes)),
                }
            }
            Layers::BiGcn(c1, bn2, c2) => {
                let h = binarize(b, &c1.forward(b, g, x)?, bn2)?;
                let logits = c2.forward(b, g, Act::Signed(&h))?;
                Inference {
                    logits,
                    hidden: Some(Hidden::Bits(h)),
                }
            }
            Layers::BiGcnBin {
                lin1,
                bn1,
                bn1a,
                conv2,
            } => {
                let p = lin1.bits(b, x, &bn1.threshold)?;
                // BSpMM.BBB and the second layer's BMM (counts) in one call,
                // then the GCN aggregation of the counts, their factor after
                // the sum
                let (q, v) = g.closed_sum_bits_then(b, &p, &bn1a.threshold, &conv2.lin)?;
                let logits = conv2.aggregate_counts(b, g, &v)?;
                Inference {
                    logits,
                    hidden: Some(Hidden::Bits(q)),
                }
            }
            Layers::Sage(c1, c2) => {
                let (x1, x2) = twice(&x);
                let h = relu(b, &c1.forward(b, g, x1, x2)?)?;
                Inference {
                    logits: c2.forward(b, g, Act::Dense(&h), Act::Dense(&h))?,
                    hidden: None,
                }
            }
            Layers::BiSage(c1, bn2, c2) => {
                let (x1, x2) = twice(&x);
                let h = binarize(b, &c1.forward(b, g, x1, x2)?, bn2)?;
                let logits = c2.forward(b, g, Act::Signed(&h), Act::Signed(&h))?;
                Inference {
                    logits,
                    hidden: Some(Hidden::Bits(h)),
                }
            }
            Layers::Saint(c1, c2, lin, bias) => {
                let (x1, x2) = twice(&x);
                let h = relu(b, &c1.forward(b, g, x1, x2)?)?;
                let h = relu(b, &c2.forward(b, g, Act::Dense(&h), Act::Dense(&h))?)?;
                Inference {
                    logits: bias.add(b, &lin.apply(b, Act::Dense(&h))?)?,
                    hidden: None,
                }
            }
            Layers::BiSaint {
                conv1,
                bn2,
                conv2,
                bn3,
                lin,
                bias,
            } => {
                let (x1, x2) = twice(&x);
                let h = binarize(b, &conv1.forward(b, g, x1, x2)?, bn2)?;
                let h = binarize(
                    b,
                    &conv2.forward(b, g, Act::Signed(&h), Act::Signed(&h))?,
                    bn3,
                )?;
                let logits = bias.add(b, &lin.scaled(b, Act::Signed(&h))?)?;
                Inference {
                    logits,
                    hidden: Some(Hidden::Bits(h)),
                }
            }
        })
    }

    /// The predicted class of every node: the column of each row's
    /// largest logit (the first on ties), on the host.
    pub fn predict(&self, b: &B, logits: &B::Dense<f32>) -> GnnResult<Vec<u32>> {
        let mut p = b.dense_for_output::<u32>(shape(logits).0, 1)?;
        ops::argmax_rows(b, &mut p, logits)?;
        Ok(b.download_dense(&p)?.into_vec())
    }
}
