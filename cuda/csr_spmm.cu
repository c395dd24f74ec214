// cuda/csr_spmm.cu: CSR times dense row-major, C = A ⊕.⊗ B, with the
// diagonal scalings and the bias of `ext::mxm_dense_scaled` (null pointers
// where absent: the plain `mxm_dense`). Part of the semiring modules
// `sr_<semiring>_<type>` (cuda/sr.cu: entries end in `_<SR_NAME>`), so
// built-in and user semirings share it.
//
// C[i, f] = (A(i,j0) ⊗ B[j0, f]) ⊕ (A(i,j1) ⊗ B[j1, f]) ... over the row's
// entries in column order, the first term starting the sum as on the CPU; a
// row of A with no entry gives `zero`. Scaled: B[j, f] is r_j ⊗ B[j, f], the
// sum s becomes (l_i ⊗ s) ⊕ bias_f, each where given, in the order of
// operations of the unfused calls (`scale_dense_rows`, `mxm_dense`,
// `scale_dense_rows`, `scale_dense_cols`): the same roundings, the same
// values. A thread per output element, two ways of walking its row (the host
// picks by the mean row length, src/backend/cuda/dense.rs):
// - `csr_mxm_dense`: one entry after another (many threads in flight hide
//   the loads where rows are long);
// - `csr_mxm_dense_rounds`: CSR_SPMM_ROUND entries at a time, their gathers
//   issued together, then folded in order, the next round's columns and
//   values loading meanwhile (where rows are short and threads few, a hub
//   row's chain of dependent loads was the whole kernel: Cora's row of 168
//   entries).
#include "semiring.cuh"

// Entries a round: 16 for 4-byte values, 8 for 8-byte ones (at 16 their
// arrays spill: MAX.TIMES on u64).
#define CSR_SPMM_ROUND (sizeof(T) > 4 ? 8 : 16)

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

// B's row j, scaled where `right` is given.
__device__ __forceinline__ T csr_spmm_b(const T* __restrict__ b, const T* __restrict__ right, u32 j, u64 nf, u64 f) {
  const T bj = b[(u64)j * nf + f];
  return right ? SR::mul(right[j], bj) : bj;
}

// Row [s, e)'s sum, one entry after another.
__device__ __forceinline__ T csr_spmm_row(const u32* __restrict__ colidx, const T* __restrict__ vals, u32 s, u32 e,
                                          const T* __restrict__ b, const T* __restrict__ right, u64 nf, u64 f) {
  T acc = SR::zero();
  for (u32 p = s; p < e; ++p) {
    const T t = SR::mul(vals[p], csr_spmm_b(b, right, colidx[p], nf, f));
    acc = p == s ? t : SR::add(acc, t);
  }
  return acc;
}

// Row [s, e)'s sum in rounds: the next round's columns and values load while
// this round's rows of b are gathered and folded (one dependent load a round).
__device__ __forceinline__ T csr_spmm_row_rounds(const u32* __restrict__ colidx, const T* __restrict__ vals, u32 s,
                                                 u32 e, const T* __restrict__ b, const T* __restrict__ right, u64 nf,
                                                 u64 f) {
  T acc = SR::zero();
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
      if (p0 + x < e) t[x] = SR::mul(v[x], csr_spmm_b(b, right, j[x], nf, f));
#pragma unroll
    for (int x = 0; x < CSR_SPMM_ROUND; ++x)
      if (p0 + x < e) acc = p0 + x == s ? t[x] : SR::add(acc, t[x]);
  }
  return acc;
}

template <bool ROUNDS>
__device__ __forceinline__ void csr_spmm(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                         const T* __restrict__ vals, u64 nrows, const T* __restrict__ b, u64 nf,
                                         const T* __restrict__ left, const T* __restrict__ right,
                                         const T* __restrict__ bias, T* __restrict__ c) {
  for (u64 q = gtid(); q < nrows * nf; q += gthreads()) {
    const u64 i = q / nf, f = q % nf;
    const u32 s = rowptr[i], e = rowptr[i + 1];
    T acc = ROUNDS ? csr_spmm_row_rounds(colidx, vals, s, e, b, right, nf, f)
                   : csr_spmm_row(colidx, vals, s, e, b, right, nf, f);
    if (left) acc = SR::mul(left[i], acc);
    if (bias) acc = SR::add(acc, bias[f]);
    c[q] = acc;
  }
}

#define CSR_SPMM_ENTRY(NAME, ROUNDS)                                                                           \
  extern "C" __global__ void CAT(NAME, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,    \
                                                const T* __restrict__ vals, u64 nrows, const T* __restrict__ b,    \
                                                u64 nf, const T* __restrict__ left, const T* __restrict__ right,   \
                                                const T* __restrict__ bias, T* __restrict__ c) {                   \
    csr_spmm<ROUNDS>(rowptr, colidx, vals, nrows, b, nf, left, right, bias, c);                                    \
  }
CSR_SPMM_ENTRY(csr_mxm_dense_, false)
CSR_SPMM_ENTRY(csr_mxm_dense_rounds_, true)
