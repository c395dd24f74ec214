// cuda/b2sr_mxv_wide.cu: `w = A ⊕.⊗ u` on B2SR for K = 16 and 32, in up to
// three launches: `b2sr_mxv_short_k*` takes the short tile rows (a group of
// K lanes per tile row, a warp covering 32/K, writing every output value and
// presence word), `b2sr_mxv_k*` the segments of the long ones (lanes split as
// (tile group g, bit row r)), and `b2sr_mxv_fix_k*` folds the partials of
// split rows in segment order. Part of the semiring modules
// `sr_<semiring>_<type>` (cuda/sr.cu: compiled with -DSR_T, -DSR_ADD,
// -DSR_MUL, -DSR_NAME; entries end in `_<SR_NAME>`).
#include "semiring.cuh"

// The segments of long tile rows: a warp per segment.
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
          fold(acc, has, SR::repeat(c, __popc(w)));
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
          fold(acc, has, SR::repeat(SR::mul(v, Sc<T>::one()), __popc(w)));
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

SR_WIDE_KERNELS(16)
SR_WIDE_KERNELS(32)
