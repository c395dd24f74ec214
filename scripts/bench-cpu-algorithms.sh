#!/usr/bin/env bash
# CPU algorithm benchmark: SuiteSparse:GraphBLAS (python-graphblas, 2 threads,
# LAGraph-style formulations) and bitgraphblas-algorithms (CPU backend), back to
# back on the same graphs, with the machine state. The raw output is
# benches/results/cpu-algorithms.txt; its tables go to benches/results/cpu-algorithms.md
# (replacing the previous figures; history.md keeps one line per milestone).
#
#   scripts/bench-cpu-algorithms.sh [REPS] [GRAPH ...] > benches/results/cpu-algorithms.txt
#
# PYTHON selects the interpreter that has python-graphblas (default: the
# /work/venv-gb virtual environment when present, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-5}
shift || true
PY=${PYTHON:-$([ -x /work/venv-gb/bin/python ] && echo /work/venv-gb/bin/python || echo python3)}
cargo build --release -p bitgraphblas-algorithms --example bench_cpu >&2
BIN=${CARGO_TARGET_DIR:-target}/release/examples/bench_cpu
echo "# commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' (dirty)'), $(date -u)"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs; $(uptime)"
"$PY" scripts/suitesparse_algorithms.py --threads 2 --reps "$REPS" "$@"
echo
"$BIN" --reps "$REPS" "$@"
echo "# $(uptime)"
