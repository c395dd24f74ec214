// cuda/csr_counts.cu: part of the `dense_rows` module: the CSR product of
// integer counts, `ext::mxm_counts_scaled` (src/backend/cuda/dense_counts.rs):
//   C[i, f] = ((l_i (Σ_j a_ij (r_j v_jf))) s_f) + bias_f
// each factor where given, v_jf read as f32 (exact below 2^24), a row's
// entries folded in column order with the first term starting the sum, and
// every operation rounded on its own (__fmul_rn, __fadd_rn: no contraction):
// the values of the CPU's unfused calls, bit for bit.
//
// The counts come from V (i32, row-major k x nf), or from its packed form
// (`counts_pack`), where rows of V are gathered many times and a packed row
// takes fewer sectors than V's (src/backend/cuda/dense_counts.rs): row j as 4-byte
// words, word 0 the bits of r_j (1 where r is absent), word 1 the row's mode,
// words 2 and 3 unused, then the row's values a byte each (byte f of the
// words from 4 on), the row padded to a multiple of 16 bytes (64 bytes, two
// sectors, for 41 columns, where f32 takes 164):
// - mode 0x4B000000 (2^23 as a float): u = v + 128, every v of the row in
//   [-128, 127];
// - mode 0x4B800000 (2^24): u = v / 2 + 128, every v even, in [-256, 254];
// - mode 0: the row fits neither; its values are read from V.
// One byte permute puts u into the mode's low byte: the float 2^23 + u
// (2^24 + 2u: the unit there is 2), from which 2^23 + 128 (2^24 + 256), the
// mode with 0x80 in its low byte, leaves v exactly.
//
// The product: a group of G lanes (a power of two, at most 32) a row of C
// (grid-stride over rows), each lane owning CPL adjacent columns of each
// chunk of CPL G columns, walking the row's entries in rounds (every lane of
// the group loads the same columns of A: one load for the group) and
// gathering a round's rows of counts together before folding them in order.
// - packed (`csr_mxm_counts_packed`): 16 columns a lane, one 16-byte load of
//   a row's bytes (what a gathered row costs beside its columns' arithmetic,
//   an address, two loads and their tests, is a lane's, so a lane takes all
//   the columns one load brings), rounds of 2 entries; on the Reddit-size
//   graph (41 columns) this, the loads without a branch between them and the
//   occupancy below took the kernel from 8.8 ms to 1.73 ms
//   (scripts/gpu-counts-check.py);
// - direct (`csr_mxm_counts`, where rows of V are gathered a few times): a
//   column a lane, rounds of 8 entries.
// In both, the rows of A listed as long (the matrix's list, as
// `csr_mxm_dense_long` reads it) a block each for every COUNTS_LONG_FC
// columns, in the grid's first blocks, reading V directly: the block's
// threads compute a chunk of the row's terms together into shared memory,
// then a thread a column folds them in order. A hub row of Cora (169
// entries) is one gather deep, not eleven rounds of 16: 13.5 -> 4.4 us on
// Cora's GCN aggregation; on the Flickr-size graph (rows up to 730 entries)
// the packed product 170 -> 36 us (H200, scripts/gpu-counts-check.py
// graphs). Rounds of 8 at two blocks an SM (120 registers) against 16 at one
// (144): PubMed 14.2 -> 9.9 us, Cora and CiteSeer 0.3 us slower; rounds of 4
// (64 registers) lose on Cora and CiteSeer.

#define COUNTS_MODE_BYTE 0x4B000000u
#define COUNTS_MODE_HALF 0x4B800000u
// Words before a packed row's bytes (r_j, the mode, two unused): the bytes
// start 16-aligned, so a lane's 16 columns are one 16-byte load.
#define COUNTS_HEADER 4

// Row j of V packed, a warp a row: its mode, then its bytes (padding 128,
// read as 0 and never stored), then r_j and the mode.
extern "C" __global__ void counts_pack(const i32* __restrict__ v, u64 k, u64 nf, const f32* __restrict__ right,
                                       u64 stride, u32* __restrict__ packed) {
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u32 lane = threadIdx.x & 31;
  const u64 width = (stride - COUNTS_HEADER) * 4;
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
    u8* bytes = (u8*)(out + COUNTS_HEADER);
    for (u64 f = lane; f < width; f += 32) {
      const i32 x = f < nf ? row[f] : 0;
      bytes[f] = (u8)((byte ? x : x >> 1) + 128);
    }
    if (lane == 0) {
      out[0] = __float_as_uint(right ? right[j] : 1.0f);
      out[1] = byte ? COUNTS_MODE_BYTE : half ? COUNTS_MODE_HALF : 0u;
      out[2] = out[3] = 0u;
    }
  }
}

