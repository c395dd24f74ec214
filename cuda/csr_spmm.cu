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
// - `csr_mxm_dense_long`: rounds, but the rows of many more entries than
//   the mean (the matrix's list, kept with it) a block each, whose threads
//   gather the row's products together into shared memory before one
//   thread an output folds them (below): a hub row is then a few dependent
//   loads, not one a round (Cora's row of 168 entries in rounds of 16 took
//   about a third of the kernel).
#include "semiring.cuh"

// A's values: `vals[p]`, or `iso` for every entry where `vals` is NULL (an
// iso-valued matrix, whose values are not stored).
struct SpmmVals {
  const T* __restrict__ vals;
  T iso;
  __device__ __forceinline__ T operator[](u32 p) const { return vals ? vals[p] : iso; }
};

// Entries a round: 16 for 4-byte values, 8 for 8-byte ones (at 16 their
// arrays spill: MAX.TIMES on u64).
#define CSR_SPMM_ROUND (sizeof(T) > 4 ? 8 : 16)

// Entries [p0, p0 + CSR_SPMM_ROUND) of a row ending at e: columns and values.
__device__ __forceinline__ void csr_spmm_round(const u32* __restrict__ colidx, SpmmVals vals, u32 p0, u32 e,
                                               u32 (&j)[CSR_SPMM_ROUND], T (&v)[CSR_SPMM_ROUND]) {
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
__device__ __forceinline__ T csr_spmm_row(const u32* __restrict__ colidx, SpmmVals vals, u32 s, u32 e,
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
__device__ __forceinline__ T csr_spmm_row_rounds(const u32* __restrict__ colidx, SpmmVals vals, u32 s, u32 e,
                                                 const T* __restrict__ b, const T* __restrict__ right, u64 nf,
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

// C[i, f] from row i's sum: (l_i ⊗ acc) ⊕ bias_f, each where given.
__device__ __forceinline__ void csr_spmm_put(const T* __restrict__ left, const T* __restrict__ bias,
                                             T* __restrict__ c, u64 i, u64 nf, u64 f, T acc) {
  if (left) acc = SR::mul(left[i], acc);
  if (bias) acc = SR::add(acc, bias[f]);
  c[i * nf + f] = acc;
}

template <bool ROUNDS>
__device__ __forceinline__ void csr_spmm(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                         SpmmVals vals, u64 nrows, const T* __restrict__ b, u64 nf,
                                         const T* __restrict__ left, const T* __restrict__ right,
                                         const T* __restrict__ bias, T* __restrict__ c) {
  for (u64 q = gtid(); q < nrows * nf; q += gthreads()) {
    const u64 i = q / nf, f = q % nf;
    const u32 s = rowptr[i], e = rowptr[i + 1];
    const T acc = ROUNDS ? csr_spmm_row_rounds(colidx, vals, s, e, b, right, nf, f)
                         : csr_spmm_row(colidx, vals, s, e, b, right, nf, f);
    csr_spmm_put(left, bias, c, i, nf, f, acc);
  }
}

#define CSR_SPMM_ENTRY(NAME, ROUNDS)                                                                           \
  extern "C" __global__ void CAT(NAME, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,    \
                                                const T* __restrict__ vals, u64 isobits, u64 nrows,                \
                                                const T* __restrict__ b, u64 nf, const T* __restrict__ left,       \
                                                const T* __restrict__ right, const T* __restrict__ bias,           \
                                                T* __restrict__ c) {                                               \
    csr_spmm<ROUNDS>(rowptr, colidx, SpmmVals{vals, Sc<T>::from_bits(isobits)}, nrows, b, nf, left, right, bias,  \
                     c);                                                                                           \
  }
CSR_SPMM_ENTRY(csr_mxm_dense_, false)
CSR_SPMM_ENTRY(csr_mxm_dense_rounds_, true)

// ---- long rows a block each -------------------------------------------------------------
// Features a long row's block stages at a time: BLOCKS_CAP x SPMM_FC products, 32 KB.
#define SPMM_FC (sizeof(T) > 4 ? 8 : 16)
// Products a thread gathers with their loads in flight together.
#define SPMM_BATCH 8

// Row i's outputs f0 .. f0 + SPMM_FC (those below nf) by a block of
// BLOCKS_NT threads: BLOCKS_CAP entries at a time, their columns and values
// into shared memory (coalesced), then every product a ⊗ B[j, f] of the
// chunk, SPMM_BATCH a thread with their loads in flight, so that the row's
// gathers are spread over the block rather than chained in one thread; then
// thread f folds them in column order, carrying its sum from chunk to chunk:
// the same terms in the same order as the thread-per-output kernels.
__device__ __forceinline__ void csr_spmm_long_row(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                  SpmmVals vals, const T* __restrict__ b, u64 nf,
                                                  const T* __restrict__ left, const T* __restrict__ right,
                                                  const T* __restrict__ bias, T* __restrict__ c, u32 i, u64 f0) {
  __shared__ u32 sj[BLOCKS_CAP];
  __shared__ T sv[BLOCKS_CAP];
  __shared__ T sp[BLOCKS_CAP * SPMM_FC];
  const u32 t = threadIdx.x, fc = (u32)min((u64)SPMM_FC, nf - f0);
  const u32 s = rowptr[i], e = rowptr[i + 1];
  T acc = SR::zero();
  for (u32 p0 = s; p0 < e; p0 += BLOCKS_CAP) {
    const u32 pn = min(e - p0, (u32)BLOCKS_CAP), np = pn * fc;
    for (u32 x = t; x < pn; x += BLOCKS_NT) {
      sj[x] = colidx[p0 + x];
      sv[x] = vals[p0 + x];
    }
    __syncthreads();
    for (u32 y0 = t; y0 < np; y0 += SPMM_BATCH * BLOCKS_NT) {
      T v[SPMM_BATCH];
      u32 slot[SPMM_BATCH];
#pragma unroll
      for (int q = 0; q < SPMM_BATCH; ++q) {
        const u32 y = y0 + q * BLOCKS_NT, x = y / fc, f = y - x * fc;
        slot[q] = x * SPMM_FC + f;
        if (y < np) v[q] = SR::mul(sv[x], csr_spmm_b(b, right, sj[x], nf, f0 + f));
      }
#pragma unroll
      for (int q = 0; q < SPMM_BATCH; ++q)
        if (y0 + q * BLOCKS_NT < np) sp[slot[q]] = v[q];
    }
    __syncthreads();
    if (t < fc)
#pragma unroll 8
      for (u32 x = 0; x < pn; ++x) {
        const T v = sp[x * SPMM_FC + t];
        acc = p0 + x == s ? v : SR::add(acc, v);
      }
    __syncthreads();  // before the next chunk overwrites sj, sv, sp
  }
  if (t < fc) csr_spmm_put(left, bias, c, i, nf, f0 + t, acc);
}

// `csr_mxm_dense_long`: the rows of more than long_min entries (`long_rows`,
// nlong of them: the matrix's list, kept with it) a block each for every
// SPMM_FC features (`csr_spmm_long_row`), in the grid's first blocks; the
// other rows in rounds, a thread per output, in the blocks after them.
extern "C" __global__ void __launch_bounds__(BLOCKS_NT)
    CAT(csr_mxm_dense_long_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                      const T* __restrict__ avals, u64 isobits, u64 nrows, const T* __restrict__ b,
                                      u64 nf, const T* __restrict__ left, const T* __restrict__ right,
                                      const T* __restrict__ bias, T* __restrict__ c,
                                      const u32* __restrict__ long_rows, u32 nlong, u32 long_min) {
  const SpmmVals vals{avals, Sc<T>::from_bits(isobits)};
  const u64 nfc = (nf + SPMM_FC - 1) / SPMM_FC, lb = nlong * nfc;
  if (blockIdx.x < lb) {
    const u32 i = long_rows[blockIdx.x / nfc];
    csr_spmm_long_row(rowptr, colidx, vals, b, nf, left, right, bias, c, i, (blockIdx.x % nfc) * SPMM_FC);
    return;
  }
  const u64 step = (gridDim.x - lb) * BLOCKS_NT;
  for (u64 q = (blockIdx.x - lb) * BLOCKS_NT + threadIdx.x; q < nrows * nf; q += step) {
    const u64 i = q / nf, f = q % nf;
    const u32 s = rowptr[i], e = rowptr[i + 1];
    if (e - s > long_min) continue;
    csr_spmm_put(left, bias, c, i, nf, f, csr_spmm_row_rounds(colidx, vals, s, e, b, right, nf, f));
  }
}
