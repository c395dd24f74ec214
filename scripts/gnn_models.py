"""The GNN models of `bitgraphblas gnn`, in PyTorch: training forms and the
folded inference that `algorithms/src/gnn/` computes.

Shared by `gnn-train.py` (training, export) and `gpu-gnn-anchors.py`
(PyG timing). Each model has

- a training forward (`forward`), with dropout, batch norm in training mode
  and straight-through estimators for the binary and k-bit parts;
- `export()`: the tensors written to `data/weights/MODEL-DATASET.safetensors`
  (binary weights as packed sign bits with their per-column scale, k-bit and
  f32 weights as f32, batch norms as raw parameters);
- `infer(g, t)`: the inference bitgraphblas runs, written with the exported
  tensors only (batch norms folded into thresholds exactly as the Rust
  loader folds them, codes rounded half away from zero as
  `ops::quantize` does), returning logits and the hidden bits or codes
  whose integer parts must match bit for bit.

Notation: `A` the 0/1 adjacency without self loops, `Ahat = A + I`,
`d = rowsum(Ahat)`, the GCN aggregation `d^-1/2 Ahat d^-1/2 h` applied as
two diagonal scalings around the pattern product; the SAGE mean
`D^-1 A h` (an isolated vertex gets 0); the GraphConv sum `A h`.
"""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")

# ---------------------------------------------------------------- the graph


class Graph:
    """Adjacency operators and features of one dataset, on one device."""

    def __init__(self, n, rows, cols, x, device):
        self.n = n
        idx = torch.stack([torch.as_tensor(rows), torch.as_tensor(cols)]).to(torch.int64)
        ones = torch.ones(idx.shape[1], dtype=torch.float32)
        a = torch.sparse_coo_tensor(idx, ones, (n, n)).coalesce()
        self.a = a.to_sparse_csr().to(device)
        eye = torch.arange(n)
        ahat = torch.sparse_coo_tensor(
            torch.cat([idx, torch.stack([eye, eye])], 1),
            torch.cat([ones, torch.ones(n)]),
            (n, n),
        ).coalesce()
        # Ahat is 0/1: a self loop already present is kept once
        ahat = torch.sparse_coo_tensor(ahat.indices(), torch.ones_like(ahat.values()), (n, n)).coalesce()
        self.ahat = ahat.to_sparse_csr().to(device)
        deg = torch.zeros(n).index_add_(0, idx[0], ones)
        self.deg = deg.to(device)
        self.inv_deg = torch.where(deg > 0, 1.0 / deg.clamp(min=1), torch.zeros(n)).to(device)
        dhat = torch.zeros(n).index_add_(0, ahat.indices()[0], ahat.values())
        self.dinv_sqrt = (1.0 / torch.sqrt(dhat)).to(device)
        self.x = x.to(device)

    def gcn(self, h):
        s = self.dinv_sqrt.unsqueeze(1)
        return s * torch.sparse.mm(self.ahat, s * h)

    def mean(self, h):
        return self.inv_deg.unsqueeze(1) * torch.sparse.mm(self.a, h)

    def sum(self, h):
        return torch.sparse.mm(self.a, h)

    def signed_ahat_sum(self, bits):
        """`Ahat (2 bits - 1)`: the +1/-1 sum over the closed neighbourhood."""
        return torch.sparse.mm(self.ahat, 2.0 * bits - 1.0)


def feature_dropout(g, p, training):
    """`F.dropout(g.x, p)` for the training forward, as a sparse CSR tensor
    (the features are sparse 0/1; `x @ W` with it is several times cheaper,
    and the dropout is drawn on the nonzeros only: the same distribution,
    a dropped zero stays zero)."""
    xs = getattr(g, "_x_csr", None)
    if xs is None:
        xs = g._x_csr = g.x.to_sparse_csr()
    if not training or p == 0:
        return xs
    v = xs.values()
    v = torch.where(torch.rand(v.shape, device=v.device) >= p, v / (1 - p), torch.zeros_like(v))
    return torch.sparse_csr_tensor(xs.crow_indices(), xs.col_indices(), v, xs.shape)


# ------------------------------------------------------ estimators, folding


class _SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