// Row j's part of this lane's CPL columns f .. f + CPL - 1: r_j and the
// packed words with the row's mode (packed), or r_j and the counts (0 past
// nf). Loads only, no branch on what they bring: a round's rows gather
// together.
template <u32 CPL>
struct CountsRow {
  f32 r;
  u32 mode;
  u32 w[CPL];
};

template <bool PACKED, u32 CPL>
__device__ __forceinline__ CountsRow<CPL> counts_load(const i32* __restrict__ v, const u32* __restrict__ packed,
                                                      u64 stride, const f32* __restrict__ right, u64 nf, u64 f,
                                                      u32 j) {
  CountsRow<CPL> x;
  x.r = 1.0f;
  x.mode = 0;
#pragma unroll
  for (u32 q = 0; q < CPL; ++q) x.w[q] = 0;
  if constexpr (PACKED) {
    static_assert(CPL == 16, "a packed row's lane reads four words");
    const u32* row = packed + (u64)j * stride;
    const uint2 h = *(const uint2*)row;
    x.r = __uint_as_float(h.x);
    x.mode = h.y;
    if (f < nf) {
      const uint4 w = *(const uint4*)(row + COUNTS_HEADER + f / 4);
      x.w[0] = w.x;
      x.w[1] = w.y;
      x.w[2] = w.z;
      x.w[3] = w.w;
    }
  } else {
    if (right) x.r = right[j];
#pragma unroll
    for (u32 q = 0; q < CPL; ++q)
      if (f + q < nf) x.w[q] = (u32)v[(u64)j * nf + f + q];
  }
  return x;
}

// acc += a (r_j v_jf) for the lane's columns (a where not UNIT: an iso
// matrix of ones multiplies by 1, which changes nothing); a packed row of
// mode 0 (rare) reads its counts from V here.
template <bool PACKED, bool UNIT, u32 CPL>
__device__ __forceinline__ void counts_fold(CountsRow<CPL> x, f32 a, const i32* __restrict__ v, u64 nf, u64 f,
                                            u32 j, f32 (&acc)[CPL]) {
  if (PACKED && x.mode != 0) {
    const f32 off = __uint_as_float(x.mode | 0x80u);
#pragma unroll
    for (u32 q = 0; q < CPL; ++q) {
      const f32 xv = __fsub_rn(__uint_as_float(__byte_perm(x.w[q / 4], x.mode, 0x7650u | (q % 4))), off);
      const f32 t = __fmul_rn(x.r, xv);
      acc[q] = __fadd_rn(acc[q], UNIT ? t : __fmul_rn(a, t));
    }
    return;
  }
  i32 w[CPL];
#pragma unroll
  for (u32 q = 0; q < CPL; ++q) w[q] = PACKED ? (f + q < nf ? v[(u64)j * nf + f + q] : 0) : (i32)x.w[q];
#pragma unroll
  for (u32 q = 0; q < CPL; ++q) {
    const f32 t = __fmul_rn(x.r, __int2float_rn(w[q]));
    acc[q] = __fadd_rn(acc[q], UNIT ? t : __fmul_rn(a, t));
  }
}

// Entries [p0, p0 + ROUND) of a row ending at e: columns and values.
template <u32 ROUND>
__device__ __forceinline__ void counts_round(const u32* __restrict__ colidx, const f32* __restrict__ vals, f32 iso,
                                             u32 p0, u32 e, u32 (&j)[ROUND], f32 (&a)[ROUND]) {
#pragma unroll
  for (u32 y = 0; y < ROUND; ++y) {
    const u32 p = p0 + y;
    j[y] = p < e ? colidx[p] : 0;
    a[y] = vals && p < e ? vals[p] : iso;
  }
}

