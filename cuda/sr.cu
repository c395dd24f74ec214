// cuda/sr.cu: semiring kernels on B2SR (and CSR) matrices.
//
// Compiled once per built-in semiring and element type, with
//   -DSR_T=<type> -DSR_ADD=<op code> -DSR_MUL=<op code> -DSR_NAME=<suffix>
// (src/backend/cuda/kernels.rs lists the instances). Every entry point ends
// in `_<SR_NAME>`, for example `b2sr_mxv_k8_plus_times_f32`.
//
// Paper schemes (Bit-GraphBLAS, IPDPS'22): with `u_vals == NULL` the input is a
// packed bit vector (bin_bin_*), otherwise full values (bin_full_full); with
// `out_vals == NULL` the output is packed bits only (bin_bin_bin).
//
// Load balance. Tile rows of more than `short_max` tiles are long: cut into
// segments of `seg_len` tiles (src/backend/cuda/mem.rs builds the list on the
// device), a warp per segment. For K <= 8 a whole product is one launch,
// `b2sr_mxv_fused_k*` (see "mxv for K <= 8" below: whole tiles per lane,
// several lanes per short tile row on small graphs). For K >= 16,
// `b2sr_mxv_short` takes the short rows (a group of K lanes per tile row, a
// warp covering 32/K, writing every output value and presence word),
// `b2sr_mxv` the segments (lanes split as (tile group g, bit row r)), and
// `b2sr_mxv_fix_k*` folds the partials of split rows in segment order. Either
// way results do not depend on scheduling, and a product needs no memset.
#include "common.cuh"

#include "semiring.cuh"

// ---- mxv (pull): w = A ⊕.⊗ u --------------------------------------------------

template <int K>
__device__ __forceinline__ void mxv_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                         const u8* __restrict__ tiles, const u32* __restrict__ seg_row,
                                         const u32* __restrict__ seg_off, u32 nseg, u32 seg_len, u64 nrows,
                                         u64 vbits, const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                         const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                         u32* __restrict__ out_pres, T* __restrict__ part_vals,
                                         u8* __restrict__ part_has) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const T v = Sc<T>::from_bits(vbits);
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 s = warp; s < nseg; s += nwarps) {
    const u32 tr = seg_row[s];
    const u32 first = seg_off[tr], nsegs = seg_off[tr + 1] - first;
    const u32 rb = rowptr[tr], re = rowptr[tr + 1];
    const u32 t0 = rb + (u32)(s - first) * seg_len;
    const u32 t1 = min(t0 + seg_len, re);
    const u64 i = (u64)tr * K + r;
    const bool row_ok = i < nrows && (allowed == 0 || bit_get(allowed, i));
    T acc = SR::zero();
    bool has = false;
    if (__any_sync(FULL_MASK, row_ok)) {
      for (u32 t = t0 + g; t < t1; t += G) {
        const u64 base = (u64)colidx[t] * K;
        u32 w = row_ok ? tile_row<K>(tiles, t, r) : 0u;
        if (u_pres) w &= bits_chunk<K>(u_pres, base);
        if (w == 0) continue;
        if (u_vals == 0 || SR::y_free) {
          const T c = SR::mul(v, Sc<T>::one());
          fold(acc, has, repeat_op<T>(SR_ADD, c, __popc(w)));
        } else {
          while (w) {
            const int c = __ffs(w) - 1;
            w &= w - 1;
            fold(acc, has, SR::mul(v, u_vals[base + c]));
          }
        }
      }
    }
#pragma unroll
    for (int off = K; off < 32; off <<= 1) {
      const T oa = shfl_xor(acc, off);
      const bool oh = shfl_xor(has, off);
      if (oh) fold(acc, has, oa);
    }
    if (g == 0 && i < nrows) {
      if (nsegs == 1) {
        if (out_vals) out_vals[i] = has ? acc : SR::zero();
        if (has) atomicOr(&out_pres[i >> 5], 1u << (i & 31));
      } else {
        part_vals[s * K + r] = acc;
        part_has[s * K + r] = has;
      }
    }
  }
}

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

// ---- mxv for K <= 8: one launch, whole tiles per lane ----------------------------
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
  const u32* __restrict__ colidx;
  const u8* __restrict__ tiles;
  const T* __restrict__ u_vals;
  const T* __restrict__ d_vals;  // diagonal scaling of u (NULL: none)
  const u32* __restrict__ u_pres;
  u64 ulen;
  T v;
  bool x_aligned;  // u_vals (and d_vals) 16-byte aligned
};

