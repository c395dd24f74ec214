// cuda/scan.cu: exclusive scans of u32 and the load-balance segments of a
// B2SR matrix (the long tile rows cut into segments for the products).
// Part of the type-free module `pack` (cuda/pack.cu).
#include "common.cuh"

// ---- exclusive scan of u32 (three-phase: blocks, block sums, add back) ----------

#define SCAN_THREADS 256
#define SCAN_ITEMS 4
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

extern "C" __global__ void scan_block(u32* data, u64 n, u32* block_sums) {
  __shared__ u32 sh[SCAN_THREADS];
  const u64 base = (u64)blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
  u32 v[SCAN_ITEMS];
  u32 sum = 0;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    v[k] = base + k < n ? data[base + k] : 0u;
    sum += v[k];
  }
  sh[threadIdx.x] = sum;
  __syncthreads();
  for (int off = 1; off < SCAN_THREADS; off <<= 1) {
    u32 x = threadIdx.x >= off ? sh[threadIdx.x - off] : 0u;
    __syncthreads();
    sh[threadIdx.x] += x;
    __syncthreads();
  }
  u32 run = sh[threadIdx.x] - sum;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    if (base + k < n) data[base + k] = run;
    run += v[k];
  }
  if (threadIdx.x == SCAN_THREADS - 1) block_sums[blockIdx.x] = sh[threadIdx.x];
}

extern "C" __global__ void scan_add(u32* data, u64 n, const u32* block_sums) {
  const u64 i = (u64)blockIdx.x * SCAN_TILE + threadIdx.x;
  const u32 add = block_sums[blockIdx.x];
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    const u64 j = i + k * SCAN_THREADS;
    if (j < n) data[j] += add;
  }
}

// ---- load-balance segments ----------------------------------------------------

// counts[tr] = number of segments of `seg_len` tiles of a long tile row
// (more than `short_max` tiles), 0 for short rows; counts[tile_rows] = 0.
extern "C" __global__ void seg_count(const u32* rowptr, u32 tile_rows, u32 short_max, u32 seg_len, u32* counts) {
  for (u64 tr = gtid(); tr <= tile_rows; tr += gthreads()) {
    if (tr == tile_rows) { counts[tr] = 0; continue; }
    const u32 len = rowptr[tr + 1] - rowptr[tr];
    counts[tr] = len <= short_max ? 0u : (len + seg_len - 1) / seg_len;
  }
}

// seg_row[s] = tr for every segment s of tile row tr; split rows listed (any order).
extern "C" __global__ void seg_fill(const u32* seg_off, u32 tile_rows, u32* seg_row, u32* split_rows,
                                    u32* nsplit) {
  for (u64 tr = gtid(); tr < tile_rows; tr += gthreads()) {
    const u32 a = seg_off[tr], b = seg_off[tr + 1];
    for (u32 s = a; s < b; ++s) seg_row[s] = (u32)tr;
    if (b - a > 1) split_rows[atomicAdd(nsplit, 1u)] = (u32)tr;
  }
}
