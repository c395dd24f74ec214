// cuda/push.cu: push (scatter) products w = u ⊕.⊗ A = A' ⊕.⊗ u on CSR and
// B2SR, without transposing A.
//
// Compiled once per built-in semiring and element type with the defines of
// cuda/sr.cu (-DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME); entry points end in
// `_<SR_NAME>`.
//
// Work is driven by the input's presence words: a word of u with no entry
// costs one load and nothing else, so a push from a small frontier reads
// n / 32 words plus the rows of the frontier, not every row of A (the
// high-diameter BFS levels). Entry (i, j) of A sends `A(i, j) ⊗ u(i)` to
// w(j): values are folded with `atomic_fold` (outputs start at the monoid's
// identity, floating point folded by compare-and-swap at the empty mark of
// semiring.cuh), presence bits with atomicOr.
//
// The mask is read as it is stored: `mask_mode` 0 = none, 1 = allowed where
// the mask bit is set, 2 = allowed where it is clear (a complemented
// structural mask, the visited set of BFS), so no mask vector is built.
#include "common.cuh"
#include "tiles.cuh"
#include "semiring.cuh"

#define MASK_NONE 0
#define MASK_SET 1
#define MASK_CLEAR 2

// CSR rows longer than this are left by their warp to the whole block.
#define HUB_LEN 1024
// Room for such rows per block (more are pushed by the warp that found them).
#define HUB_CAP 64

__device__ __forceinline__ bool allowed_at(const u32* __restrict__ mask, int mode, u64 j) {
  return mode == MASK_NONE || (bit_get(mask, j) == (mode == MASK_SET));
}

// The K mask bits of columns base..base+K (base % K == 0).
template <int K> __device__ __forceinline__ u32 allowed_chunk(const u32* __restrict__ mask, int mode, u64 base) {
  if (mode == MASK_NONE) return row_mask<K>();
  const u32 c = bits_chunk<K>(mask, base);
  return mode == MASK_SET ? c : (~c & row_mask<K>());
}

// Entries of u in rows 32q..32q+32 (every row below n when u has no presence bits).
__device__ __forceinline__ u32 in_word(const u32* __restrict__ u_pres, u64 q, u64 n) {
  if (u_pres) return u_pres[q];
  const u64 lo = q * 32;
  if (lo >= n) return 0;
  return n - lo >= 32 ? FULL_MASK : ((1u << (n - lo)) - 1u);
}

// Sets presence bit j (read first: in a BFS most targets are hit many times).
__device__ __forceinline__ void set_bit(u32* out_pres, u64 j) {
  const u32 b = 1u << (j & 31);
  if (!(out_pres[j >> 5] & b)) atomicOr(&out_pres[j >> 5], b);
}

// ---- CSR ---------------------------------------------------------------------------

// Entries p, p + stride, .. < end of one row of A, with x = u(i); `avals`
// NULL: every entry holds `iso`.
__device__ __forceinline__ void csr_push_entries(u32 p, u32 end, u32 stride, T x, const u32* __restrict__ colidx,
                                                 const T* __restrict__ avals, T iso, const u32* __restrict__ mask,
                                                 int mode, T* __restrict__ out_vals, u32* __restrict__ out_pres) {
  for (; p < end; p += stride) {
    const u32 j = colidx[p];
    if (!allowed_at(mask, mode, j)) continue;
    if (out_vals) atomic_fold(&out_vals[j], SR::mul(avals ? avals[p] : iso, x));
    set_bit(out_pres, j);
  }
}