// Folds tile t into the rows `ok` of a.
template <int K> __device__ __forceinline__ void rows_tile(Rows<K>& a, const MxvIn& in, u32 t, u32 ok) {
  const u32 RM = (1u << K) - 1u;
  const u64 base = (u64)in.colidx[t] * K;
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
      if (w) rows_fold(a, r, repeat_op<T>(SR_ADD, one, __popc(w)));
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

template <int K>
__device__ __forceinline__ void mxv_fused_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
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
  const MxvIn in{colidx, tiles, u_vals, d_vals, u_pres, ulen, Sc<T>::from_bits(vbits), aligned};
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
        for (u32 tb = t0; tb < t1; tb += 32) {
          if (tb + lane < t1) rows_tile(a, in, tb + lane, ok);
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
        for (u32 t = t0 + l; t < t1; t += L) {
          rows_tile(a, in, t, ok);
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

// Short tile rows (at most `short_max` tiles), K >= 16: a group of K lanes per
// tile row, so a warp covers G = 32/K consecutive tile rows = 32 consecutive
// rows and writes one whole presence word. Long rows are left to `mxv_body`
// (their presence bits are ORed in after this kernel).
template <int K>
__device__ __forceinline__ void mxv_short_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                               const u8* __restrict__ tiles, u32 tile_rows, u32 short_max,
                                               u64 nrows, u64 ulen, u64 vbits, const T* __restrict__ u_vals,
                                               const u32* __restrict__ u_pres, const u32* __restrict__ allowed,
                                               T* __restrict__ out_vals, u32* __restrict__ out_pres) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const T v = Sc<T>::from_bits(vbits);
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u64 nwords = bit_words(nrows);
  if (gtid() == 0 && nwords > (nrows + 31) / 32) out_pres[nwords - 1] = 0;
  for (u64 base_tr = warp * G; base_tr < tile_rows; base_tr += nwarps * G) {
    const u64 tr = base_tr + g;
    const u64 i = tr * K + r;
    u32 t0 = 0, t1 = 0;
    if (tr < tile_rows) { t0 = rowptr[tr]; t1 = rowptr[tr + 1]; }
    const bool is_long = t1 - t0 > short_max;
    const bool row_ok = tr < tile_rows && i < nrows && !is_long && (allowed == 0 || bit_get(allowed, i));
    T acc = SR::zero();
    bool has = false;
    if (row_ok) {
      // One tile per step (measured on the H100: unrolling four tiles raised
      // registers from 32 to 40 and ran the bit schemes 10-25% slower).
      for (u32 t = t0; t < t1; ++t) {
        const u64 base = (u64)colidx[t] * K;
        u32 w = tile_row<K>(tiles, t, r);
        if (u_pres) w &= bits_chunk<K>(u_pres, base);
        if (w == 0) continue;
        if (u_vals == 0 || SR::y_free) {
          fold(acc, has, repeat_op<T>(SR_ADD, SR::mul(v, Sc<T>::one()), __popc(w)));
        } else {
          while (w) {
            const int c = __ffs(w) - 1;
            w &= w - 1;
            fold(acc, has, SR::mul(v, u_vals[base + c]));
          }
        }
      }
    }
    if (out_vals && i < nrows && !is_long) out_vals[i] = has ? acc : SR::zero();
    const u32 word = __ballot_sync(FULL_MASK, has);
    if (lane == 0 && base_tr * K < nrows) out_pres[(base_tr * K) >> 5] = word;
  }
}

// Folds the partials of split tile rows, in segment order.
template <int K>
__device__ __forceinline__ void mxv_fix_body(const u32* __restrict__ split_rows, u32 nsplit,
                                             const u32* __restrict__ seg_off, u64 nrows,
                                             const T* __restrict__ part_vals, const u8* __restrict__ part_has,
                                             T* __restrict__ out_vals, u32* __restrict__ out_pres) {
  for (u64 q = gtid(); q < (u64)nsplit * K; q += gthreads()) {
    const u32 tr = split_rows[q / K];
    const int r = q % K;
    const u64 i = (u64)tr * K + r;
    if (i >= nrows) continue;
    T acc = SR::zero();
    bool has = false;
    for (u32 s = seg_off[tr]; s < seg_off[tr + 1]; ++s)
      if (part_has[(u64)s * K + r]) fold(acc, has, part_vals[(u64)s * K + r]);
    if (out_vals) out_vals[i] = has ? acc : SR::zero();
    if (has) atomicOr(&out_pres[i >> 5], 1u << (i & 31));
  }
}

// ---- vxm (push): w = A' ⊕.⊗ u, scattered with atomics ---------------------------

template <int K>
__device__ __forceinline__ void vxm_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                         const u8* __restrict__ tiles, const u32* __restrict__ seg_row,
                                         const u32* __restrict__ seg_off, u32 nseg, u32 seg_len, u64 nrows,
                                         u64 vbits, const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                         const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                         u32* __restrict__ out_pres, int mode, u32 tile_rows,
                                         u32 short_max) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const T v = Sc<T>::from_bits(vbits);
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  // mode 0: every short tile row; mode 1: the segments of the long ones.
  const u64 count = mode == 0 ? (u64)tile_rows : (u64)nseg;
  for (u64 s = warp; s < count; s += nwarps) {
    u32 tr, t0, t1;
    if (mode == 0) {
      tr = (u32)s;
      t0 = rowptr[tr];
      t1 = rowptr[tr + 1];
      if (t1 - t0 > short_max) continue;
    } else {
      tr = seg_row[s];
      t0 = rowptr[tr] + (u32)(s - seg_off[tr]) * seg_len;
      t1 = min(t0 + seg_len, rowptr[tr + 1]);
    }
    const u64 i = (u64)tr * K + r;
    const bool in = i < nrows && (u_pres == 0 || bit_get(u_pres, i));
    if (!__any_sync(FULL_MASK, in)) continue;
    const T x = SR::mul(v, (u_vals && in) ? u_vals[i] : Sc<T>::one());
    // Round the trip count up to a multiple of G so every lane of a group
    // stays in the loop together (the shuffles below need whole groups).
    const u32 n = t1 - t0, rounds = (n + G - 1) / G;
    for (u32 q = 0; q < rounds; ++q) {
      const u32 t = t0 + q * G + g;
      const bool tv = t < t1;
      const u64 base = tv ? (u64)colidx[t] * K : 0;
      u32 w = (tv && in) ? tile_row<K>(tiles, t, r) : 0u;
      if (out_vals == 0) {
        // bin_bin_bin: OR the rows of the group, one atomic per tile.
#pragma unroll
        for (int off = 1; off < K; off <<= 1) w |= __shfl_xor_sync(FULL_MASK, w, off);
        if (r == 0 && tv) {
          if (allowed) w &= bits_chunk<K>(allowed, base);
          if (w) atomicOr(&out_pres[base >> 5], K == 32 ? w : (w << (base & 31)));
        }
        continue;
      }
      while (w) {
        const int c = __ffs(w) - 1;
        w &= w - 1;
        const u64 j = base + c;
        if (allowed && !bit_get(allowed, j)) continue;
        atomic_fold(&out_vals[j], x);
        atomicOr(&out_pres[j >> 5], 1u << (j & 31));
      }
    }
  }
}

