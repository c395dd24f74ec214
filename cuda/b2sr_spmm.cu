// cuda/b2sr_spmm.cu: B2SR times dense row-major (`b2sr_mxm_dense_k*`, GNN
// aggregation). Part of the semiring modules `sr_<semiring>_<type>`
// (cuda/sr.cu: compiled with -DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME; entries
// end in `_<SR_NAME>`).
//
// C[i, f] = zero ⊕ (v ⊗ B[j0, f]) ⊕ (v ⊗ B[j1, f]) ... over the row's columns in
// ascending order: the CPU's order, so results match it exactly.
#include "semiring.cuh"

// Tiles decoded per round, so that a round's gathers are in flight
// together: U * K loads at most (16 for K <= 16, 32 for K = 32).
template <int K> struct SpmmRound {
  static constexpr int U = K >= 16 ? 1 : 16 / K;
};

// A thread per output element (i, f), consecutive threads along f (the
// gathers of B's row and the tile rows, the same for a row's threads, are
// coalesced or broadcast). The row's tiles come U at a time: every set bit's
// B[j, f] is loaded first, then folded in ascending column order, the order
// of the CPU. (Before: a block per tile row and a thread per feature folding
// the tile row's K rows one gather after another: 47 µs for Cora's 2,708 x
// 2,708 by 7 features on the H100, latency-bound with 7 of 32 lanes busy.)
template <int K>
__device__ __forceinline__ void mxm_dense_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                               const u8* __restrict__ tiles, u64 nrows, u64 vbits,
                                               const T* __restrict__ b, u64 nfeat, T* __restrict__ c) {
  constexpr int U = SpmmRound<K>::U;
  const T v = Sc<T>::from_bits(vbits);
  for (u64 x = gtid(); x < nrows * nfeat; x += gthreads()) {
    const u64 i = x / nfeat, f = x - i * nfeat;
    const u32 tr = (u32)(i / K);
    const int r = (int)(i % K);
    const u32 t0 = rowptr[tr], t1 = rowptr[tr + 1];
    T acc = SR::zero();
    for (u32 t = t0; t < t1; t += U) {
      u32 w[U];
      u64 base[U];
      T val[U][K];
#pragma unroll
      for (int q = 0; q < U; ++q) {
        const bool in = t + q < t1;
        w[q] = in ? tile_row<K>(tiles, t + q, r) : 0u;
        base[q] = in ? (u64)colidx[t + q] * K : 0;
      }
#pragma unroll
      for (int q = 0; q < U; ++q)
#pragma unroll
        for (int cc = 0; cc < K; ++cc)
          val[q][cc] = ((w[q] >> cc) & 1u) ? b[(base[q] + cc) * nfeat + f] : SR::zero();
#pragma unroll
      for (int q = 0; q < U; ++q)
#pragma unroll
        for (int cc = 0; cc < K; ++cc)
          if ((w[q] >> cc) & 1u) acc = SR::add(acc, SR::mul(v, val[q][cc]));
    }
    c[i * nfeat + f] = acc;
  }
}

#define SPMM_KERNELS(K)                                                                                    \
  extern "C" __global__ void CAT(CAT(b2sr_mxm_dense_k, K), CAT(_, SR_NAME))(                               \
      const u32* rowptr, const u32* colidx, const u8* tiles, u64 nrows, u64 vbits,                          \
      const T* b, u64 nfeat, T* c) {                                                                       \
    mxm_dense_body<K>(rowptr, colidx, tiles, nrows, vbits, b, nfeat, c);                                   \
  }

SPMM_KERNELS(4)
SPMM_KERNELS(8)
SPMM_KERNELS(16)
SPMM_KERNELS(32)