// A warp per nonzero input word; for each of its rows the lanes stride the
// row's entries. Rows longer than HUB_LEN are queued in shared memory and
// pushed by the whole block at the end (load balance for hub vertices).
extern "C" __global__ void CAT(csr_push_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                   const T* __restrict__ avals, u64 isobits, u64 nrows,
                                                   const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                   const u32* __restrict__ mask, int mode, T* __restrict__ out_vals,
                                                   u32* __restrict__ out_pres) {
  const T iso = Sc<T>::from_bits(isobits);
  __shared__ u32 hub[HUB_CAP];
  __shared__ u32 nhub;
  if (threadIdx.x == 0) nhub = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const u64 nwords = (nrows + 31) / 32;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 q = warp; q < nwords; q += nwarps) {
    u32 word = in_word(u_pres, q, nrows);
    while (word) {
      const int b = __ffs(word) - 1;
      word &= word - 1;
      const u64 i = q * 32 + b;
      const u32 p0 = rowptr[i], p1 = rowptr[i + 1];
      if (p1 - p0 > HUB_LEN) {
        u32 slot = 0;
        if (lane == 0) slot = atomicAdd(&nhub, 1u);
        slot = __shfl_sync(FULL_MASK, slot, 0);
        if (slot < HUB_CAP) {
          if (lane == 0) hub[slot] = (u32)i;
          continue;
        }
      }
      const T x = u_vals ? u_vals[i] : Sc<T>::one();
      csr_push_entries(p0 + lane, p1, 32, x, colidx, avals, iso, mask, mode, out_vals, out_pres);
    }
  }
  __syncthreads();
  const u32 nh = min(nhub, (u32)HUB_CAP);
  for (u32 h = 0; h < nh; ++h) {
    const u32 i = hub[h];
    const T x = u_vals ? u_vals[i] : Sc<T>::one();
    csr_push_entries(rowptr[i] + threadIdx.x, rowptr[i + 1], blockDim.x, x, colidx, avals, iso, mask, mode,
                     out_vals, out_pres);
  }
}

// ---- B2SR --------------------------------------------------------------------------

// Tiles per step of a bits push (loads in flight at once per thread).
#define PUSH_BATCH 4

// Tiles t0..t1 of tile row tr, whose input rows are the bits of fb: bits
// outputs OR the selected tile rows into one word per tile; valued outputs
// fold `v ⊗ u(i)` into every column of row i.
template <int K>
__device__ __forceinline__ void b2sr_push_tiles(u32 tr, u32 fb, u32 t0, u32 t1, const u32* __restrict__ colidx,
                                                const u8* __restrict__ tiles, T v, const T* __restrict__ u_vals,
                                                const u32* __restrict__ mask, int mode, T* __restrict__ out_vals,
                                                u32* __restrict__ out_pres) {
  if (out_vals == 0) {
    // Bits: PUSH_BATCH tiles per step, each step's loads (columns, mask
    // chunks, tile rows) all issued before any is used.
    for (u32 tb = t0; tb < t1; tb += PUSH_BATCH) {
      u64 base[PUSH_BATCH];
      u32 allow[PUSH_BATCH], w[PUSH_BATCH];
#pragma unroll
      for (int q = 0; q < PUSH_BATCH; ++q) base[q] = tb + q < t1 ? (u64)colidx[tb + q] * K : 0;
#pragma unroll
      for (int q = 0; q < PUSH_BATCH; ++q) {
        allow[q] = tb + q < t1 ? allowed_chunk<K>(mask, mode, base[q]) : 0u;
        w[q] = 0;
      }
      for (u32 f = fb; f; f &= f - 1) {
        const int r = __ffs(f) - 1;
        u32 x[PUSH_BATCH];
#pragma unroll
        for (int q = 0; q < PUSH_BATCH; ++q) x[q] = tb + q < t1 ? tile_row<K>(tiles, tb + q, r) : 0u;
#pragma unroll
        for (int q = 0; q < PUSH_BATCH; ++q) w[q] |= x[q];
      }
#pragma unroll
      for (int q = 0; q < PUSH_BATCH; ++q) {
        const u32 m = w[q] & allow[q];
        if (m) {
          const u32 sh = K == 32 ? m : (m << (base[q] & 31));
          if ((out_pres[base[q] >> 5] & sh) != sh) atomicOr(&out_pres[base[q] >> 5], sh);
        }
      }
    }
    return;
  }
  for (u32 t = t0; t < t1; ++t) {
    const u64 base = (u64)colidx[t] * K;
    const u32 allow = allowed_chunk<K>(mask, mode, base);
    if (allow == 0) continue;
    for (u32 f = fb; f; f &= f - 1) {
      const int r = __ffs(f) - 1;
      const T x = SR::mul(v, u_vals ? u_vals[(u64)tr * K + r] : Sc<T>::one());
      for (u32 w = tile_row<K>(tiles, t, r) & allow; w; w &= w - 1) {
        const u64 j = base + (__ffs(w) - 1);
        atomic_fold(&out_vals[j], x);
        set_bit(out_pres, j);
      }
    }
  }
}

