// cuda/visit.cu: breadth-first push levels fused into few launches
// (`ops::bfs_push`), and pulled levels in one launch each (`ops::bfs_pull`,
// `bfs_pull_*` below); src/backend/cuda/visit.rs. Type-free: patterns only.
//
// Two kernels take turns on one search state, both pushing level after level
// from the frontier, and claiming each reached vertex with an atomicOr on the
// level vector's presence bits (the visited set): the claiming thread writes
// the vertex's level and counts it and its out-degree.
//
// * `bfs_block_*` (one block of 1024 threads) runs the levels of small
//   frontiers: the frontier is a queue of vertex numbers (two ping-pong
//   buffers), a level costs its frontier's out-edges and ends with
//   __syncthreads. Where the launch gives it n / 32 words of dynamic shared
//   memory it claims in a shared copy of the visited bits (setting the global
//   ones without waiting), else in global memory. It leaves when a new frontier has more than `block_edges`
//   out-edges or more than `qcap` vertices, after writing it as packed bits.
// * `bfs_push_*` (cooperative, the whole device) runs the levels of large
//   frontiers: each level reads the frontier's packed bits (clearing each word
//   as it reads it), sets the reached vertices' bits in the next frontier, and
//   ends with a grid barrier. It leaves when a new frontier is small again
//   (`block_edges / 2`, `qcap`), after writing it into the queue.
//
// Both stop (`ST_DONE`) when the caller's rule holds: no new vertex, the level
// budget spent, or a frontier with enough edges that the caller should pull
// (`edges * alpha > unvisited edges`, or `edges > max_edges`). The host
// launches block then grid kernel until `ST_DONE` (one round trip per
// hand-over from the grid kernel back to the block).
//
// `st` (u64 words, zeroed by the caller): 0 barrier arrivals, 1 barrier
// generation, 2..5 vertex counts per level (ring of 3), 5..8 edge counts per
// level (ring); the state: 8 levels done, 9 frontier vertices, 10 their
// out-edges, 11 unvisited edges (9..12 first written by `bfs_stats`), 12 queue
// length (appends by `enqueue_word`), 13 done, 14 which bit buffer holds the
// frontier (0: f0, 1: f1; the other is zero).
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

// The block kernel's share of vertex i: items b, b + stride, .. below e, in
// batches; each candidate claimed with one atomicOr (no read first: a
// round trip less for the fresh ones), in the block's shared copy `svis` of
// the visited bits where it has one (then the global bits are set without
// waiting), else in global memory; the claimed vertices' degrees read together.
template <typename Rows, typename Fresh>
__device__ __forceinline__ void push_row(const Rows& rows, const Search& s, u32* svis, u64 i, u32 b, u32 e,
                                         u32 stride, i64 d, u64& edges, Fresh fresh) {
  for (u32 p = b; p < e; p += BATCH * stride) {
    u64 wi[BATCH];
    u32 x[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      x[u] = 0;
      wi[u] = 0;
      if (p + u * stride < e) rows.at(i, p + u * stride, wi[u], x[u]);
    }
#pragma unroll
    for (int u = 0; u < BATCH; ++u)
      if (x[u]) x[u] &= ~(svis ? atomicOr(&svis[wi[u]], x[u]) : atomicOr(&s.vis[wi[u]], x[u]));
    u64 d0[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      if (svis && x[u]) atomicOr(&s.vis[wi[u]], x[u]);
      d0[u] = s.lowest_degree(wi[u], x[u]);
    }
#pragma unroll
    for (int u = 0; u < BATCH; ++u) s.record(wi[u], x[u], d0[u], d, edges, fresh);
  }
}

