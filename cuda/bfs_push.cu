// cuda/bfs_push.cu: breadth-first push levels fused into few launches
// (`ops::bfs_push`): the block kernel `bfs_block_*` and the cooperative grid
// kernel `bfs_push_*` taking turns on one search state, and `bfs_stats`.
// Part of the type-free module `visit` (cuda/visit.cu, which describes both).
#include "bfs_rows.cuh"

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
    rows_batch(rows, i, p, e, stride, wi, x);
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

#define BFS_PUSH_KERNELS(K)                                                                                          \
  extern "C" __global__ void CAT(bfs_push_b2sr_k, K)(const u32* rowptr, const u32* colidx, const u8* tiles,           \
                                                     u32 tile_rows, SEARCH_PARAMS) {                                 \
    grid_levels(B2srRows<K>{rowptr, colidx, tiles, tile_rows}, SEARCH_ARGS);                                         \
  }                                                                                                                  \
  extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, 1) CAT(bfs_block_b2sr_k, K)(                           \
      const u32* rowptr, const u32* colidx, const u8* tiles, u32 tile_rows, SEARCH_PARAMS) {                         \
    block_levels(B2srRows<K>{rowptr, colidx, tiles, tile_rows}, SEARCH_ARGS);                                        \
  }

BFS_PUSH_KERNELS(4)
BFS_PUSH_KERNELS(8)
BFS_PUSH_KERNELS(16)
BFS_PUSH_KERNELS(32)
