#!/usr/bin/env bash
# Builds the CUDA test binaries and the GPU benchmark here (no GPU needed) and
# packs them, stripped, with the data they read and the runner script, into a
# git-ignored folder that the device tool carries to the GPU machine.
#
#   scripts/gpu-bundle.sh [DEST]        (DEST defaults to .gpu)
#
# Then, on the GPU machine, from the checkout root: `bash DEST/run.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-.gpu}"
target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$dest/tests" "$dest/bin" "$dest/data/large"
json="$dest/build.json"
# Every tests/cuda_*.rs (cargo expands the glob), among them cuda_suitesparse_diff
# (its SuiteSparse cases are copied to data/ below; run.sh points the test at them),
# and tests/replay.rs (its CUDA-graph test).
cargo test --release --features cuda --no-run --message-format=json \
  --test 'cuda_*' --test replay > "$json"
# The algorithms (each against its plain reference, on the GPU backend too).
cargo test --release --features cuda --no-run --message-format=json \
  -p bitgraphblas-algorithms --test algorithms >> "$json"
# GNN inference against PyTorch's exports and the CPU backend.
cargo test --release --features cuda --no-run --message-format=json \
  -p bitgraphblas-algorithms --test gnn >> "$json"
python3 - "$json" "$dest/tests" <<'PY'
import json, shutil, sys, os
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        name = m["target"]["name"]
        shutil.copy(m["executable"], os.path.join(sys.argv[2], name))
        print("test binary:", name)
PY
# Fills the kernel cache on the GPU machine before the tests (run.sh tests).
cargo build --release --features cuda --example kernel_cache
cp "$target/release/examples/kernel_cache" "$dest/bin/"
if [ -e examples/gpu_bench.rs ]; then
  cargo build --release --features cuda --example gpu_bench
  cp "$target/release/examples/gpu_bench" "$dest/bin/"
fi
# The dense-bit benchmark (run.sh bits; its anchors are the gpu-bits-*.py copied below).
if [ -e examples/bits_bench.rs ]; then
  cargo build --release --features cuda --example bits_bench
  cp "$target/release/examples/bits_bench" "$dest/bin/"
fi
cargo build --release --features cuda -p bitgraphblas-algorithms --bin bitgraphblas
cp "$target/release/bitgraphblas" "$dest/bin/"
# The GPU algorithm benchmark (and its CuPy anchor), where present.
if [ -e algorithms/examples/bench_gpu.rs ]; then
  cargo build --release --features cuda -p bitgraphblas-algorithms --example bench_gpu
  cp "$target/release/examples/bench_gpu" "$dest/bin/"
fi
strip "$dest"/tests/* "$dest"/bin/* 2>/dev/null || true
cp data/*.mtx tests/data/suitesparse-cases.jsonl.gz "$dest/data/"
cp -r data/cora data/citeseer data/weights "$dest/data/"
# PubMed's real adjacency (the GNN benchmark, scripts/gpu-gnn-bench.sh)
cp -r ../shared/data/planetoid/pubmed "$dest/data/"
for g in USA-road-d.NY cit-HepPh ego-Twitter cnr-2000; do
  cp ../shared/data/large/$g.mtx.gz "$dest/data/large/"
done
# The shared/data layout the algorithms tests read (BITGRAPHBLAS_SHARED_DATA).
mkdir -p "$dest/shared/suitesparse/extra" "$dest/shared/large"
cp ../shared/data/suitesparse/*.mtx "$dest/shared/suitesparse/"
cp ../shared/data/suitesparse/extra/*.mtx "$dest/shared/suitesparse/extra/"
cp ../shared/data/large/cit-HepPh.mtx.gz "$dest/shared/large/"
cp scripts/gpu-run.sh "$dest/run.sh"
cp scripts/gpu-*.py "$dest/"
git rev-parse HEAD > "$dest/COMMIT"
rm -f "$json"
du -sh "$dest"
