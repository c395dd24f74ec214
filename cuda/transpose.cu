// cuda/transpose.cu: B2SR transpose on the device.
//
// Tile level: CSR -> CSC of the tile structure. `b2sr_tr_count` counts the
// tiles of each tile column, a scan gives the new row pointers,
// `b2sr_tr_fill` drops every tile into its column (unordered: atomics), and
// `b2sr_tr_sort` orders each column by source tile index (= source tile row),
// so the result is deterministic and identical to the CPU's. In-tile level:
// `b2sr_tr_tiles_k*` transposes the bits with K ballots per tile (lane
// (g, r) holds row r of its group's tile; ballot c gathers column c).
#include "common.cuh"
#include "tiles.cuh"

// counts[c] += tiles in tile column c (counts zeroed, tile_cols + 1 entries).
extern "C" __global__ void b2sr_tr_count(const u32* __restrict__ colidx, u64 ntiles, u32* __restrict__ counts) {
  for (u64 t = gtid(); t < ntiles; t += gthreads()) atomicAdd(&counts[colidx[t]], 1u);
}

// perm[slot] = t for an unordered slot of t's column (cursor zeroed).
extern "C" __global__ void b2sr_tr_fill(const u32* __restrict__ colidx, u64 ntiles, const u32* __restrict__ colptr,
                                        u32* __restrict__ cursor, u32* __restrict__ perm) {
  for (u64 t = gtid(); t < ntiles; t += gthreads()) {
    const u32 c = colidx[t];
    perm[colptr[c] + atomicAdd(&cursor[c], 1u)] = (u32)t;
  }
}

// A warp per tile column: sorted = perm ordered ascending within the column
// (rank sort: the entries are distinct; quadratic in the column's length,
// which is the number of tile rows with a tile in that column).
extern "C" __global__ void b2sr_tr_sort(const u32* __restrict__ colptr, u32 tile_cols, const u32* __restrict__ perm,
                                        u32* __restrict__ sorted) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 c = warp; c < tile_cols; c += nwarps) {
    const u32 b = colptr[c], e = colptr[c + 1];
    for (u32 p = b + lane; p < e; p += 32) {
      const u32 x = perm[p];
      u32 rank = 0;
      for (u32 q = b; q < e; ++q) rank += perm[q] < x;
      sorted[b + rank] = x;
    }
  }
}

// Output tile p is the transpose of source tile sorted[p]; its column is the
// source tile's tile row.
template <int K>
__device__ __forceinline__ void tr_tiles_body(const u32* __restrict__ rowptr, u32 tile_rows, const u8* __restrict__ tiles,
                                              const u32* __restrict__ sorted, u64 ntiles, u32* __restrict__ out_colidx,
                                              u8* __restrict__ out_tiles) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 base = warp * G; base < ntiles; base += nwarps * G) {
    const u64 p = base + g;
    const bool valid = p < ntiles;
    const u32 src = valid ? sorted[p] : 0u;
    const u32 row = valid ? tile_row<K>(tiles, src, r) : 0u;
    u32 out = 0;
#pragma unroll
    for (int c = 0; c < K; ++c) {
      const u32 b = __ballot_sync(FULL_MASK, (row >> c) & 1u);
      if (r == c) out = (b >> (g * K)) & row_mask<K>();
    }
    if (K == 4) {
      const u32 w = gather4(out, r);
      if (valid && r == 0) ((u16*)out_tiles)[p] = (u16)w;
    } else if (valid) {
      tile_row_store<K>(out_tiles, p, r, out);
    }
    if (valid && r == 0) out_colidx[p] = tile_row_of(rowptr, tile_rows, src);
  }
}

#define TR_KERNELS(K)                                                                                      \
  extern "C" __global__ void CAT(b2sr_tr_tiles_k, K)(const u32* rowptr, u32 tile_rows, const u8* tiles,     \
                                                     const u32* sorted, u64 ntiles, u32* out_colidx,       \
                                                     u8* out_tiles) {                                      \
    tr_tiles_body<K>(rowptr, tile_rows, tiles, sorted, ntiles, out_colidx, out_tiles);                     \
  }

TR_KERNELS(4)
TR_KERNELS(8)
TR_KERNELS(16)
TR_KERNELS(32)
