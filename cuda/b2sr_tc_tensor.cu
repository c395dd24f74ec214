// cuda/b2sr_tc_tensor.cu: the fused masked count `bin_bin_sum` (triangle
// counting) on the 1-bit tensor cores, K = 16 and 32 (`b2sr_tc_tensor_k*`).
// Part of the module `mxm` (cuda/mxm.cu).
#include "common.cuh"
#include "tiles.cuh"

// ---- bin_bin_sum on the 1-bit tensor cores (AND.POPC; K = 16, 32) ---------------
// Σ over mask entries (i, j) of |A(i,:) ∧ Bt(j,:)|, as `b2sr_tc_k*` in b2sr_tc.cu,
// but a mask tile's matched tile pairs (A(I,k), Bt(J,k)) go P = 256/K at a time
// along the k dimension of mma.m16n8k256 (b1, AND then POPC): the K x K counts
// popc(A_r ∧ Bt_c) of every pair accumulate in s32 registers, and the mask
// tile selects which to add up at the end. Pair slot s sits in bits
// [s*K, s*K + K) of the 256-bit rows (word s*K/32); unused slots are zero.
//
// Fragments (PTX ISA, m16n8k256 .b1): with gid = lane/4, tig = lane%4,
// A regs a0..a3 = row gid, gid+8, gid, gid+8 at words tig, tig, tig+4, tig+4;
// B regs b0, b1 = column gid at words tig, tig+4; D regs d0..d3 = (gid, 2tig),
// (gid, 2tig+1), (gid+8, 2tig), (gid+8, 2tig+1).

__device__ __forceinline__ void bmma_and(int* d, u32 a0, u32 a1, u32 a2, u32 a3, u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// The position of the n-th (from 0) set bit of m, -1 when m has fewer.
__device__ __forceinline__ int nth_bit(u32 m, int n) {
  for (int i = 0; i < n && m; ++i) m &= m - 1;
  return m ? __ffs(m) - 1 : -1;
}

template <int K>
__device__ __forceinline__ void tc_tensor_body(const u32* __restrict__ m_rowptr, const u32* __restrict__ m_colidx,
                                               const u8* __restrict__ m_tiles, u32 m_tile_rows, u64 m_ntiles,
                                               const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx,
                                               const u8* __restrict__ a_tiles, const u32* __restrict__ b_rowptr,
                                               const u32* __restrict__ b_colidx, const u8* __restrict__ b_tiles,
                                               unsigned long long* total) {
  const int P = 256 / K;        // pair slots per mma chunk
  const int PER = 32 / K;       // slots per 32-bit word
  const int RB = K / 16, CB = K / 8;
  const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  u64 cnt = 0;
  for (u64 tm = warp; tm < m_ntiles; tm += nwarps) {
    const u32 tr = tile_row_of(m_rowptr, m_tile_rows, tm), tc = m_colidx[tm];
    const u32 ab = a_rowptr[tr], ae = a_rowptr[tr + 1];
    const u32 bb = b_rowptr[tc], be = b_rowptr[tc + 1];
    if (ab == ae || bb == be) continue;
    int d[RB][CB][4];
#pragma unroll
    for (int i = 0; i < RB; ++i)
#pragma unroll
      for (int j = 0; j < CB; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) d[i][j][e] = 0;
    bool any = false;
    for (u32 a0 = ab; a0 < ae; a0 += 32) {
      const u32 ta = a0 + lane;
      u32 tb = EMPTY_KEY;
      if (ta < ae) {
        const u32 col = a_colidx[ta];
        const u32 l = lower_bound_u32(b_colidx, bb, be, col);
        if (l < be && b_colidx[l] == col) tb = l;
      }
      u32 match = __ballot_sync(FULL_MASK, tb != EMPTY_KEY);
      while (match) {
        any = true;
        // this thread's slots: words tig and tig + 4 hold slots tig*PER.. and (tig+4)*PER..
        u32 sa[2 * PER], sb[2 * PER];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int q = 0; q < PER; ++q) {
            const int src = nth_bit(match, (tig + 4 * h) * PER + q);
            const u32 xa = __shfl_sync(FULL_MASK, ta, src < 0 ? 0 : src);
            const u32 xb = __shfl_sync(FULL_MASK, tb, src < 0 ? 0 : src);
            sa[h * PER + q] = src < 0 ? EMPTY_KEY : xa;
            sb[h * PER + q] = src < 0 ? EMPTY_KEY : xb;
          }
#pragma unroll
        for (int s = 0; s < P; ++s) match &= match - 1;
#pragma unroll
        for (int i = 0; i < RB; ++i) {
          const int r0 = i * 16 + gid;
          u32 fa[4];
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            u32 lo = 0, hi = 0;
#pragma unroll
            for (int q = 0; q < PER; ++q) {
              const u32 t = sa[h * PER + q];
              if (t != EMPTY_KEY) {
                lo |= tile_row<K>(a_tiles, t, r0) << (q * K);
                hi |= tile_row<K>(a_tiles, t, r0 + 8) << (q * K);
              }
            }
            fa[2 * h] = lo;
            fa[2 * h + 1] = hi;
          }
#pragma unroll
          for (int j = 0; j < CB; ++j) {
            const int c0 = j * 8 + gid;
            u32 fb[2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              u32 x = 0;
#pragma unroll
              for (int q = 0; q < PER; ++q) {
                const u32 t = sb[h * PER + q];
                if (t != EMPTY_KEY) x |= tile_row<K>(b_tiles, t, c0) << (q * K);
              }
              fb[h] = x;
            }
            bmma_and(d[i][j], fa[0], fa[1], fa[2], fa[3], fb[0], fb[1]);
          }
        }
      }
    }
    if (!any) continue;
#pragma unroll
    for (int i = 0; i < RB; ++i) {
      const u32 m0 = tile_row<K>(m_tiles, tm, i * 16 + gid), m1 = tile_row<K>(m_tiles, tm, i * 16 + gid + 8);
#pragma unroll
      for (int j = 0; j < CB; ++j) {
        const int c = j * 8 + 2 * tig;
        cnt += ((m0 >> c) & 1u) * (u32)d[i][j][0] + ((m0 >> (c + 1)) & 1u) * (u32)d[i][j][1] +
               ((m1 >> c) & 1u) * (u32)d[i][j][2] + ((m1 >> (c + 1)) & 1u) * (u32)d[i][j][3];
      }
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cnt += __shfl_xor_sync(FULL_MASK, cnt, off);
  if (lane == 0 && cnt) atomicAdd(total, (unsigned long long)cnt);
}

#define TC_TENSOR_KERNEL(K)                                                                                    \
  extern "C" __global__ void CAT(b2sr_tc_tensor_k, K)(                                                         \
      const u32* m_rowptr, const u32* m_colidx, const u8* m_tiles, u32 m_tile_rows, u64 m_ntiles,              \
      const u32* a_rowptr, const u32* a_colidx, const u8* a_tiles, const u32* b_rowptr, const u32* b_colidx,   \
      const u8* b_tiles, unsigned long long* total) {                                                          \
    tc_tensor_body<K>(m_rowptr, m_colidx, m_tiles, m_tile_rows, m_ntiles, a_rowptr, a_colidx, a_tiles,         \
                      b_rowptr, b_colidx, b_tiles, total);                                                     \
  }

TC_TENSOR_KERNEL(16)
TC_TENSOR_KERNEL(32)
