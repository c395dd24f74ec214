// cuda/sssp.cu: delta-stepping buckets (`ext::delta_stepping`, `sssp_*`) on
// the CSR light and heavy edges (f64 weights). Part of the module `visit`
// (cuda/visit.cu); src/backend/cuda/sssp.rs runs the loop.
//
// Distances are the u64 bit patterns of non-negative doubles (0 .. +inf),
// whose integer order is their numeric order, so an improvement is one
// atomicMin. A bucket is `lo <= d < hi`, `hi = bucket_hi(lo, delta)`, `lo`
// the smallest distance not yet settled (kept on the device, never read by
// the host to launch). Per bucket:
//
// * `sssp_bucket`: every vertex of the bucket into the queue (a thread a vertex);
// * `sssp_light` (a warp a queued vertex) and `sssp_light_wide` (the whole
//   grid on each queued vertex of more than SS_WIDE_ROW light edges, which
//   `sssp_light` set aside): relax the queue's light edges; a vertex whose
//   distance falls below `hi` goes into the next queue once (its stamp is the
//   launch number). The host reads the new queue's length after each pair
//   and stops the bucket at zero;
// * `sssp_heavy`: the bucket's vertices (all settled now) relax their heavy
//   edges once, and every vertex at or above `hi` offers its distance to the
//   next bucket's `lo` (an atomicMin; improved heavy targets offer theirs).
//
// `st` (u64, zeroed by the caller; the first `lo` is +0.0, whose bits are 0):
// SS_LO + b % 2: the bucket's `lo` (bucket b); SS_QN + j % 3: the length of
// the queue launch j writes (launch j reads j - 1's, zeroes j + 1's);
// SS_WIDE + j % 3: the wide vertices launch j set aside, likewise.
#include "common.cuh"

// SS_WORDS, SS_LO, SS_QN, SS_WIDE (the counter words) and SS_WIDE_ROW: codes.cuh.

#define DIST_INF 0x7ff0000000000000ull

// The end of the bucket that starts at `lo` (as the generic default computes
// it): lo + delta, or the next double where that does not move past lo.
__device__ __forceinline__ f64 bucket_hi(f64 lo, f64 delta) {
  const f64 hi = __dadd_rn(lo, delta);
  if (hi > lo) return hi;
  if (lo == 0.0) return __longlong_as_double(1ll);
  return __longlong_as_double(__double_as_longlong(lo) + 1);
}

__device__ __forceinline__ u64 ld_once(const u64* p) { return *(volatile const u64*)p; }

// Sets the distances of the sources to 0.
extern "C" __global__ void sssp_sources(u64* dist, const u32* sources, u32 nsrc) {
  for (u64 i = gtid(); i < nsrc; i += gthreads()) dist[sources[i]] = 0ull;
}

// Bucket b: every vertex with lo <= d < hi into queue `q` (launch j's output);
// also clears the next bucket's `lo` slot and launch j + 1's counters.
extern "C" __global__ void sssp_bucket(const u64* dist, u64 n, u64 delta_bits, u32 b, u32 j, u32* q, u64* st) {
  const f64 delta = __longlong_as_double((long long)delta_bits);
  const f64 lo = __longlong_as_double((long long)ld_once(&st[SS_LO + b % 2]));
  const f64 hi = bucket_hi(lo, delta);
  if (gtid() == 0) {
    st[SS_LO + (b + 1) % 2] = DIST_INF;
    st[SS_QN + (j + 1) % 3] = 0;
    st[SS_WIDE + (j + 1) % 3] = 0;
  }
  u64* qn = &st[SS_QN + j % 3];
  for (u64 v = gtid(); v < n; v += gthreads()) {
    const f64 d = __longlong_as_double((long long)dist[v]);
    if (d >= lo && d < hi) q[atomicAdd(qn, 1ull)] = (u32)v;
  }
}

// Relaxes the edge to u at distance nd; a new distance below hi puts u into
// the next queue once (stamp[u] = j).
__device__ __forceinline__ void relax_to(u64* dist, u32 u, f64 nd, f64 hi, u32* stamp, u32 j, u32* qout,
                                         u64* qn) {
  const u64 nb = (u64)__double_as_longlong(nd);
  if (nb >= dist[u]) return;
  const u64 old = atomicMin((unsigned long long*)&dist[u], (unsigned long long)nb);
  if (nb < old && nd < hi && atomicExch(&stamp[u], j) != j) qout[atomicAdd(qn, 1ull)] = u;
}