// ---- mxv on CSR (values per entry) -------------------------------------------
//
// Rows with at most `long_min` entries: a group of V = 1 << vlog lanes per row
// (V from the average row length, chosen by the caller), a warp covering 32/V
// consecutive rows. Longer rows (the hubs of power-law graphs) are skipped
// there and cut into chunks of `long_min` consecutive entries instead
// (`csr_mxv_long`, a warp per chunk: a chunk touches at most two long rows,
// the one holding its first entry and the one holding its last, since a row
// lying wholly inside a chunk is not long). `csr_mxv_fix` folds each long
// row's chunk partials in chunk order, so results do not depend on
// scheduling. Presence starts zeroed; both kernels OR their bits in.
//
// `avals == NULL`: every entry holds the value `isobits` (an iso-valued matrix,
// such as a pattern with all-one values): the values are never read.
// `accum >= 0`: the output is a full vector (no presence), and each row with
// an entry in the product becomes `accum(out, row's sum)` in place (the
// accumulated `w += A u` of PageRank in one pass, no temporary); rows without
// one keep their value; `out_pres` is unused (NULL).

// The row holding entry p: the last i with rowptr[i] <= p.
__device__ __forceinline__ u64 csr_row_of(const u32* __restrict__ rowptr, u64 nrows, u32 p) {
  u64 lo = 0, hi = nrows;
  while (hi - lo > 1) {
    const u64 mid = (lo + hi) / 2;
    if (rowptr[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}

// acc of entries [p0, p1) of one row, the lanes of a group of `width` lanes
// (lane index `l` inside it) striding over them, reduced over the group.
__device__ __forceinline__ void csr_span(const u32* __restrict__ colidx, const T* __restrict__ avals, T iso,
                                         const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                         u32 p0, u32 p1, int l, int width, T& acc, bool& has) {
  // Two entries per lane per round: both column loads, then both gathers,
  // are in flight together (the gathers of a power-law graph's product are
  // latency-bound: measured on the H100, R-MAT 22, one entry per round).
  u32 p = p0 + l;
  for (; p + width < p1; p += 2 * width) {
    const u32 j0 = colidx[p], j1 = colidx[p + width];
    const bool h0 = !u_pres || bit_get(u_pres, j0), h1 = !u_pres || bit_get(u_pres, j1);
    const T x0 = (u_vals && h0) ? u_vals[j0] : Sc<T>::one(), x1 = (u_vals && h1) ? u_vals[j1] : Sc<T>::one();
    if (h0) fold(acc, has, SR::mul(avals ? avals[p] : iso, x0));
    if (h1) fold(acc, has, SR::mul(avals ? avals[p + width] : iso, x1));
    // ANY, and LOR once true, cannot change: the lane stops (BFS pulls).
    if (SR_ADD == OP_ANY && has) break;
    if (SR_ADD == OP_LOR && has && Sc<T>::nz(acc)) break;
  }
  if (p < p1 && !(SR_ADD == OP_ANY && has) && !(SR_ADD == OP_LOR && has && Sc<T>::nz(acc))) {
    const u32 j = colidx[p];
    if (!u_pres || bit_get(u_pres, j))
      fold(acc, has, SR::mul(avals ? avals[p] : iso, u_vals ? u_vals[j] : Sc<T>::one()));
  }
  for (int off = 1; off < width; off <<= 1) {
    const T oa = shfl_xor(acc, off);
    const bool oh = shfl_xor(has, off);
    if (oh) fold(acc, has, oa);
  }
}

// Row i's result into the output: written (presence by the caller), or
// folded into the full output with `accum`.
__device__ __forceinline__ void csr_put(T* __restrict__ out_vals, u64 i, int accum, T acc, bool has) {
  if (accum < 0) out_vals[i] = has ? acc : SR::zero();
  else if (has) out_vals[i] = binop<T>(accum, out_vals[i], acc);
}

extern "C" __global__ void CAT(csr_mxv_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                  const T* __restrict__ avals, u64 isobits, u64 nrows,
                                                  const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                  const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                  u32* __restrict__ out_pres, u32 vlog, u32 long_min, int accum) {
  const int V = 1 << vlog, G = 32 / V;
  const int lane = threadIdx.x & 31, g = lane / V, l = lane % V;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const T iso = Sc<T>::from_bits(isobits);
  for (u64 base = warp * G; base < nrows; base += nwarps * G) {
    const u64 i = base + g;
    T acc = SR::zero();
    bool has = false;
    u32 p0 = 0, p1 = 0;
    if (i < nrows) { p0 = rowptr[i]; p1 = rowptr[i + 1]; }
    const bool is_long = p1 - p0 > long_min;
    if (is_long || (allowed && i < nrows && !bit_get(allowed, i))) p1 = p0;
    csr_span(colidx, avals, iso, u_vals, u_pres, p0, p1, l, V, acc, has);
    if (l == 0 && i < nrows && !is_long) csr_put(out_vals, i, accum, acc, has);
    if (accum >= 0) continue;
    // the group leaders' presence bits, as G consecutive bits of one word
    const u32 b = __ballot_sync(FULL_MASK, l == 0 && has);
    u32 word = 0;
    for (int q = 0; q < G; ++q) word |= ((b >> (q * V)) & 1u) << q;
    if (lane == 0 && word) atomicOr(&out_pres[base >> 5], word << (base & 31));
  }
}

extern "C" __global__ void CAT(csr_mxv_long_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                       const T* __restrict__ avals, u64 isobits, u64 nrows, u32 nnz,
                                                       const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                       const u32* __restrict__ allowed, u32 long_min,
                                                       T* __restrict__ part_vals, u8* __restrict__ part_has) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u64 nchunks = ((u64)nnz + long_min - 1) / long_min;
  const T iso = Sc<T>::from_bits(isobits);
  for (u64 c = warp; c < nchunks; c += nwarps) {
    const u32 q0 = (u32)(c * long_min), q1 = (u32)min((u64)nnz, (c + 1) * long_min);
    const u64 ra = csr_row_of(rowptr, nrows, q0), rb = csr_row_of(rowptr, nrows, q1 - 1);
#pragma unroll 1
    for (int slot = 0; slot < 2; ++slot) {
      const u64 i = slot == 0 ? ra : rb;
      if (slot == 1 && rb == ra) break;
      const u32 r0 = rowptr[i], r1 = rowptr[i + 1];
      if (r1 - r0 <= long_min) continue;  // not long: the row kernel took it
      T acc = SR::zero();
      bool has = false;
      const bool ok = allowed == 0 || bit_get(allowed, i);
      csr_span(colidx, avals, iso, u_vals, u_pres, ok ? max(r0, q0) : 0, ok ? min(r1, q1) : 0, lane, 32, acc,
               has);
      if (lane == 0) {
        part_vals[2 * c + slot] = acc;
        part_has[2 * c + slot] = has;
      }
    }
  }
}

extern "C" __global__ void CAT(csr_mxv_fix_, SR_NAME)(const u32* __restrict__ rowptr, u64 nrows, u32 long_min,
                                                      const T* __restrict__ part_vals, const u8* __restrict__ part_has,
                                                      T* __restrict__ out_vals, u32* __restrict__ out_pres,
                                                      int accum) {
  for (u64 i = gtid(); i < nrows; i += gthreads()) {
    const u32 r0 = rowptr[i], r1 = rowptr[i + 1];
    if (r1 - r0 <= long_min) continue;
    T acc = SR::zero();
    bool has = false;
    const u64 c0 = r0 / long_min, c1 = (r1 - 1) / long_min;
    for (u64 c = c0; c <= c1; ++c) {
      // slot 0 where the chunk starts inside this row, else slot 1
      const u64 s = 2 * c + ((u64)r0 == c * long_min || c > c0 ? 0 : 1);
      if (part_has[s]) fold(acc, has, part_vals[s]);
    }
    csr_put(out_vals, i, accum, acc, has);
    if (accum < 0 && has) atomicOr(&out_pres[i >> 5], 1u << (i & 31));
  }
}

// ---- mxv on CSR, merge path (rows of any length, no early exit) -------------------
//
// The product as a merge of the row ends (rowptr[1 ..]) with the entries:
// nrows + nnz items cut into chunks of MERGE_D = 32 * MERGE_E items, a warp
// per chunk, lane l taking items l * E .. (l + 1) * E of it. Every lane does
// the same work whatever the row lengths (empty rows, hubs and short rows
// alike), and reads its entries' columns and gathers with E loads in flight.
// `csr_merge_start` finds each chunk's first row (the merge path search);
// within a chunk a lane searches its own start among the chunk's rows.
// A lane sums its entries row by row; the partial of the row open at a lane's
// end is carried to the next lanes by a segmented scan over the warp (keys:
// rows, non-decreasing). Rows whose start and end lie in one chunk are written
// by that chunk. A row crossing chunks leaves its pieces in `part` (slot 2c:
// the piece of the row open at chunk c's start, slot 2c + 1: the piece of the
// row open at its end), and `csr_merge_fix` (a lane per chunk: the chunk
// that closes such a row) folds them in a fixed order. Fixed order
// throughout: results do not depend on scheduling. `accum`, `iso`, `allowed`
// and presence as in `csr_mxv`; `d_vals` and `affine` (with `cbits`: `c`) as
// in the fused B2SR product: the gather reads `d_j ⊗ u_j`, and every row is
// written once as `c ⊕ value` (`c` where it has none), the output not read.
//
// MERGE_E = 6 items a lane: measured on the H100 (R-MAT 22, PageRank's
// product, benches/results/algorithms-gpu-gpr9.md), 6 is faster than 4, 8 and
// 12: 8 and more take 90+ registers a thread (16 warps an SM), 6 takes 76
// (24 warps), 4 halves the loads in flight and doubles the chunks.
#define MERGE_E 6
#define MERGE_D (32 * MERGE_E)

// The number of row ends before diagonal d of the merge path: the first x
// with rowptr[x + 1] > d - x - 1, searched over rows [lo, hi).
__device__ __forceinline__ u64 merge_search(const u32* __restrict__ rowptr, u64 d, u64 lo, u64 hi) {
  while (lo < hi) {
    const u64 pivot = (lo + hi) >> 1;
    if ((u64)rowptr[pivot + 1] + pivot + 1 <= d) lo = pivot + 1; else hi = pivot;
  }
  return lo;
}

extern "C" __global__ void CAT(csr_merge_start_, SR_NAME)(const u32* __restrict__ rowptr, u64 nrows, u64 nnz,
                                                          u64 nchunks, u32* __restrict__ start_row) {
  for (u64 c = gtid(); c <= nchunks; c += gthreads()) {
    const u64 d = min(c * MERGE_D, nrows + nnz);
    start_row[c] = (u32)merge_search(rowptr, d, d > nnz ? d - nnz : 0, min(d, nrows));
  }
}

// How the merge path writes its output: `accum` as in `csr_put`, or with
// `affine` every row as `c ⊕ value`.
struct MergeOut {
  T* __restrict__ vals;
  u32* __restrict__ pres;
  const u32* __restrict__ allowed;
  int accum;
  int affine;
  T c;
};

// Row i's final value into the output (none where `allowed` excludes it).
__device__ __forceinline__ void merge_put(const MergeOut& o, u64 i, T acc, bool has) {
  if (o.affine) {
    o.vals[i] = has ? SR::add(o.c, acc) : o.c;
    return;
  }
  if (o.allowed && !bit_get(o.allowed, i)) has = false;
  csr_put(o.vals, i, o.accum, acc, has);
  if (o.accum < 0 && has) atomicOr(&o.pres[i >> 5], 1u << (i & 31));
}

extern "C" __global__ void CAT(csr_mxv_merge_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                        const T* __restrict__ avals, u64 isobits, u64 nrows, u64 nnz,
                                                        const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                        const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                        u32* __restrict__ out_pres, int accum,
                                                        const u32* __restrict__ start_row, u64 nchunks,
                                                        T* __restrict__ part_vals, u8* __restrict__ part_has,
                                                        const T* __restrict__ d_vals, int affine, u64 cbits) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const T iso = Sc<T>::from_bits(isobits);
  const MergeOut out{out_vals, out_pres, allowed, accum, affine, Sc<T>::from_bits(cbits)};
  for (u64 c = warp; c < nchunks; c += nwarps) {
    const u64 d0 = c * MERGE_D, d1 = min(d0 + MERGE_D, nrows + nnz);
    const u64 r0 = start_row[c], r1 = start_row[c + 1];
    const u64 n0 = d0 - r0, n1 = d1 - r1;
    // this lane's items [dl, de) of the chunk, as (row, entry) coordinates
    const u64 len = d1 - d0, dl = min((u64)lane * MERGE_E, len);
    const u64 x = merge_search(rowptr, d0 + dl, r0 + (dl > n1 - n0 ? dl - (n1 - n0) : 0), r0 + min(dl, r1 - r0));
    const u64 rs = x, ns = d0 + dl - x;
    u64 re = __shfl_down_sync(FULL_MASK, rs, 1), ne = __shfl_down_sync(FULL_MASK, ns, 1);
    if (lane == 31) { re = r1; ne = n1; }
    // the entries' products, all loads in flight together; the column
    // indices are read once (a stream): loaded evict-first (`__ldcs`), so
    // that the gathered vector's hot part keeps the caches (measured on the
    // H100, R-MAT 22 PageRank: 5% faster on the vertices as they are, 17% on
    // the vertices relabelled by degree)
    u32 col[MERGE_E];
    T v[MERGE_E];
    u32 hm = 0;
#pragma unroll
    for (int j = 0; j < MERGE_E; ++j) col[j] = ns + j < ne ? __ldcs(colidx + ns + j) : 0u;
#pragma unroll
    for (int j = 0; j < MERGE_E; ++j) {
      const bool in = ns + j < ne;
      const bool h = in && (!u_pres || bit_get(u_pres, col[j]));
      T xj = (u_vals && h) ? u_vals[col[j]] : Sc<T>::one();
      if (d_vals && h) xj = SR::mul(d_vals[col[j]], xj);
      v[j] = SR::mul(avals ? (in ? avals[ns + j] : SR::zero()) : iso, xj);
      hm |= (u32)h << j;
    }
    // rows ending in this lane: the first one's value waits for the carry
    u64 row = rs, frow = ~0ull;
    u64 rend = row < nrows ? rowptr[row + 1] : ~0ull;
    T acc = SR::zero(), fval = SR::zero();
    bool has = false, fhas = false;
#pragma unroll
    for (int j = 0; j <= MERGE_E; ++j) {
      const u64 p = j < MERGE_E ? ns + j : ne;
      if (j < MERGE_E && p >= ne) continue;
      while (row < re && (rend <= p || j == MERGE_E)) {
        if (frow == ~0ull) {
          frow = row; fval = acc; fhas = has;
        } else {
          merge_put(out, row, acc, has);
        }
        acc = SR::zero();
        has = false;
        ++row;
        rend = row < nrows ? rowptr[row + 1] : ~0ull;
      }
      if (j < MERGE_E && ((hm >> j) & 1u)) fold(acc, has, v[j]);
    }
    // segmented inclusive scan of the lanes' open pieces (key: the row open at the lane's end)
    T sv = acc;
    bool sh = has;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const T ov = shfl_up(sv, off);
      const bool oh = shfl_up(sh, off);
      const u64 ok = __shfl_up_sync(FULL_MASK, re, off);
      if (lane >= off && ok == re && oh) {
        sv = sh ? SR::add(ov, sv) : ov;
        sh = true;
      }
    }
    // the first row ending in lane l began in lane l - 1 or earlier (or is
    // this lane's own): its earlier pieces are lane l - 1's scan
    const T pv = shfl_up(sv, 1);
    const bool ph = shfl_up(sh, 1);
    const bool open_start = n0 > rowptr[r0];
    if (frow != ~0ull) {
      T fv = fval;
      bool fh = fhas;
      if (lane > 0 && ph) {
        fv = fh ? SR::add(pv, fv) : pv;
        fh = true;
      }
      if (frow == r0 && open_start) {
        // the end of a row begun in an earlier chunk: for csr_merge_fix
        part_vals[2 * c] = fv;
        part_has[2 * c] = fh;
      } else {
        merge_put(out, frow, fv, fh);
      }
    }
    if (lane == 31 && r1 < nrows && n1 > rowptr[r1]) {
      // the row open at the chunk's end: a middle piece or a first piece
      const u64 slot = open_start && r0 == r1 ? 2 * c : 2 * c + 1;
      part_vals[slot] = sv;
      part_has[slot] = sh;
    }
  }
}

