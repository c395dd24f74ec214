#!/usr/bin/env bash
# Compiles every CUDA kernel with NVRTC for sm_90a (H100, H200) and checks ptxas for spills,
# on a machine without a GPU. Installs the NVRTC and ptxas wheels from PyPI
# into .ci/cuda-tools (gitignored) on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=.ci/cuda-tools
if [ ! -e "$tools/nvidia/cu13/lib/libnvrtc.so.13" ] || [ ! -e "$tools/nvidia/cu13/bin/ptxas" ]; then
  python3 -m pip install -q --target "$tools" nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-nvcc==13.0.88
fi
export LD_LIBRARY_PATH="$PWD/$tools/nvidia/cu13/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BITGRAPHBLAS_PTXAS="$PWD/$tools/nvidia/cu13/bin/ptxas"
export BITGRAPHBLAS_REQUIRE_NVRTC=1
# The test profile and features of the README test command, so .ci/run builds once.
cargo test --workspace --all-features --test cuda_kernels -- --nocapture
