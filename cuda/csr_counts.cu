// cuda/csr_counts.cu: part of the `dense_rows` module: the CSR product of
// integer counts, `ext::mxm_counts_scaled` (src/backend/cuda/dense_counts.rs):
//   C[i, f] = ((l_i (Σ_j a_ij (r_j v_jf))) s_f) + bias_f
// each factor where given, v_jf read as f32 (exact below 2^24), a row's
// entries folded in column order with the first term starting the sum, and
// every operation rounded on its own (__fmul_rn, __fadd_rn: no contraction):
// the values of the CPU's unfused calls, bit for bit.
//
// The counts come from V (i32, row-major k x nf), or from its packed form
// (`counts_pack`), where rows of V are gathered many times: row j as 4-byte
// words, word 0 the bits of r_j (1 where r is absent), word 1 the row's mode,
// then the row's values a byte each (byte f of the words from 2 on), the row
// padded to a multiple of 16 bytes (64 bytes, two sectors, for 41 columns,
// where f32 takes 164):
// - mode 0x4B000000 (2^23 as a float): u = v + 128, every v of the row in
//   [-128, 127];
// - mode 0x4B800000 (2^24): u = v / 2 + 128, every v even, in [-256, 254];
// - mode 0: the row fits neither; its values are read from V.
// One byte permute puts u into the mode's low byte: the float 2^23 + u
// (2^24 + 2u: the unit there is 2), from which 2^23 + 128 (2^24 + 256), the
// mode with 0x80 in its low byte, leaves v exactly.
//
// The product: a group of G lanes (a power of two, at most 32) a row of C,
// lane l owning columns 4l .. 4l + 3 of each chunk of 4G columns. Every lane
// of the group walks the row's entries in rounds of COUNTS_ROUND (the same
// columns: one load for the group), gathering the round's rows of counts
// together before folding them in order.

#define COUNTS_MODE_BYTE 0x4B000000u
#define COUNTS_MODE_HALF 0x4B800000u
// Entries of a row a round: their columns load together, the next round's
// while this round's rows gather (one dependent load a round).
#define COUNTS_ROUND 8

// Row j of V packed, a warp a row: its mode, then its bytes (padding 128,
// read as 0 and never stored), then r_j and the mode.
extern "C" __global__ void counts_pack(const i32* __restrict__ v, u64 k, u64 nf, const f32* __restrict__ right,
                                       u64 stride, u32* __restrict__ packed) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u32 lane = threadIdx.x & 31;
  const u64 width = stride * 4 - 8;
  for (u64 j = warp; j < k; j += nwarps) {
    const i32* row = v + j * nf;
    bool byte = true, half = true;
    for (u64 f = lane; f < nf; f += 32) {
      const i32 x = row[f];
      byte &= x >= -128 && x <= 127;
      half &= (x & 1) == 0 && x >= -256 && x <= 254;
    }
    byte = __all_sync(FULL_MASK, byte);
    half = __all_sync(FULL_MASK, half);
    u32* out = packed + j * stride;
    u8* bytes = (u8*)(out + 2);
    for (u64 f = lane; f < width; f += 32) {
      const i32 x = f < nf ? row[f] : 0;
      bytes[f] = (u8)((byte ? x : x >> 1) + 128);
    }
    if (lane == 0) {
      out[0] = __float_as_uint(right ? right[j] : 1.0f);
      out[1] = byte ? COUNTS_MODE_BYTE : half ? COUNTS_MODE_HALF : 0u;
    }
  }
}

// The value in byte q of w, in a row of mode `mode` (not 0): exact.
__device__ __forceinline__ f32 counts_byte(u32 w, u32 mode, u32 q) {
  return __fsub_rn(__uint_as_float(__byte_perm(w, mode, 0x7650u | q)), __uint_as_float(mode | 0x80u));
}

// Row j's part of this lane's four columns f .. f + 3: r_j and the packed
// word with the row's mode (packed), or r_j and the four counts (0 past nf).
// Loads only, no branch on what they bring: a round's rows gather together.
struct CountsRow {
  f32 r;
  u32 mode;
  u32 w[4];
};

template <bool PACKED>
__device__ __forceinline__ CountsRow counts_load(const i32* __restrict__ v, const u32* __restrict__ packed,
                                                 u64 stride, const f32* __restrict__ right, u64 nf, u64 f, u32 j) {
  CountsRow x = {1.0f, 0u, {0u, 0u, 0u, 0u}};
  if (PACKED) {
    const u32* row = packed + (u64)j * stride;
    const uint2 h = *(const uint2*)row;
    x.r = __uint_as_float(h.x);
    x.mode = h.y;
    if (f < nf) x.w[0] = row[2 + f / 4];
  } else {
    if (right) x.r = right[j];
#pragma unroll
    for (u32 q = 0; q < 4; ++q)
      if (f + q < nf) x.w[q] = (u32)v[(u64)j * nf + f + q];
  }
  return x;
}