// The light edges of the queued vertices (launch j reads launch j - 1's
// queue `qin`, writes `qout`): a warp a vertex, lanes over its edges;
// vertices of more than SS_WIDE_ROW edges go to `wide` for `sssp_light_wide`.
extern "C" __global__ void sssp_light(const u32* rowptr, const u32* colidx, const f64* w, u64* dist, u64 delta_bits,
                                      u32 b, u32 j, const u32* qin, u32* qout, u32* wide, u32* stamp, u64* st) {
  const f64 hi = bucket_hi(__longlong_as_double((long long)ld_once(&st[SS_LO + b % 2])),
                           __longlong_as_double((long long)delta_bits));
  const u64 len = ld_once(&st[SS_QN + (j + 2) % 3]);
  if (gtid() == 0) {
    st[SS_QN + (j + 1) % 3] = 0;
    st[SS_WIDE + (j + 1) % 3] = 0;
  }
  u64* qn = &st[SS_QN + j % 3];
  const int lane = threadIdx.x & 31;
  for (u64 k = gtid() / 32; k < len; k += gthreads() / 32) {
    const u32 v = qin[k];
    const u32 s = rowptr[v], e = rowptr[v + 1];
    if (e - s > SS_WIDE_ROW) {
      if (lane == 0) wide[atomicAdd(&st[SS_WIDE + j % 3], 1ull)] = v;
      continue;
    }
    const f64 d = __longlong_as_double((long long)dist[v]);
    for (u32 p = s + lane; p < e; p += 32) relax_to(dist, colidx[p], __dadd_rn(d, w[p]), hi, stamp, j, qout, qn);
  }
}

// The wide vertices `sssp_light` (launch j) set aside: the whole grid on
// each one's edges in turn; pushes into the same queue.
extern "C" __global__ void sssp_light_wide(const u32* rowptr, const u32* colidx, const f64* w, u64* dist,
                                           u64 delta_bits, u32 b, u32 j, const u32* wide, u32* qout, u32* stamp,
                                           u64* st) {
  const f64 hi = bucket_hi(__longlong_as_double((long long)ld_once(&st[SS_LO + b % 2])),
                           __longlong_as_double((long long)delta_bits));
  const u64 nw = ld_once(&st[SS_WIDE + j % 3]);
  u64* qn = &st[SS_QN + j % 3];
  for (u64 k = 0; k < nw; ++k) {
    const u32 v = wide[k];
    const u32 s = rowptr[v], e = rowptr[v + 1];
    const f64 d = __longlong_as_double((long long)dist[v]);
    for (u64 p = s + gtid(); p < e; p += gthreads())
      relax_to(dist, colidx[p], __dadd_rn(d, w[p]), hi, stamp, j, qout, qn);
  }
}

// After bucket b: its vertices relax their heavy edges (a warp takes 32
// vertices; each bucket vertex's edges by the whole warp), and the smallest
// distance at or above hi becomes the next bucket's lo.
extern "C" __global__ void sssp_heavy(const u32* rowptr, const u32* colidx, const f64* w, u64* dist, u64 n,
                                      u64 delta_bits, u32 b, u32 has_heavy, u64* st) {
  const f64 lo = __longlong_as_double((long long)ld_once(&st[SS_LO + b % 2]));
  const f64 hi = bucket_hi(lo, __longlong_as_double((long long)delta_bits));
  u64* next = &st[SS_LO + (b + 1) % 2];
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  u64 best = DIST_INF;
  for (u64 base = warp * 32; base < n; base += nwarps * 32) {
    const u64 v = base + lane;
    const u64 bits = v < n ? dist[v] : DIST_INF;
    const f64 d = __longlong_as_double((long long)bits);
    if (d >= hi && bits < best) best = bits;
    const bool mine = v < n && d >= lo && d < hi && has_heavy;
    for (u32 m = __ballot_sync(FULL_MASK, mine); m; m &= m - 1) {
      const int src = __ffs(m) - 1;
      const u32 u = (u32)(base + src);
      const f64 du = __shfl_sync(FULL_MASK, d, src);
      const u32 s = rowptr[u], e = rowptr[u + 1];
      for (u32 p = s + lane; p < e; p += 32) {
        const f64 nd = __dadd_rn(du, w[p]);
        const u64 nb = (u64)__double_as_longlong(nd);
        const u32 t = colidx[p];
        if (nb < dist[t]) {
          const u64 old = atomicMin((unsigned long long*)&dist[t], (unsigned long long)nb);
          if (nb < old && nd >= hi && nb < best) best = nb;
        }
      }
    }
  }
  for (int o = 16; o; o >>= 1) {
    const u64 x = __shfl_xor_sync(FULL_MASK, best, o);
    best = x < best ? x : best;
  }
  if (lane == 0 && best != DIST_INF) atomicMin((unsigned long long*)next, (unsigned long long)best);
}
