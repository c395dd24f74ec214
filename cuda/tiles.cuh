// cuda/tiles.cuh: whole-tile access for the transpose and product kernels.
//
// A B2SR tile array is one little-endian bit stream (src/storage/b2sr/tile.rs):
// entry (r, c) of tile t is bit (t * K + r) * K + c, for every tile size. So
// row r of tile t is K bits at that offset inside one u32 word (K divides 32).
#pragma once
#include "common.cuh"

// No tile (an empty hash slot, an unmatched tile).
#define EMPTY_KEY 0xffffffffu

// The low K bits.
template <int K> __device__ __forceinline__ u32 row_mask() { return K == 32 ? FULL_MASK : ((1u << (K % 32)) - 1u); }

// `tiles[t] row r |= bits` (atomic: other lanes may write the same word).
template <int K> __device__ __forceinline__ void tile_row_or(u8* tiles, u64 t, int r, u32 bits) {
  const u64 o = ((u64)t * K + r) * K;
  atomicOr((u32*)tiles + (o >> 5), bits << (o & 31));
}

// Stores row r of tile t (plain store; each row written by one thread, and
// for K = 4 the whole u16 by the thread with r == 0 after `gather4`).
template <int K> __device__ __forceinline__ void tile_row_store(u8* tiles, u64 t, int r, u32 bits) {
  if (K == 8) tiles[t * 8 + r] = (u8)bits;
  else if (K == 16) ((u16*)tiles)[t * 16 + r] = (u16)bits;
  else if (K == 32) ((u32*)tiles)[t * 32 + r] = bits;
}

// Stores a whole tile held by one thread as rows[0..K).
template <int K> __device__ __forceinline__ void tile_store(u8* tiles, u64 t, const u32* rows) {
  if (K == 4) {
    u32 w = 0;
#pragma unroll
    for (int r = 0; r < 4; ++r) w |= rows[r] << (4 * r);
    ((u16*)tiles)[t] = (u16)w;
  } else {
#pragma unroll
    for (int r = 0; r < K; ++r) tile_row_store<K>(tiles, t, r, rows[r]);
  }
}

// The 4 rows of a K = 4 tile held by lanes r = 0..3 of a group, as one u16
// (every lane of the warp must call it).
__device__ __forceinline__ u32 gather4(u32 bits, int r) {
  u32 w = bits << (4 * r);
  w |= __shfl_xor_sync(FULL_MASK, w, 1);
  w |= __shfl_xor_sync(FULL_MASK, w, 2);
  return w;
}

// The tile row `tr` holding tile `t`: the last tr with rowptr[tr] <= t.
__device__ __forceinline__ u32 tile_row_of(const u32* rowptr, u32 tile_rows, u64 t) {
  u32 lo = 0, hi = tile_rows;
  while (hi - lo > 1) {
    const u32 mid = (lo + hi) / 2;
    if (rowptr[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

// The first position in [lo, hi) of a sorted array with a[p] >= x.
__device__ __forceinline__ u32 lower_bound_u32(const u32* a, u32 lo, u32 hi, u32 x) {
  while (lo < hi) {
    const u32 mid = (lo + hi) / 2;
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
