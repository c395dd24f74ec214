// cuda/bfs_rows.cuh: what the breadth-first kernels share (cuda/bfs_push.cu,
// cuda/bfs_pull.cu): the search state `Search` and its words `st`, and the
// two storage forms as the kernels see a vertex's out-neighbours (`CsrRows`,
// `B2srRows<K>`).
//
// `st` (u64 words, zeroed by the caller): 0 barrier arrivals, 1 barrier
// generation, 2..5 vertex counts per level (ring of 3), 5..8 edge counts per
// level (ring); the state: 8 levels done, 9 frontier vertices, 10 their
// out-edges, 11 unvisited edges (9..12 first written by `bfs_stats`), 12 queue
// length (appends by `enqueue_word`), 13 done, 14 which bit buffer holds the
// frontier (0: f0, 1: f1; the other is zero).
#pragma once
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
#define ST_QN 12
#define ST_DONE 13
#define ST_CUR 14

// Threads of the block kernel.
#define BLOCK_THREADS 1024
// Rows with more items than this are pushed by a whole warp in the block kernel.
#define WARP_ROW 32

__device__ __forceinline__ u64 ld_volatile(const u64* p) { return *(volatile const u64*)p; }

// The search state and the caller's limits, as both kernels receive them.
struct Search {
  u64 n;
  u32* f0;  // frontier bits (two buffers, see ST_CUR)
  u32* f1;
  u32* vis;    // presence bits of the level vector
  i64* level;  // its values
  const f64* __restrict__ deg;
  const u32* __restrict__ deg_pres;
  i64 depth;  // level of the frontier when the call began
  u32 max_levels;
  u64 alpha;
  u64 max_edges;
  u64* st;
  u32* q0;  // frontier queue (holds the frontier when the block kernel starts)
  u32* q1;
  u32 qcap;
  u64 block_edges;

  // Out-degree of vertex j (absent: 0).
  __device__ __forceinline__ u64 degree_of(u64 j) const {
    // both loads in flight at once (deg holds n values, present or not)
    const u32 pw = deg_pres ? deg_pres[j >> 5] : FULL_MASK;
    const f64 v = deg[j];
    return (pw >> (j & 31)) & 1u ? (u64)v : 0;
  }
  // The caller's stop rule after a level with c vertices and e out-edges.
  __device__ __forceinline__ bool stop(u64 c, u64 e, u64 levels_done, u64 unvisited) const {
    return c == 0 || levels_done >= max_levels || e * alpha > unvisited || e > max_edges;
  }
  // Out-degree of the lowest vertex among bits f of word wi (none: 0).
  __device__ __forceinline__ u64 lowest_degree(u64 wi, u32 f) const {
    return f ? degree_of(wi * 32 + (__ffs(f) - 1)) : 0;
  }
  // Records the vertices `f` of word wi, just claimed, at level `d`: calls
  // `fresh(j)` for each, and counts their out-edges (`d0`: the lowest one's,
  // `lowest_degree` read ahead by the caller, so that a batch's reads are in
  // flight together).
  template <typename Fresh>
  __device__ __forceinline__ void record(u64 wi, u32 f, u64 d0, i64 d, u64& edges, Fresh fresh) const {
    for (u64 dg = d0; f; f &= f - 1) {
      const u64 j = wi * 32 + (__ffs(f) - 1);
      level[j] = d;
      edges += dg;
      fresh(j);
      dg = lowest_degree(wi, f & (f - 1));
    }
  }
  // Claims the unvisited vertices among `bits` of word wi (a read first: most
  // are visited in large frontiers) and records them.
  template <typename Fresh>
  __device__ __forceinline__ void claim(u64 wi, u32 bits, i64 d, u64& edges, Fresh fresh) const {
    u32 f = bits & ~vis[wi];
    if (!f) return;
    f &= ~atomicOr(&vis[wi], f);
    record(wi, f, lowest_degree(wi, f), d, edges, fresh);
  }
};

