// cuda/b2sr_mxv_fused.cu: `w = A ⊕.⊗ u` on B2SR for K = 4 and 8, the whole
// product in one launch (`b2sr_mxv_fused_k*`), whole tiles per lane. Part of
// the semiring modules `sr_<semiring>_<type>` (cuda/sr.cu: compiled with
// -DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME; entries end in `_<SR_NAME>`).
#include "semiring.cuh"
#include "columns.cuh"

// The K input values u[base .. base + K) into x (missing ones: zero), with
// 128-bit (or 32/64-bit) loads where the row of values is whole and aligned.
template <int K>
__device__ __forceinline__ void load_x(const T* __restrict__ u, u64 base, u64 ulen, bool aligned, T (&x)[K]) {
  constexpr int BYTES = K * (int)sizeof(T);
  if (aligned && base + K <= ulen) {
    if constexpr (BYTES % 16 == 0) {
      union { uint4 q[BYTES / 16]; T v[K]; } c;
#pragma unroll
      for (int q = 0; q < BYTES / 16; ++q) c.q[q] = __ldg((const uint4*)(u + base) + q);
#pragma unroll
      for (int j = 0; j < K; ++j) x[j] = c.v[j];
      return;
    } else if constexpr (BYTES == 8) {
      union { uint2 q; T v[K]; } c;
      c.q = __ldg((const uint2*)(u + base));
#pragma unroll
      for (int j = 0; j < K; ++j) x[j] = c.v[j];
      return;
    } else if constexpr (BYTES == 4) {
      union { u32 q; T v[K]; } c;
      c.q = __ldg((const u32*)(u + base));
#pragma unroll
      for (int j = 0; j < K; ++j) x[j] = c.v[j];
      return;
    }
  }
  {
#pragma unroll
    for (int j = 0; j < K; ++j) x[j] = base + j < ulen ? u[base + j] : SR::zero();
  }
}

// ---- the fused product ------------------------------------------------------
//
// A lane holds the K row accumulators of one tile row (`Rows`) and takes whole
// tiles: the tile (u16 or u64), the K input values of its tile column in one
// vector load, then each row folded in column order (the CPU's order inside a
// tile). `b2sr_mxv_fused` does a whole product in one launch, over two kinds
// of warp items, segments first (they are the longer ones):
//  - item s < nseg: segment s of a long tile row (more than `short_max`
//    tiles), a lane per tile; a row of one segment is written directly, a
//    split row leaves its partial in `part_*`, and the last segment of the
//    row to finish (a counter per tile row, reset by that warp) folds the
//    partials in a fixed order and writes the row, so results do not depend
//    on scheduling;
//  - the rest: 32/L short tile rows per warp, L lanes per tile row (L = 1 <<
//    llog, from the host: more lanes per row where there are few tile rows).
// Presence words need no memset: every bit has one writer (the tile row
// holding it; the last tile row also owns the bits past the end of its word);
// a writer owning a whole word stores it, others set their own bits with
// atomicAnd/atomicOr. With `accum >= 0` the output is a full vector (no
// presence, `out_pres` unused) and each row with a value in the product
// becomes `accum(out, value)` in place. With `affine` (the affine product
// `w = c ⊕ A ⊕.⊗ (d ⊗ u)` of ops::mxv_affine) the output is full too and
// every row is written once, `c ⊕ value` (`c` where the row has no value),
// without reading it; with `d_vals`, the input values are `d_j ⊗ u_j`
// (PageRank's `x' = c + A' (x ⊙ s)` in one pass).

template <int K> struct Rows {
  T acc[K];
  u32 has;  // bit r: acc[r] holds a value
};

template <int K> __device__ __forceinline__ void rows_init(Rows<K>& a) {
#pragma unroll
  for (int r = 0; r < K; ++r) a.acc[r] = SR::zero();
  a.has = 0;
}

// acc[r] ⊕= x where row r has no value yet takes x as it is.
template <int K> __device__ __forceinline__ void rows_fold(Rows<K>& a, int r, T x) {
  a.acc[r] = ((a.has >> r) & 1u) ? SR::add(a.acc[r], x) : x;
  a.has |= 1u << r;
}

