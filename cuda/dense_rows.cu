// cuda/dense_rows.cu: the type-free module `dense_rows`: kernels on the rows
// of f32 (and i32 count) dense row-major matrices. Row-wise reductions of an
// m x n matrix, a warp per row (grid-stride over rows), for a classifier's
// output (src/backend/cuda/dense.rs launches them):
// - dense_argmax_rows: out_i = the column of row i's largest value (ties: the
//   lowest column; NaN is larger than every number, the first NaN wins);
// - dense_log_softmax_rows: c_ij = (a_ij - m_i) - logf(s_i), m_i = the largest
//   number of the row (fmaxf: NaN ignored), s_i = Σ_j expf(a_ij - m_i) as
//   per-lane sums (lane l: columns l, l + 32, ... in order) combined by a
//   butterfly (a fixed order: results do not depend on scheduling).
// and the CSR product of integer counts (`cuda/csr_counts.cu`, included at
// the end).
#include "common.cuh"

// (v, j) beats (w, k) as an argmax candidate (j != k): NaN first, then the
// larger value, then the lower column.
__device__ __forceinline__ bool argmax_beats(f32 v, u32 j, f32 w, u32 k) {
  const bool vn = v != v, wn = w != w;
  if (vn || wn) return vn && (!wn || j < k);
  return v > w || (v == w && j < k);
}

extern "C" __global__ void dense_argmax_rows(const f32* a, u64 m, u64 n, u32* out) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  for (u64 i = warp; i < m; i += nwarps) {
    const f32* row = a + i * n;
    // A lane without a column (n < 32) has no candidate.
    bool has = false;
    f32 best = 0.0f;
    u32 bj = 0;
    for (u64 j = lane; j < n; j += 32) {
      const f32 x = row[j];
      if (!has || argmax_beats(x, (u32)j, best, bj)) {
        best = x;
        bj = (u32)j;
        has = true;
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      const f32 ob = __shfl_xor_sync(FULL_MASK, best, off);
      const u32 oj = __shfl_xor_sync(FULL_MASK, bj, off);
      const bool oh = __shfl_xor_sync(FULL_MASK, (int)has, off) != 0;
      if (oh && (!has || argmax_beats(ob, oj, best, bj))) {
        best = ob;
        bj = oj;
        has = true;
      }
    }
    if (lane == 0) out[i] = bj;
  }
}

extern "C" __global__ void dense_log_softmax_rows(const f32* a, u64 m, u64 n, f32* c) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  for (u64 i = warp; i < m; i += nwarps) {
    const f32* row = a + i * n;
    f32 mx = __int_as_float(0xff800000);  // -inf
    for (u64 j = lane; j < n; j += 32) mx = fmaxf(mx, row[j]);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(FULL_MASK, mx, off));
    f32 s = 0.0f;
    for (u64 j = lane; j < n; j += 32) s += expf(row[j] - mx);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(FULL_MASK, s, off);
    const f32 ls = logf(s);
    for (u64 j = lane; j < n; j += 32) c[i * n + j] = (row[j] - mx) - ls;
  }
}

#include "csr_counts.cu"
