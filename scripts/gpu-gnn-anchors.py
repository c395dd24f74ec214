#!/usr/bin/env python3
"""The PyG anchor of the GNN benchmark: fp32 2-layer GCN (hidden 16, cached
normalisation) with `edge_index` and with a CSR `torch.sparse` adjacency,
forward pass timed with CUDA events (features resident on the device,
logits on the device at the end), median of `--reps`, and the peak device
memory PyTorch allocated during the pass (model, graph and features
included). One JSON line per dataset and path, and one more per path
with the forward pass replayed as one CUDA graph (`-cuda-graph`, where
PyTorch can capture it; its peak includes the graph's memory pool).

    python3 scripts/gpu-gnn-anchors.py DATA_DIR [DATA_DIR ...] [--reps 50]
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
gm = __import__("gnn_models")
train = __import__("gnn-train")


def time_forward(fn, reps, warm_up=0.3):
    """The median of `reps` forward calls timed by CUDA events, after calls
    for `warm_up` seconds (5 at least), as `bitgraphblas gnn --reps` warms up."""
    start, n = time.perf_counter(), 0
    while n < 5 or time.perf_counter() - start < warm_up:
        fn()
        torch.cuda.synchronize()
        n += 1
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    return times[len(times) // 2]


def graphed(fwd):
    """`fwd` recorded as one CUDA graph (after warm-up passes on a side
    stream, as PyTorch asks): returns the replay, or None where the
    forward pass cannot be captured."""
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fwd()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fwd()
        return g.replay
    except Exception as e:  # capture unsupported by some op
        print(f"# CUDA graph capture failed: {e}", file=sys.stderr)
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args()
    from torch_geometric.nn import GCNConv

    dev = torch.device("cuda")
    for d in args.datasets:
        name = os.path.basename(os.path.normpath(d))
        n, rows, cols, x_host = train.read_graph(d)
        fn = x_host.shape[1]
        classes = 1 + max(int(v) for v in open(os.path.join(d, "labels.txt")).read().split())
        for path in ("edge_index", "csr"):
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            x = x_host.to(dev)
            ei = torch.stack([rows, cols]).to(dev)
            c1 = GCNConv(fn, 16, cached=True).to(dev).eval()
            c2 = GCNConv(16, classes, cached=True).to(dev).eval()
            if path == "csr":
                g = gm.Graph(n, rows, cols, x, dev)
                w1, w2 = c1.lin.weight.t().contiguous(), c2.lin.weight.t().contiguous()

                def fwd():
                    h = torch.relu(g.gcn(x @ w1) + c1.bias)
                    return g.gcn(h @ w2) + c2.bias
            else:
                def fwd():
                    h = torch.relu(c1(x, ei))
                    return c2(h, ei)

            with torch.no_grad():
                secs = time_forward(fwd, args.reps)
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated() - base
                print(json.dumps({"anchor": f"pyg-gcn-f32-{path}", "dataset": name, "seconds": secs,
                                  "peak_bytes": peak, "torch": torch.__version__}), flush=True)
                # the same forward pass replayed as one CUDA graph (as ours is)
                replay = graphed(fwd)
                if replay is not None:
                    secs = time_forward(replay, args.reps)
                    torch.cuda.synchronize()
                    peak = torch.cuda.max_memory_allocated() - base
                    print(json.dumps({"anchor": f"pyg-gcn-f32-{path}-cuda-graph", "dataset": name,
                                      "seconds": secs, "peak_bytes": peak, "torch": torch.__version__}),
                          flush=True)

if __name__ == "__main__":
    main()
