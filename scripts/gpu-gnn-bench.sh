#!/usr/bin/env bash
# The GNN benchmark on the GPU machine, from the checkout root with the bundle
# in .gpu (scripts/gpu-bundle.sh): ours (`bitgraphblas gnn --backend cuda`)
# and the PyG anchor (scripts/gpu-gnn-anchors.py) in one run, on Cora and
# CiteSeer (committed weights) and PubMed (real adjacency, random 0/1
# features of the real width 500, weights trained here for a few epochs:
# timing only). Writes $OUT/gnn-ours.jsonl, $OUT/gnn-pyg.jsonl and
# $OUT/gpu-gnn.md.
set -euo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
bin=.gpu/bin/bitgraphblas
data=.gpu/data
pub=/tmp/gnn-bench/pubmed
rm -rf /tmp/gnn-bench && mkdir -p "$pub/weights"
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
python3 scripts/gnn-train.py --dataset "$pub" --models gcn,bigcn,bigcn-bin,gcn-q4 --seeds 1 --epochs 30 \
    --out "$pub/weights" 2>&1 | grep -v -i warn | grep -v "sparse_coo\|to_sparse" || true
: > "$out/gnn-ours.jsonl"
run() { # model dataset-dir weights
  "$bin" gnn --model "$1" --weights "$3" --dataset "$2" --backend cuda --json --reps 50 | tee /dev/stderr | tail -1 >> "$out/gnn-ours.jsonl"
}
for d in cora citeseer; do
  for m in gcn bigcn bigcn-bin gcn-q4 gcn-q2 sage bisage saint bisaint; do
    run "$m" "$data/$d" "$data/weights/$m-$d.safetensors"
  done
done
for m in gcn bigcn bigcn-bin gcn-q4; do
  run "$m" "$pub" "$pub/weights/$m-$(basename $pub).safetensors"
done
python3 scripts/gpu-gnn-anchors.py "$data/cora" "$data/citeseer" "$pub" --reps 50 | tee "$out/gnn-pyg.jsonl"
python3 scripts/gnn-report.py --title "GNN inference on the GPU" \
  --device "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --commit "$(cat .gpu/COMMIT)" --command "bash scripts/gpu-gnn-bench.sh" \
  "$out/gnn-ours.jsonl" "$out/gnn-pyg.jsonl" > "$out/gpu-gnn.md"