// A row's entries in rounds of ROUND: their columns load together, the next
// round's while this round's rows gather (one dependent load a round). The
// sum starts at -0, which adds to any term as nothing (-0 + +0 = +0): the
// value of a sum started by its first term.
template <bool PACKED, bool UNIT, u32 CPL, u32 ROUND>
__device__ __forceinline__ void counts_row(const u32* __restrict__ colidx, const f32* __restrict__ vals, f32 iso,
                                           u32 s, u32 e, const i32* __restrict__ v, const u32* __restrict__ packed,
                                           u64 stride, const f32* __restrict__ right, u64 nf, u64 f,
                                           f32 (&acc)[CPL]) {
  u32 jn[ROUND];
  f32 an[ROUND];
  counts_round<ROUND>(colidx, vals, iso, s, e, jn, an);
  for (u32 p0 = s; p0 < e; p0 += ROUND) {
    u32 j[ROUND];
    f32 a[ROUND];
#pragma unroll
    for (u32 y = 0; y < ROUND; ++y) {
      j[y] = jn[y];
      a[y] = an[y];
    }
    if (p0 + ROUND < e) counts_round<ROUND>(colidx, vals, iso, p0 + ROUND, e, jn, an);
    CountsRow<CPL> x[ROUND];
#pragma unroll
    for (u32 y = 0; y < ROUND; ++y)
      if (p0 + y < e) x[y] = counts_load<PACKED, CPL>(v, packed, stride, right, nf, f, j[y]);
#pragma unroll
    for (u32 y = 0; y < ROUND; ++y)
      if (p0 + y < e) counts_fold<PACKED, UNIT, CPL>(x[y], a[y], v, nf, f, j[y], acc);
  }
}

// C's row i, columns f .. f + CPL - 1, from the row's sums: l_i, s_f and
// bias_f where given.
template <u32 CPL>
__device__ __forceinline__ void counts_put(const f32* __restrict__ left, const f32* __restrict__ col,
                                           const f32* __restrict__ bias, f32* __restrict__ c, u64 i, u64 nf, u64 f,
                                           const f32 (&acc)[CPL]) {
#pragma unroll
  for (u32 q = 0; q < CPL; ++q)
    if (f + q < nf) {
      f32 o = acc[q];
      if (left) o = __fmul_rn(left[i], o);
      if (col) o = __fmul_rn(o, col[f + q]);
      if (bias) o = __fadd_rn(o, bias[f + q]);
      c[i * nf + f + q] = o;
    }
}

// A group of g lanes a row of C (grid-stride over rows), lane l owning
// columns CPL l .. CPL l + CPL - 1 of each chunk of CPL g columns. ONES: A is
// an iso matrix of ones (the caller checked), so the other path is not
// compiled in (its registers would set the kernel's).
// The rows of the grid's blocks from `first` on (the blocks before take the
// long rows), skipping the rows of more than `long_min` entries where
// `long_min` is not 0.
template <bool PACKED, u32 CPL, u32 ROUND, bool ONES>
__device__ __forceinline__ void csr_counts(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                           const f32* __restrict__ vals, f32 iso, u64 m, const i32* __restrict__ v,
                                           const u32* __restrict__ packed, u64 stride, u64 nf, u32 g,
                                           const f32* __restrict__ left, const f32* __restrict__ right,
                                           const f32* __restrict__ col, const f32* __restrict__ bias,
                                           f32* __restrict__ c, u64 first, u32 long_min) {
  const u32 gl = (threadIdx.x & 31) & (g - 1);
  const u64 groups = (gridDim.x - first) * blockDim.x / g;
  const bool unit = ONES || (!vals && iso == 1.0f);
  for (u64 i = ((blockIdx.x - first) * blockDim.x + threadIdx.x) / g; i < m; i += groups) {
    const u32 s = rowptr[i], e = rowptr[i + 1];
    if (long_min && e - s > long_min) continue;
    for (u64 f0 = 0; f0 < nf; f0 += CPL * (u64)g) {
      const u64 f = f0 + CPL * gl;
      f32 acc[CPL];
#pragma unroll
      for (u32 q = 0; q < CPL; ++q) acc[q] = s < e ? -0.0f : 0.0f;
      if (ONES || unit)
        counts_row<PACKED, true, CPL, ROUND>(colidx, vals, iso, s, e, v, packed, stride, right, nf, f, acc);
      else if constexpr (!ONES)
        counts_row<PACKED, false, CPL, ROUND>(colidx, vals, iso, s, e, v, packed, stride, right, nf, f, acc);
      counts_put<CPL>(left, col, bias, c, i, nf, f, acc);
    }
  }
}

// Threads of a long row's block, entries a chunk, columns a block.
#define COUNTS_LONG_NT 256
#define COUNTS_LONG_CAP 256
#define COUNTS_LONG_FC 16

