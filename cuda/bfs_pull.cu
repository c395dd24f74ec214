// cuda/bfs_pull.cu: pulled breadth-first levels, one launch each
// (`ops::bfs_pull`, `bfs_pull_*`). Part of the type-free module `visit`
// (cuda/visit.cu).
#include "bfs_rows.cuh"

// ---- pulled levels (`ops::bfs_pull`) -------------------------------------------
//
// One level bottom-up on A' (`rows`: the in-neighbours of each vertex): each
// unvisited vertex looks through its in-neighbours for one in the frontier
// bits `f` and stops at the first (LOR's early exit), so a level costs the
// n / 32 visited words plus, per unvisited vertex, its in-edges up to the
// first hit. A warp takes 32 consecutive vertices (one word of the visited
// bits, of `f` and of the next frontier `nx`): each lane its own vertex's
// row, and rows of more than WARP_ROW items by the whole warp, BATCH items
// per lane per step. The warp alone writes its words (no atomics, and every
// word of nx is written: nx needs no zeroing); the reached vertices get level
// `d`. Counts into st[0..3]: new frontier vertices, their out-edges, the
// out-edges of the vertices still unvisited.

// Whether any of items p, p + stride, .., p + (BATCH - 1) * stride below e of
// row i reaches a vertex of f (all loads of the step in flight together).
template <typename Rows>
__device__ __forceinline__ bool pull_step_hits(const Rows& rows, const u32* __restrict__ f, u64 i, u32 p, u32 e,
                                               u32 stride) {
  u64 wi[BATCH];
  u32 x[BATCH];
  rows_batch(rows, i, p, e, stride, wi, x);
  u32 hit = 0;
#pragma unroll
  for (int u = 0; u < BATCH; ++u) hit |= x[u] ? f[wi[u]] & x[u] : 0u;
  return hit != 0;
}

template <typename Rows>
__device__ __forceinline__ void pull_level(const Rows& rows, u64 n, const u32* __restrict__ f, u32* __restrict__ nx,
                                           u32* __restrict__ vis, i64* __restrict__ level,
                                           const f64* __restrict__ deg, const u32* __restrict__ deg_pres, i64 d,
                                           u64* st) {
  __shared__ u64 sums[3];
  if (threadIdx.x < 3) sums[threadIdx.x] = 0;
  __syncthreads();
  Search s{};
  s.deg = deg;
  s.deg_pres = deg_pres;
  const u64 nwords = (n + 31) / 32;
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  u64 cnt = 0, edges = 0, unvisited = 0;
  for (u64 q = warp; q < nwords; q += nwarps) {
    const u64 i = q * 32 + lane;
    const u32 seen = vis[q];
    const bool todo = i < n && !((seen >> lane) & 1u);
    u32 b = 0, e = 0;
    if (todo) rows.range(i, b, e);
    const bool wide = e - b > WARP_ROW;
    bool hit = false;
    if (!wide)
      for (u32 p = b; p < e && !hit; p += BATCH) hit = pull_step_hits(rows, f, i, p, e, 1);
    for (u32 w = __ballot_sync(FULL_MASK, wide); w; w &= w - 1) {
      const int src = __ffs(w) - 1;
      const u64 wi = __shfl_sync(FULL_MASK, i, src);
      const u32 wb = __shfl_sync(FULL_MASK, b, src), we = __shfl_sync(FULL_MASK, e, src);
      bool h = false;
      for (u32 p = wb; p < we && !h; p += BATCH * 32)
        h = __any_sync(FULL_MASK, pull_step_hits(rows, f, wi, p + lane, we, 32));
      if (lane == src) hit = h;
    }
    const u32 word = __ballot_sync(FULL_MASK, hit);
    if (lane == 0) {
      nx[q] = word;
      if (word) vis[q] = seen | word;
    }
    if (hit) {
      level[i] = d;
      ++cnt;
      edges += s.degree_of(i);
    } else if (todo) {
      unvisited += s.degree_of(i);
    }
  }
  cnt = warp_sum(cnt);
  edges = warp_sum(edges);
  unvisited = warp_sum(unvisited);
  if (lane == 0) {
    atomicAdd(&sums[0], cnt);
    atomicAdd(&sums[1], edges);
    atomicAdd(&sums[2], unvisited);
  }
  __syncthreads();
  if (threadIdx.x < 3 && sums[threadIdx.x]) atomicAdd(&st[threadIdx.x], sums[threadIdx.x]);
}

#define PULL_PARAMS                                                                                           \
  u64 n, const u32 *f, u32 *nx, u32 *vis, i64 *level, const f64 *deg, const u32 *deg_pres, i64 d, u64 *st
#define PULL_ARGS n, f, nx, vis, level, deg, deg_pres, d, st

extern "C" __global__ void bfs_pull_csr(const u32* rowptr, const u32* colidx, PULL_PARAMS) {
  pull_level(CsrRows{rowptr, colidx}, PULL_ARGS);
}

#define BFS_PULL_KERNELS(K)                                                                                          \
  extern "C" __global__ void CAT(bfs_pull_b2sr_k, K)(const u32* rowptr, const u32* colidx, const u8* tiles,           \
                                                     u32 tile_rows, PULL_PARAMS) {                                   \
    pull_level(B2srRows<K>{rowptr, colidx, tiles, tile_rows}, PULL_ARGS);                                            \
  }

BFS_PULL_KERNELS(4)
BFS_PULL_KERNELS(8)
BFS_PULL_KERNELS(16)
BFS_PULL_KERNELS(32)
