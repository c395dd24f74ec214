// cuda/b2sr_select.cu: structural select on B2SR tiles (a new tile
// per tile, then the compaction of the kept ones).
// Part of the type-free module `pack` (cuda/pack.cu).
#include "common.cuh"
#include "tiles.cuh"

// ---- structural select on tiles: keep (i, j) by an index predicate --------------
// code: an index predicate (SELECT_TRIL .. SELECT_COL_GT, `select_index` in common.cuh).

// Pass 1: new tile bits in place into `out_tiles` and a keep flag per tile.
template <int K>
__device__ __forceinline__ void select_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                            const u8* __restrict__ tiles, u32 tile_rows, int code, i64 k,
                                            u8* __restrict__ out_tiles, u32* __restrict__ keep) {
  // a thread per (tile row, tile): walk tile rows with a grid-stride over tile rows
  for (u64 tr = gtid(); tr < tile_rows; tr += gthreads()) {
    for (u32 t = rowptr[tr]; t < rowptr[tr + 1]; ++t) {
      const u64 base = (u64)colidx[t] * K;
      bool any = false;
      u32 rows[K];
#pragma unroll
      for (int r = 0; r < K; ++r) {
        u32 w = tile_row<K>(tiles, t, r), o = 0;
        const i64 i = (i64)(tr * K + r);
        while (w) {
          const int c = __ffs(w) - 1;
          w &= w - 1;
          if (select_index(code, i, (i64)(base + c), k)) o |= 1u << c;
        }
        rows[r] = o;
        any |= o != 0;
      }
      tile_store<K>(out_tiles, t, rows);
      keep[t] = any ? 1u : 0u;
    }
  }
}

// Pass 2 (after scanning `keep` into `pos`): compact kept tiles; new row pointers.
extern "C" __global__ void tiles_compact(const u32* rowptr, const u32* colidx, const u8* tiles, u32 tile_rows,
                                         u64 ntiles, u32 tile_bytes, const u32* keep, const u32* pos,
                                         u32* out_rowptr, u32* out_colidx, u8* out_tiles) {
  for (u64 t = gtid(); t < ntiles; t += gthreads()) {
    if (!keep[t]) continue;
    const u32 o = pos[t];
    out_colidx[o] = colidx[t];
    for (u32 b = 0; b < tile_bytes; ++b) out_tiles[(u64)o * tile_bytes + b] = tiles[t * tile_bytes + b];
  }
  for (u64 tr = gtid(); tr <= tile_rows; tr += gthreads()) {
    const u32 t = rowptr[tr];
    out_rowptr[tr] = t < ntiles ? pos[t] : (ntiles ? pos[ntiles - 1] + keep[ntiles - 1] : 0u);
  }
}

#define B2SR_SELECT_KERNELS(K)                                                                             \
  extern "C" __global__ void CAT(b2sr_select_k, K)(const u32* rowptr, const u32* colidx, const u8* tiles,  \
                                                   u32 tile_rows, int code, i64 k, u8* out_tiles,          \
                                                   u32* keep) {                                            \
    select_body<K>(rowptr, colidx, tiles, tile_rows, code, k, out_tiles, keep);                            \
  }

B2SR_SELECT_KERNELS(4)
B2SR_SELECT_KERNELS(8)
B2SR_SELECT_KERNELS(16)
B2SR_SELECT_KERNELS(32)