// The two storage forms, as the kernels see a vertex's out-neighbours:
// `range(i, b, e)` gives the items (edges, tiles) of vertex i's row,
// `at(i, p, wi, x)` the vertices item p reaches (bits x of word wi; x = 0:
// none), and `word(q, w, lane, f)` calls f(wi, x) for every vertex of frontier
// word q (bits w), the warp's lanes striding the items.
struct CsrRows {
  const u32* __restrict__ rowptr;
  const u32* __restrict__ colidx;
  __device__ __forceinline__ void range(u64 i, u32& b, u32& e) const {
    b = rowptr[i];
    e = rowptr[i + 1];
  }
  __device__ __forceinline__ void at(u64, u32 p, u64& wi, u32& x) const {
    const u32 j = colidx[p];
    wi = j >> 5;
    x = 1u << (j & 31);
  }
  template <typename F> __device__ __forceinline__ void word(u64 q, u32 w, int lane, F f) const {
    for (; w; w &= w - 1) {
      const u64 i = q * 32 + (__ffs(w) - 1);
      const u32 p1 = rowptr[i + 1];
      for (u32 p = rowptr[i] + lane; p < p1; p += 32) {
        u64 wi;
        u32 x;
        at(i, p, wi, x);
        f(wi, x);
      }
    }
  }
};

// B2SR: a vertex's row is its tile row's tiles at the vertex's row bits; for a
// frontier word, the tiles of each tile row once, with the OR of its rows.
template <int K> struct B2srRows {
  const u32* __restrict__ rowptr;
  const u32* __restrict__ colidx;
  const u8* __restrict__ tiles;
  u32 tile_rows;
  __device__ __forceinline__ void reach(u32 t, u32 x, u64& wi, u32& out) const {
    const u64 base = (u64)colidx[t] * K;
    wi = base >> 5;
    out = K == 32 ? x : x << (base & 31);
  }
  __device__ __forceinline__ void range(u64 i, u32& b, u32& e) const {
    b = rowptr[i / K];
    e = rowptr[i / K + 1];
  }
  __device__ __forceinline__ void at(u64 i, u32 t, u64& wi, u32& x) const {
    reach(t, tile_row<K>(tiles, t, (int)(i % K)), wi, x);
  }
  template <typename F> __device__ __forceinline__ void word(u64 q, u32 w, int lane, F f) const {
#pragma unroll
    for (int g = 0; g < 32 / K; ++g) {
      const u32 fb = (w >> (g * K)) & row_mask<K>();
      const u64 tr = q * (32 / K) + g;
      if (fb == 0 || tr >= tile_rows) continue;
      const u32 t1 = rowptr[tr + 1];
      for (u32 t = rowptr[tr] + lane; t < t1; t += 32) {
        u32 x = 0;
        for (u32 r = fb; r; r &= r - 1) x |= tile_row<K>(tiles, t, __ffs(r) - 1);
        if (!x) continue;
        u64 wi;
        u32 bits;
        reach(t, x, wi, bits);
        f(wi, bits);
      }
    }
  }
};

// Items per batch of the block kernel: their reads, then their claims, are
// in flight together.
#define BATCH 4

// The vertices that items p, p + stride, .. (BATCH of them, those below e) of
// vertex i's row reach: bits x[u] of word wi[u] (x[u] = 0: none), all loads
// in flight together.
template <typename Rows>
__device__ __forceinline__ void rows_batch(const Rows& rows, u64 i, u32 p, u32 e, u32 stride, u64 (&wi)[BATCH],
                                           u32 (&x)[BATCH]) {
#pragma unroll
  for (int u = 0; u < BATCH; ++u) {
    x[u] = 0;
    wi[u] = 0;
    if (p + u * stride < e) rows.at(i, p + u * stride, wi[u], x[u]);
  }
}

// Sums a value over the warp (lane 0 has the total).
__device__ __forceinline__ u64 warp_sum(u64 x) {
  for (int o = 16; o; o >>= 1) x += __shfl_down_sync(FULL_MASK, x, o);
  return x;
}
