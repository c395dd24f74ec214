// cuda/csr_spmm.cu: CSR times dense row-major (`csr_mxm_dense`), and the same
// with diagonal scalings and a bias (`csr_mxm_dense_scaled`, for
// `ext::mxm_dense_scaled`). Part of the semiring modules
// `sr_<semiring>_<type>` (cuda/sr.cu: entries end in `_<SR_NAME>`), so
// built-in and user semirings share it.
//
// C[i, f] = (A(i,j0) ⊗ B[j0, f]) ⊕ (A(i,j1) ⊗ B[j1, f]) ... over the row's
// entries in column order, the first term starting the sum as on the CPU; a
// row of A with no entry gives `zero`. A thread per output element; a row's
// gathers issued CSR_SPMM_ROUND entries at a time, then folded in order, the
// next round's columns loading meanwhile (a hub row's dependent loads in
// rounds, not one by one: Cora's row of 168 entries was the whole kernel). Scaled: B[j, f] is
// r_j ⊗ B[j, f], the sum s becomes (l_i ⊗ s) ⊕ bias_f, each where given (a
// null pointer: absent), in the order of operations of the unfused calls
// (`scale_dense_rows`, `mxm_dense`, `scale_dense_rows`, `scale_dense_cols`):
// the same roundings, so the same values.
#include "semiring.cuh"

#define CSR_SPMM_ROUND 16

// Entries [p0, p0 + CSR_SPMM_ROUND) of a row ending at e: columns and values.
__device__ __forceinline__ void csr_spmm_round(const u32* __restrict__ colidx, const T* __restrict__ vals, u32 p0,
                                               u32 e, u32 (&j)[CSR_SPMM_ROUND], T (&v)[CSR_SPMM_ROUND]) {
#pragma unroll
  for (int x = 0; x < CSR_SPMM_ROUND; ++x) {
    const u32 p = p0 + x;
    j[x] = p < e ? colidx[p] : 0;
    v[x] = p < e ? vals[p] : SR::zero();
  }
}

__device__ __forceinline__ void csr_spmm(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                         const T* __restrict__ vals, u64 nrows, const T* __restrict__ b, u64 nf,
                                         const T* __restrict__ left, const T* __restrict__ right,
                                         const T* __restrict__ bias, T* __restrict__ c) {
  for (u64 q = gtid(); q < nrows * nf; q += gthreads()) {
    const u64 i = q / nf, f = q % nf;
    const u32 s = rowptr[i], e = rowptr[i + 1];
    T acc = SR::zero();
    // the next round's columns and values load while this round's rows of
    // b are gathered and folded: one dependent load a round
    u32 jn[CSR_SPMM_ROUND];
    T vn[CSR_SPMM_ROUND];
    if (s < e) csr_spmm_round(colidx, vals, s, e, jn, vn);
    for (u32 p0 = s; p0 < e; p0 += CSR_SPMM_ROUND) {
      T t[CSR_SPMM_ROUND], v[CSR_SPMM_ROUND];
      u32 j[CSR_SPMM_ROUND];
#pragma unroll
      for (int x = 0; x < CSR_SPMM_ROUND; ++x) {
        j[x] = jn[x];
        v[x] = vn[x];
      }
      if (p0 + CSR_SPMM_ROUND < e) csr_spmm_round(colidx, vals, p0 + CSR_SPMM_ROUND, e, jn, vn);
#pragma unroll
      for (int x = 0; x < CSR_SPMM_ROUND; ++x)
        if (p0 + x < e) {
          const T bj = b[(u64)j[x] * nf + f];
          t[x] = SR::mul(v[x], right ? SR::mul(right[j[x]], bj) : bj);
        }
#pragma unroll
      for (int x = 0; x < CSR_SPMM_ROUND; ++x)
        if (p0 + x < e) acc = p0 + x == s ? t[x] : SR::add(acc, t[x]);
    }
    if (left) acc = SR::mul(left[i], acc);
    if (bias) acc = SR::add(acc, bias[f]);
    c[q] = acc;
  }
}

extern "C" __global__ void CAT(csr_mxm_dense_, SR_NAME)(const u32* __restrict__ rowptr,
                                                         const u32* __restrict__ colidx,
                                                         const T* __restrict__ vals, u64 nrows,
                                                         const T* __restrict__ b, u64 nf, T* __restrict__ c) {
  csr_spmm(rowptr, colidx, vals, nrows, b, nf, nullptr, nullptr, nullptr, c);
}

extern "C" __global__ void CAT(csr_mxm_dense_scaled_, SR_NAME)(const u32* __restrict__ rowptr,
                                                                const u32* __restrict__ colidx,
                                                                const T* __restrict__ vals, u64 nrows,
                                                                const T* __restrict__ b, u64 nf,
                                                                const T* __restrict__ left,
                                                                const T* __restrict__ right,
                                                                const T* __restrict__ bias, T* __restrict__ c) {
  csr_spmm(rowptr, colidx, vals, nrows, b, nf, left, right, bias, c);
}