def sign_ste(x):
    """+1 where x >= 0, else -1; gradient passed where |x| <= 1."""
    return _SignSTE.apply(x)


def round_half_away(v):
    """Rust's `f32::round`: halves away from zero, exactly."""
    r = torch.trunc(v)
    frac = v - r
    return r + torch.where(frac.abs() >= 0.5, torch.sign(v), torch.zeros_like(v))


class _RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        return round_half_away(v)

    @staticmethod
    def backward(ctx, g):
        return g


def codes_of(x, scale, zero, bits):
    """`ops::quantize`'s codes: clamp(round(x / scale + zero), 0, 2^b - 1)."""
    q = round_half_away(x / scale + zero)
    return q.clamp(0, 2**bits - 1)


def fake_quant(x, scale, zero, bits):
    """Quantise and dequantise with a straight-through gradient."""
    q = _RoundSTE.apply(x / scale + zero).clamp(0, 2**bits - 1)
    return scale * (q - zero)


def weight_quant_params(w, bits):
    """Per-tensor symmetric parameters: zero 2^(b-1), scale max|w| / (2^(b-1) - 1)."""
    zero = float(2 ** (bits - 1))
    scale = (w.abs().max() / (2 ** (bits - 1) - 1)).to(torch.float32)
    return scale, torch.tensor(zero, dtype=torch.float32)


def col_scale(w):
    """Bi-GCN's per-output-column factor: the mean of |w| (f64 sum, as the Rust loader)."""
    return w.abs().double().mean(0).float()


class UnitBN(nn.BatchNorm1d):
    """A batch norm whose scale is fixed at 1, so that `BN(u) >= 0` folds
    into `u >= mean - bias * sqrt(var + eps)`."""

    def __init__(self, n):
        super().__init__(n)
        self.weight.requires_grad_(False)

    def export(self, name):
        return {
            f"{name}.weight": self.weight.detach().clone(),
            f"{name}.bias": self.bias.detach().clone(),
            f"{name}.running_mean": self.running_mean.detach().clone(),
            f"{name}.running_var": self.running_var.detach().clone(),
            f"{name}.eps": torch.tensor([self.eps], dtype=torch.float32),
        }


def bn_threshold(t, name):
    """The folded threshold, in f32, in the order the Rust loader uses:
    `mean - bias * sqrt(var + eps) / weight`."""
    r = torch.sqrt(t[f"{name}.running_var"] + t[f"{name}.eps"])
    return t[f"{name}.running_mean"] - t[f"{name}.bias"] * r / t[f"{name}.weight"]


def pack_sign_bits(w):
    """Bits of `w >= 0`, `[rows, ceil(cols / 8)]` u8, bit `j % 8` of byte `j / 8`."""
    rows, cols = w.shape
    bits = (w >= 0).to(torch.uint8)
    nbytes = (cols + 7) // 8
    pad = torch.zeros(rows, nbytes * 8, dtype=torch.uint8)
    pad[:, :cols] = bits
    weights = (2 ** torch.arange(8, dtype=torch.int32)).to(torch.uint8)
    return (pad.view(rows, nbytes, 8) * weights).sum(2).to(torch.uint8)


def unpack_sign_bits(packed, cols):
    rows, nbytes = packed.shape
    shifts = torch.arange(8, dtype=torch.uint8)
    bits = (packed.unsqueeze(2) >> shifts) & 1
    return bits.view(rows, nbytes * 8)[:, :cols].to(torch.float32)


# ------------------------------------------------------------------- layers


class BinLinear(nn.Module):
    """`x @ (sign(W) * beta)`: latent f32 weights, binary in the forward."""

    def __init__(self, fin, fout):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(fin, fout))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x, scaled=True):
        w = sign_ste(self.weight)
        return x @ (w * self.weight.abs().mean(0) if scaled else w)

    def export(self, name):
        w = self.weight.detach().cpu()
        return {f"{name}.weight_bits": pack_sign_bits(w), f"{name}.scale": col_scale(w)}


def bin_product(t, name, h_pm, fin):
    """Inference of a BinLinear from its exported tensors: `h @ sign(W) * beta`
    with `h` in +1/-1 (or 0/1 for the first layer)."""
    bits = t[f"{name}.weight_bits"]
    fout = t[f"{name}.scale"].shape[0]
    w = 2.0 * unpack_sign_bits(bits, fout) - 1.0
    assert w.shape[0] == fin
    counts = h_pm @ w  # integers, exact in f32 at these sizes
    return counts, counts * t[f"{name}.scale"]


