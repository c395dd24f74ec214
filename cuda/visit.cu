// cuda/visit.cu: breadth-first push levels fused into one launch
// (`ops::bfs_push`, src/backend/cuda/visit.rs). Type-free: patterns only.
//
// One cooperative launch runs level after level while the frontier stays
// small: each level reads the frontier's packed bits (clearing each word as
// it reads it, so the buffer is zero again for the level after next), pushes
// the rows of its vertices, and claims each reached vertex with an atomicOr
// on the level vector's presence bits (the visited set): the claiming thread
// writes the vertex's level, sets its bit in the next frontier and counts it
// and its out-degree. A grid barrier ends the level; every thread then reads
// the level's totals and takes the same decision: go on, or stop (no new
// vertex, the level budget spent, or a frontier with enough edges that the
// caller should pull: `edges * alpha > unvisited edges`, or `edges > max_edges`).
//
// `st` (u64 words, zeroed by the caller): 0 barrier arrivals, 1 barrier
// generation, 2..5 vertex counts per level (ring of 3), 5..8 edge counts per
// level (ring), 8 levels done, 9 last count, 10 last edges, 11 unvisited edges;
// 12..15 the entry statistics of `bfs_stats` (frontier vertices, their
// edges, unvisited edges), which the levels start from.
#include "common.cuh"
#include "tiles.cuh"

#define ST_BAR 0
#define ST_GEN 1
#define ST_CNT 2
#define ST_EDG 5
#define ST_LEVELS 8
#define ST_COUNT 9
#define ST_EDGES 10
#define ST_UNVISITED 11
#define ST_STATS 12

__device__ __forceinline__ u64 ld_volatile(const u64* p) { return *(volatile const u64*)p; }

// All blocks of the (cooperative, so co-resident) grid wait here.
__device__ __forceinline__ void grid_barrier(u64* st) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const u64 gen = ld_volatile(&st[ST_GEN]);
    __threadfence();
    if (atomicAdd(&st[ST_BAR], 1ull) == (u64)gridDim.x - 1) {
      st[ST_BAR] = 0;
      __threadfence();
      atomicAdd(&st[ST_GEN], 1ull);
    } else {
      while (ld_volatile(&st[ST_GEN]) == gen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// Out-degree of vertex j (absent: 0).
__device__ __forceinline__ u64 degree_of(const f64* __restrict__ deg, const u32* __restrict__ deg_pres, u64 j) {
  if (deg_pres && !bit_get(deg_pres, j)) return 0;
  return (u64)deg[j];
}

// Claims the unvisited vertices among `bits` of word wi.
__device__ __forceinline__ void claim(u64 wi, u32 bits, u32* __restrict__ vis, i64* __restrict__ level, i64 depth,
                                      u32* __restrict__ next, const f64* __restrict__ deg,
                                      const u32* __restrict__ deg_pres, u64& cnt, u64& edges) {
  u32 fresh = bits & ~vis[wi];
  if (!fresh) return;
  fresh &= ~atomicOr(&vis[wi], fresh);
  if (!fresh) return;
  atomicOr(&next[wi], fresh);
  cnt += __popc(fresh);
  for (u32 f = fresh; f; f &= f - 1) {
    const u64 j = wi * 32 + (__ffs(f) - 1);
    level[j] = depth;
    edges += degree_of(deg, deg_pres, j);
  }
}

// Sums a warp's counts into the level's slot.
__device__ __forceinline__ void add_totals(u64* st, u32 slot, u64 cnt, u64 edges) {
  for (int o = 16; o; o >>= 1) {
    cnt += __shfl_down_sync(FULL_MASK, cnt, o);
    edges += __shfl_down_sync(FULL_MASK, edges, o);
  }
  if ((threadIdx.x & 31) == 0 && (cnt || edges)) {
    atomicAdd(&st[ST_CNT + slot], cnt);
    atomicAdd(&st[ST_EDG + slot], edges);
  }
}

// One warp's share of a level: 32 frontier words at a time (read and cleared
// by their lanes), then the nonzero ones one after another by the whole warp.
template <typename Rows>
__device__ __forceinline__ void level_pass(u32* __restrict__ f, u64 nwords, Rows rows, u64& cnt, u64& edges) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 q0 = warp * 32; q0 < nwords; q0 += nwarps * 32) {
    const u64 q = q0 + lane;
    u32 w = q < nwords ? f[q] : 0;
    if (w) f[q] = 0;
    for (u32 live = __ballot_sync(FULL_MASK, w != 0); live; live &= live - 1) {
      const int src = __ffs(live) - 1;
      const u32 word = __shfl_sync(FULL_MASK, w, src);
      rows(q0 + src, word, lane, cnt, edges);
    }
  }
}

// The levels loop shared by CSR and B2SR; `rows(q, word, lane, cnt, edges)`
// pushes the vertices of frontier word q (bits `word`) into `next`.
template <typename Push>
__device__ __forceinline__ void levels(u64 n, u32* f0, u32* f1, i64 depth, u32 max_levels, u64 alpha, u64 max_edges,
                                       u64* st, Push push) {
  const u64 nwords = (n + 31) / 32;
  u64 unvisited = ld_volatile(&st[ST_STATS + 2]);
  u32* f = f0;
  u32* nx = f1;
  for (u32 d = 0;; ++d) {
    const u32 slot = d % 3;
    u64 cnt = 0, edges = 0;
    level_pass(f, nwords, [&](u64 q, u32 word, int lane, u64& c, u64& e) { push(q, word, lane, nx, depth + d + 1, c, e); },
               cnt, edges);
    add_totals(st, slot, cnt, edges);
    if (gtid() == 0) {
      st[ST_CNT + (d + 1) % 3] = 0;
      st[ST_EDG + (d + 1) % 3] = 0;
    }
    grid_barrier(st);
    const u64 c = ld_volatile(&st[ST_CNT + slot]);
    const u64 e = ld_volatile(&st[ST_EDG + slot]);
    unvisited = unvisited > e ? unvisited - e : 0;
    if (c == 0 || d + 1 >= max_levels || e * alpha > unvisited || e > max_edges) {
      if (gtid() == 0) {
        st[ST_LEVELS] = d + 1;
        st[ST_COUNT] = c;
        st[ST_EDGES] = e;
        st[ST_UNVISITED] = unvisited;
      }
      return;
    }
    u32* t = f;
    f = nx;
    nx = t;
  }
}

