// cuda/sr_csr.cuh: what the CSR products of the semiring modules share
// (cuda/csr_mxv.cu, cuda/csr_blocks.cu): writing a row's result.
#pragma once
#include "semiring.cuh"

// Row i's result into the output: written (presence by the caller), or
// folded into the full output with `accum`.
__device__ __forceinline__ void csr_put(T* __restrict__ out_vals, u64 i, int accum, T acc, bool has) {
  if (accum < 0) out_vals[i] = has ? acc : SR::zero();
  else if (has) out_vals[i] = binop<T>(accum, out_vals[i], acc);
}