class QLinear(nn.Module):
    """`x @ deq(Q_b(W))`: per-tensor symmetric weight quantisation."""

    def __init__(self, fin, fout, bits):
        super().__init__()
        self.bits = bits
        self.weight = nn.Parameter(torch.empty(fin, fout))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x):
        s, z = weight_quant_params(self.weight.detach(), self.bits)
        return x @ fake_quant(self.weight, s, z, self.bits)

    def export(self, name):
        return {f"{name}.weight": self.weight.detach().cpu().clone()}


def q_weight(t, name, bits):
    w = t[f"{name}.weight"]
    s, z = weight_quant_params(w, bits)
    return s * (codes_of(w, s, z, bits) - z)


def lin_export(lin, name):
    """An f32 `nn.Linear` as `[in, out]` weight and bias."""
    out = {f"{name}.weight": lin.weight.detach().t().contiguous().cpu()}
    if lin.bias is not None:
        out[f"{name}.bias"] = lin.bias.detach().cpu().clone()
    return out


def bias_param(n):
    return nn.Parameter(torch.zeros(n))


# ------------------------------------------------------------------- models


class GCN(nn.Module):
    """2-layer GCN (Kipf & Welling), f32."""

    name = "gcn"
    hidden = 16
    p_in, p_hid = 0.5, 0.5  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        self.l1 = nn.Linear(fin, self.hidden, bias=False)
        self.l2 = nn.Linear(self.hidden, classes, bias=False)
        self.b1, self.b2 = bias_param(self.hidden), bias_param(classes)

    def forward(self, g):
        h = feature_dropout(g, self.p_in, self.training)
        h = F.relu(g.gcn(self.l1(h)) + self.b1)
        h = F.dropout(h, self.p_hid, self.training)
        return g.gcn(self.l2(h)) + self.b2

    def export(self):
        t = lin_export(self.l1, "conv1") | lin_export(self.l2, "conv2")
        return t | {"conv1.bias": self.b1.detach().cpu(), "conv2.bias": self.b2.detach().cpu()}

    @staticmethod
    def infer(g, t):
        h = F.relu(g.gcn(g.x @ t["conv1.weight"]) + t["conv1.bias"])
        return g.gcn(h @ t["conv2.weight"]) + t["conv2.bias"], None


class QGCN(nn.Module):
    """2-layer GCN with b-bit weights and activations (QGTC): the first
    layer's 0/1 features are exact in one bit, the hidden activations are
    quantised after the ReLU with a scale calibrated in training."""

    hidden = 16
    p_in, p_hid = 0.5, 0.5  # training-only dropout rates

    def __init__(self, fin, classes, bits):
        super().__init__()
        self.bits = bits
        self.name = f"gcn-q{bits}"
        self.l1 = QLinear(fin, self.hidden, bits)
        self.l2 = QLinear(self.hidden, classes, bits)
        self.b1, self.b2 = bias_param(self.hidden), bias_param(classes)
        self.register_buffer("act_max", torch.tensor(0.0))

    def act_scale(self):
        return (self.act_max / (2**self.bits - 1)).clamp(min=1e-8)

    def forward(self, g):
        h = feature_dropout(g, self.p_in, self.training)
        h = F.relu(g.gcn(self.l1(h)) + self.b1)
        if self.training:
            with torch.no_grad():
                m = h.max()
                self.act_max.copy_(m if self.act_max == 0 else 0.9 * self.act_max + 0.1 * m)
        h = fake_quant(h, self.act_scale(), torch.tensor(0.0), self.bits)
        h = F.dropout(h, self.p_hid, self.training)
        return g.gcn(self.l2(h)) + self.b2

    def export(self):
        t = self.l1.export("conv1") | self.l2.export("conv2")
        return t | {
            "conv1.bias": self.b1.detach().cpu(),
            "conv2.bias": self.b2.detach().cpu(),
            "act2.scale": self.act_scale().detach().reshape(1).cpu().float(),
        }

    def infer(self, g, t):
        b = self.bits
        h = F.relu(g.gcn(g.x @ q_weight(t, "conv1", b)) + t["conv1.bias"])
        codes = codes_of(h, t["act2.scale"], torch.tensor(0.0), b)
        h = t["act2.scale"] * codes
        return g.gcn(h @ q_weight(t, "conv2", b)) + t["conv2.bias"], codes.to(torch.uint8)