// The pieces of row `r0` left in `part` by chunks s .. c (s: the chunk holding
// its first entry, which left its first piece in slot 1; the chunks between
// left middle pieces in slot 0; chunk c its last), folded in a fixed order.
// Serially by one lane (`lane < 0`), or by the whole warp: lanes strided over
// the chunks, then a fixed tree.
__device__ __forceinline__ void merge_fold_pieces(const T* __restrict__ part_vals, const u8* __restrict__ part_has,
                                                  u64 s, u64 c, int lane, T& acc, bool& has) {
  for (u64 q = s + max(lane, 0); q <= c; q += lane < 0 ? 1 : 32) {
    const u64 slot = q == s ? 2 * q + 1 : 2 * q;
    if (part_has[slot]) fold(acc, has, part_vals[slot]);
  }
  if (lane < 0) return;
  for (int off = 1; off < 32; off <<= 1) {
    const T oa = shfl_xor(acc, off);
    const bool oh = shfl_xor(has, off);
    if (oh) fold(acc, has, oa);
  }
}

// Rows spanning at most this many chunks are folded by one lane.
#define MERGE_FIX_SERIAL 8

// A lane per chunk: the chunk that closes a row begun in an earlier chunk
// folds its pieces, serially where the row spans at most MERGE_FIX_SERIAL
// chunks (most rows: a row crossing one chunk boundary has two pieces), else
// with the whole warp, one such row after another. Which way a row is folded
// depends on the matrix alone: results do not depend on scheduling. (A warp
// per chunk, as before, spent most of its time on chunks closing no row, or
// two pieces: measured on the H100, R-MAT 22, see
// benches/results/algorithms-gpu-gpr9.md.)
extern "C" __global__ void CAT(csr_merge_fix_, SR_NAME)(const u32* __restrict__ rowptr, u64 nrows,
                                                        const u32* __restrict__ start_row, u64 nchunks,
                                                        const T* __restrict__ part_vals,
                                                        const u8* __restrict__ part_has,
                                                        const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                        u32* __restrict__ out_pres, int accum, int affine,
                                                        u64 cbits) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const MergeOut out{out_vals, out_pres, allowed, accum, affine, Sc<T>::from_bits(cbits)};
  for (u64 base = warp * 32; base < nchunks; base += nwarps * 32) {
    const u64 c = base + lane;
    u64 r0 = 0, s = 0;
    bool closes = false;
    if (c < nchunks) {
      r0 = start_row[c];
      const u64 r1 = start_row[c + 1], b = rowptr[r0];
      closes = c * MERGE_D - r0 > b && r1 > r0;  // chunk c closes a row begun before it
      s = (r0 + b) / MERGE_D;
    }
    const bool serial = closes && c - s < MERGE_FIX_SERIAL;
    if (serial) {
      T acc = SR::zero();
      bool has = false;
      merge_fold_pieces(part_vals, part_has, s, c, -1, acc, has);
      merge_put(out, r0, acc, has);
    }
    for (u32 wide = __ballot_sync(FULL_MASK, closes && !serial); wide; wide &= wide - 1) {
      const int src = __ffs(wide) - 1;
      const u64 ws = __shfl_sync(FULL_MASK, s, src), wc = __shfl_sync(FULL_MASK, c, src);
      const u64 wr = __shfl_sync(FULL_MASK, r0, src);
      T acc = SR::zero();
      bool has = false;
      merge_fold_pieces(part_vals, part_has, ws, wc, lane, acc, has);
      if (lane == 0) merge_put(out, wr, acc, has);
    }
  }
}