// Bytes of dynamic shared memory of this launch.
__device__ __forceinline__ u32 dynamic_smem_bytes() {
  u32 r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

// Sums a value over the warp (lane 0 has the total).
__device__ __forceinline__ u64 warp_sum(u64 x) {
  for (int o = 16; o; o >>= 1) x += __shfl_down_sync(FULL_MASK, x, o);
  return x;
}

// Appends the vertices of each lane's frontier word q (bits w) to the queue
// (positions from st[ST_QN]; those at qcap and beyond are dropped, the count
// still goes up). The whole warp calls it.
__device__ __forceinline__ void enqueue_word(u64 q, u32 w, u32* queue, u32 qcap, u64* qn) {
  const int lane = threadIdx.x & 31;
  const u32 c = __popc(w);
  u32 x = c;
  for (int o = 1; o < 32; o <<= 1) {
    const u32 y = __shfl_up_sync(FULL_MASK, x, o);
    if (lane >= o) x += y;
  }
  const u32 total = __shfl_sync(FULL_MASK, x, 31);
  if (!total) return;
  u64 base = 0;
  if (lane == 31) base = atomicAdd(qn, (u64)total);
  base = __shfl_sync(FULL_MASK, base, 31);
  u64 pos = base + x - c;
  for (; w && pos < qcap; w &= w - 1, ++pos) queue[pos] = (u32)(q * 32 + (__ffs(w) - 1));
}

// Frontier statistics into the state (ST_COUNT: vertices in f, ST_EDGES:
// their out-degrees, ST_UNVISITED: out-degrees of the vertices absent from
// vis), and the frontier into the queue (up to qcap vertices; none when qcap
// is 0).
extern "C" __global__ void bfs_stats(const u32* __restrict__ f, const u32* __restrict__ vis, u64 n,
                                     const f64* __restrict__ deg, const u32* __restrict__ deg_pres, u64* st,
                                     u32* queue, u32 qcap) {
  Search s{};
  s.deg = deg;
  s.deg_pres = deg_pres;
  const u64 nwords = (n + 31) / 32;
  const int lane = threadIdx.x & 31;
  u64 cnt = 0, edges = 0, unvisited = 0;
  // warp-uniform trips (enqueue_word needs every lane)
  for (u64 q0 = gtid() / 32 * 32; q0 < nwords; q0 += gthreads()) {
    const u64 q = q0 + lane;
    u32 w = 0, un = 0;
    if (q < nwords) {
      const u32 valid = q * 32 + 32 <= n ? FULL_MASK : ((1u << (n - q * 32)) - 1u);
      w = f[q] & valid;
      un = ~vis[q] & valid;
    }
    cnt += __popc(w);
    for (u32 b = w; b; b &= b - 1) edges += s.degree_of(q * 32 + (__ffs(b) - 1));
    for (u32 b = un; b; b &= b - 1) unvisited += s.degree_of(q * 32 + (__ffs(b) - 1));
    if (qcap) enqueue_word(q, w, queue, qcap, &st[ST_QN]);
  }
  cnt = warp_sum(cnt);
  edges = warp_sum(edges);
  unvisited = warp_sum(unvisited);
  if (lane == 0) {
    atomicAdd(&st[ST_COUNT], cnt);
    atomicAdd(&st[ST_EDGES], edges);
    atomicAdd(&st[ST_UNVISITED], unvisited);
  }
}

// A frontier the block kernel takes.
__device__ __forceinline__ bool small_frontier(const Search& s, u64 c, u64 e, u64 max_edges) {
  return c <= s.qcap && e <= max_edges;
}

// The grid kernel's levels, from the frontier bits in f[ST_CUR].
template <typename Rows> __device__ __forceinline__ void grid_levels(const Rows& rows, const Search& s) {
  u64* st = s.st;
  if (ld_volatile(&st[ST_DONE]) ||
      small_frontier(s, ld_volatile(&st[ST_COUNT]), ld_volatile(&st[ST_EDGES]), s.block_edges))
    return;
  const u64 nwords = (s.n + 31) / 32;
  const u64 done = ld_volatile(&st[ST_LEVELS]);
  u64 unvisited = ld_volatile(&st[ST_UNVISITED]);
  u32* f = ld_volatile(&st[ST_CUR]) ? s.f1 : s.f0;
  u32* nx = f == s.f1 ? s.f0 : s.f1;
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u32 d = 0;; ++d) {
    const u32 slot = d % 3;
    const i64 dnew = s.depth + (i64)(done + d + 1);
    u64 cnt = 0, edges = 0;
    const auto push = [&](u64 wi, u32 bits) {
      s.claim(wi, bits, dnew, edges, [&](u64 j) {
        atomicOr(&nx[j >> 5], 1u << (j & 31));
        ++cnt;
      });
    };
    // 32 frontier words at a time (read and cleared by their lanes), then the
    // nonzero ones one after another by the whole warp.
    for (u64 q0 = warp * 32; q0 < nwords; q0 += nwarps * 32) {
      const u64 q = q0 + lane;
      u32 w = q < nwords ? f[q] : 0;
      if (w) f[q] = 0;
      for (u32 live = __ballot_sync(FULL_MASK, w != 0); live; live &= live - 1) {
        const int src = __ffs(live) - 1;
        rows.word(q0 + src, __shfl_sync(FULL_MASK, w, src), lane, push);
      }
    }
    cnt = warp_sum(cnt);
    edges = warp_sum(edges);
    if (lane == 0 && (cnt || edges)) {
      atomicAdd(&st[ST_CNT + slot], cnt);
      atomicAdd(&st[ST_EDG + slot], edges);
    }
    if (gtid() == 0) {
      st[ST_CNT + (d + 1) % 3] = 0;
      st[ST_EDG + (d + 1) % 3] = 0;
    }
    grid_barrier(st);
    const u64 c = ld_volatile(&st[ST_CNT + slot]);
    const u64 e = ld_volatile(&st[ST_EDG + slot]);
    unvisited = unvisited > e ? unvisited - e : 0;
    const bool stop = s.stop(c, e, done + d + 1, unvisited);
    const bool back = !stop && small_frontier(s, c, e, s.block_edges / 2);
    if (stop || back) {
      if (gtid() == 0) {
        st[ST_LEVELS] = done + d + 1;
        st[ST_COUNT] = c;
        st[ST_EDGES] = e;
        st[ST_UNVISITED] = unvisited;
        st[ST_DONE] = stop;
        st[ST_CUR] = nx == s.f1;
      }
      if (back) {
        // hand the frontier to the block kernel (ST_QN is zero: the block
        // kernel, launched before this one, cleared it)
        for (u64 q0 = warp * 32; q0 < nwords; q0 += nwarps * 32) {
          const u64 q = q0 + lane;
          enqueue_word(q, q < nwords ? nx[q] : 0, s.q0, s.qcap, &st[ST_QN]);
        }
      }
      return;
    }
    u32* t = f;
    f = nx;
    nx = t;
  }
}

