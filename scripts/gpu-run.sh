#!/usr/bin/env bash
# Runs on the GPU machine from the checkout root (copied into the bundle as
# run.sh by scripts/gpu-bundle.sh). Logs go to $OUT (or ./gpu-out).
#   bash .gpu/run.sh [tests] [bench] [bench-args...]
#   bash .gpu/run.sh bits [bits_bench-args...]   (the dense-bit benchmark, issue 17:
#       bits_bench, then its cuBLAS/cuSPARSE anchors on the same shapes and CSR
#       patterns, then one table per family: gpu-bits.md and gpu-bits.json, with
#       bits-ours.json and gpu-bits-anchors.json, in $OUT; `bits --quick` is a
#       smoke run; the CSR scratch goes to $BITS_SCRATCH or /tmp/bitgraphblas-bits)
#   bash .gpu/run.sh exec COMMAND [ARGS...]   (any program, with the bundle's environment;
#                                              $BUNDLE is the bundle folder)
set -o pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
export BITGRAPHBLAS_DATA="$here/data" BITGRAPHBLAS_SHARED_DATA="$here/shared" BITGRAPHBLAS_REQUIRE_GPU=1 BITGRAPHBLAS_COMMIT="$(cat "$here/COMMIT")"
export BITGRAPHBLAS_SUITESPARSE_CASES="$here/data/suitesparse-cases.jsonl.gz"
what="${1:-tests}"; shift || true
log="$out/gpu-$what.log"
{
  echo "commit $(cat "$here/COMMIT")"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} | tee "$log"
status=0
export BUNDLE="$here"
if [ "$what" = exec ]; then
  "$@" 2>&1 | tee -a "$log" || status=1
elif [ "$what" = tests ]; then
  # every built-in kernel module compiled once, on all cores, before the tests
  if [ -x "$here/bin/kernel_cache" ]; then
    "$here/bin/kernel_cache" 2>&1 | tee -a "$log" || status=1
  fi
  for t in "$here"/tests/*; do
    echo "== $(basename "$t")" | tee -a "$log"
    "$t" --test-threads=1 "$@" 2>&1 | tee -a "$log" || status=1
  done
  echo "summary: $(grep -h '^test result' "$log" | awk '{p+=$4; f+=$6; i+=$8} END {print p" passed, "f" failed, "i" ignored"}')" | tee -a "$log"
elif [ "$what" = bits ]; then
  scratch="${BITS_SCRATCH:-/tmp/bitgraphblas-bits}"
  rm -rf "$scratch" "$out/bits-ours.json" "$out/gpu-bits-anchors.json"
  mkdir -p "$scratch"
  "$here/bin/bits_bench" --data "$here/data" --out "$out" --csr-dir "$scratch" "$@" 2>&1 | tee -a "$log" || status=1
  if [ -s "$scratch/anchor-args.txt" ]; then
    mapfile -t anchor_args < "$scratch/anchor-args.txt"
    PYTHONUNBUFFERED=1 python3 "$here/gpu-bits-anchors.py" --out "$out/gpu-bits-anchors.json" "${anchor_args[@]}" 2>&1 | tee -a "$log" || status=1
  fi
  python3 "$here/gpu-bits-report.py" "$out/bits-ours.json" "$out/gpu-bits-anchors.json" \
    --md "$out/gpu-bits.md" --json "$out/gpu-bits.json" 2>&1 | tee -a "$log" || status=1
  rm -rf "$scratch"
else
  "$here/bin/gpu_bench" --data "$here/data" --out "$out" "$@" 2>&1 | tee -a "$log" || status=1
  PYTHONUNBUFFERED=1 python3 "$here/gpu-tc-cupy.py" "$here/data" "$out/tc-cupy.json" 2>&1 | tee -a "$log" || status=1
fi
exit $status