// The rows of tile row `tr` that may produce output: inside the matrix and allowed.
template <int K>
__device__ __forceinline__ u32 rows_ok(u64 tr, u64 nrows, const u32* __restrict__ allowed) {
  const u64 i0 = tr * K;
  const u32 rm = (1u << K) - 1u;
  u32 ok = i0 + K <= nrows ? rm : (i0 < nrows ? (1u << (nrows - i0)) - 1u : 0u);
  if (allowed) ok &= bits_chunk<K>(allowed, i0);
  return ok;
}

// Rows whose value can no longer change (LOR once true, ANY once set).
template <int K> __device__ __forceinline__ u32 rows_saturated(const Rows<K>& a) {
  if constexpr (SR_ADD == OP_ANY) {
    return a.has;
  } else if constexpr (SR_ADD == OP_LOR) {
    u32 s = 0;
#pragma unroll
    for (int r = 0; r < K; ++r) s |= (u32)Sc<T>::nz(a.acc[r]) << r;
    return s & a.has;
  } else {
    return 0;
  }
}
// Whether `rows_saturated` can be nonzero for this semiring.
#define SR_SATURATES (SR_ADD == OP_ANY || SR_ADD == OP_LOR)

// The operands of a product, as the kernel gets them.
struct MxvIn {
  Cols cols;
  const u8* __restrict__ tiles;
  const T* __restrict__ u_vals;
  const T* __restrict__ d_vals;  // diagonal scaling of u (NULL: none)
  const u32* __restrict__ u_pres;
  u64 ulen;
  T v;
  bool x_aligned;  // u_vals (and d_vals) 16-byte aligned
};

// Folds tile t of the tile row `rc` describes into the rows `ok` of a.
template <int K, bool NARROW>
__device__ __forceinline__ void rows_tile(Rows<K>& a, const MxvIn& in, RowCols rc, u32 t, u32 ok) {
  const u32 RM = (1u << K) - 1u;
  const u64 base = (u64)tile_col<NARROW>(in.cols, rc, t) * K;
  const u64 tile = K == 4 ? (u64)((const u16*)in.tiles)[t] : ((const u64*)in.tiles)[t];
  const u32 ucols = in.u_pres ? bits_chunk<K>(in.u_pres, base) : RM;
  if (in.u_vals != 0 && !SR::y_free) {
    T x[K];
    load_x<K>(in.u_vals, base, in.ulen, in.x_aligned, x);
    if (in.d_vals) {
      T dx[K];
      load_x<K>(in.d_vals, base, in.ulen, in.x_aligned, dx);
#pragma unroll
      for (int c = 0; c < K; ++c) x[c] = SR::mul(dx[c], x[c]);
    }
#pragma unroll
    for (int c = 0; c < K; ++c) x[c] = SR::mul(in.v, x[c]);
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const u32 w = (u32)(tile >> (K * r)) & ucols & (((ok >> r) & 1u) ? RM : 0u);
      if constexpr (SR_ADD == OP_PLUS) {
        // branch-free: adding the identity (0) changes nothing (bar the sign
        // of a zero sum)
        a.has |= (u32)(w != 0u) << r;
#pragma unroll
        for (int c = 0; c < K; ++c) a.acc[r] = SR::add(a.acc[r], ((w >> c) & 1u) ? x[c] : SR::zero());
      } else {
#pragma unroll
        for (int c = 0; c < K; ++c)
          if ((w >> c) & 1u) rows_fold(a, r, x[c]);
      }
    }
  } else {
    const T one = SR::mul(in.v, Sc<T>::one());
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const u32 w = (u32)(tile >> (K * r)) & ucols & (((ok >> r) & 1u) ? RM : 0u);
      if (w) rows_fold(a, r, SR::repeat(one, __popc(w)));
    }
  }
}

// Folds the Rows of lanes `lane ^ off` (off = 1, 2, .. < width) into every
// lane: a fixed tree, the same on every run. Every lane of the warp calls it.
template <int K> __device__ __forceinline__ void rows_reduce(Rows<K>& a, int width) {
  for (int off = 1; off < width; off <<= 1) {
    const u32 oh = __shfl_xor_sync(FULL_MASK, a.has, off);
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const T o = shfl_xor(a.acc[r], off);
      if ((oh >> r) & 1u) rows_fold(a, r, o);
    }
  }
}