// The block kernel's levels, from the queue q0 (the frontier's bits in
// f[ST_CUR] are cleared on entry and written back on exit).
template <typename Rows> __device__ __forceinline__ void block_levels(const Rows& rows, const Search& s) {
  __shared__ u32 cnt_ring[3];
  __shared__ u64 edg_ring[3];
  u64* st = s.st;
  const u32 tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
  if (tid == 0) {
    // the grid kernel's level rings and queue start from zero
    for (int k = ST_CNT; k < ST_EDG + 3; ++k) st[k] = 0;
    st[ST_QN] = 0;
    for (int k = 0; k < 3; ++k) cnt_ring[k] = edg_ring[k] = 0;
  }
  if (ld_volatile(&st[ST_DONE])) return;
  u64 c = ld_volatile(&st[ST_COUNT]);
  if (!small_frontier(s, c, ld_volatile(&st[ST_EDGES]), s.block_edges)) return;
  const u64 done = ld_volatile(&st[ST_LEVELS]);
  u64 unvisited = ld_volatile(&st[ST_UNVISITED]);
  u32* f = ld_volatile(&st[ST_CUR]) ? s.f1 : s.f0;
  u32* q = s.q0;
  u32* qn = s.q1;
  for (u64 k = tid; k < c; k += BLOCK_THREADS) f[q[k] >> 5] = 0;
  // the visited bits in shared memory where the launch gave room for them
  extern __shared__ u32 smem[];
  const u64 nwords = (s.n + 31) / 32;
  u32* svis = dynamic_smem_bytes() >= nwords * 4 ? smem : nullptr;
  if (svis)
    for (u64 k = tid; k < nwords; k += BLOCK_THREADS) svis[k] = s.vis[k];
  __syncthreads();
  for (u32 d = 0;; ++d) {
    const u32 slot = d % 3;
    const i64 dnew = s.depth + (i64)(done + d + 1);
    u64 edges = 0;
    const auto fresh = [&](u64 j) {
      const u32 pos = atomicAdd(&cnt_ring[slot], 1u);
      if (pos < s.qcap)
        qn[pos] = (u32)j;
      else
        atomicOr(&f[j >> 5], 1u << (j & 31));  // overflow: the grid kernel takes it
    };
    // One vertex per thread; rows longer than WARP_ROW by the whole warp.
    for (u64 k0 = (u64)warp * 32; k0 < c; k0 += BLOCK_THREADS) {
      const u64 k = k0 + lane;
      u64 i = 0;
      u32 b = 0, e = 0;
      if (k < c) {
        i = q[k];
        rows.range(i, b, e);
      }
      const bool wide = e - b > WARP_ROW;
      if (!wide) push_row(rows, s, svis, i, b, e, 1, dnew, edges, fresh);
      for (u32 w = __ballot_sync(FULL_MASK, wide); w; w &= w - 1) {
        const int src = __ffs(w) - 1;
        const u64 wi = __shfl_sync(FULL_MASK, i, src);
        const u32 wb = __shfl_sync(FULL_MASK, b, src), we = __shfl_sync(FULL_MASK, e, src);
        push_row(rows, s, svis, wi, wb + lane, we, 32, dnew, edges, fresh);
      }
    }
    edges = warp_sum(edges);
    if (lane == 0 && edges) atomicAdd(&edg_ring[slot], edges);
    if (tid == 0) cnt_ring[(d + 1) % 3] = edg_ring[(d + 1) % 3] = 0;
    __syncthreads();
    const u64 nc = cnt_ring[slot], ne = edg_ring[slot];
    unvisited = unvisited > ne ? unvisited - ne : 0;
    const bool stop = s.stop(nc, ne, done + d + 1, unvisited);
    if (stop || !small_frontier(s, nc, ne, s.block_edges)) {
      // the frontier back to bits (beyond qcap it is there already)
      for (u64 k = tid; k < nc && k < s.qcap; k += BLOCK_THREADS) atomicOr(&f[qn[k] >> 5], 1u << (qn[k] & 31));
      if (tid == 0) {
        st[ST_LEVELS] = done + d + 1;
        st[ST_COUNT] = nc;
        st[ST_EDGES] = ne;
        st[ST_UNVISITED] = unvisited;
        st[ST_DONE] = stop;
      }
      return;
    }
    u32* t = q;
    q = qn;
    qn = t;
    c = nc;
  }
}

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
#pragma unroll
  for (int u = 0; u < BATCH; ++u) {
    x[u] = 0;
    wi[u] = 0;
    if (p + u * stride < e) rows.at(i, p + u * stride, wi[u], x[u]);
  }
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

