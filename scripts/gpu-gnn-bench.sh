#!/usr/bin/env bash
# The GNN benchmark on the GPU machine, from the checkout root with the bundle
# in .gpu (scripts/gpu-bundle.sh): ours (`bitgraphblas gnn --backend cuda`)
# and the PyG anchor (scripts/gpu-gnn-anchors.py) in one run, on Cora and
# CiteSeer (committed weights), PubMed (real adjacency, random 0/1
# features of the real width 500, weights trained here for a few epochs:
# timing only) and a generated graph of Flickr's size (the same way): the
# part `small` (the default also runs `reddit`). The part `reddit`: a
# generated graph of Reddit's size (232,965 vertices, about 114M directed
# entries, 602 features, 41 classes; a stochastic block model, written as
# graph.safetensors: too large for Matrix Market text), weights trained for
# one epoch: time and memory only.
#   bash scripts/gpu-gnn-bench.sh [small|reddit|all]
# Writes $OUT/gnn-ours.jsonl, $OUT/gnn-pyg.jsonl and $OUT/gpu-gnn.md.
set -euo pipefail
part="${1:-all}"
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
bin=.gpu/bin/bitgraphblas
data=.gpu/data
: > "$out/gnn-ours.jsonl"
: > "$out/gnn-pyg.jsonl"
run() { # model dataset-dir weights
  "$bin" gnn --model "$1" --weights "$3" --dataset "$2" --backend cuda --json --reps 50 | tee /dev/stderr | tail -1 >> "$out/gnn-ours.jsonl"
}
rm -rf /tmp/gnn-bench && mkdir -p /tmp/gnn-bench
if [ "$part" = small ] || [ "$part" = all ]; then
pub=/tmp/gnn-bench/pubmed
mkdir -p "$pub/weights"
cp "$data/pubmed/"{adj.mtx,labels.txt,split.json} "$pub/"
python3 - "$pub" <<'PY'
import random, sys
random.seed(1)
d = sys.argv[1]
n, f, per_row = 19717, 500, 50
with open(f"{d}/features.mtx", "w") as o:
    o.write("%%MatrixMarket matrix coordinate real general\n")
    o.write("% random 0/1 features (PubMed's own are not available): timing only\n")
    o.write(f"{n} {f} {n * per_row}\n")
    for i in range(n):
        for j in sorted(random.sample(range(f), per_row)):
            o.write(f"{i + 1} {j + 1} 1\n")
PY
# Flickr's size (89,250 vertices, 899,756 directed entries, 500 features, 7
# classes): a generated graph (endpoints drawn with weights (i + 1)^-0.5, so
# degrees are skewed), random 0/1 features and labels: timing and memory only
flickr=/tmp/gnn-bench/flickr-size
mkdir -p "$flickr/weights"
python3 - "$flickr" <<'PY'
import json, sys
import numpy as np
sys.path.insert(0, "scripts")
from csr_bench_graphs import flickr_size_edges
d = sys.argv[1]
rng = np.random.default_rng(1)
n, f, per_row, classes = 89250, 500, 50, 7
edges = flickr_size_edges(rng)
with open(f"{d}/adj.mtx", "w") as o:
    o.write("%%MatrixMarket matrix coordinate pattern symmetric\n")
    o.write("% generated at Flickr's size (timing only)\n")
    o.write(f"{n} {n} {len(edges)}\n")
    o.write("".join(f"{a + 1} {b + 1}\n" for a, b in edges))
with open(f"{d}/features.mtx", "w") as o:
    o.write("%%MatrixMarket matrix coordinate real general\n")
    o.write("% random 0/1 features: timing only\n")
    o.write(f"{n} {f} {n * per_row}\n")
    cols = np.sort(np.argsort(rng.random((n, f)), axis=1)[:, :per_row], axis=1) + 1
    o.write("".join(f"{i + 1} {c} 1\n" for i in range(n) for c in cols[i].tolist()))
with open(f"{d}/labels.txt", "w") as o:
    o.write("".join(f"{c}\n" for c in rng.integers(0, classes, n).tolist()))
with open(f"{d}/split.json", "w") as o:
    json.dump({"train": list(range(0, 1000)), "val": list(range(1000, 1500)),
               "test": list(range(1500, 2500))}, o)
PY
for d in "$pub" "$flickr"; do
  python3 scripts/gnn-train.py --dataset "$d" --models gcn,bigcn,bigcn-bin,gcn-q4 --seeds 1 --epochs 30 \
      --out "$d/weights" 2>&1 | grep -v -i warn | grep -v "sparse_coo\|to_sparse" || true