// r_j v_jf for the four columns; a packed row of mode 0 (rare) reads its
// counts from V here.
template <bool PACKED>
__device__ __forceinline__ void counts_terms(CountsRow x, const i32* __restrict__ v, u64 nf, u64 f, u32 j,
                                             f32 (&t)[4]) {
  if (PACKED && x.mode != 0) {
#pragma unroll
    for (u32 q = 0; q < 4; ++q) t[q] = __fmul_rn(x.r, counts_byte(x.w[0], x.mode, q));
    return;
  }
  if (PACKED) {
#pragma unroll
    for (u32 q = 0; q < 4; ++q) x.w[q] = f + q < nf ? (u32)v[(u64)j * nf + f + q] : 0u;
  }
#pragma unroll
  for (u32 q = 0; q < 4; ++q) t[q] = __fmul_rn(x.r, __int2float_rn((i32)x.w[q]));
}

// Entries [p0, p0 + COUNTS_ROUND) of a row ending at e: columns and values.
__device__ __forceinline__ void counts_round(const u32* __restrict__ colidx, const f32* __restrict__ vals, f32 iso,
                                             u32 p0, u32 e, u32 (&j)[COUNTS_ROUND], f32 (&a)[COUNTS_ROUND]) {
#pragma unroll
  for (u32 y = 0; y < COUNTS_ROUND; ++y) {
    const u32 p = p0 + y;
    j[y] = p < e ? colidx[p] : 0;
    a[y] = vals && p < e ? vals[p] : iso;
  }
}

template <bool PACKED>
__device__ __forceinline__ void csr_counts(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                           const f32* __restrict__ vals, f32 iso, u64 m, const i32* __restrict__ v,
                                           const u32* __restrict__ packed, u64 stride, u64 nf, u32 g,
                                           const f32* __restrict__ left, const f32* __restrict__ right,
                                           const f32* __restrict__ col, const f32* __restrict__ bias,
                                           f32* __restrict__ c) {
  const u32 gl = (threadIdx.x & 31) & (g - 1);
  const u64 groups = gthreads() / g;
  const bool unit = !vals && iso == 1.0f;
  for (u64 i = gtid() / g; i < m; i += groups) {
    const u32 s = rowptr[i], e = rowptr[i + 1];
    for (u64 f0 = 0; f0 < nf; f0 += 4 * (u64)g) {
      const u64 f = f0 + 4 * gl;
      f32 acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      u32 jn[COUNTS_ROUND];
      f32 an[COUNTS_ROUND];
      if (s < e) counts_round(colidx, vals, iso, s, e, jn, an);
      for (u32 p0 = s; p0 < e; p0 += COUNTS_ROUND) {
        u32 j[COUNTS_ROUND];
        f32 a[COUNTS_ROUND];
#pragma unroll
        for (u32 y = 0; y < COUNTS_ROUND; ++y) {
          j[y] = jn[y];
          a[y] = an[y];
        }
        if (p0 + COUNTS_ROUND < e) counts_round(colidx, vals, iso, p0 + COUNTS_ROUND, e, jn, an);
        CountsRow x[COUNTS_ROUND];
#pragma unroll
        for (u32 y = 0; y < COUNTS_ROUND; ++y)
          if (p0 + y < e) x[y] = counts_load<PACKED>(v, packed, stride, right, nf, f, j[y]);
#pragma unroll
        for (u32 y = 0; y < COUNTS_ROUND; ++y)
          if (p0 + y < e) {
            f32 t[4];
            counts_terms<PACKED>(x[y], v, nf, f, j[y], t);
#pragma unroll
            for (u32 q = 0; q < 4; ++q) {
              // a ⊗ t, where a is 1 (an iso matrix of ones) t itself
              const f32 term = unit ? t[q] : __fmul_rn(a[y], t[q]);
              acc[q] = p0 + y == s ? term : __fadd_rn(acc[q], term);
            }
          }
      }
#pragma unroll
      for (u32 q = 0; q < 4; ++q)
        if (f + q < nf) {
          f32 o = acc[q];
          if (left) o = __fmul_rn(left[i], o);
          if (col) o = __fmul_rn(o, col[f + q]);
          if (bias) o = __fadd_rn(o, bias[f + q]);
          c[i * nf + f + q] = o;
        }
    }
  }
}

#define CSR_COUNTS_ENTRY(NAME, PACKED)                                                                          \
  extern "C" __global__ void NAME(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,                \
                                  const f32* __restrict__ vals, u64 isobits, u64 m, const i32* __restrict__ v,  \
                                  const u32* __restrict__ packed, u64 stride, u64 nf, u32 g,                    \
                                  const f32* __restrict__ left, const f32* __restrict__ right,                  \
                                  const f32* __restrict__ col, const f32* __restrict__ bias, f32* __restrict__ c) { \
    csr_counts<PACKED>(rowptr, colidx, vals, __uint_as_float((u32)isobits), m, v, packed, stride, nf, g, left,    \
                       right, col, bias, c);                                                                      \
  }
CSR_COUNTS_ENTRY(csr_mxm_counts, false)
CSR_COUNTS_ENTRY(csr_mxm_counts_packed, true)
