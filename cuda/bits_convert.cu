// cuda/bits_convert.cu: the type-free module `bits_convert`: conversions
// between f32 dense matrices (row-major) and dense bit matrices, and between
// bit layouts (src/backend/cuda/bits/convert.rs launches them):
// - binarize: out_ij = x_ij >= t_j (NaN gives 0), to either layout;
// - mean_abs: the mean of |x| per row or per column (f64 sums);
// - unpack: bits to f32 0/1 or -1/+1, from either layout;
// - transpose: a bit matrix into the other layout, 32 x 32 blocks per warp;
// - quantize / dequantize: f32 to b-bit codes in b planes and back.
//
// Row-major bit outputs are made a warp per output word (a lane per bit,
// `__ballot_sync`); column-major ones a thread per output word, the 32 rows
// of a word read by consecutive threads at consecutive columns (coalesced).
// Every kernel writes every word of its output, padding words included (as 0).
#include "common.cuh"
#include "bits_common.cuh"

// The threshold of column j.
__device__ __forceinline__ f32 thr_of(f32 t, const f32* tcol, u64 j) { return tcol ? tcol[j] : t; }

// out (m x n, row-major bits, w32 u32 words per line) = x >= t: a warp per word.
extern "C" __global__ void bits_binarize_rm(const f32* x, u64 m, u64 n, f32 t, const f32* tcol, u32* out,
                                           u64 w32) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  for (u64 q = warp; q < m * w32; q += nwarps) {
    const u64 i = q / w32, j = (q % w32) * 32 + lane;
    const bool b = j < n && x[i * n + j] >= thr_of(t, tcol, j);
    const u32 word = __ballot_sync(FULL_MASK, b);
    if (lane == 0) out[q] = word;
  }
}

// out (m x n, column-major bits: line j = column j, w32 u32 words per line) =
// x >= t: a thread per word, threads along the columns.
extern "C" __global__ void bits_binarize_cm(const f32* x, u64 m, u64 n, f32 t, const f32* tcol, u32* out,
                                           u64 w32) {
  for (u64 q = gtid(); q < n * w32; q += gthreads()) {
    const u64 j = q % n, w = q / n;
    const f32 tj = thr_of(t, tcol, j);
    u32 word = 0;
    for (int b = 0; b < 32; ++b) {
      const u64 i = w * 32 + b;
      if (i < m && x[i * n + j] >= tj) word |= 1u << b;
    }
    out[j * w32 + w] = word;
  }
}

// out_i = mean |x_i.| (m x 1; an empty row gives 0): a warp per row, f64 sums.
extern "C" __global__ void bits_mean_abs_rows(const f32* x, u64 m, u64 n, f32* out) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  for (u64 i = warp; i < m; i += nwarps) {
    f64 s = 0.0;
    for (u64 j = lane; j < n; j += 32) s += (f64)fabsf(x[i * n + j]);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(FULL_MASK, s, off);
    if (lane == 0) out[i] = n ? __double2float_rn(__ddiv_rn(s, (f64)n)) : 0.0f;
  }
}

// part[c * n + j] = Σ |x_ij| over rows [c * rows, (c + 1) * rows): a thread
// per (chunk, column), threads along the columns.
extern "C" __global__ void bits_mean_abs_part(const f32* x, u64 m, u64 n, u64 rows, f64* part) {
  const u64 nparts = (m + rows - 1) / rows;
  for (u64 q = gtid(); q < nparts * n; q += gthreads()) {
    const u64 j = q % n, c = q / n;
    const u64 end = min(m, (c + 1) * rows);
    f64 s = 0.0;
    for (u64 i = c * rows; i < end; ++i) s += (f64)fabsf(x[i * n + j]);
    part[q] = s;
  }
}

// out_j = (Σ_c part[c * n + j]) / m (1 x n; an empty column gives 0).
extern "C" __global__ void bits_mean_abs_cols(const f64* part, u64 nparts, u64 m, u64 n, f32* out) {
  for (u64 j = gtid(); j < n; j += gthreads()) {
    f64 s = 0.0;
    for (u64 c = 0; c < nparts; ++c) s += part[c * n + j];
    out[j] = m ? __double2float_rn(__ddiv_rn(s, (f64)m)) : 0.0f;
  }
}

// out (m x n f32, row-major) = the bits of b (row-major, or column-major
// where cm) as `one` / `zero`: a thread per element.
extern "C" __global__ void bits_unpack(const u32* b, u64 w32, int cm, u64 m, u64 n, f32 zero, f32 one, f32* out) {
  for (u64 q = gtid(); q < m * n; q += gthreads()) {
    const u64 i = q / n, j = q % n;
    const u64 line = cm ? j : i, pos = cm ? i : j;
    out[q] = (b[line * w32 + pos / 32] >> (pos % 32)) & 1u ? one : zero;
  }
}