// The K input bits of tile row tr.
template <int K> __device__ __forceinline__ u32 tile_row_bits(const u32* __restrict__ u_pres, u64 tr, u64 nrows) {
  const u64 base = tr * K;
  return (in_word(u_pres, base >> 5, nrows) >> (base & 31)) & row_mask<K>();
}

// A thread per input word (32 / K tile rows); tile rows longer than
// short_max tiles are left to b2sr_push_seg.
template <int K>
__device__ __forceinline__ void b2sr_push_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                               const u8* __restrict__ tiles, u64 nrows, u32 tile_rows,
                                               u32 short_max, u64 vbits, const T* __restrict__ u_vals,
                                               const u32* __restrict__ u_pres, const u32* __restrict__ mask,
                                               int mode, T* __restrict__ out_vals, u32* __restrict__ out_pres) {
  const T v = Sc<T>::from_bits(vbits);
  const u64 nwords = (nrows + 31) / 32;
  for (u64 q = gtid(); q < nwords; q += gthreads()) {
    const u32 word = in_word(u_pres, q, nrows);
    if (word == 0) continue;
#pragma unroll
    for (int g = 0; g < 32 / K; ++g) {
      const u32 fb = (word >> (g * K)) & row_mask<K>();
      const u64 tr = q * (32 / K) + g;
      if (fb == 0 || tr >= tile_rows) continue;
      const u32 t0 = rowptr[tr], t1 = rowptr[tr + 1];
      if (t1 - t0 > short_max) continue;
      b2sr_push_tiles<K>((u32)tr, fb, t0, t1, colidx, tiles, v, u_vals, mask, mode, out_vals, out_pres);
    }
  }
}

// A thread per load-balance segment of the long tile rows (src/backend/cuda/mem.rs).
template <int K>
__device__ __forceinline__ void b2sr_push_seg_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                   const u8* __restrict__ tiles, const u32* __restrict__ seg_row,
                                                   const u32* __restrict__ seg_off, u32 nseg, u32 seg_len,
                                                   u64 nrows, u64 vbits, const T* __restrict__ u_vals,
                                                   const u32* __restrict__ u_pres, const u32* __restrict__ mask,
                                                   int mode, T* __restrict__ out_vals, u32* __restrict__ out_pres) {
  const T v = Sc<T>::from_bits(vbits);
  for (u64 s = gtid(); s < nseg; s += gthreads()) {
    const u32 tr = seg_row[s];
    const u32 fb = tile_row_bits<K>(u_pres, tr, nrows);
    if (fb == 0) continue;
    const u32 t0 = rowptr[tr] + (u32)(s - seg_off[tr]) * seg_len;
    const u32 t1 = min(t0 + seg_len, rowptr[tr + 1]);
    b2sr_push_tiles<K>(tr, fb, t0, t1, colidx, tiles, v, u_vals, mask, mode, out_vals, out_pres);
  }
}

#define PUSH_KERNELS(K)                                                                                     \
  extern "C" __global__ void CAT(CAT(b2sr_push_k, K), CAT(_, SR_NAME))(                                     \
      const u32* rowptr, const u32* colidx, const u8* tiles, u64 nrows, u32 tile_rows, u32 short_max,        \
      u64 vbits, const T* u_vals, const u32* u_pres, const u32* mask, int mode, T* out_vals, u32* out_pres) { \
    b2sr_push_body<K>(rowptr, colidx, tiles, nrows, tile_rows, short_max, vbits, u_vals, u_pres, mask, mode, \
                      out_vals, out_pres);                                                                  \
  }                                                                                                         \
  extern "C" __global__ void CAT(CAT(b2sr_push_seg_k, K), CAT(_, SR_NAME))(                                 \
      const u32* rowptr, const u32* colidx, const u8* tiles, const u32* seg_row, const u32* seg_off,         \
      u32 nseg, u32 seg_len, u64 nrows, u64 vbits, const T* u_vals, const u32* u_pres, const u32* mask,      \
      int mode, T* out_vals, u32* out_pres) {                                                               \
    b2sr_push_seg_body<K>(rowptr, colidx, tiles, seg_row, seg_off, nseg, seg_len, nrows, vbits, u_vals,     \
                          u_pres, mask, mode, out_vals, out_pres);                                          \
  }

PUSH_KERNELS(4)
PUSH_KERNELS(8)
PUSH_KERNELS(16)
PUSH_KERNELS(32)