// Long row i of the product, columns f0 .. f0 + COUNTS_LONG_FC - 1, a block,
// V read directly (packed or not, the values are the same): each chunk's
// terms a (r_j v_jf) computed by all the threads into shared memory, then
// folded in order by a thread a column (the same terms in the same order as
// a row's lanes fold them).
__device__ __forceinline__ void counts_long_row(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                const f32* __restrict__ vals, f32 iso, bool unit,
                                                const i32* __restrict__ v, u64 nf, const f32* __restrict__ left,
                                                const f32* __restrict__ right, const f32* __restrict__ col,
                                                const f32* __restrict__ bias, f32* __restrict__ c, u32 i, u64 f0) {
  __shared__ u32 sj[COUNTS_LONG_CAP];
  __shared__ f32 sa[COUNTS_LONG_CAP];
  __shared__ f32 st[COUNTS_LONG_CAP * COUNTS_LONG_FC];
  const u32 t = threadIdx.x, fc = (u32)min((u64)COUNTS_LONG_FC, nf - f0);
  const u32 s = rowptr[i], e = rowptr[i + 1];
  f32 acc[1] = {s < e ? -0.0f : 0.0f};
  for (u32 p0 = s; p0 < e; p0 += COUNTS_LONG_CAP) {
    const u32 pn = min(e - p0, (u32)COUNTS_LONG_CAP), np = pn * fc;
    for (u32 x = t; x < pn; x += COUNTS_LONG_NT) {
      sj[x] = colidx[p0 + x];
      sa[x] = vals ? vals[p0 + x] : iso;
    }
    __syncthreads();
#pragma unroll 4
    for (u32 y = t; y < np; y += COUNTS_LONG_NT) {
      const u32 x = y / fc, f = y - x * fc, j = sj[x];
      const f32 term = __fmul_rn(right ? right[j] : 1.0f, __int2float_rn(v[(u64)j * nf + f0 + f]));
      st[x * COUNTS_LONG_FC + f] = unit ? term : __fmul_rn(sa[x], term);
    }
    __syncthreads();
    if (t < fc)
#pragma unroll 8
      for (u32 x = 0; x < pn; ++x) acc[0] = __fadd_rn(acc[0], st[x * COUNTS_LONG_FC + t]);
    __syncthreads();  // before the next chunk overwrites sj, sa, st
  }
  if (t < fc) counts_put<1>(left, col, bias, c, i, nf, f0 + t, acc);
}

// Every entry: the nlong rows of `long_rows` (more than long_min entries) a
// block each for every COUNTS_LONG_FC columns, in the grid's first blocks
// (`counts_long_row`, reading V directly), the other rows in the group loop:
// packed, 16 columns a lane, rounds of 2; direct, a column a lane, rounds of
// 8 (`packed` and `stride` unused).
#define CSR_COUNTS_ENTRY(NAME, PACKED, ONES, MIN_BLOCKS)                                                         \
  extern "C" __global__ void __launch_bounds__(COUNTS_LONG_NT, MIN_BLOCKS)                                       \
      NAME(const u32* __restrict__ rowptr, const u32* __restrict__ colidx, const f32* __restrict__ vals,         \
           u64 isobits, u64 m, const i32* __restrict__ v, const u32* __restrict__ packed, u64 stride, u64 nf,     \
           u32 g, const f32* __restrict__ left, const f32* __restrict__ right, const f32* __restrict__ col,      \
           const f32* __restrict__ bias, f32* __restrict__ c, const u32* __restrict__ long_rows, u32 nlong,      \
           u32 long_min) {                                                                                       \
    const f32 iso = __uint_as_float((u32)isobits);                                                               \
    const u64 nfc = (nf + COUNTS_LONG_FC - 1) / COUNTS_LONG_FC, first = nlong * nfc;                             \
    if (blockIdx.x < first) {                                                                                    \
      counts_long_row(rowptr, colidx, vals, iso, ONES || (!vals && iso == 1.0f), v, nf, left, right, col, bias,  \
                      c, long_rows[blockIdx.x / nfc], (blockIdx.x % nfc) * COUNTS_LONG_FC);                      \
      return;                                                                                                    \
    }                                                                                                            \
    csr_counts<PACKED, PACKED ? 16 : 1, PACKED ? 2 : 8, ONES>(rowptr, colidx, vals, iso, m, v, packed, stride,    \
                                                             nf, g, left, right, col, bias, c, first,            \
                                                             nlong ? long_min : 0);                              \
  }
// The packed product of ones at four blocks an SM (64 registers: its
// gathers in flight pay more than a round's registers, 2.0 -> 1.73 ms on the
// Reddit-size graph, H200, standalone); with other values of A at three (72
// registers, no spills). The direct product: rounds of 8 at two blocks an SM
// (120 registers; above).
CSR_COUNTS_ENTRY(csr_mxm_counts, false, false, 2)
CSR_COUNTS_ENTRY(csr_mxm_counts_packed, true, false, 3)
CSR_COUNTS_ENTRY(csr_mxm_counts_packed_ones, true, true, 4)