// dst = src in the other layout: dst line L bit p = src line p bit L
// (src: in_lines lines of in_w32 u32 words; dst: out_lines lines of out_w32).
// A warp per 32 x 32 block: lane r reads word wl of in line 32 wo + r, the
// warp transposes, lane c writes word wo of out line 32 wl + c.
extern "C" __global__ void bits_transpose(const u32* src, u64 in_lines, u64 in_w32, u32* dst, u64 out_lines,
                                          u64 out_w32) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  const u64 bl = (out_lines + 31) / 32;  // blocks along the out lines (in words)
  for (u64 q = warp; q < bl * out_w32; q += nwarps) {
    const u64 wl = q % bl, wo = q / bl;
    const u64 line = wo * 32 + lane;
    const u32 x = line < in_lines ? src[line * in_w32 + wl] : 0u;
    const u32 y = warp_transpose32(x);
    const u64 ol = wl * 32 + lane;
    if (ol < out_lines) dst[ol * out_w32 + wo] = y;
  }
}

// The code of x: round(x / scale + zero) (half away from zero; NaN gives the
// zero point rounded) clamped to [0, max], as the CPU's `code_of`.
__device__ __forceinline__ u32 code_of(f32 x, f32 s, f32 z, f32 max) {
  f32 q = roundf(__fadd_rn(__fdiv_rn(x, s), z));
  if (q != q) q = roundf(z);
  return (u32)fminf(fmaxf(q, 0.0f), max);
}

// Column j's quantisation parameters.
__device__ __forceinline__ void qparams(const f32* scale, const f32* zero, int percol, u64 j, f32& s, f32& z) {
  s = scale[percol ? j : 0];
  z = zero[percol ? j : 0];
}

// Planes p0..p(nb-1) (row-major, w32 u32 words per line) = the nb-bit codes
// of x: a warp per word, a ballot per plane.
extern "C" __global__ void bits_quantize_rm(const f32* x, u64 m, u64 n, const f32* scale, const f32* zero,
                                           int percol, int nb, PLANES_PARAM(p), u64 w32) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  const f32 max = (f32)((1u << nb) - 1u);
  for (u64 q = warp; q < m * w32; q += nwarps) {
    const u64 i = q / w32, j = (q % w32) * 32 + lane;
    u32 code = 0;
    if (j < n) {
      f32 s, z;
      qparams(scale, zero, percol, j, s, z);
      code = code_of(x[i * n + j], s, z, max);
    }
    for (int b = 0; b < nb; ++b) {
      const u32 word = __ballot_sync(FULL_MASK, (code >> b) & 1u);
      if (lane == 0) ((u32*)p.p[b])[q] = word;
    }
  }
}

// The same into column-major planes (line j = column j): a thread per word.
extern "C" __global__ void bits_quantize_cm(const f32* x, u64 m, u64 n, const f32* scale, const f32* zero,
                                           int percol, int nb, PLANES_PARAM(p), u64 w32) {
  const f32 max = (f32)((1u << nb) - 1u);
  for (u64 q = gtid(); q < n * w32; q += gthreads()) {
    const u64 j = q % n, w = q / n;
    f32 s, z;
    qparams(scale, zero, percol, j, s, z);
    u32 words[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int r = 0; r < 32; ++r) {
      const u64 i = w * 32 + r;
      if (i >= m) break;
      const u32 code = code_of(x[i * n + j], s, z, max);
#pragma unroll
      for (int b = 0; b < 8; ++b) words[b] |= ((code >> b) & 1u) << r;
    }
#pragma unroll
    for (int b = 0; b < 8; ++b)
      if (b < nb) ((u32*)p.p[b])[j * w32 + w] = words[b];
  }
}

// out (m x n f32) = scale_j (code_ij - zero_j), f32, the codes from nb planes
// (row-major, or column-major where cm): a thread per element.
extern "C" __global__ void bits_dequantize(PLANES_PARAM(p), int nb, u64 w32, int cm, u64 m, u64 n,
                                          const f32* scale, const f32* zero, int percol, f32* out) {
  for (u64 q = gtid(); q < m * n; q += gthreads()) {
    const u64 i = q / n, j = q % n;
    const u64 line = cm ? j : i, pos = cm ? i : j;
    const u64 at = line * w32 + pos / 32;
    u32 code = 0;
    for (int b = 0; b < nb; ++b) code |= ((((const u32*)p.p[b])[at] >> (pos % 32)) & 1u) << b;
    f32 s, z;
    qparams(scale, zero, percol, j, s, z);
    out[q] = __fmul_rn(s, __fsub_rn((f32)code, z));
  }
}