class BiGCN(nn.Module):
    """Bi-GCN with full-precision aggregation: binary weight products,
    f32 aggregation, the hidden layer binarised after a batch norm."""

    name = "bigcn"
    hidden = 64
    p_in, p_z, p_hid = 0.0, 0.5, 0.0  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        self.l1 = BinLinear(fin, self.hidden)
        self.l2 = BinLinear(self.hidden, classes)
        self.b1, self.b2 = bias_param(self.hidden), bias_param(classes)
        self.bn2 = UnitBN(self.hidden)

    def forward(self, g):
        x = feature_dropout(g, self.p_in, self.training)
        z = g.gcn(self.l1(x)) + self.b1
        z = F.dropout(z, self.p_z, self.training)
        h = sign_ste(self.bn2(z))
        h = F.dropout(h, self.p_hid, self.training)
        return g.gcn(self.l2(h)) + self.b2

    def export(self):
        t = self.l1.export("conv1") | self.l2.export("conv2") | self.bn2.export("bn2")
        return t | {"conv1.bias": self.b1.detach().cpu(), "conv2.bias": self.b2.detach().cpu()}

    @staticmethod
    def infer(g, t):
        fin = g.x.shape[1]
        _, y1 = bin_product(t, "conv1", g.x, fin)
        z = g.gcn(y1) + t["conv1.bias"]
        bits = (z >= bn_threshold(t, "bn2")).float()
        _, y2 = bin_product(t, "conv2", 2 * bits - 1, bits.shape[1])
        return g.gcn(y2) + t["conv2.bias"], bits.to(torch.uint8)


class BiGCNBin(nn.Module):
    """BitGNN's binary aggregation: BMM.BBB (0/1 features by sign weights,
    re-binarised by a batch norm) then BSpMM.BBB (+1/-1 sum over the closed
    neighbourhood, re-binarised by a batch norm) in the first layer; BMM.BBF
    then the f32 GCN aggregation (BSpMM.FBF) in the second."""

    name = "bigcn-bin"
    hidden = 64
    p_in, p_hid = 0.5, 0.0  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        self.l1 = BinLinear(fin, self.hidden)
        self.l2 = BinLinear(self.hidden, classes)
        self.bn1 = UnitBN(self.hidden)
        self.bn1a = UnitBN(self.hidden)
        self.b2 = bias_param(classes)

    def forward(self, g):
        # the batch norm sees the integer counts, as the folded threshold does
        x = feature_dropout(g, self.p_in, self.training)
        p = sign_ste(self.bn1(self.l1(x, scaled=False)))
        q = sign_ste(self.bn1a(torch.sparse.mm(g.ahat, p)))
        q = F.dropout(q, self.p_hid, self.training)
        return g.gcn(self.l2(q)) + self.b2

    def export(self):
        t = self.l1.export("conv1") | self.l2.export("conv2")
        t |= self.bn1.export("bn1") | self.bn1a.export("bn1a")
        return t | {"conv2.bias": self.b2.detach().cpu()}

    @staticmethod
    def infer(g, t):
        fin = g.x.shape[1]
        c1, _ = bin_product(t, "conv1", g.x, fin)
        p = (c1 >= bn_threshold(t, "bn1")).float()
        q = (g.signed_ahat_sum(p) >= bn_threshold(t, "bn1a")).float()
        _, y2 = bin_product(t, "conv2", 2 * q - 1, q.shape[1])
        return g.gcn(y2) + t["conv2.bias"], q.to(torch.uint8)


