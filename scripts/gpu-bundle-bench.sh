#!/usr/bin/env bash
# A faster variant of scripts/gpu-bundle.sh for kernel work: builds only the
# CUDA test binaries (tests/cuda_*.rs) and the GPU benchmarks
# (examples/gpu_bench.rs, examples/bits_bench.rs), with the data they read and
# the same runner.
#
#   scripts/gpu-bundle-bench.sh [DEST]        (DEST defaults to .gpu)
#
# Then, on the GPU machine: `bash DEST/run.sh tests; bash DEST/run.sh bench`
# (`bash DEST/run.sh bits` for the dense-bit benchmark).
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-.gpu}"
target="${CARGO_TARGET_DIR:-target}"
rm -rf "$dest"
mkdir -p "$dest/tests" "$dest/bin" "$dest/data/large"
json="$dest/build.json"
cargo test --release --features cuda --no-run --message-format=json \
  --test 'cuda_*' > "$json"
python3 - "$json" "$dest/tests" <<'PY'
import json, shutil, sys, os
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        name = m["target"]["name"]
        shutil.copy(m["executable"], os.path.join(sys.argv[2], name))
        print("test binary:", name)
PY
cargo build --release --features cuda --example gpu_bench
cp "$target/release/examples/gpu_bench" "$dest/bin/"
if [ -e examples/bits_bench.rs ]; then
  cargo build --release --features cuda --example bits_bench
  cp "$target/release/examples/bits_bench" "$dest/bin/"
fi
strip "$dest"/tests/* "$dest"/bin/* 2>/dev/null || true
cp data/*.mtx "$dest/data/"
for g in USA-road-d.NY cit-HepPh ego-Twitter cnr-2000; do
  cp ../shared/data/large/$g.mtx.gz "$dest/data/large/"
done
cp scripts/gpu-run.sh "$dest/run.sh"
cp scripts/gpu-*.py "$dest/"
git rev-parse HEAD > "$dest/COMMIT"
rm -f "$json"
du -sh "$dest"