extern "C" __global__ void bfs_push_csr(const u32* __restrict__ rowptr, const u32* __restrict__ colidx, u64 n,
                                        u32* f0, u32* f1, u32* vis, i64* level, const f64* __restrict__ deg,
                                        const u32* __restrict__ deg_pres, i64 depth, u32 max_levels, u64 alpha,
                                        u64 max_edges, u64* st) {
  levels(n, f0, f1, depth, max_levels, alpha, max_edges, st,
         [&](u64 q, u32 word, int lane, u32* nx, i64 dnew, u64& cnt, u64& edges) {
           for (u32 w = word; w; w &= w - 1) {
             const u64 i = q * 32 + (__ffs(w) - 1);
             const u32 p1 = rowptr[i + 1];
             for (u32 p = rowptr[i] + lane; p < p1; p += 32) {
               const u32 j = colidx[p];
               claim(j >> 5, 1u << (j & 31), vis, level, dnew, nx, deg, deg_pres, cnt, edges);
             }
           }
         });
}

// B2SR: the lanes stride the tiles of each tile row of the word; a tile's
// reached columns are the OR of its rows at the frontier's bits.
template <int K>
__device__ __forceinline__ void b2sr_levels(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                            const u8* __restrict__ tiles, u64 n, u32 tile_rows, u32* f0, u32* f1,
                                            u32* vis, i64* level, const f64* __restrict__ deg,
                                            const u32* __restrict__ deg_pres, i64 depth, u32 max_levels, u64 alpha,
                                            u64 max_edges, u64* st) {
  levels(n, f0, f1, depth, max_levels, alpha, max_edges, st,
         [&](u64 q, u32 word, int lane, u32* nx, i64 dnew, u64& cnt, u64& edges) {
#pragma unroll
           for (int g = 0; g < 32 / K; ++g) {
             const u32 fb = (word >> (g * K)) & row_mask<K>();
             const u64 tr = q * (32 / K) + g;
             if (fb == 0 || tr >= tile_rows) continue;
             const u32 t1 = rowptr[tr + 1];
             for (u32 t = rowptr[tr] + lane; t < t1; t += 32) {
               u32 x = 0;
               for (u32 r = fb; r; r &= r - 1) x |= tile_row<K>(tiles, t, __ffs(r) - 1);
               if (!x) continue;
               const u64 base = (u64)colidx[t] * K;
               claim(base >> 5, K == 32 ? x : x << (base & 31), vis, level, dnew, nx, deg, deg_pres, cnt, edges);
             }
           }
         });
}

#define VISIT_KERNELS(K)                                                                                       \
  extern "C" __global__ void CAT(bfs_push_b2sr_k, K)(                                                          \
      const u32* rowptr, const u32* colidx, const u8* tiles, u64 n, u32 tile_rows, u32* f0, u32* f1, u32* vis, \
      i64* level, const f64* deg, const u32* deg_pres, i64 depth, u32 max_levels, u64 alpha, u64 max_edges,    \
      u64* st) {                                                                                               \
    b2sr_levels<K>(rowptr, colidx, tiles, n, tile_rows, f0, f1, vis, level, deg, deg_pres, depth, max_levels,  \
                   alpha, max_edges, st);                                                                      \
  }

VISIT_KERNELS(4)
VISIT_KERNELS(8)
VISIT_KERNELS(16)
VISIT_KERNELS(32)

// Frontier statistics: st[0] += vertices in f, st[1] += their out-degrees,
// st[2] += out-degrees of the vertices absent from vis (unvisited).
extern "C" __global__ void bfs_stats(const u32* __restrict__ f, const u32* __restrict__ vis, u64 n,
                                     const f64* __restrict__ deg, const u32* __restrict__ deg_pres, u64* st) {
  const u64 nwords = (n + 31) / 32;
  u64 cnt = 0, edges = 0, unvisited = 0;
  for (u64 q = gtid(); q < nwords; q += gthreads()) {
    const u32 valid = q * 32 + 32 <= n ? FULL_MASK : ((1u << (n - q * 32)) - 1u);
    const u32 w = f[q] & valid;
    cnt += __popc(w);
    for (u32 b = w; b; b &= b - 1) edges += degree_of(deg, deg_pres, q * 32 + (__ffs(b) - 1));
    for (u32 b = ~vis[q] & valid; b; b &= b - 1) unvisited += degree_of(deg, deg_pres, q * 32 + (__ffs(b) - 1));
  }
  for (int o = 16; o; o >>= 1) {
    cnt += __shfl_down_sync(FULL_MASK, cnt, o);
    edges += __shfl_down_sync(FULL_MASK, edges, o);
    unvisited += __shfl_down_sync(FULL_MASK, unvisited, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&st[0], cnt);
    atomicAdd(&st[1], edges);
    atomicAdd(&st[2], unvisited);
  }
}