#define SEARCH_PARAMS                                                                                           \
  u64 n, u32 *f0, u32 *f1, u32 *vis, i64 *level, const f64 *deg, const u32 *deg_pres, i64 depth, u32 max_levels, \
      u64 alpha, u64 max_edges, u64 *st, u32 *q0, u32 *q1, u32 qcap, u64 block_edges
#define SEARCH_ARGS \
  Search { n, f0, f1, vis, level, deg, deg_pres, depth, max_levels, alpha, max_edges, st, q0, q1, qcap, block_edges }

extern "C" __global__ void bfs_push_csr(const u32* rowptr, const u32* colidx, SEARCH_PARAMS) {
  grid_levels(CsrRows{rowptr, colidx}, SEARCH_ARGS);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, 1)
    bfs_block_csr(const u32* rowptr, const u32* colidx, SEARCH_PARAMS) {
  block_levels(CsrRows{rowptr, colidx}, SEARCH_ARGS);
}

#define VISIT_KERNELS(K)                                                                                             \
  extern "C" __global__ void CAT(bfs_push_b2sr_k, K)(const u32* rowptr, const u32* colidx, const u8* tiles,           \
                                                     u32 tile_rows, SEARCH_PARAMS) {                                 \
    grid_levels(B2srRows<K>{rowptr, colidx, tiles, tile_rows}, SEARCH_ARGS);                                         \
  }                                                                                                                  \
  extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, 1) CAT(bfs_block_b2sr_k, K)(                           \
      const u32* rowptr, const u32* colidx, const u8* tiles, u32 tile_rows, SEARCH_PARAMS) {                         \
    block_levels(B2srRows<K>{rowptr, colidx, tiles, tile_rows}, SEARCH_ARGS);                                        \
  }                                                                                                                  \
  extern "C" __global__ void CAT(bfs_pull_b2sr_k, K)(const u32* rowptr, const u32* colidx, const u8* tiles,           \
                                                     u32 tile_rows, PULL_PARAMS) {                                   \
    pull_level(B2srRows<K>{rowptr, colidx, tiles, tile_rows}, PULL_ARGS);                                            \
  }

VISIT_KERNELS(4)
VISIT_KERNELS(8)
VISIT_KERNELS(16)
VISIT_KERNELS(32)
