// cuda/b2sr_mxm.cu: the boolean product with a B2SR result, and the masked,
// accumulating write of a B2SR result (type-free: a B2SR matrix is a pattern
// and one iso value, and the host works out the value). Part of the module
// `mxm` (cuda/mxm.cu).
//
// C = A * B, symbolic then numeric, all at the tile level:
// - `mxm_bound`: per tile row of A, the number of tile products (the sum of
//   the lengths of the B tile rows it meets, at most B's tile columns), turned
//   into a hash capacity (a power of two at least twice that); a scan places
//   the tables.
// - `mxm_symbolic`: a warp per tile row inserts the B tile columns it meets
//   into its open-addressing table; the new keys are the row's result tiles.
// - a scan of the counts gives the result's row pointers, `mxm_collect`
//   writes each row's tile columns in ascending order (rank within the table).
// - `mxm_numeric_k*`: a warp per tile row, G = 32/K tile products at a time;
//   lane (g, r) ORs B rows selected by the bits of A's row r (B's rows come by
//   shuffle), and ORs the result row into its tile (found by binary search).
// Products that are all zero leave zero tiles; `b2sr_merge_k*` drops them
// while it applies the mask and accumulator:
//   out = (accum ? T | C : T) & allowed  |  (replace ? 0 : C & ~allowed).
#include "common.cuh"
#include "tiles.cuh"

// cap[i] = hash slots of tile row i (0 when it has no tile products);
// cap[tile_rows] = 0; *total += every capacity (u64: the host checks it fits).
extern "C" __global__ void mxm_bound(const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx, u32 tile_rows,
                                     const u32* __restrict__ b_rowptr, u32 b_tile_cols, u32* __restrict__ cap,
                                     unsigned long long* total) {
  for (u64 i = gtid(); i <= tile_rows; i += gthreads()) {
    if (i == tile_rows) { cap[i] = 0; continue; }
    u64 ub = 0;
    for (u32 t = a_rowptr[i]; t < a_rowptr[i + 1]; ++t) {
      const u32 k = a_colidx[t];
      ub += b_rowptr[k + 1] - b_rowptr[k];
    }
    // a row has at most b_tile_cols distinct result tiles (hub rows meet many
    // more tile products than that)
    ub = min(ub, (u64)b_tile_cols);
    u64 c = 0;
    if (ub) c = 1ull << (64 - __clzll(2 * ub - 1));
    cap[i] = (u32)min(c, (u64)0x80000000ull);
    if (c) atomicAdd(total, (unsigned long long)c);
  }
}

__device__ __forceinline__ u32 hash_u32(u32 x) { return x * 0x9E3779B1u; }

// A warp per tile row: insert the row's result tile columns; cnt[i] = how many.
extern "C" __global__ void mxm_symbolic(const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx,
                                        u32 tile_rows, const u32* __restrict__ b_rowptr,
                                        const u32* __restrict__ b_colidx, const u32* __restrict__ hoff,
                                        u32* __restrict__ keys, u32* __restrict__ cnt) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 i = warp; i <= tile_rows; i += nwarps) {
    if (i == tile_rows) { if (lane == 0) cnt[i] = 0; continue; }
    const u32 base = hoff[i], mask = hoff[i + 1] - base - 1;
    u32 n = 0;
    for (u32 t = a_rowptr[i]; t < a_rowptr[i + 1]; ++t) {
      const u32 k = a_colidx[t];
      for (u32 q = b_rowptr[k] + lane; q < b_rowptr[k + 1]; q += 32) {
        const u32 j = b_colidx[q];
        u32 h = hash_u32(j) & mask;
        while (true) {
          const u32 prev = atomicCAS(&keys[base + h], EMPTY_KEY, j);
          if (prev == EMPTY_KEY) { ++n; break; }
          if (prev == j) break;
          h = (h + 1) & mask;
        }
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) n += __shfl_xor_sync(FULL_MASK, n, off);
    if (lane == 0) cnt[i] = n;
  }
}

// A warp per tile row: the table's keys in ascending order at rowptr[i].
extern "C" __global__ void mxm_collect(u32 tile_rows, const u32* __restrict__ hoff, const u32* __restrict__ keys,
                                       const u32* __restrict__ rowptr, u32* __restrict__ colidx) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 i = warp; i < tile_rows; i += nwarps) {
    const u32 base = hoff[i], cap = hoff[i + 1] - base, out = rowptr[i];
    for (u32 s = lane; s < cap; s += 32) {
      const u32 x = keys[base + s];
      if (x == EMPTY_KEY) continue;
      u32 rank = 0;
      for (u32 q = 0; q < cap; ++q) rank += keys[base + q] < x;  // EMPTY_KEY never counts
      colidx[out + rank] = x;
    }
  }
}

template <int K>
__device__ __forceinline__ void numeric_body(const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx,
                                             const u8* __restrict__ a_tiles, u32 tile_rows,
                                             const u32* __restrict__ b_rowptr, const u32* __restrict__ b_colidx,
                                             const u8* __restrict__ b_tiles, const u32* __restrict__ c_rowptr,
                                             const u32* __restrict__ c_colidx, u8* __restrict__ c_tiles) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 i = warp; i < tile_rows; i += nwarps) {
    const u32 cb = c_rowptr[i], ce = c_rowptr[i + 1];
    if (cb == ce) continue;
    for (u32 t = a_rowptr[i]; t < a_rowptr[i + 1]; ++t) {
      const u32 k = a_colidx[t];
      const u32 ar = tile_row<K>(a_tiles, t, r);
      if (!__any_sync(FULL_MASK, ar != 0)) continue;
      const u32 qb = b_rowptr[k], qe = b_rowptr[k + 1];
      for (u32 q0 = qb; q0 < qe; q0 += G) {
        const u32 q = q0 + g;
        const bool valid = q < qe;
        const u32 br = valid ? tile_row<K>(b_tiles, q, r) : 0u;
        u32 acc = 0;
#pragma unroll
        for (int c = 0; c < K; ++c) {
          const u32 bc = __shfl_sync(FULL_MASK, br, g * K + c);
          acc |= ((ar >> c) & 1u) ? bc : 0u;
        }
        if (valid && acc) {
          const u32 pos = lower_bound_u32(c_colidx, cb, ce, b_colidx[q]);
          tile_row_or<K>(c_tiles, pos, r, acc);
        }
      }
    }
  }
}