// Writes the values of tile row rows i0 .. i0 + K (missing ones: zero).
template <int K>
__device__ __forceinline__ void rows_store(Rows<K>& a, T* __restrict__ out_vals, u64 i0, u64 nrows) {
#pragma unroll
  for (int r = 0; r < K; ++r) a.acc[r] = ((a.has >> r) & 1u) ? a.acc[r] : SR::zero();
  constexpr int BYTES = K * (int)sizeof(T);
  if constexpr (BYTES % 16 == 0) {
    if ((((u64)(out_vals + i0)) & 15) == 0 && i0 + K <= nrows) {
      union { uint4 q[BYTES / 16]; T v[K]; } c;
#pragma unroll
      for (int r = 0; r < K; ++r) c.v[r] = a.acc[r];
#pragma unroll
      for (int q = 0; q < BYTES / 16; ++q) ((uint4*)(out_vals + i0))[q] = c.q[q];
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < K; ++r)
    if (i0 + r < nrows) out_vals[i0 + r] = a.acc[r];
}

// Folds the values of tile row rows i0 .. i0 + K that have one into a full
// output in place: out = accum(out, value) (the accumulated product).
template <int K>
__device__ __forceinline__ void rows_accum(const Rows<K>& a, T* __restrict__ out_vals, u64 i0, u64 nrows,
                                           int accum) {
  if (a.has == 0) return;
  constexpr int BYTES = K * (int)sizeof(T);
  if constexpr (BYTES % 16 == 0) {
    if ((((u64)(out_vals + i0)) & 15) == 0 && i0 + K <= nrows) {
      union { uint4 q[BYTES / 16]; T v[K]; } c;
#pragma unroll
      for (int q = 0; q < BYTES / 16; ++q) c.q[q] = ((const uint4*)(out_vals + i0))[q];
#pragma unroll
      for (int r = 0; r < K; ++r)
        if ((a.has >> r) & 1u) c.v[r] = binop<T>(accum, c.v[r], a.acc[r]);
#pragma unroll
      for (int q = 0; q < BYTES / 16; ++q) ((uint4*)(out_vals + i0))[q] = c.q[q];
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < K; ++r)
    if (i0 + r < nrows && ((a.has >> r) & 1u)) out_vals[i0 + r] = binop<T>(accum, out_vals[i0 + r], a.acc[r]);
}

// Writes every row of tile row rows i0 .. i0 + K as `c ⊕ value` (`c` where
// the row has no value): the affine product's output.
template <int K>
__device__ __forceinline__ void rows_affine(Rows<K>& a, T* __restrict__ out_vals, u64 i0, u64 nrows, T c) {
#pragma unroll
  for (int r = 0; r < K; ++r) a.acc[r] = ((a.has >> r) & 1u) ? SR::add(c, a.acc[r]) : c;
  a.has = (1u << K) - 1u;
  rows_store(a, out_vals, i0, nrows);
}

// A full output (no presence): folded in place with `accum`, or the affine
// product's `c ⊕ value` on every row.
template <int K>
__device__ __forceinline__ void rows_full(Rows<K>& a, T* __restrict__ out_vals, u64 i0, u64 nrows, int accum,
                                          bool affine, T c) {
  if (affine) rows_affine(a, out_vals, i0, nrows, c);
  else rows_accum(a, out_vals, i0, nrows, accum);
}

// The presence bits tile row `tr` writes, in its word: its K rows, and for
// the last tile row every bit up to the end of the word.
template <int K> __device__ __forceinline__ u32 own_bits(u64 tr, u64 tile_rows) {
  const u32 sh = (u32)((tr * K) & 31);
  return tr + 1 == tile_rows ? FULL_MASK << sh : ((1u << K) - 1u) << sh;
}

// Sets the bits `own` of a presence word to `bits` (bits within own); other
// writers' bits untouched.
__device__ __forceinline__ void pres_set(u32* p, u32 bits, u32 own) {
  if (bits != own) atomicAnd(p, bits | ~own);
  if (bits) atomicOr(p, bits);
}

template <int K, bool NARROW>
__device__ __forceinline__ void mxv_fused_body(const u32* __restrict__ rowptr, const Cols cols,
                                               const u8* __restrict__ tiles, const u32* __restrict__ seg_row,
                                               const u32* __restrict__ seg_off, u32 nseg, u32 seg_len,
                                               u32 tile_rows, u32 short_max, u32 llog, u64 nrows, u64 ulen,
                                               u64 vbits, const T* __restrict__ u_vals,
                                               const u32* __restrict__ u_pres, const u32* __restrict__ allowed,
                                               T* __restrict__ out_vals, u32* __restrict__ out_pres,
                                               T* part_vals, u32* part_has, u32* counter, int accum,
                                               const T* __restrict__ d_vals, int affine, u64 cbits) {
  const int lane = threadIdx.x & 31;
  const bool aligned = ((((u64)u_vals) | ((u64)d_vals)) & 15) == 0;
  const MxvIn in{cols, tiles, u_vals, d_vals, u_pres, ulen, Sc<T>::from_bits(vbits), aligned};
  const T c = Sc<T>::from_bits(cbits);
  // a full output: no presence words
  const bool full = accum >= 0 || affine;
  const u64 nwords = bit_words(nrows);
  if (!full && gtid() == 0 && nwords > (nrows + 31) / 32) out_pres[nwords - 1] = 0;
  // L lanes per short tile row, G = 32 / L rows per warp: powers of two, so
  // shifts and masks (no run-time integer division)
  const int glog = 5 - (int)llog, L = 1 << llog, G = 1 << glog, l = lane & (L - 1);
  const u64 nshort = ((u64)tile_rows + G - 1) >> glog;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 item = warp; item < nseg + nshort; item += nwarps) {
    Rows<K> a;
    rows_init(a);
    if (item < nseg) {
      // segment `item` of a long tile row: a lane per tile
      const u32 s = (u32)item, tr = seg_row[s];
      const u32 first = seg_off[tr], nsegs = seg_off[tr + 1] - first;
      const u32 t0 = rowptr[tr] + (s - first) * seg_len, t1 = min(t0 + seg_len, rowptr[tr + 1]);
      const u32 ok = rows_ok<K>(tr, nrows, allowed);
      if (ok) {
        const RowCols rc = row_cols<NARROW>(cols, tr, rowptr[tr]);
        for (u32 tb = t0; tb < t1; tb += 32) {
          if (tb + lane < t1) rows_tile<K, NARROW>(a, in, rc, tb + lane, ok);
          if constexpr (SR_SATURATES) {
            u32 sat = rows_saturated(a);
#pragma unroll
            for (int off = 1; off < 32; off <<= 1) sat |= __shfl_xor_sync(FULL_MASK, sat, off);
            if ((sat & ok) == ok) break;
          }
        }
      }
      rows_reduce(a, 32);
      const u64 i0 = (u64)tr * K;
      bool write = nsegs == 1;
      if (!write) {
        u32 prev = 0;
        if (lane == 0) {
#pragma unroll
          for (int r = 0; r < K; ++r) part_vals[(u64)s * K + r] = a.acc[r];
          part_has[s] = a.has;
          __threadfence();
          prev = atomicAdd(&counter[tr], 1u);
        }
        write = __shfl_sync(FULL_MASK, prev, 0) == nsegs - 1;
        if (write) {
          // the last segment to finish: fold every partial (lane q takes
          // segments q, q + 32, .. in order, then the fixed tree)
          __threadfence();
          rows_init(a);
          for (u32 q = first + lane; q < first + nsegs; q += 32) {
            const u32 h = ((volatile u32*)part_has)[q];
#pragma unroll
            for (int r = 0; r < K; ++r)
              if ((h >> r) & 1u) rows_fold(a, r, ((volatile T*)part_vals)[(u64)q * K + r]);
          }
          rows_reduce(a, 32);
          if (lane == 0) counter[tr] = 0;
        }
      }
      if (write && lane == 0) {
        if (full) {
          rows_full(a, out_vals, i0, nrows, accum, affine, c);
        } else {
          if (out_vals) rows_store(a, out_vals, i0, nrows);
          pres_set(&out_pres[i0 >> 5], a.has << (i0 & 31), own_bits<K>(tr, tile_rows));
        }
      }
    } else {
      // G short tile rows, L lanes each
      const u64 tr = ((item - nseg) << glog) + (lane >> llog);
      u32 t0 = 0, t1 = 0;
      if (tr < tile_rows) { t0 = rowptr[tr]; t1 = rowptr[tr + 1]; }
      const bool mine = tr < tile_rows && t1 - t0 <= short_max;
      const u32 ok = mine ? rows_ok<K>(tr, nrows, allowed) : 0u;
      if (ok) {
        const RowCols rc = row_cols<NARROW>(cols, tr, t0);
        for (u32 t = t0 + l; t < t1; t += L) {
          rows_tile<K, NARROW>(a, in, rc, t, ok);
          if constexpr (SR_SATURATES) {
            if ((rows_saturated(a) & ok) == ok) break;
          }
        }
      }
      rows_reduce(a, L);
      const u64 i0 = tr * K;
      if (full) {
        if (mine && l == 0 && i0 < nrows) rows_full(a, out_vals, i0, nrows, accum, affine, c);
        continue;
      }
      if (out_vals && mine && l == 0 && i0 < nrows) rows_store(a, out_vals, i0, nrows);
      // presence: OR the words of the groups sharing one, then one writer each
      u32 bits = mine && l == 0 ? a.has << (i0 & 31) : 0u;
      u32 own = mine && l == 0 ? own_bits<K>(tr, tile_rows) : 0u;
      const int span = min(32, L * (32 / K));  // lanes whose rows share a word
      for (int off = L; off < span; off <<= 1) {
        bits |= __shfl_xor_sync(FULL_MASK, bits, off);
        own |= __shfl_xor_sync(FULL_MASK, own, off);
      }
      if ((lane & (span - 1)) == 0 && tr < tile_rows) {
        u32* p = &out_pres[i0 >> 5];
        if (own == FULL_MASK) *p = bits; else if (own) pres_set(p, bits, own);
      }
    }
  }
}

// mxv for K <= 8: one fused launch, `b2sr_mxv_fused_k*` on 32-bit tile
// columns (`colidx`), `b2sr_mxv_fused_c16_k*` on the 16-bit form (`cbase`,
// `coffset`, `cescaped`); both take every array (the other form's NULL).
#define SR_FUSED_KERNEL(NAME, K, NARROW)                                                                   \
  extern "C" __global__ void CAT(CAT(NAME, K), CAT(_, SR_NAME))(                                           \
      const u32* rowptr, const u32* colidx, const u8* tiles, const u32* cbase, const u16* coffset,         \
      const u32* cescaped, const u32* seg_row, const u32* seg_off, u32 nseg, u32 seg_len, u32 tile_rows,   \
      u32 short_max, u32 llog, u64 nrows, u64 ulen, u64 vbits, const T* u_vals, const u32* u_pres,         \
      const u32* allowed, T* out_vals, u32* out_pres, T* part_vals, u32* part_has, u32* counter, int accum, \
      const T* d_vals, int affine, u64 cbits) {                                                            \
    mxv_fused_body<K, NARROW>(rowptr, Cols{colidx, cbase, coffset, cescaped}, tiles, seg_row, seg_off,     \
                              nseg, seg_len, tile_rows, short_max, llog, nrows, ulen, vbits, u_vals,       \
                              u_pres, allowed, out_vals, out_pres, part_vals, part_has, counter, accum,    \
                              d_vals, affine, cbits);                                                      \
  }
#define SR_NARROW_KERNELS(K)                  \
  SR_FUSED_KERNEL(b2sr_mxv_fused_k, K, false) \
  SR_FUSED_KERNEL(b2sr_mxv_fused_c16_k, K, true)

SR_NARROW_KERNELS(4)
SR_NARROW_KERNELS(8)