done
for d in cora citeseer; do
  for m in gcn bigcn bigcn-bin gcn-q4 gcn-q2 sage bisage saint bisaint; do
    run "$m" "$data/$d" "$data/weights/$m-$d.safetensors"
  done
done
for d in "$pub" "$flickr"; do
  for m in gcn bigcn bigcn-bin gcn-q4; do
    run "$m" "$d" "$d/weights/$m-$(basename $d).safetensors"
  done
done
python3 scripts/gpu-gnn-anchors.py "$data/cora" "$data/citeseer" "$pub" "$flickr" --reps 50 | tee -a "$out/gnn-pyg.jsonl"
fi
if [ "$part" = reddit ] || [ "$part" = all ]; then
# Reddit's size: 41 blocks (the labels), 80% of the entries inside a block,
# symmetric, no self loops; 60 random 0/1 features a node (before
# duplicates are dropped); drawn on the GPU
reddit=/tmp/gnn-bench/reddit-size
mkdir -p "$reddit/weights"
python3 - "$reddit" <<'PY'
import json, sys, time
import torch
from safetensors.torch import save_file
d = sys.argv[1]
t0 = time.time()
dev = torch.device("cuda")
g = torch.Generator(device=dev).manual_seed(1)
n, f, per_row, classes, target, p_in = 232965, 602, 60, 41, 114_000_000, 0.8
block = torch.randint(0, classes, (n,), device=dev, generator=g)
order = torch.argsort(block)
size = torch.bincount(block, minlength=classes)
start = torch.cumsum(size, 0) - size
draws = int(target / 2 * 1.04)
i = torch.randint(0, n, (draws,), device=dev, generator=g)
inside = torch.rand(draws, device=dev, generator=g) < p_in
b = block[i]
pick = start[b] + (torch.rand(draws, device=dev, generator=g) * size[b]).long()
j = torch.where(inside, order[pick], torch.randint(0, n, (draws,), device=dev, generator=g))
keep = i != j
i, j = i[keep], j[keep]
keys = torch.unique(torch.cat([i * n + j, j * n + i]))
rows, cols = keys // n, keys % n
row_ptr = torch.zeros(n + 1, dtype=torch.int64, device=dev)
row_ptr[1:] = torch.cumsum(torch.bincount(rows, minlength=n), 0)
fk = torch.unique(torch.arange(n, device=dev).repeat_interleave(per_row) * f
                  + torch.randint(0, f, (n * per_row,), device=dev, generator=g))
frow_ptr = torch.zeros(n + 1, dtype=torch.int64, device=dev)
frow_ptr[1:] = torch.cumsum(torch.bincount(fk // f, minlength=n), 0)
save_file({"adj_row_ptr": row_ptr.cpu(), "adj_col_idx": cols.to(torch.int32).cpu(),
           "feat_row_ptr": frow_ptr.cpu(), "feat_col_idx": (fk % f).to(torch.int32).cpu(),
           "feat_values": torch.ones(fk.numel()).cpu()},
          f"{d}/graph.safetensors", metadata={"features": str(f)})
with open(f"{d}/labels.txt", "w") as o:
    o.write("".join(f"{c}\n" for c in block.tolist()))
with open(f"{d}/split.json", "w") as o:
    json.dump({"train": list(range(0, 4000)), "val": list(range(4000, 6000)),
               "test": list(range(6000, 16000))}, o)
print(f"reddit-size: {n} vertices, {keys.numel()} entries, {fk.numel()} feature entries "
      f"({time.time() - t0:.1f} s)", file=sys.stderr)
PY
python3 scripts/gnn-train.py --dataset "$reddit" --models gcn,bigcn,bigcn-bin --seeds 1 --epochs 1 \
    --out "$reddit/weights" 2>&1 | grep -v -i warn | grep -v "sparse_coo\|to_sparse" || true
for m in gcn bigcn bigcn-bin; do
  run "$m" "$reddit" "$reddit/weights/$m-reddit-size.safetensors"
done
python3 scripts/gpu-gnn-anchors.py "$reddit" --reps 20 | tee -a "$out/gnn-pyg.jsonl"
fi
python3 scripts/gnn-report.py --title "GNN inference on the GPU" \
  --device "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --commit "$(cat .gpu/COMMIT)" --command "bash scripts/gpu-gnn-bench.sh" \
  "$out/gnn-ours.jsonl" "$out/gnn-pyg.jsonl" > "$out/gpu-gnn.md"
