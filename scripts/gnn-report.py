#!/usr/bin/env python3
"""The GNN benchmark table from JSON lines: `bitgraphblas gnn --json` lines
(ours) and, for the GPU, `gpu-gnn-anchors.py` lines (PyG), measured in one
run. Writes Markdown to standard output.

    python3 scripts/gnn-report.py --title T --device D --commit C --command CMD \
        ours.jsonl [pyg.jsonl]
"""

import argparse
import json


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip().startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--device", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("ours")
    ap.add_argument("pyg", nargs="?")
    a = ap.parse_args()
    ours = lines(a.ours)
    pyg = lines(a.pyg) if a.pyg else []
    # the anchor: the best plain PyG path; the CUDA-graph replays
    # (as ours runs) in a column of their own
    best, best_graph = {}, {}
    for p in pyg:
        d = p["dataset"]
        into = best_graph if p["anchor"].endswith("-cuda-graph") else best
        if d not in into or p["seconds"] < into[d]["seconds"]:
            into[d] = p
    print(f"# {a.title}\n")
    print(f"Device: {a.device}. Commit: `{a.commit}`. Command: `{a.command}`.\n")
    if pyg:
        print("PyG anchor: fp32 2-layer GCN (hidden 16, cached normalisation), the faster of `edge_index` "
              "and CSR, forward pass timed with CUDA events, peak device memory PyTorch allocated. "
              "The `-cuda-graph` rows: the same forward pass captured once and replayed as one CUDA graph "
              "(as `gnn` replays ours where the backend records it: column `recorded`), compared "
              "in a column of their own.\n")
        print("| dataset | PyG path | PyG ms | PyG peak MB |")
        print("|---|---|---|---|")
        for p in pyg:
            print(f"| {p['dataset']} | {p['anchor']} | {p['seconds'] * 1e3:.3f} | {p['peak_bytes'] / 1e6:.2f} |")
        print()
    # the forward pass by the device's clock (CUDA events around the replay,
    # as PyG's is timed) where the backend has one, and by the host's around
    # the replay and a wait for the device beside it
    device_clock = any(o.get("forward_clock") == "device" for o in ours)
    cols = ("| model | dataset | test accuracy | forward ms (logits left on the backend"
            + ("; CUDA events" if device_clock else "") + ") | "
            + ("forward ms by the host's clock (replay and wait) | " if device_clock else "")
            + "round trip ms (predictions on the host) | recorded | peak MB |")
    if pyg:
        cols += " best PyG forward / ours forward | PyG peak / ours | PyG CUDA graph / ours forward |"
    print(cols)
    print("|" + "---|" * (cols.count("|") - 1))
    for o in ours:
        fwd = o.get("forward_seconds", o["seconds"])
        rec = {True: "yes", False: "no"}.get(o.get("recorded"), "-")
        host = f"{o.get('forward_host_seconds', fwd) * 1e3:.3f} | " if device_clock else ""
        row = (f"| {o['model']} | {o['dataset']} | {o['accuracy']:.4f} | {fwd * 1e3:.3f} | {host}"
               f"{o['seconds'] * 1e3:.3f} | {rec} | {o['peak_bytes'] / 1e6:.2f} |")
        if pyg and o["dataset"] in best:
            b = best[o["dataset"]]
            g = best_graph.get(o["dataset"])
            graph = f"{g['seconds'] / fwd:.2f}x" if g else "-"
            row += f" {b['seconds'] / fwd:.2f}x | {b['peak_bytes'] / o['peak_bytes']:.1f}x | {graph} |"
        print(row)
    print("\n## Raw\n\n```json")
    for o in ours + pyg:
        print(json.dumps(o))
    print("```")


if __name__ == "__main__":
    main()