// ---- B2SR times dense row-major (GNN aggregation) -------------------------------
// C[i, f] = zero ⊕ (v ⊗ B[j0, f]) ⊕ (v ⊗ B[j1, f]) ... over the row's columns in
// ascending order: the CPU's order, so results match it exactly.

template <int K>
__device__ __forceinline__ void mxm_dense_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                               const u8* __restrict__ tiles, u64 nrows, u32 tile_rows, u64 vbits,
                                               const T* __restrict__ b, u64 nfeat, T* __restrict__ c) {
  const T v = Sc<T>::from_bits(vbits);
  for (u32 tr = blockIdx.x; tr < tile_rows; tr += gridDim.x) {
    for (u64 f = threadIdx.x; f < nfeat; f += blockDim.x) {
      T acc[K];
#pragma unroll
      for (int r = 0; r < K; ++r) acc[r] = SR::zero();
      for (u32 t = rowptr[tr]; t < rowptr[tr + 1]; ++t) {
        const u64 base = (u64)colidx[t] * K;
#pragma unroll
        for (int r = 0; r < K; ++r) {
          u32 w = tile_row<K>(tiles, t, r);
          while (w) {
            const int cc = __ffs(w) - 1;
            w &= w - 1;
            acc[r] = SR::add(acc[r], SR::mul(v, b[(base + cc) * nfeat + f]));
          }
        }
      }
#pragma unroll
      for (int r = 0; r < K; ++r) {
        const u64 i = (u64)tr * K + r;
        if (i < nrows) c[i * nfeat + f] = acc[r];
      }
    }
  }
}