class SAGE(nn.Module):
    """2-layer GraphSAGE, mean aggregation plus root weight, f32."""

    name = "sage"
    hidden = 16
    p_in, p_hid = 0.5, 0.5  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        self.l1, self.r1 = nn.Linear(fin, self.hidden, bias=False), nn.Linear(fin, self.hidden, bias=False)
        self.l2, self.r2 = nn.Linear(self.hidden, classes, bias=False), nn.Linear(self.hidden, classes, bias=False)
        self.b1, self.b2 = bias_param(self.hidden), bias_param(classes)

    def forward(self, g):
        x = feature_dropout(g, self.p_in, self.training)
        h = F.relu(g.mean(self.l1(x)) + self.r1(x) + self.b1)
        h = F.dropout(h, self.p_hid, self.training)
        return g.mean(self.l2(h)) + self.r2(h) + self.b2

    def export(self):
        t = lin_export(self.l1, "conv1.neigh") | lin_export(self.r1, "conv1.root")
        t |= lin_export(self.l2, "conv2.neigh") | lin_export(self.r2, "conv2.root")
        return t | {"conv1.bias": self.b1.detach().cpu(), "conv2.bias": self.b2.detach().cpu()}

    @staticmethod
    def infer(g, t):
        x = g.x
        h = F.relu(g.mean(x @ t["conv1.neigh.weight"]) + x @ t["conv1.root.weight"] + t["conv1.bias"])
        return g.mean(h @ t["conv2.neigh.weight"]) + h @ t["conv2.root.weight"] + t["conv2.bias"], None


class BiSAGE(nn.Module):
    """Binary GraphSAGE: binary weight products (BMM.BBF), f32 mean
    aggregation, the root term added in f32 (ADD.FFF), the hidden layer
    binarised after a batch norm."""

    name = "bisage"
    hidden = 64
    p_in, p_z, p_hid = 0.0, 0.5, 0.0  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        self.l1, self.r1 = BinLinear(fin, self.hidden), BinLinear(fin, self.hidden)
        self.l2, self.r2 = BinLinear(self.hidden, classes), BinLinear(self.hidden, classes)
        self.b1, self.b2 = bias_param(self.hidden), bias_param(classes)
        self.bn2 = UnitBN(self.hidden)

    def forward(self, g):
        x = feature_dropout(g, self.p_in, self.training)
        z = g.mean(self.l1(x)) + self.r1(x) + self.b1
        z = F.dropout(z, self.p_z, self.training)
        h = sign_ste(self.bn2(z))
        h = F.dropout(h, self.p_hid, self.training)
        return g.mean(self.l2(h)) + self.r2(h) + self.b2

    def export(self):
        t = self.l1.export("conv1.neigh") | self.r1.export("conv1.root")
        t |= self.l2.export("conv2.neigh") | self.r2.export("conv2.root") | self.bn2.export("bn2")
        return t | {"conv1.bias": self.b1.detach().cpu(), "conv2.bias": self.b2.detach().cpu()}

    @staticmethod
    def infer(g, t):
        fin = g.x.shape[1]
        _, yl = bin_product(t, "conv1.neigh", g.x, fin)
        _, yr = bin_product(t, "conv1.root", g.x, fin)
        z = g.mean(yl) + yr + t["conv1.bias"]
        bits = (z >= bn_threshold(t, "bn2")).float()
        h = 2 * bits - 1
        _, yl = bin_product(t, "conv2.neigh", h, h.shape[1])
        _, yr = bin_product(t, "conv2.root", h, h.shape[1])
        return g.mean(yl) + yr + t["conv2.bias"], bits.to(torch.uint8)


class SAINT(nn.Module):
    """GraphSAINT-style: 2 GraphConv (sum aggregation plus root) and a
    Linear, f32."""

    name = "saint"
    hidden = 16
    p_in, p_hid = 0.5, 0.5  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        h = self.hidden
        self.l1, self.r1 = nn.Linear(fin, h, bias=False), nn.Linear(fin, h, bias=False)
        self.l2, self.r2 = nn.Linear(h, h, bias=False), nn.Linear(h, h, bias=False)
        self.lin = nn.Linear(h, classes)
        self.b1, self.b2 = bias_param(h), bias_param(h)

    def forward(self, g):
        x = feature_dropout(g, self.p_in, self.training)
        h = F.relu(g.sum(self.l1(x)) + self.r1(x) + self.b1)
        h = F.dropout(h, self.p_hid, self.training)
        h = F.relu(g.sum(self.l2(h)) + self.r2(h) + self.b2)
        h = F.dropout(h, self.p_hid, self.training)
        return self.lin(h)

    def export(self):
        t = lin_export(self.l1, "conv1.neigh") | lin_export(self.r1, "conv1.root")
        t |= lin_export(self.l2, "conv2.neigh") | lin_export(self.r2, "conv2.root")
        t |= lin_export(self.lin, "lin")
        return t | {"conv1.bias": self.b1.detach().cpu(), "conv2.bias": self.b2.detach().cpu()}

    @staticmethod
    def infer(g, t):
        x = g.x
        h = F.relu(g.sum(x @ t["conv1.neigh.weight"]) + x @ t["conv1.root.weight"] + t["conv1.bias"])
        h = F.relu(g.sum(h @ t["conv2.neigh.weight"]) + h @ t["conv2.root.weight"] + t["conv2.bias"])
        return h @ t["lin.weight"] + t["lin.bias"], None


