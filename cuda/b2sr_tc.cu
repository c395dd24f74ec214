// cuda/b2sr_tc.cu: the fused masked count `bin_bin_sum` on B2SR tiles
// (triangle counting, exact 64-bit integer accumulation) on the CUDA cores;
// the tensor-core form is cuda/b2sr_tc_tensor.cu.
// Part of the type-free module `pack` (cuda/pack.cu).
#include "common.cuh"
#include "tiles.cuh"

// ---- bin_bin_sum: Σ over mask entries (i, j) of |A(i,:) ∧ Bt(j,:)| ---------------
// A warp per mask tile (tile row by binary search): lanes match A's tile row
// against Bt's by binary search, then G = 32/K matched tile pairs at a time,
// lane (g, r) adds popc(a_r & b_c) for the c its mask row selects.

template <int K>
__device__ __forceinline__ void tc_body(const u32* __restrict__ m_rowptr, const u32* __restrict__ m_colidx,
                                        const u8* __restrict__ m_tiles, u32 m_tile_rows, u64 m_ntiles,
                                        const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx,
                                        const u8* __restrict__ a_tiles, const u32* __restrict__ b_rowptr,
                                        const u32* __restrict__ b_colidx, const u8* __restrict__ b_tiles,
                                        unsigned long long* total) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  u64 cnt = 0;
  for (u64 tm = warp; tm < m_ntiles; tm += nwarps) {
    const u32 tr = tile_row_of(m_rowptr, m_tile_rows, tm), tc = m_colidx[tm];
    const u32 mrow = tile_row<K>(m_tiles, tm, r);
    const u32 ab = a_rowptr[tr], ae = a_rowptr[tr + 1];
    const u32 bb = b_rowptr[tc], be = b_rowptr[tc + 1];
    if (ab == ae || bb == be) continue;
    for (u32 a0 = ab; a0 < ae; a0 += 32) {
      const u32 ta = a0 + lane;
      int tb = -1;
      if (ta < ae) {
        const u32 col = a_colidx[ta];
        u32 l = bb, h = be;
        while (l < h) {
          const u32 mid = (l + h) / 2;
          if (b_colidx[mid] < col) l = mid + 1; else h = mid;
        }
        if (l < be && b_colidx[l] == col) tb = (int)l;
      }
      u32 match = __ballot_sync(FULL_MASK, tb >= 0);
      while (match) {
        u32 mine = match;
        for (int q = 0; q < g; ++q) mine &= mine - 1;
        const int src = mine ? __ffs(mine) - 1 : 0;
        const bool valid = mine != 0;
        for (int q = 0; q < G; ++q) match &= match - 1;
        const u32 ta_g = __shfl_sync(FULL_MASK, ta, src);
        const int tb_g = __shfl_sync(FULL_MASK, tb, src);
        const u32 ar = valid ? tile_row<K>(a_tiles, ta_g, r) : 0u;
        const u32 br = valid ? tile_row<K>(b_tiles, (u32)tb_g, r) : 0u;
#pragma unroll
        for (int c = 0; c < K; ++c) {
          const u32 bc = __shfl_sync(FULL_MASK, br, g * K + c);
          if ((mrow >> c) & 1u) cnt += __popc(ar & bc);
        }
      }
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cnt += __shfl_xor_sync(FULL_MASK, cnt, off);
  if (lane == 0 && cnt) atomicAdd(total, (unsigned long long)cnt);
}

#define B2SR_TC_KERNELS(K)                                                                                 \
  extern "C" __global__ void CAT(b2sr_tc_k, K)(                                                            \
      const u32* m_rowptr, const u32* m_colidx, const u8* m_tiles, u32 m_tile_rows, u64 m_ntiles,          \
      const u32* a_rowptr, const u32* a_colidx, const u8* a_tiles, const u32* b_rowptr,                    \
      const u32* b_colidx, const u8* b_tiles, unsigned long long* total) {                                 \
    tc_body<K>(m_rowptr, m_colidx, m_tiles, m_tile_rows, m_ntiles, a_rowptr, a_colidx, a_tiles, b_rowptr,  \
               b_colidx, b_tiles, total);                                                                  \
  }

B2SR_TC_KERNELS(4)
B2SR_TC_KERNELS(8)
B2SR_TC_KERNELS(16)
B2SR_TC_KERNELS(32)