// The tile of a sorted tile row at column j, advancing *p (columns ascend).
template <int K>
__device__ __forceinline__ bool find_tile(const u32* colidx, u32& p, u32 e, u32 j) {
  while (p < e && colidx[p] < j) ++p;
  return p < e && colidx[p] == j;
}

// A thread per tile row: merge T's and C's tile rows; M (mmode 1) selects,
// mmode 0: no mask (all allowed), mmode 2: a mask that selects nothing.
// Count pass (out_colidx == NULL): counts[tr] = kept tiles; counts[tile_rows] = 0.
template <int K>
__device__ __forceinline__ void merge_body(const u32* __restrict__ t_rowptr, const u32* __restrict__ t_colidx,
                                           const u8* __restrict__ t_tiles, const u32* __restrict__ c_rowptr,
                                           const u32* __restrict__ c_colidx, const u8* __restrict__ c_tiles,
                                           const u32* __restrict__ m_rowptr, const u32* __restrict__ m_colidx,
                                           const u8* __restrict__ m_tiles, int mmode, int comp, int accum,
                                           int replace, u32 tile_rows, u32* __restrict__ counts,
                                           const u32* __restrict__ out_rowptr, u32* __restrict__ out_colidx,
                                           u8* __restrict__ out_tiles) {
  for (u64 i = gtid(); i <= tile_rows; i += gthreads()) {
    if (i == tile_rows) { if (!out_colidx) counts[i] = 0; continue; }
    u32 tp = t_rowptr[i], te = t_rowptr[i + 1];
    u32 cp = 0, ce = 0, mp = 0, me = 0;
    if (c_rowptr) { cp = c_rowptr[i]; ce = c_rowptr[i + 1]; }
    if (mmode == 1) { mp = m_rowptr[i]; me = m_rowptr[i + 1]; }
    u32 n = 0, o = out_colidx ? out_rowptr[i] : 0u;
    while (tp < te || cp < ce) {
      const u32 jt = tp < te ? t_colidx[tp] : EMPTY_KEY, jc = cp < ce ? c_colidx[cp] : EMPTY_KEY;
      const u32 j = min(jt, jc);
      const bool ht = jt == j, hc = jc == j;
      const bool hm = mmode == 1 && find_tile<K>(m_colidx, mp, me, j);
      u32 rows[K];
      u32 any = 0;
#pragma unroll
      for (int r = 0; r < K; ++r) {
        const u32 tr = ht ? tile_row<K>(t_tiles, tp, r) : 0u;
        const u32 cr = hc ? tile_row<K>(c_tiles, cp, r) : 0u;
        u32 al = mmode == 0 ? FULL_MASK : (hm ? tile_row<K>(m_tiles, mp, r) : 0u);
        if (mmode != 0 && comp) al = ~al;
        const u32 x = ((accum ? (tr | cr) : tr) & al) | (replace ? 0u : (cr & ~al));
        rows[r] = x & row_mask<K>();
        any |= rows[r];
      }
      if (any) {
        if (out_colidx) {
          out_colidx[o + n] = j;
          tile_store<K>(out_tiles, (u64)o + n, rows);
        }
        ++n;
      }
      if (ht) ++tp;
      if (hc) ++cp;
    }
    if (!out_colidx) counts[i] = n;
  }
}

#define MXM_KERNELS(K)                                                                                         \
  extern "C" __global__ void CAT(mxm_numeric_k, K)(const u32* a_rowptr, const u32* a_colidx, const u8* a_tiles, \
                                                   u32 tile_rows, const u32* b_rowptr, const u32* b_colidx,     \
                                                   const u8* b_tiles, const u32* c_rowptr, const u32* c_colidx, \
                                                   u8* c_tiles) {                                               \
    numeric_body<K>(a_rowptr, a_colidx, a_tiles, tile_rows, b_rowptr, b_colidx, b_tiles, c_rowptr, c_colidx,   \
                    c_tiles);                                                                                  \
  }                                                                                                            \
  extern "C" __global__ void CAT(b2sr_merge_k, K)(                                                             \
      const u32* t_rowptr, const u32* t_colidx, const u8* t_tiles, const u32* c_rowptr, const u32* c_colidx,   \
      const u8* c_tiles, const u32* m_rowptr, const u32* m_colidx, const u8* m_tiles, int mmode, int comp,     \
      int accum, int replace, u32 tile_rows, u32* counts, const u32* out_rowptr, u32* out_colidx,              \
      u8* out_tiles) {                                                                                         \
    merge_body<K>(t_rowptr, t_colidx, t_tiles, c_rowptr, c_colidx, c_tiles, m_rowptr, m_colidx, m_tiles, mmode, \
                  comp, accum, replace, tile_rows, counts, out_rowptr, out_colidx, out_tiles);                 \
  }

MXM_KERNELS(4)
MXM_KERNELS(8)
MXM_KERNELS(16)
MXM_KERNELS(32)