#define SR_KERNELS(K)                                                                                      \
  extern "C" __global__ void CAT(CAT(b2sr_vxm_k, K), CAT(_, SR_NAME))(                                     \
      const u32* rowptr, const u32* colidx, const u8* tiles, const u32* seg_row, const u32* seg_off,        \
      u32 nseg, u32 seg_len, u64 nrows, u64 vbits, const T* u_vals, const u32* u_pres, const u32* allowed, \
      T* out_vals, u32* out_pres, int mode, u32 tile_rows, u32 short_max) {                                \
    vxm_body<K>(rowptr, colidx, tiles, seg_row, seg_off, nseg, seg_len, nrows, vbits, u_vals, u_pres,      \
                allowed, out_vals, out_pres, mode, tile_rows, short_max);                                  \
  }                                                                                                        \
  extern "C" __global__ void CAT(CAT(b2sr_mxm_dense_k, K), CAT(_, SR_NAME))(                               \
      const u32* rowptr, const u32* colidx, const u8* tiles, u64 nrows, u32 tile_rows, u64 vbits,           \
      const T* b, u64 nfeat, T* c) {                                                                       \
    mxm_dense_body<K>(rowptr, colidx, tiles, nrows, tile_rows, vbits, b, nfeat, c);                        \
  }

// mxv for K <= 8: one fused launch.
#define SR_NARROW_KERNELS(K)                                                                               \
  extern "C" __global__ void CAT(CAT(b2sr_mxv_fused_k, K), CAT(_, SR_NAME))(                               \
      const u32* rowptr, const u32* colidx, const u8* tiles, const u32* seg_row, const u32* seg_off,        \
      u32 nseg, u32 seg_len, u32 tile_rows, u32 short_max, u32 llog, u64 nrows, u64 ulen, u64 vbits,        \
      const T* u_vals, const u32* u_pres, const u32* allowed, T* out_vals, u32* out_pres, T* part_vals,     \
      u32* part_has, u32* counter, int accum, const T* d_vals, int affine, u64 cbits) {                     \
    mxv_fused_body<K>(rowptr, colidx, tiles, seg_row, seg_off, nseg, seg_len, tile_rows, short_max, llog,  \
                      nrows, ulen, vbits, u_vals, u_pres, allowed, out_vals, out_pres, part_vals,          \
                      part_has, counter, accum, d_vals, affine, cbits);                                    \
  }

