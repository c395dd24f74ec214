// cuda/bits_common.cuh: shared by the dense-bit modules (bits_convert.cu,
// bits_bmm.cu, bits_bspmm.cu): the device layout of a bit matrix, bit-plane
// pointer lists, the warp bit transpose and the one epilogue of every bit
// product (the semiring's value, dequantisation, scales, threshold).
//
// Dense bit matrices (src/storage/bits, src/backend/cuda/bits): `lines` lines
// of `line_len` bits, line l at u64 words [l * S, (l + 1) * S), S = ceil(line_len
// / 64); seen as u32 words (little endian) bit p of a line is bit p % 32 of u32
// word p / 32, a line holds 2 S u32 words. Padding bits after a line's end are
// always 0: every kernel reads that as "no bit" and writes it as 0.
#pragma once
#include "common.cuh"

// What a product writes (BitOutput): i32 values, f32 after the scales, or bits.
#define OUT_COUNTS 0
#define OUT_SCALED 1
#define OUT_BITS 2

// How a product's raw count becomes its value:
// - MODE_LIN: the semiring's linear form of AND popcounts
//   v = alpha c + beta pa + gamma pw + dk (wrapping i32), or min(c, 1) (LorLand);
// - MODE_DEQ: a bit-plane BMM's dequantised product (bmm_planes);
// - MODE_DEQ_SP: a bit-plane BSpMM's dequantised product (bspmm_planes).
#define MODE_LIN 0
#define MODE_DEQ 1
#define MODE_DEQ_SP 2

// Up to 8 bit planes' words (NULL past the last), as one 64-byte kernel
// parameter read in place (`__grid_constant__`): plane p is `x.p[p]` with p
// known only at run time, a constant-bank load, no registers held for the list.
// Kernels that write planes (quantize) cast the pointers.
struct Planes {
  const u64* p[8];
};
#define PLANES_PARAM(x) const __grid_constant__ Planes x

// ---- the epilogue ------------------------------------------------------------------

// Its parameters, in kernel order (src/backend/cuda/bits/epilogue.rs pushes them):
// the linear form (alpha, beta, gamma, dk, clamp), the scales (row m x 1, col and
// bias 1 x n; NULL = absent), the threshold (t, or tcol 1 x n), and the
// dequantisation (sa, za: the left operand's per-tensor scale and zero point,
// 1 x 1; sw, zw: the right operand's, 1 x n where wcol, else 1 x 1; kf = k).
// (`_AS(p)`: the same parameters named p_alpha, ..., for a kernel that takes two.)
#define EPI_PARAMS_AS(p)                                                                                  \
  int p##_alpha, int p##_beta, int p##_gamma, int p##_dk, int p##_clamp, const f32 *p##_row, const f32 *p##_col, \
      const f32 *p##_bias, f32 p##_t, const f32 *p##_tcol, const f32 *p##_sa, const f32 *p##_za,            \
      const f32 *p##_sw, const f32 *p##_zw, int p##_wcol, f64 p##_kf
#define EPI_MAKE_AS(p)                                                                                    \
  Epi { p##_alpha, p##_beta, p##_gamma, p##_dk, p##_clamp, p##_row, p##_col, p##_bias, p##_t, p##_tcol,    \
        p##_sa, p##_za, p##_sw, p##_zw, p##_wcol, p##_kf }
#define EPI_PARAMS EPI_PARAMS_AS(e)
#define EPI_MAKE EPI_MAKE_AS(e)

struct Epi {
  int alpha, beta, gamma, dk, clamp;
  const f32 *row, *col, *bias;
  f32 t;
  const f32* tcol;
  const f32 *sa, *za;
  const f32 *sw, *zw;
  int wcol;
  f64 kf;
};

// The semiring's value of an AND count c with popc(a) = pa, popc(w) = pw
// (wrapping i32, as the CPU's `Linear::apply_row`).
__device__ __forceinline__ i32 lin_value(const Epi& e, u32 c, u32 pa, u32 pw) {
  if (e.clamp) return c > 0 ? 1 : 0;
  return (i32)((u32)e.alpha * c + (u32)e.beta * pa + (u32)e.gamma * pw + (u32)e.dk);
}

// The integer value written as Counts (planes: the raw sum Σ 2^(p+q) popc).
template <int MODE> __device__ __forceinline__ i32 count_value(const Epi& e, u32 raw, u32 pa, u32 pw) {
  return MODE == MODE_LIN ? lin_value(e, raw, pa, pw) : (i32)raw;
}

// The f32 value before the scales, for column j. MODE_DEQ: pa, pw are the
// code sums of a's row and w's column; MODE_DEQ_SP: pa is the row's degree.
// In f64 with no contraction, in the CPU's order (src/backend/cpu/bits/planes.rs):
//   DEQ:    (sa sw) ((v - zw pa - za pw) + (k za) zw)
//   DEQ_SP: sw (v - zw deg)
template <int MODE> __device__ __forceinline__ f32 pre_value(const Epi& e, u32 raw, u32 pa, u32 pw, u64 j) {
  if (MODE == MODE_LIN) return (f32)lin_value(e, raw, pa, pw);
  const u64 jj = e.wcol ? j : 0;
  const f64 sw = (f64)e.sw[jj], zw = (f64)e.zw[jj];
  if (MODE == MODE_DEQ) {
    const f64 sa = (f64)e.sa[0], za = (f64)e.za[0];
    f64 t = __dsub_rn(__dsub_rn((f64)raw, __dmul_rn(zw, (f64)pa)), __dmul_rn(za, (f64)pw));
    t = __dadd_rn(t, __dmul_rn(__dmul_rn(e.kf, za), zw));
    return __double2float_rn(__dmul_rn(__dmul_rn(sa, sw), t));
  }
  return __double2float_rn(__dmul_rn(sw, __dsub_rn((f64)raw, __dmul_rn(zw, (f64)pa))));
}

// s = v row_i col_j + bias_j, in that order, in f32 (no contraction).
__device__ __forceinline__ f32 scaled(const Epi& e, f32 v, u64 i, u64 j) {
  f32 s = v;
  if (e.row) s = __fmul_rn(s, e.row[i]);
  if (e.col) s = __fmul_rn(s, e.col[j]);
  if (e.bias) s = __fadd_rn(s, e.bias[j]);
  return s;
}

// The output bit: s >= t_j (NaN gives 0).
__device__ __forceinline__ bool over(const Epi& e, f32 s, u64 j) { return s >= (e.tcol ? e.tcol[j] : e.t); }

// ---- warp helpers -------------------------------------------------------------------

// Transposes the 32 x 32 bit matrix held one row per lane (lane r holds row r,
// bit c = entry (r, c)): afterwards lane c holds column c (bit r = entry (r, c)).
// Five rounds of swapping off-diagonal blocks of 16, 8, 4, 2, 1 between lanes
// `lane` and `lane ^ s`.
__device__ __forceinline__ u32 warp_transpose32(u32 x) {
  const int lane = threadIdx.x & 31;
  const u32 masks[5] = {0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u, 0x55555555u};
#pragma unroll
  for (int r = 0; r < 5; ++r) {
    const int s = 16 >> r;
    const u32 m = masks[r];
    const u32 y = __shfl_xor_sync(FULL_MASK, x, s);
    x = (lane & s) ? (((y >> s) & m) | (x & ~m)) : ((x & m) | ((y & m) << s));
  }
  return x;
}
