#!/usr/bin/env python3
"""Train the GNN models of `bitgraphblas gnn` and export their weights.

    python3 scripts/gnn-train.py --dataset data/cora [--models gcn,bigcn-bin]
        [--seeds 5] [--out data/weights] [--device cpu|cuda]

For every model (see `gnn_models.MODELS`) it trains `--seeds` runs on the
public Planetoid split (Adam, full batch), keeps the run and epoch with the
best validation accuracy, and writes `OUT/MODEL-DATASET.safetensors`
holding the weights in the form the Rust loader reads and PyTorch's own
inference of them:

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


def load(dataset, device):
    n, _, rows, cols, _ = read_mtx(os.path.join(dataset, "adj.mtx"))
    fm, fn, fr, fc, fv = read_mtx(os.path.join(dataset, "features.mtx"))
    assert fm == n
    x = torch.zeros(n, fn)
    x[torch.tensor(fr), torch.tensor(fc)] = torch.tensor(fv)
    with open(os.path.join(dataset, "labels.txt")) as f:
        labels = torch.tensor([int(v) for v in f.read().split()])
    with open(os.path.join(dataset, "split.json")) as f:
        split = {k: torch.tensor(v) for k, v in json.load(f).items()}
    return gm.Graph(n, rows, cols, x, device), labels.to(device), {k: v.to(device) for k, v in split.items()}


def accuracy(logits, labels, idx):
    return (logits[idx].argmax(1) == labels[idx]).float().mean().item()


SETTINGS = {
    # lr, weight decay, epochs
    "f32": (0.01, 5e-4, 300),
    "binary": (0.005, 1e-5, 500),
}


def train(name, g, labels, split, seed):
    torch.manual_seed(seed)
    classes = int(labels.max()) + 1
    model = gm.build(name, g.x.shape[1], classes).to(g.x.device)
    kind = "binary" if name.startswith("bi") or name.startswith("gcn-q") else "f32"
    lr, wd, epochs = SETTINGS[kind]
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=wd)
    best = (-1.0, 0, None)
    for epoch in range(epochs):
        model.train()
        opt.zero_grad()
        out = model(g)
        loss = F.cross_entropy(out[split["train"]], labels[split["train"]])
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            val = accuracy(model(g), labels, split["val"])
        if val > best[0]:
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best = (val, epoch, state)
    model.load_state_dict(best[2])
    model.eval()
    return model, best[0], best[1]


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
    ap.add_argument("--epochs", type=int, help="override the epochs of every model")
    ap.add_argument("--reexport", action="store_true",
                    help="recompute the reference tensors of the existing OUT files (no training)")
    args = ap.parse_args()
    if args.epochs:
        for k, (lr, wd, _) in SETTINGS.items():
            SETTINGS[k] = (lr, wd, args.epochs)
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
    for name in args.models.split(","):
        t0 = time.time()
        runs = [train(name, g, labels, split, seed) for seed in range(args.seeds)]
        best_seed = max(range(len(runs)), key=lambda s: runs[s][1])
        model, val, epoch = runs[best_seed]
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