class BiSAINT(nn.Module):
    """Binary GraphSAINT-style: every weight product binary (BMM.BBF), sum
    aggregation and root in f32, each hidden layer binarised after a batch
    norm."""

    name = "bisaint"
    hidden = 64
    p_in, p_z, p_hid, p_out = 0.0, 0.5, 0.0, 0.0  # training-only dropout rates

    def __init__(self, fin, classes):
        super().__init__()
        h = self.hidden
        self.l1, self.r1 = BinLinear(fin, h), BinLinear(fin, h)
        self.l2, self.r2 = BinLinear(h, h), BinLinear(h, h)
        self.lin = BinLinear(h, classes)
        self.b1, self.b2, self.b3 = bias_param(h), bias_param(h), bias_param(classes)
        self.bn2, self.bn3 = UnitBN(h), UnitBN(h)

    def forward(self, g):
        x = feature_dropout(g, self.p_in, self.training)
        z = g.sum(self.l1(x)) + self.r1(x) + self.b1
        z = F.dropout(z, self.p_z, self.training)
        h = sign_ste(self.bn2(z))
        h = F.dropout(h, self.p_hid, self.training)
        z = g.sum(self.l2(h)) + self.r2(h) + self.b2
        h = sign_ste(self.bn3(z))
        h = F.dropout(h, self.p_out, self.training)
        return self.lin(h) + self.b3

    def export(self):
        t = self.l1.export("conv1.neigh") | self.r1.export("conv1.root")
        t |= self.l2.export("conv2.neigh") | self.r2.export("conv2.root") | self.lin.export("lin")
        t |= self.bn2.export("bn2") | self.bn3.export("bn3")
        return t | {
            "conv1.bias": self.b1.detach().cpu(),
            "conv2.bias": self.b2.detach().cpu(),
            "lin.bias": self.b3.detach().cpu(),
        }

    @staticmethod
    def infer(g, t):
        fin = g.x.shape[1]
        _, yl = bin_product(t, "conv1.neigh", g.x, fin)
        _, yr = bin_product(t, "conv1.root", g.x, fin)
        z = g.sum(yl) + yr + t["conv1.bias"]
        b2 = (z >= bn_threshold(t, "bn2")).float()
        h = 2 * b2 - 1
        _, yl = bin_product(t, "conv2.neigh", h, h.shape[1])
        _, yr = bin_product(t, "conv2.root", h, h.shape[1])
        z = g.sum(yl) + yr + t["conv2.bias"]
        b3 = (z >= bn_threshold(t, "bn3")).float()
        _, y = bin_product(t, "lin", 2 * b3 - 1, b3.shape[1])
        return y + t["lin.bias"], b3.to(torch.uint8)


def build(name, fin, classes):
    """The model called `name` (the names `bitgraphblas gnn --model` takes)."""
    plain = {m.name: m for m in (GCN, BiGCN, BiGCNBin, SAGE, BiSAGE, SAINT, BiSAINT)}
    if name in plain:
        return plain[name](fin, classes)
    if name.startswith("gcn-q"):
        return QGCN(fin, classes, int(name[5:]))
    raise ValueError(f"unknown model {name}")


MODELS = ["gcn", "gcn-q8", "gcn-q4", "gcn-q2", "bigcn", "bigcn-bin", "sage", "bisage", "saint", "bisaint"]
