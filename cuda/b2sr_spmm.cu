// cuda/b2sr_spmm.cu: B2SR times dense row-major (`b2sr_mxm_dense_k*`, GNN
// aggregation). Part of the semiring modules `sr_<semiring>_<type>`
// (cuda/sr.cu: compiled with -DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME; entries
// end in `_<SR_NAME>`).
//
// C[i, f] = zero ⊕ (v ⊗ B[j0, f]) ⊕ (v ⊗ B[j1, f]) ... over the row's columns in
// ascending order: the CPU's order, so results match it exactly.
#include "semiring.cuh"

template <int K>
__device__ __forceinline__ void mxm_dense_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                               const u8* __restrict__ tiles, u64 nrows, u32 tile_rows, u64 vbits,
                                               const T* __restrict__ b, u64 nfeat, T* __restrict__ c) {
  const T v = Sc<T>::from_bits(vbits);
  for (u32 tr = blockIdx.x; tr < tile_rows; tr += gridDim.x) {
    for (u64 f = threadIdx.x; f < nfeat; f += blockDim.x) {
      T acc[K];
#pragma unroll
      for (int r = 0; r < K; ++r) acc[r] = SR::zero();
      for (u32 t = rowptr[tr]; t < rowptr[tr + 1]; ++t) {
        const u64 base = (u64)colidx[t] * K;
#pragma unroll
        for (int r = 0; r < K; ++r) {
          u32 w = tile_row<K>(tiles, t, r);
          while (w) {
            const int cc = __ffs(w) - 1;
            w &= w - 1;
            acc[r] = SR::add(acc[r], SR::mul(v, b[(base + cc) * nfeat + f]));
          }
        }
      }
#pragma unroll
      for (int r = 0; r < K; ++r) {
        const u64 i = (u64)tr * K + r;
        if (i < nrows) c[i * nfeat + f] = acc[r];
      }
    }
  }
}

#define SPMM_KERNELS(K)                                                                                    \
  extern "C" __global__ void CAT(CAT(b2sr_mxm_dense_k, K), CAT(_, SR_NAME))(                               \
      const u32* rowptr, const u32* colidx, const u8* tiles, u64 nrows, u32 tile_rows, u64 vbits,           \
      const T* b, u64 nfeat, T* c) {                                                                       \
    mxm_dense_body<K>(rowptr, colidx, tiles, nrows, tile_rows, vbits, b, nfeat, c);                        \
  }

SPMM_KERNELS(4)
SPMM_KERNELS(8)
SPMM_KERNELS(16)
SPMM_KERNELS(32)
