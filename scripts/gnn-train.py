#!/usr/bin/env python3
"""Train the GNN models of `bitgraphblas gnn` and export their weights.

    python3 scripts/gnn-train.py --dataset data/cora [--models gcn,bigcn-bin]
        [--seeds 5] [--out data/weights] [--device cpu|cuda] [--threads N]

For every model (see `gnn_models.MODELS`, trained in that order) it trains
`--seeds` runs on the public Planetoid split (Adam, full batch, the
cross-entropy of the training nodes; `SETTINGS` gives each model's learning
rate, weight decay, epochs and training-only dropout rates), keeps the run
and epoch with the best validation accuracy (ties: the lowest validation
loss; the test split is never looked at before the export), and writes
`OUT/MODEL-DATASET.safetensors` holding the weights in the form the Rust
loader reads and PyTorch's own inference of them.

The k-bit and binary models are distilled from their f32 counterpart
trained earlier in the same run (`gcn` for `gcn-qB`, `bigcn`, `bigcn-bin`;
`sage` for `bisage`; `saint` for `bisaint`; trained here without export
when `--models` leaves it out): the loss adds `kd * T^2 * KL(teacher ||
student)` of the temperature-`T` softmaxes over every node (the teacher's
predictions, never a label outside the training split). Only the training
changes: the exported tensors and the inference are those of `infer`.

- `reference.logits` (f32, nodes x classes) and `reference.predictions`
  (i32, nodes): `gnn_models.*.infer`, the folded inference bitgraphblas
  computes;
- `reference.hidden_bits` (u8, nodes x ceil(hidden / 8), bit j % 8 of byte
  j / 8) for the binary models, `reference.hidden_codes` (u8, nodes x
  hidden) for the k-bit ones: the integer parts that must match bit for
  bit;
- metadata: model, dataset, hidden width, seed, epoch, validation and test
  accuracy of the exported inference, the f32 GCN's test accuracy from the
  same run of this script, the torch version.

Needs PyTorch, NumPy and `safetensors` (no PyG).
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

try:
    from safetensors.torch import load_file, save_file
except ImportError:  # the format is small enough to write by hand
    load_file = None

    def save_file(tensors, path, metadata=None):
        dtypes = {torch.float32: "F32", torch.int32: "I32", torch.uint8: "U8", torch.int64: "I64"}
        header, blobs, off = {}, [], 0
        if metadata:
            header["__metadata__"] = metadata
        for name in sorted(tensors):
            t = tensors[name].contiguous().cpu()
            b = t.numpy().tobytes()
            header[name] = {"dtype": dtypes[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
            blobs.append(b)
            off += len(b)
        h = json.dumps(header, separators=(",", ":")).encode()
        h += b" " * (-len(h) % 8)
        with open(path, "wb") as f:
            f.write(len(h).to_bytes(8, "little"))
            f.write(h)
            for b in blobs:
                f.write(b)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gnn_models as gm  # noqa: E402


def read_mtx(path):
    """Coordinate Matrix Market (pattern or real; general or symmetric)
    as (nrows, ncols, rows, cols, values), 0-based, symmetric expanded."""
    with open(path) as f:
        header = f.readline().split()
        symmetric = header[-1] == "symmetric"
        pattern = header[-2] == "pattern"
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        m, n, _ = (int(v) for v in line.split())
        rows, cols, vals = [], [], []
        for line in f:
            p = line.split()
            if not p:
                continue
            i, j = int(p[0]) - 1, int(p[1]) - 1
            v = 1.0 if pattern else float(p[2])
            rows.append(i)
            cols.append(j)
            vals.append(v)
            if symmetric and i != j:
                rows.append(j)
                cols.append(i)
                vals.append(v)
    return m, n, rows, cols, vals


def read_graph(dataset):
    """(n, rows, cols, x) of a dataset directory: the adjacency's entries
    as int64 tensors and the dense f32 features, from adj.mtx and
    features.mtx, or from graph.safetensors (the binary form
    `bitgraphblas gnn` reads for graphs too large for text: both matrices
    in CSR, the feature width in the metadata entry "features")."""
    binary = os.path.join(dataset, "graph.safetensors")
    if os.path.exists(binary) and not os.path.exists(os.path.join(dataset, "adj.mtx")):
        from safetensors import safe_open
        with safe_open(binary, "pt") as f:
            width = int(f.metadata()["features"])
            t = {k: f.get_tensor(k) for k in f.keys()}
        rp = t["adj_row_ptr"]
        n = rp.numel() - 1
        rows = torch.repeat_interleave(torch.arange(n), rp.diff())
        frows = torch.repeat_interleave(torch.arange(n), t["feat_row_ptr"].diff())
        x = torch.zeros(n, width)
        x[frows, t["feat_col_idx"].long()] = t["feat_values"]
        return n, rows, t["adj_col_idx"].long(), x
    n, _, rows, cols, _ = read_mtx(os.path.join(dataset, "adj.mtx"))
    fm, fn, fr, fc, fv = read_mtx(os.path.join(dataset, "features.mtx"))
    assert fm == n
    x = torch.zeros(n, fn)
    x[torch.tensor(fr), torch.tensor(fc)] = torch.tensor(fv)
    return n, torch.tensor(rows, dtype=torch.int64), torch.tensor(cols, dtype=torch.int64), x


def load(dataset, device):
    n, rows, cols, x = read_graph(dataset)
    with open(os.path.join(dataset, "labels.txt")) as f:
        labels = torch.tensor([int(v) for v in f.read().split()])
    with open(os.path.join(dataset, "split.json")) as f:
        split = {k: torch.tensor(v) for k, v in json.load(f).items()}
    return gm.Graph(n, rows, cols, x, device), labels.to(device), {k: v.to(device) for k, v in split.items()}


def accuracy(logits, labels, idx):
    return (logits[idx].argmax(1) == labels[idx]).float().mean().item()


# Per model: optimiser, schedule, training-only dropout rates (attributes of
# the model, see gnn_models) and distillation from the f32 counterpart.
BASE = {"lr": 0.01, "wd": 5e-4, "epochs": 300, "dropout": {}, "kd": 0.0, "T": 1.0, "teacher": None, "select": "acc"}
KD = {"kd": 1.0, "T": 1.0}
SETTINGS = {
    "gcn": {},
    "gcn-q8": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "gcn"} | KD,
    "gcn-q4": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "gcn"} | KD,
    "gcn-q2": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "gcn"} | KD,
    "bigcn": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "gcn"} | KD,
    "bigcn-bin": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "gcn"} | KD,
    "sage": {},
    "bisage": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "sage"} | KD,
    "saint": {},
    "bisaint": {"lr": 0.005, "wd": 1e-5, "epochs": 500, "teacher": "saint"} | KD,
}


def settings(name):
    return BASE | SETTINGS.get(name, {})


def train(name, g, labels, split, seed, teacher_logits=None, cfg=None):
    """One run: returns (model in eval mode, val accuracy, epoch, val loss)
    of the epoch with the best validation accuracy (ties: lowest validation
    loss)."""
    cfg = cfg or settings(name)
    torch.manual_seed(seed)
    classes = int(labels.max()) + 1
    model = gm.build(name, g.x.shape[1], classes).to(g.x.device)
    for k, v in cfg["dropout"].items():
        setattr(model, k, v)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=cfg["lr"], weight_decay=cfg["wd"])
    tr, va = split["train"], split["val"]
    soft = None
    if teacher_logits is not None and cfg["kd"] > 0:
        soft = F.softmax(teacher_logits / cfg["T"], 1)
    best = (-1.0, float("inf"), 0, None)
    for epoch in range(cfg["epochs"]):
        model.train()
        opt.zero_grad()
        out = model(g)
        loss = F.cross_entropy(out[tr], labels[tr])
        if soft is not None:
            kd = F.kl_div(F.log_softmax(out / cfg["T"], 1), soft, reduction="batchmean")
            loss = loss + cfg["kd"] * cfg["T"] ** 2 * kd
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            out = model(g)
            val = accuracy(out, labels, va)
            vloss = F.cross_entropy(out[va], labels[va]).item()
        if cfg["select"] == "loss":
            better = vloss < best[1]
        else:
            better = val > best[0] or (val == best[0] and vloss < best[1])
        if better:
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best = (val, vloss, epoch, state)
    model.load_state_dict(best[3])
    model.eval()
    return model, best[0], best[2], best[1]


def export(model, g_cpu, labels, split, meta, path, tensors=None):
    with torch.no_grad():
        if tensors is None:
            tensors = {k: v.detach().cpu().contiguous() for k, v in model.export().items()}
        t = dict(tensors)
        logits, hidden = model.infer(g_cpu, t)
    preds = logits.argmax(1)
    t["reference.logits"] = logits.contiguous()
    t["reference.predictions"] = preds.to(torch.int32)
    if hidden is not None:
        if model.name.startswith("gcn-q"):
            t["reference.hidden_codes"] = hidden.contiguous()
        else:
            t["reference.hidden_bits"] = gm.pack_sign_bits(hidden.float() * 2 - 1)
    lab = labels.cpu()
    meta = dict(meta)
    meta["test_accuracy"] = f"{accuracy(logits, lab, split['test'].cpu()):.4f}"
    meta["val_accuracy"] = f"{accuracy(logits, lab, split['val'].cpu()):.4f}"
    tmp = path + ".tmp"
    save_file(t, tmp, metadata=meta)
    os.replace(tmp, path)
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--models", default=",".join(gm.MODELS))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="data/weights")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, help="torch.set_num_threads (CPU)")
    ap.add_argument("--epochs", type=int, help="override the epochs of every model")
    ap.add_argument("--reexport", action="store_true",
                    help="recompute the reference tensors of the existing OUT files (no training)")
    args = ap.parse_args()
    if args.epochs:
        BASE["epochs"] = args.epochs
        for v in SETTINGS.values():
            v.pop("epochs", None)
    if args.threads:
        torch.set_num_threads(args.threads)
    dname = os.path.basename(os.path.normpath(args.dataset))
    os.makedirs(args.out, exist_ok=True)
    g, labels, split = load(args.dataset, args.device)
    g_cpu = g if args.device == "cpu" else load(args.dataset, "cpu")[0]
    summary = {}
    if args.reexport:
        from safetensors import safe_open
        for name in args.models.split(","):
            path = os.path.join(args.out, f"{name}-{dname}.safetensors")
            with safe_open(path, "pt") as f:
                meta = f.metadata()
                tensors = {k: f.get_tensor(k) for k in f.keys() if not k.startswith("reference.")}
            classes = int(labels.max()) + 1
            model = gm.build(name, g_cpu.x.shape[1], classes)
            meta = export(model, g_cpu, labels.cpu(), split, meta, path, tensors)
            print(f"{name:10s} {dname}: test {meta['test_accuracy']} (re-exported) -> {path}")
        return
    teachers = {}  # f32 logits of the models trained so far, for distillation

    def teacher_of(name):
        t = settings(name)["teacher"]
        if t is None or settings(name)["kd"] == 0:
            return None
        if t not in teachers:  # not asked for: trained here, not exported
            runs = [train(t, g, labels, split, seed) for seed in range(args.seeds)]
            with torch.no_grad():
                teachers[t] = max(runs, key=lambda r: (r[1], -r[3]))[0](g)
        return teachers[t]

    for name in args.models.split(","):
        t0 = time.time()
        soft = teacher_of(name)
        runs = [train(name, g, labels, split, seed, soft) for seed in range(args.seeds)]
        best_seed = max(range(len(runs)), key=lambda s: (runs[s][1], -runs[s][3]))
        model, val, epoch, _ = runs[best_seed]
        with torch.no_grad():
            teachers[name] = model(g)
        model = model.cpu()
        meta = {
            "format": "bitgraphblas-gnn-1",
            "model": name,
            "dataset": dname,
            "hidden": str(model.hidden),
            "seed": str(best_seed),
            "epoch": str(epoch),
            "trained_val_accuracy": f"{val:.4f}",
            "torch": torch.__version__,
            "script": "scripts/gnn-train.py",
        }
        if "gcn" in summary:
            meta["gcn_test_accuracy"] = summary["gcn"]["test_accuracy"]
        path = os.path.join(args.out, f"{name}-{dname}.safetensors")
        meta = export(model, g_cpu, labels, split, meta, path)
        summary[name] = meta
        print(f"{name:10s} {dname}: test {meta['test_accuracy']} val {meta['val_accuracy']} "
              f"(seed {best_seed}, epoch {epoch}, {time.time() - t0:.1f} s) -> {path}", flush=True)
    print(json.dumps({k: {"test": v["test_accuracy"], "val": v["val_accuracy"]} for k, v in summary.items()}))


if __name__ == "__main__":
    main()
