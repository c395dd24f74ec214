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
// Load balance: tile rows are cut into segments of at most `seg_len` tiles
// (src/backend/cuda/mem.rs builds them on the device); a warp takes one
// segment, its lanes split as (tile group g, bit row r). Rows with several
// segments leave per-segment partials that `b2sr_mxv_fix_k*` folds in
// segment order, so results do not depend on scheduling.
#include "common.cuh"

typedef SR_T T;

struct SR {
  static __device__ __forceinline__ T add(T a, T b) { return binop<T>(SR_ADD, a, b); }
  static __device__ __forceinline__ T mul(T a, T b) { return binop<T>(SR_MUL, a, b); }
  static __device__ __forceinline__ T zero() { return identity_of<T>(SR_ADD); }
  // mul(a, y) does not look at y.
  static const bool y_free = (SR_MUL == OP_PAIR || SR_MUL == OP_FIRST);
};

template <class X> __device__ __forceinline__ X shfl_xor(X x, int off) { return __shfl_xor_sync(FULL_MASK, x, off); }
template <> __device__ __forceinline__ bool shfl_xor<bool>(bool x, int off) { return __shfl_xor_sync(FULL_MASK, (int)x, off) != 0; }

// acc ⊕= x, where an accumulator without `has` takes x as it is.
__device__ __forceinline__ void fold(T& acc, bool& has, T x) {
  acc = has ? SR::add(acc, x) : x;
  has = true;
}

// Atomic `*p = *p ⊕ x` (outputs start at the identity).
__device__ __forceinline__ void cas32(u32* a, T x) {
  u32 old = *a, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T nv = SR::add(cur, x);
    u32 nb = 0;
    memcpy(&nb, &nv, sizeof(T));
    old = atomicCAS(a, assumed, nb);
  } while (old != assumed);
}
__device__ __forceinline__ void cas64(u64* a, T x) {
  u64 old = *a, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T nv = SR::add(cur, x);
    u64 nb = 0;
    memcpy(&nb, &nv, sizeof(T));
    old = atomicCAS((unsigned long long*)a, assumed, nb);
  } while (old != assumed);
}
__device__ __forceinline__ void atomic_fold(T* p, T x) {
  if (sizeof(T) == 1) {
    // bool: only LOR/ANY/PLUS(=OR) monoids are instantiated for bool; MIN/MAX
    // (AND/OR) handled likewise.
    bool b = Sc<T>::nz(x);
    if (SR_ADD == OP_ANY) { *p = x; return; }
    if (SR_ADD == OP_MIN || SR_ADD == OP_LAND || SR_ADD == OP_TIMES) { if (!b) *p = x; return; }
    if (b) *p = x;
    return;
  }
  if (SR_ADD == OP_ANY) { *p = x; return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 4 && Sc<T>::is_float) { atomicAdd((float*)p, (float)x); return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 8 && Sc<T>::is_float) { atomicAdd((double*)p, (double)x); return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 4) { u32 b; memcpy(&b, &x, 4); atomicAdd((u32*)p, b); return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 8) { u64 b; memcpy(&b, &x, 8); atomicAdd((unsigned long long*)p, (unsigned long long)b); return; }
  if (sizeof(T) == 4) cas32((u32*)p, x); else cas64((u64*)p, x);
}

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
                                         u32* __restrict__ out_pres) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const T v = Sc<T>::from_bits(vbits);
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 s = warp; s < nseg; s += nwarps) {
    const u32 tr = seg_row[s];
    const u32 first = seg_off[tr];
    const u32 rb = rowptr[tr], re = rowptr[tr + 1];
    const u32 t0 = rb + (u32)(s - first) * seg_len;
    const u32 t1 = min(t0 + seg_len, re);
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

// ---- mxv on CSR (values per entry), a warp per row ------------------------------

extern "C" __global__ void CAT(csr_mxv_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                  const T* __restrict__ avals, u64 nrows,
                                                  const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                  const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                  u32* __restrict__ out_pres) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  for (u64 i = warp; i < nrows; i += nwarps) {
    T acc = SR::zero();
    bool has = false;
    if (allowed == 0 || bit_get(allowed, i)) {
      for (u32 p = rowptr[i] + lane; p < rowptr[i + 1]; p += 32) {
        const u32 j = colidx[p];
        if (u_pres && !bit_get(u_pres, j)) continue;
        fold(acc, has, SR::mul(avals[p], u_vals ? u_vals[j] : Sc<T>::one()));
      }
    }
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const T oa = shfl_xor(acc, off);
      const bool oh = shfl_xor(has, off);
      if (oh) fold(acc, has, oa);
    }
    if (lane == 0) {
      out_vals[i] = has ? acc : SR::zero();
      if (has) atomicOr(&out_pres[i >> 5], 1u << (i & 31));
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
  extern "C" __global__ void CAT(CAT(b2sr_vxm_k, K), CAT(_, SR_NAME))(                                     \
      const u32* rowptr, const u32* colidx, const u8* tiles, const u32* seg_row, const u32* seg_off,        \
      u32 nseg, u32 seg_len, u64 nrows, u64 vbits, const T* u_vals, const u32* u_pres, const u32* allowed, \
      T* out_vals, u32* out_pres) {                                                                        \
    vxm_body<K>(rowptr, colidx, tiles, seg_row, seg_off, nseg, seg_len, nrows, vbits, u_vals, u_pres,      \
                allowed, out_vals, out_pres);                                                              \
  }                                                                                                        \
  extern "C" __global__ void CAT(CAT(b2sr_mxm_dense_k, K), CAT(_, SR_NAME))(                               \
      const u32* rowptr, const u32* colidx, const u8* tiles, u64 nrows, u32 tile_rows, u64 vbits,           \
      const T* b, u64 nfeat, T* c) {                                                                       \
    mxm_dense_body<K>(rowptr, colidx, tiles, nrows, tile_rows, vbits, b, nfeat, c);                        \
  }

SR_KERNELS(4)
SR_KERNELS(8)
SR_KERNELS(16)
SR_KERNELS(32)