// mxv for K >= 16: short rows, segments, then the split rows' partials.
#define SR_WIDE_KERNELS(K)                                                                                 \
  extern "C" __global__ void CAT(CAT(b2sr_mxv_k, K), CAT(_, SR_NAME))(                                     \
      const u32* rowptr, const u32* colidx, const u8* tiles, const u32* seg_row, const u32* seg_off,        \
      u32 nseg, u32 seg_len, u64 nrows, u64 vbits, const T* u_vals, const u32* u_pres, const u32* allowed, \
      T* out_vals, u32* out_pres, T* part_vals, u8* part_has) {                                            \
    mxv_body<K>(rowptr, colidx, tiles, seg_row, seg_off, nseg, seg_len, nrows, vbits, u_vals, u_pres,      \
                allowed, out_vals, out_pres, part_vals, part_has);                                         \
  }                                                                                                        \
  extern "C" __global__ void CAT(CAT(b2sr_mxv_fix_k, K), CAT(_, SR_NAME))(                                 \
      const u32* split_rows, u32 nsplit, const u32* seg_off, u64 nrows, const T* part_vals,                \
      const u8* part_has, T* out_vals, u32* out_pres) {                                                    \
    mxv_fix_body<K>(split_rows, nsplit, seg_off, nrows, part_vals, part_has, out_vals, out_pres);          \
  }                                                                                                        \
  extern "C" __global__ void CAT(CAT(b2sr_mxv_short_k, K), CAT(_, SR_NAME))(                               \
      const u32* rowptr, const u32* colidx, const u8* tiles, u32 tile_rows, u32 short_max, u64 nrows,       \
      u64 ulen, u64 vbits, const T* u_vals, const u32* u_pres, const u32* allowed, T* out_vals,            \
      u32* out_pres) {                                                                                     \
    mxv_short_body<K>(rowptr, colidx, tiles, tile_rows, short_max, nrows, ulen, vbits, u_vals, u_pres,     \
                      allowed, out_vals, out_pres);                                                        \
  }

SR_KERNELS(4)
SR_KERNELS(8)
SR_KERNELS(16)
SR_KERNELS(32)
SR_NARROW_KERNELS(4)
SR_NARROW_KERNELS(8)
SR_WIDE_KERNELS(16)
SR_WIDE_KERNELS(32)
