// cuda/bits_bspmm.cu: the type-free module `bits_bspmm`: BSpMM, a sparse
// pattern (B2SR with K x K tiles, K = 4, 8, 16, 32, or CSR) times row-major
// bits x, into i32 counts, scaled f32 or re-binarised bits, over a bit
// semiring or over x's bit planes (src/backend/cuda/bits/bspmm.rs launches them).
//
// Output (i, j) counts the neighbours k of row i with x_kj = 1 (the vertical
// popcount of the neighbours' lines), then the epilogue of bits_common.cuh.
//
// - `bits_bspmm_<out>[_planes]_k<K>`: a warp per (tile row, chunk of CH
//   u32 words of the features), BitGNN's tile product (bspmm_b2sr below):
//   lane f counts feature bit f of each word for the K rows of the tile row,
//   K x CH counters in registers. CH = 4 (2 at K = 32), or 1 when bit 1 of
//   `flags` is set (more warps for small products); bit 0: count degrees.
// - `bits_bspmm_csr_<out>_k<G>`: vertical counters (bspmm_csr_rows below):
//   G = 1..32 lanes per row, a u32 word of the features each, the
//   neighbours' words summed eight at a time by carry-save adders into
//   bit-sliced counters; rows longer than `long_min` (listed by the host) a
//   block each.
//   `bits_bspmm_csr_bits_then_<out>_k<G>` fuse the next BMM (Then below).
// - `bits_bspmm_lanes_<out>_k<G>` (and `_lanes_bits_then_<out>_k<G>`): lines
//   of one u64 word in products of few rows (latency-bound), a lane per
//   entry, G = 4..32 lanes a row, the warp's lines bit-transposed and
//   counted by popcount (bspmm_lanes below); long rows as above.
// - `bits_bspmm_csr_<out>_planes`: a warp per (row, chunk of 4 words),
//   the row's columns read 32 at a time and passed round by shuffle (`nz`,
//   one bit per line of x, skips lines where not NULL; the host passes NULL).
// `_planes` kernels add plane p's bits with weight 2^p (Σ_p 2^p A x_p) and
// dequantise (MODE_DEQ_SP); the others take the semiring's linear form, with
// popc(a_i) the row's degree (counted only where the semiring needs it).
#include "common.cuh"
#include "bits_common.cuh"

// The CH u32 words of x's line from u32 word cw0 (even; words past the line read 0).
template <int CH> __device__ __forceinline__ void load_chunk(const u64* x, u64 line, u64 S, u64 cw0, u32 (&v)[CH]) {
  const u64* l = x + line * S;
#pragma unroll
  for (int h = 0; h < CH / 2; ++h) {
    const u64 wi = cw0 / 2 + h;
    const u64 y = wi < S ? l[wi] : 0;
    v[2 * h] = (u32)y;
    v[2 * h + 1] = (u32)(y >> 32);
  }
}

// Adds line `line` of x (every plane, plane p with weight 2^p) to the counters.
template <int CH, bool PLANES>
__device__ __forceinline__ void add_line(u32 (&cnt)[CH], const Planes& xp, int nb, u64 line, u64 S, u64 cw0,
                                         int lane) {
  for (int p = 0; p < (PLANES ? nb : 1); ++p) {
    u32 v[CH];
    load_chunk<CH>(xp.p[PLANES ? p : 0], line, S, cw0, v);
#pragma unroll
    for (int c = 0; c < CH; ++c) cnt[c] += ((v[c] >> lane) & 1u) << p;
  }
}

// Writes row i's outputs of the words [cw0, cw0 + CH) from the lane's counters
// (deg: the row's degree). Counts and scaled: the ncw words holding columns;
// bits: every u32 word of the line (w32), padding included.
template <int CH, int OUT, int MODE>
__device__ __forceinline__ void write_row(const Epi& e, void* out, u64 i, const u32 (&cnt)[CH], u32 deg, u64 cw0,
                                          u64 n, u64 w32, int lane) {
  const u64 ncw = (n + 31) / 32;
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const u64 cw = cw0 + c, j = cw * 32 + lane;
    if (OUT == OUT_COUNTS) {
      if (cw < ncw && j < n) ((i32*)out)[i * n + j] = count_value<MODE>(e, cnt[c], deg, 0);
    } else if (OUT == OUT_SCALED) {
      if (cw < ncw && j < n) ((f32*)out)[i * n + j] = scaled(e, pre_value<MODE>(e, cnt[c], deg, 0, j), i, j);
    } else if (cw < w32) {  // warp-uniform
      const bool b = j < n && over(e, scaled(e, pre_value<MODE>(e, cnt[c], deg, 0, j), i, j), j);
      const u32 word = __ballot_sync(FULL_MASK, b);
      if (lane == 0) ((u32*)out)[i * w32 + cw] = word;
    }
  }
}

// Feature chunks of a product: CH u32 words each, over the words written.
template <int CH, int OUT> __device__ __forceinline__ u64 chunks(u64 n, u64 w32) {
  return ((OUT == OUT_BITS ? w32 : (n + 31) / 32) + CH - 1) / CH;
}

// The CH u32 words of x's line from u32 word cw0 (any parity; words past the line read 0).
template <int CH> __device__ __forceinline__ void load_words(const u64* x, u64 line, u64 S, u64 cw0, u32 (&v)[CH]) {
  const u64* l = x + line * S;
  if (CH == 1) {
    const u64 wi = cw0 / 2;
    const u64 y = wi < S ? l[wi] : 0;
    v[0] = (cw0 & 1) ? (u32)(y >> 32) : (u32)y;
  } else {
    load_chunk<CH>(x, line, S, cw0, v);
  }
}

// A warp per (tile row, chunk of CH u32 feature words), BitGNN's scheme: per
// tile, lane c loads the CH words of x's line base + c (only where the tile's
// column c has an entry), a warp bit-transpose turns them into lane f holding
// feature bit f of each word over the tile's K lines, and each lane adds
// popc(tile row r & that column) to row r's counter: K x CH counters in
// registers, no per-bit loops. The tile's columns come 32 at a time and go
// round by shuffle; every line of a tile's block below `lines` (x's rows) is
// loaded, one tile ahead of the sums (no dependent loads on the way; x mostly
// sits in L2). The zero-line prepass of before cost a launch, an allocation
// and a read of all of x per call and is gone.
template <int K, int CH, int OUT, bool PLANES>
__device__ __forceinline__ void bspmm_b2sr(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                           const u8* __restrict__ tiles, u32 tile_rows, u64 m, const Planes& xp,
                                           int nb, u64 n, u64 S, u64 lines, void* out, int need_deg, const Epi& e) {
  const int MODE = PLANES ? MODE_DEQ_SP : MODE_LIN;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  const u64 w32 = 2 * S, nch = chunks<CH, OUT>(n, w32);
  for (u64 task = warp; task < (u64)tile_rows * nch; task += nwarps) {
    const u64 fc = task % nch, cw0 = fc * CH;
    const u32 tr = (u32)(task / nch);
    u32 cnt[K][CH];
#pragma unroll
    for (int r = 0; r < K; ++r)
#pragma unroll
      for (int c = 0; c < CH; ++c) cnt[r][c] = 0;
    u32 deg = 0;  // lane r < K: row r's degree
    const u32 tb = rowptr[tr], te = rowptr[tr + 1];
    for (u32 t0 = tb; t0 < te; t0 += 32) {
      const u32 nt = min(32u, te - t0);
      const u32 mycol = (u32)lane < nt ? colidx[t0 + lane] : 0u;
      // tile q's row (lane r < K) and plane 0's words of its line base + lane,
      // loaded one tile ahead of the sums
      u32 row_n, v_n[CH];
      {
        const u64 line = (u64)__shfl_sync(FULL_MASK, mycol, 0) * K + lane;
        row_n = lane < K ? tile_row<K>(tiles, t0, lane) : 0u;
#pragma unroll
        for (int c = 0; c < CH; ++c) v_n[c] = 0;
        if (lane < K && line < lines) load_words<CH>(xp.p[0], line, S, cw0, v_n);
      }
      for (u32 q = 0; q < nt; ++q) {
        const u32 row = row_n;
        u32 v0[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) v0[c] = v_n[c];
        const u64 base = (u64)__shfl_sync(FULL_MASK, mycol, q) * K;
        if (q + 1 < nt) {  // warp-uniform
          const u64 line = (u64)__shfl_sync(FULL_MASK, mycol, q + 1) * K + lane;
          row_n = lane < K ? tile_row<K>(tiles, t0 + q + 1, lane) : 0u;
#pragma unroll
          for (int c = 0; c < CH; ++c) v_n[c] = 0;
          if (lane < K && line < lines) load_words<CH>(xp.p[0], line, S, cw0, v_n);
        }
        deg += __popc(row);
        for (int p = 0; p < (PLANES ? nb : 1); ++p) {
          u32 v[CH];
#pragma unroll
          for (int c = 0; c < CH; ++c) v[c] = p == 0 ? v0[c] : 0u;
          if (p > 0 && lane < K && base + lane < lines) load_words<CH>(xp.p[PLANES ? p : 0], base + lane, S, cw0, v);
#pragma unroll
          for (int c = 0; c < CH; ++c) v[c] = warp_transpose32(v[c]);
#pragma unroll
          for (int r = 0; r < K; ++r) {
            const u32 rr = __shfl_sync(FULL_MASK, row, r);
#pragma unroll
            for (int c = 0; c < CH; ++c) cnt[r][c] += (u32)__popc(rr & v[c]) << p;
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const u64 i = (u64)tr * K + r;
      const u32 d = need_deg ? __shfl_sync(FULL_MASK, deg, r) : 0u;
      if (i < m) write_row<CH, OUT, MODE>(e, out, i, cnt[r], d, cw0, n, w32, lane);
    }
  }
}

// cnt[r] += part with r known only at run time (warp-uniform): a switch, so
// the counters stay in registers (an index at run time would move them to
// local memory). Visiting only a tile's rows with entries this way, rather
// than every row of every tile, measured 1.3-1.5x faster at K = 16 and 2x at
// K = 32 on random graphs of 232,965 vertices, 9.8M and 48M edges (1.6-3.4
// entries a tile), 128 features; 11-18% slower at K = 4, which keeps the
// row-by-row loop (a standalone copy of this kernel; the earlier form timed
// on an H100, this one on an H200, with the CSR kernel equal on both).
#define BITS_ROW_CASE(R)                                            \
  case R:                                                           \
    if (R < K) {                                                    \
      _Pragma("unroll") for (int c = 0; c < CH; ++c) cnt[R < K ? R : 0][c] += part[c]; \
    }                                                               \
    break;
#define BITS_ROW_CASES8(R)                                                                                        \
  BITS_ROW_CASE(R) BITS_ROW_CASE(R + 1) BITS_ROW_CASE(R + 2) BITS_ROW_CASE(R + 3) BITS_ROW_CASE(R + 4)           \
      BITS_ROW_CASE(R + 5) BITS_ROW_CASE(R + 6) BITS_ROW_CASE(R + 7)
template <int K, int CH>
__device__ __forceinline__ void add_to_row(u32 (&cnt)[K][CH], int r, const u32 (&part)[CH]) {
  switch (r) {
    BITS_ROW_CASES8(0)
    BITS_ROW_CASES8(8)
    BITS_ROW_CASES8(16)
    BITS_ROW_CASES8(24)
    default: break;
  }
}
#undef BITS_ROW_CASES8
#undef BITS_ROW_CASE

// The kernel of before (per set bit of a tile, a line of x), kept for bit
// planes with nb > 1, where it measured faster than the tile product (one
// line load serves every plane there; the tile product transposes per plane).
template <int K, int OUT, bool PLANES>
__device__ __forceinline__ void bspmm_b2sr_lines(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                           const u8* __restrict__ tiles, u32 tile_rows, u64 m, const Planes& xp,
                                           int nb, u64 n, u64 S, const u32* nz, void* out, int need_deg,
                                           const Epi& e) {
  const int CH = K == 32 ? 2 : 4;
  const int MODE = PLANES ? MODE_DEQ_SP : MODE_LIN;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  const u64 w32 = 2 * S, nch = chunks<CH, OUT>(n, w32);
  for (u64 task = warp; task < (u64)tile_rows * nch; task += nwarps) {
    const u64 fc = task % nch, cw0 = fc * CH;
    const u32 tr = (u32)(task / nch);
    u32 cnt[K][CH];
#pragma unroll
    for (int r = 0; r < K; ++r)
#pragma unroll
      for (int c = 0; c < CH; ++c) cnt[r][c] = 0;
    const u32 tb = rowptr[tr], te = rowptr[tr + 1];
    for (u32 t = tb; t < te; ++t) {
      const u64 base = (u64)colidx[t] * K;
      const u32 keep = nz ? bits_chunk<K>(nz, base) : FULL_MASK;
      // lane r < K: row r of the tile, less the zero lines
      const u32 mine = lane < K ? tile_row<K>(tiles, t, lane) & keep : 0u;
      if (K == 4) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
          u32 bits = __shfl_sync(FULL_MASK, mine, r);
          while (bits) {
            const int c = __ffs(bits) - 1;
            bits &= bits - 1;
            add_line<CH, PLANES>(cnt[r], xp, nb, base + c, S, cw0, lane);
          }
        }
        continue;
      }
      // only the rows with entries, each summed apart and added to its counters
      u32 rows = __ballot_sync(FULL_MASK, mine != 0);
      while (rows) {
        const int r = __ffs(rows) - 1;
        rows &= rows - 1;
        u32 bits = __shfl_sync(FULL_MASK, mine, r);
        u32 part[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) part[c] = 0;
        while (bits) {
          const int c = __ffs(bits) - 1;
          bits &= bits - 1;
          add_line<CH, PLANES>(part, xp, nb, base + c, S, cw0, lane);
        }
        add_to_row<K, CH>(cnt, r, part);
      }
    }
    // lane r < K: row r's degree (every stored entry, skipped lines too)
    u32 deg = 0;
    if (need_deg && lane < K)
      for (u32 t = tb; t < te; ++t) deg += __popc(tile_row<K>(tiles, t, lane));
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const u64 i = (u64)tr * K + r;
      const u32 d = __shfl_sync(FULL_MASK, deg, r);
      if (i < m) write_row<CH, OUT, MODE>(e, out, i, cnt[r], d, cw0, n, w32, lane);
    }
  }
}

template <int OUT, bool PLANES>
__device__ __forceinline__ void bspmm_csr(const u32* __restrict__ rowptr, const u32* __restrict__ colidx, u64 m,
                                          const Planes& xp, int nb, u64 n, u64 S, const u32* nz, void* out,
                                          const Epi& e) {
  const int CH = 4;
  const int MODE = PLANES ? MODE_DEQ_SP : MODE_LIN;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  const u64 w32 = 2 * S, nch = chunks<CH, OUT>(n, w32);
  for (u64 task = warp; task < m * nch; task += nwarps) {
    const u64 fc = task % nch, cw0 = fc * CH, i = task / nch;
    u32 cnt[CH] = {0, 0, 0, 0};
    const u32 rb = rowptr[i], re = rowptr[i + 1];
    for (u32 e0 = rb; e0 < re; e0 += 32) {
      const bool in = e0 + lane < re;
      const u32 col = in ? colidx[e0 + lane] : 0u;
      u32 todo = __ballot_sync(FULL_MASK, in && (nz == 0 || bit_get(nz, col)));
      while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        add_line<CH, PLANES>(cnt, xp, nb, __shfl_sync(FULL_MASK, col, src), S, cw0, lane);
      }
    }
    write_row<CH, OUT, MODE>(e, out, i, cnt, re - rb, cw0, n, w32, lane);
  }
}

// ---- CSR by vertical counters ---------------------------------------------------------------

// Bit-sliced counters of one u32 word of features (bit f = feature f) over
// the lines added so far: feature f has counted
//   ones_f + 2 twos_f + 4 fours_f + 8 byte_{f / 8}(c8[f % 8]).
// Lines come eight at a time through a Harley-Seal tree of carry-save adders
// (7 adders, 35 logic ops), whose weight-8 carry goes into byte counters
// (8 packed adds): about 6 ops a line where a bit loop takes 64. A byte holds
// at most 255, so at most `VC_BATCHES` batches go in before `counts` is read.
#define VC_BATCHES 255u
struct VCount {
  u32 ones, twos, fours;
  u32 c8[8];
};

__device__ __forceinline__ void vc_zero(VCount& v) {
  v.ones = v.twos = v.fours = 0;
#pragma unroll
  for (int s = 0; s < 8; ++s) v.c8[s] = 0;
}

// (h, l) = the two-bit sum of a + b + c, bit by bit.
__device__ __forceinline__ void csa(u32& h, u32& l, u32 a, u32 b, u32 c) {
  const u32 u = a ^ b;
  h = (a & b) | (u & c);
  l = u ^ c;
}

__device__ __forceinline__ void vc_add8(VCount& v, const u32 (&w)[8]) {
  u32 twos_a, twos_b, fours_a, fours_b, eights;
  csa(twos_a, v.ones, v.ones, w[0], w[1]);
  csa(twos_b, v.ones, v.ones, w[2], w[3]);
  csa(fours_a, v.twos, v.twos, twos_a, twos_b);
  csa(twos_a, v.ones, v.ones, w[4], w[5]);
  csa(twos_b, v.ones, v.ones, w[6], w[7]);
  csa(fours_b, v.twos, v.twos, twos_a, twos_b);
  csa(eights, v.fours, v.fours, fours_a, fours_b);
#pragma unroll
  for (int s = 0; s < 8; ++s) v.c8[s] += (eights >> s) & 0x01010101u;
}

// Feature f's count.
__device__ __forceinline__ u32 vc_count(const VCount& v, int f) {
  return ((v.ones >> f) & 1u) + 2u * ((v.twos >> f) & 1u) + 4u * ((v.fours >> f) & 1u) +
         8u * ((v.c8[f & 7] >> (8 * (f >> 3))) & 0xffu);
}

// Adds the u32 word `cw` of the lines colidx[p], colidx[p + step], ... below
// `end`, at most `batches` batches of eight (x32: x as u32 words, w32 a line;
// `cw_ok`: the word is inside the line, else the lane adds zeros). Returns
// the position after the last line added.
__device__ __forceinline__ u64 vc_run(VCount& v, const u32* __restrict__ colidx, const u32* __restrict__ x32,
                                      u64 w32, u64 cw, bool cw_ok, u64 p, u64 step, u64 end, u32 batches) {
  for (u32 b = 0; b < batches && p < end; ++b, p += 8 * step) {
    u32 col[8], w[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const u64 idx = p + q * step;
      col[q] = idx < end ? colidx[idx] : 0u;
    }
#pragma unroll
    for (int q = 0; q < 8; ++q) w[q] = (cw_ok && p + q * step < end) ? x32[(u64)col[q] * w32 + cw] : 0u;
    vc_add8(v, w);
  }
  return p;
}

// Writes output word `word` of row i (warp-uniform; every lane calls), lane
// L holding the count of feature word * 32 + L; deg: the row's degree.
// Returns the word written to a bits output (every lane), else 0.
template <int OUT>
__device__ __forceinline__ u32 emit_word(const Epi& e, void* out, u64 i, u64 word, u32 c, u32 deg, u64 n, u64 w32,
                                          int lane) {
  const u64 j = word * 32 + lane;
  if (OUT == OUT_COUNTS) {
    if (j < n) ((i32*)out)[i * n + j] = count_value<MODE_LIN>(e, c, deg, 0);
  } else if (OUT == OUT_SCALED) {
    if (j < n) ((f32*)out)[i * n + j] = scaled(e, pre_value<MODE_LIN>(e, c, deg, 0, j), i, j);
  } else {
    const bool b = j < n && over(e, scaled(e, pre_value<MODE_LIN>(e, c, deg, 0, j), i, j), j);
    const u32 bits = __ballot_sync(FULL_MASK, b);
    if (lane == 0) ((u32*)out)[i * w32 + word] = bits;
    return bits;
  }
  return 0;
}

// The second product of the fused BSpMM-then-BMM (`bits_bspmm_csr_bits_then_*`):
// the BSpMM's bit line h_i times w's n columns (column-major, ws u64 words a
// column), written as counts or scaled f32 (OUT2) by the epilogue e: the terms
// bits_bmm_popc takes (popc(h_i & w_j), popc(h_i), popc(w_j)), so the same values.
struct Then {
  const u64* w;
  u64 n, ws;
  void* out;
  Epi e;
};
#define NO_THEN -1  // OUT2 of the plain kernels

template <int OUT2>
__device__ __forceinline__ void then_emit(const Then& th, u64 i, u64 j, u32 c, u32 pa, u32 pw) {
  if (OUT2 == OUT_COUNTS)
    ((i32*)th.out)[i * th.n + j] = count_value<MODE_LIN>(th.e, c, pa, pw);
  else
    ((f32*)th.out)[i * th.n + j] = scaled(th.e, pre_value<MODE_LIN>(th.e, c, pa, pw, j), i, j);
}

// The sum of v over the thread's group of G lanes (every lane of the warp calls).
template <int G> __device__ __forceinline__ u32 group_sum(u32 v) {
#pragma unroll
  for (int s = 1; s < G; s *= 2) v += __shfl_xor_sync(FULL_MASK, v, s);
  return v;
}

// A short row's second product (every lane of the warp calls): lane gl of
// the group holds word gl of h_i (0 past its `words` words); the words go
// through the warp's 32 slots of shared memory `hw`, and lane gl takes the
// columns j = gl mod G, where `write`.
template <int G, int OUT2>
__device__ __forceinline__ void then_short(const Then& th, u32* hw, u32 h, u64 words, u64 i, bool write, int gl) {
  const int lane = threadIdx.x & 31;
  const u32* w32 = (const u32*)th.w;
  const u64 ww = 2 * th.ws;  // u32 words of a column of w
  hw[lane] = h;
  const u32 pa = group_sum<G>(__popc(h));  // (a warp-wide step: also orders the stores above)
  __syncwarp();
  const u32* row = hw + (lane - gl);
  if (write)
    for (u32 j = gl; j < (u32)th.n; j += G) {  // n <= 16 (the host's bound)
      u32 c = 0, pw = 0;
      for (u32 t = 0; t < (u32)words; ++t) {
        const u32 wv = t < ww ? w32[(u64)j * ww + t] : 0u;
        c += __popc(row[t] & wv);
        pw += __popc(wv);
      }
      then_emit<OUT2>(th, i, j, c, pa, pw);
    }
  __syncwarp();  // hw is read before the warp's next task writes it
}

// A long row's second product, by one warp: h_i's `words` words in h, lane j
// a column.
template <int OUT2>
__device__ __forceinline__ void then_long(const Then& th, const u32* h, u64 words, u64 i, int lane) {
  const u32* w32 = (const u32*)th.w;
  for (u64 j = lane; j < th.n; j += 32) {
    u32 c = 0, pa = 0, pw = 0;
    for (u64 t = 0; t < words; ++t) {
      const u32 wv = t < 2 * th.ws ? w32[j * 2 * th.ws + t] : 0u;
      c += __popc(h[t] & wv);
      pa += __popc(h[t]);
      pw += __popc(wv);
    }
    then_emit<OUT2>(th, i, j, c, pa, pw);
  }
}

#define ROWS_BLOCK 256

// CSR x bits by vertical counters, for a block of ROWS_BLOCK threads. Two
// kinds of block task, each over a chunk of G u32 words of the output lines:
// - (R = ROWS_BLOCK / G consecutive rows): group g of G lanes takes row g,
//   lane l of it word l of the chunk, alone (the lines' words in L2, eight
//   gathers in flight a lane). Rows with more than `long_min` (<= 8
//   VC_BATCHES, the host's bound) entries are skipped: they are listed in
//   `long_rows`. Bits are written by each lane as its word; counts and f32
//   values staged in shared memory and written a (row, word) at a time by
//   the whole warp, coalesced.
// - (one of the `nlong` long rows): every group takes every R-th entry, the
//   counts meet in shared memory (atomics, every VC_BATCHES batches and at
//   the end), warp 0 writes. The long rows run beside the others, a block
//   each, rather than after the rows around them.
// With OUT2 (OUT bits, the whole line in one chunk: the host's bound), each
// row's bits then go through the second product `th` (then_short, then_long).
// Integer sums: the order of the adds does not change a bit of the result.
template <int G, int OUT, int OUT2 = NO_THEN>
__device__ __forceinline__ void bspmm_csr_rows(const u32* __restrict__ rowptr, const u32* __restrict__ colidx, u64 m,
                                               const u64* __restrict__ x, u64 n, u64 S, void* out, u32 long_min,
                                               const u32* __restrict__ long_rows, u32 nlong, const Epi& e,
                                               const Then& th = Then{}) {
  const int R = ROWS_BLOCK / G;
  __shared__ u32 stage[ROWS_BLOCK / 32][32 * 33];  // per warp: lane t's 32 counts at [33 t, 33 t + 32)
  __shared__ u32 sum[G * 32];                      // a long row's counts, word-major
  __shared__ u32 hrow[G];                          // a long row's output words (OUT2)
  __shared__ u32 hwords[OUT2 != NO_THEN ? ROWS_BLOCK : 1];  // the short rows' output words (OUT2)
  const int tid = threadIdx.x, lane = tid & 31, wib = tid / 32;
  const int grp = tid / G, gl = tid % G;
  const u32* x32 = (const u32*)x;
  const u64 w32 = 2 * S, words = OUT == OUT_BITS ? w32 : (n + 31) / 32;
  const u64 nwc = (words + G - 1) / G, packs = (m + R - 1) / R;
  const u64 short_tasks = packs * nwc, tasks = short_tasks + (u64)nlong * nwc;
  for (u64 task = blockIdx.x; task < tasks; task += gridDim.x) {  // block-uniform
    VCount v;
    if (task < short_tasks) {
      const u64 row0 = (task / nwc) * R, cw0 = (task % nwc) * G, cw = cw0 + gl;
      const bool cw_ok = cw < words;
      const u64 i = row0 + grp;
      u32 rb = 0, re = 0;
      if (i < m) {
        rb = rowptr[i];
        re = rowptr[i + 1];
      }
      const u32 deg = re - rb;
      const bool mine = i < m && deg <= long_min;  // this group writes row i
      vc_zero(v);
      if (mine) vc_run(v, colidx, x32, w32, cw, cw_ok, rb, 1, re, VC_BATCHES);
      if (OUT == OUT_BITS) {  // the lane's own word, as written
        u32 bits = 0;
        if (mine && cw_ok) {
#pragma unroll
          for (int f = 0; f < 32; ++f) {
            const u64 j = cw * 32 + f;
            if (j < n && over(e, scaled(e, pre_value<MODE_LIN>(e, vc_count(v, f), deg, 0, j), i, j), j))
              bits |= 1u << f;
          }
          ((u32*)out)[i * w32 + cw] = bits;
        }
        if constexpr (OUT2 != NO_THEN) then_short<G, OUT2>(th, hwords + 32 * wib, bits, words, i, mine, gl);
      } else {  // staged, then written a (row, word) at a time by the warp
        u32* st = stage[wib];
        __syncwarp();  // the warp's reads of the last task's stage are done
#pragma unroll
        for (int f = 0; f < 32; ++f) st[33 * lane + f] = vc_count(v, f);
        __syncwarp();
        const u32 mine_mask = __ballot_sync(FULL_MASK, mine);
#pragma unroll 1
        for (int t = 0; t < 32; ++t) {
          const u64 ti = row0 + (u64)wib * (32 / G) + t / G, tw = cw0 + t % G;
          const u32 tdeg = __shfl_sync(FULL_MASK, deg, t);
          if (((mine_mask >> t) & 1u) && tw < words)  // warp-uniform
            emit_word<OUT>(e, out, ti, tw, st[33 * t + lane], tdeg, n, w32, lane);
        }
      }
    } else {
      const u64 q = task - short_tasks, cw0 = (q % nwc) * G, cw = cw0 + gl;
      const bool cw_ok = cw < words;
      const u32 li = long_rows[q / nwc];
      const u32 lb = rowptr[li], le = rowptr[li + 1];
      for (int k = tid; k < G * 32; k += ROWS_BLOCK) sum[k] = 0;
      __syncthreads();
      for (u64 p = lb + grp; p < le;) {
        vc_zero(v);
        p = vc_run(v, colidx, x32, w32, cw, cw_ok, p, R, le, VC_BATCHES);
        if (cw_ok)
#pragma unroll
          for (int f = 0; f < 32; ++f) {
            const u32 c = vc_count(v, f);
            if (c) atomicAdd(&sum[gl * 32 + f], c);
          }
      }
      __syncthreads();
      if (wib == 0) {
#pragma unroll 1
        for (int t = 0; t < G; ++t)
          if (cw0 + t < words) {
            const u32 word = emit_word<OUT>(e, out, li, cw0 + t, sum[t * 32 + lane], le - lb, n, w32, lane);
            if (OUT2 != NO_THEN && lane == 0) hrow[t] = word;
          }
        if constexpr (OUT2 != NO_THEN) {
          __syncwarp();
          then_long<OUT2>(th, hrow, words, li, lane);
        }
      }
      __syncthreads();  // sum (and hrow) are read before the next long task writes them
    }
  }
}

// ---- CSR by lanes: lines of one u64 word ---------------------------------------------------

#define LANES_BLOCK 256

// Adds to cnt[r][h] the number of lines of group r (G lanes each, one line a
// lane) with bit h * 32 + lane set: the warp's 32 x 64 bits transposed (two
// 32 x 32 transposes), lane f then holds bit f (lo) and bit f + 32 (hi) of
// every lane's line, and group r's lanes are bits [r G, r G + G).
template <int G, bool HI>
__device__ __forceinline__ void lanes_count(u64 line, u32 (&cnt)[32 / G][2]) {
  constexpr u32 M = G == 32 ? FULL_MASK : (1u << G) - 1;
  const u32 lo = warp_transpose32((u32)line);
  const u32 hi = HI ? warp_transpose32((u32)(line >> 32)) : 0u;
#pragma unroll
  for (int r = 0; r < 32 / G; ++r) {
    cnt[r][0] += __popc((lo >> (r * G)) & M);
    if (HI) cnt[r][1] += __popc((hi >> (r * G)) & M);
  }
}

// Output j of row i from its count c (deg: the row's entries); every lane
// calls. Bits: the warp's ballot of the output bits (32 columns from j - lane).
template <int OUT>
__device__ __forceinline__ u32 lanes_put(const Epi& e, void* out, u64 i, u64 j, u32 c, u32 deg, u64 n) {
  if (OUT == OUT_COUNTS) {
    if (j < n) ((i32*)out)[i * n + j] = count_value<MODE_LIN>(e, c, deg, 0);
    return 0;
  } else if (OUT == OUT_SCALED) {
    if (j < n) ((f32*)out)[i * n + j] = scaled(e, pre_value<MODE_LIN>(e, c, deg, 0, j), i, j);
    return 0;
  }
  return __ballot_sync(FULL_MASK, j < n && over(e, scaled(e, pre_value<MODE_LIN>(e, c, deg, 0, j), i, j), j));
}

// Row i's outputs from its counts (lane f: bits f and f + 32), deg its
// entries; every lane calls. OUT2: then the second product of the line by
// w's columns (one u64 word each: the host's bound), lane j column j.
template <int OUT, int OUT2>
__device__ __forceinline__ void lanes_emit(const Epi& e, void* out, u64 i, u32 c0, u32 c1, u32 deg, u64 n,
                                           u64 S, const Then& th, int lane) {
  const u32 lo = lanes_put<OUT>(e, out, i, lane, c0, deg, n);
  const u32 hi = n > 32 ? lanes_put<OUT>(e, out, i, 32 + lane, c1, deg, n) : 0u;
  if (OUT == OUT_BITS) {
    const u64 line = (u64)lo | ((u64)hi << 32);
    if (lane == 0) ((u64*)out)[i * S] = line;
    if constexpr (OUT2 != NO_THEN) {
      if ((u64)lane < th.n) {
        const u64 wj = th.w[(u64)lane * th.ws];
        then_emit<OUT2>(th, i, lane, __popcll(line & wj), __popcll(line), __popcll(wj));
      }
    }
  }
}

// CSR x bits for lines of one u64 word (at most 64 bits, x and a bits
// output), a lane an entry: a group of G lanes takes a row (32 / G rows a
// warp), G of its entries a step, the next step's column and line loads in
// flight while the warp counts this step's lines (lanes_count). Rows with
// more than `long_min` entries (`long_rows`) a block each: its warps take
// every eighth run of 32 entries and their counts meet in shared memory.
// Warp 0 of the block, or the row's warp, then writes the row (lanes_emit).
// Integer sums: the order of the adds does not change a bit of the result.
template <int G, int OUT, int OUT2 = NO_THEN>
__device__ __forceinline__ void bspmm_lanes(const u32* __restrict__ rowptr, const u32* __restrict__ colidx, u64 m,
                                            const u64* __restrict__ x, u64 n, u64 S, void* out, u32 long_min,
                                            const u32* __restrict__ long_rows, u32 nlong, const Epi& e,
                                            const Then& th = Then{}) {
  constexpr int R = 32 / G, WARPS = LANES_BLOCK / 32;
  __shared__ u32 lsum[64];
  const int lane = threadIdx.x & 31, wib = threadIdx.x / 32, grp = lane / G, gl = lane % G;
  const u64 short_tasks = (m + WARPS * R - 1) / (WARPS * R), tasks = short_tasks + nlong;
  const bool hi = n > 32;
  for (u64 task = blockIdx.x; task < tasks; task += gridDim.x) {  // block-uniform
    if (task < short_tasks) {
      const u64 row0 = (task * WARPS + wib) * R, i = row0 + grp;
      u32 rb = 0, re = 0;
      if (i < m) {
        rb = rowptr[i];
        re = rowptr[i + 1];
      }
      const bool mine = i < m && re - rb <= long_min;
      const u32 end = mine ? re : rb;
      const u32 steps = __reduce_max_sync(FULL_MASK, (end - rb + G - 1) / G);
      u32 cnt[R][2];
#pragma unroll
      for (int r = 0; r < R; ++r) cnt[r][0] = cnt[r][1] = 0;
      u32 p = rb + gl;
      u64 line = 0;
      if (p < end) line = x[(u64)colidx[p] * S];
      for (u32 s = 0; s < steps; ++s) {
        const u32 q = p + G;
        u64 next = 0;
        if (q < end) next = x[(u64)colidx[q] * S];
        if (hi)
          lanes_count<G, true>(line, cnt);
        else
          lanes_count<G, false>(line, cnt);
        line = next;
        p = q;
      }
      const u32 mine_mask = __ballot_sync(FULL_MASK, mine);
      // row by row, the counters moved down a row each time (constant
      // indices: an index known only at run time would put them in local memory)
#pragma unroll 1
      for (int r = 0; r < R; ++r) {
        const u32 deg = __shfl_sync(FULL_MASK, re - rb, r * G);
        if ((mine_mask >> (r * G)) & 1u) lanes_emit<OUT, OUT2>(e, out, row0 + r, cnt[0][0], cnt[0][1], deg, n, S, th, lane);
#pragma unroll
        for (int k = 0; k + 1 < R; ++k) {
          cnt[k][0] = cnt[k + 1][0];
          cnt[k][1] = cnt[k + 1][1];
        }
      }
    } else {
      const u32 li = long_rows[task - short_tasks];
      const u32 lb = rowptr[li], le = rowptr[li + 1];
      if (threadIdx.x < 64) lsum[threadIdx.x] = 0;
      __syncthreads();
      u32 cnt[1][2] = {{0, 0}};
      u32 p = lb + wib * 32 + lane;
      u64 line = 0;
      if (p < le) line = x[(u64)colidx[p] * S];
      for (u32 s = lb + wib * 32; s < le; s += WARPS * 32) {  // warp-uniform
        const u32 q = p + WARPS * 32;
        u64 next = 0;
        if (q < le) next = x[(u64)colidx[q] * S];
        lanes_count<32, true>(line, cnt);
        line = next;
        p = q;
      }
      atomicAdd(&lsum[lane], cnt[0][0]);
      atomicAdd(&lsum[32 + lane], cnt[0][1]);
      __syncthreads();
      if (wib == 0) lanes_emit<OUT, OUT2>(e, out, li, lsum[lane], lsum[32 + lane], le - lb, n, S, th, lane);
      __syncthreads();  // lsum is read before the next long task zeroes it
    }
  }
}

// ---- entry points ---------------------------------------------------------------------------

#define SP_TAIL PLANES_PARAM(xp), int nb, u64 n, u64 S, const u32 *nz, void *out, int need_deg, EPI_PARAMS

#define SP_TILED_TAIL PLANES_PARAM(xp), int nb, u64 n, u64 S, u64 lines, void *out, int flags, EPI_PARAMS

#define SP_ENTRY(K, NAME, OUT, PLANES)                                                                       \
  extern "C" __global__ void CAT(CAT(CAT(bits_bspmm, NAME), _k), K)(                                         \
      const u32* rowptr, const u32* colidx, const u8* tiles, u32 tile_rows, u64 m, SP_TILED_TAIL) {                \
    if (PLANES && nb > 1)                                                                                    \
      bspmm_b2sr_lines<K, OUT, PLANES>(rowptr, colidx, tiles, tile_rows, m, xp, nb, n, S, nullptr, out, flags & 1, \
                                       EPI_MAKE);                                                            \
    else if (flags & 2)                                                                                      \
      bspmm_b2sr<K, 1, OUT, PLANES>(rowptr, colidx, tiles, tile_rows, m, xp, nb, n, S, lines, out, flags & 1, EPI_MAKE); \
    else                                                                                                     \
      bspmm_b2sr<K, K == 32 ? 2 : 4, OUT, PLANES>(rowptr, colidx, tiles, tile_rows, m, xp, nb, n, S, lines, out, flags & 1, \
                                                  EPI_MAKE);                                                 \
  }
#define SP_ENTRIES(K)                          \
  SP_ENTRY(K, _counts, OUT_COUNTS, false)      \
  SP_ENTRY(K, _scaled, OUT_SCALED, false)      \
  SP_ENTRY(K, _bits, OUT_BITS, false)          \
  SP_ENTRY(K, _counts_planes, OUT_COUNTS, true) \
  SP_ENTRY(K, _scaled_planes, OUT_SCALED, true) \
  SP_ENTRY(K, _bits_planes, OUT_BITS, true)

SP_ENTRIES(4)
SP_ENTRIES(8)
SP_ENTRIES(16)
SP_ENTRIES(32)

// The CSR planes entries take the same parameters (tiles, tile_rows and need_deg unused).
#define CSR_ENTRY(NAME, OUT, PLANES)                                                                    \
  extern "C" __global__ void CAT(bits_bspmm_csr, NAME)(const u32* rowptr, const u32* colidx, const u8* tiles, \
                                                       u32 tile_rows, u64 m, SP_TAIL) {                 \
    bspmm_csr<OUT, PLANES>(rowptr, colidx, m, xp, nb, n, S, nz, out, EPI_MAKE);             \
  }

CSR_ENTRY(_counts_planes, OUT_COUNTS, true)
CSR_ENTRY(_scaled_planes, OUT_SCALED, true)
CSR_ENTRY(_bits_planes, OUT_BITS, true)

// CSR by vertical counters, G lanes a row (`_k<G>`). At least 4 blocks an
// SM: 64 registers a thread (left to itself ptxas sizes the counts and f32
// kernels for the blocks their shared memory allows, and spills).
#define ROWS_ENTRY(G, NAME, OUT)                                                                          \
  extern "C" __global__ void __launch_bounds__(ROWS_BLOCK, 4) CAT(CAT(CAT(bits_bspmm_csr, NAME), _k), G)(       \
      const u32* rowptr, const u32* colidx, u64 m, const u64* x, u64 n, u64 S, void* out, u32 long_min,  \
      const u32* long_rows, u32 nlong, EPI_PARAMS) {                                                      \
    bspmm_csr_rows<G, OUT>(rowptr, colidx, m, x, n, S, out, long_min, long_rows, nlong, EPI_MAKE);        \
  }
#define ROWS_ENTRIES(G)                 \
  ROWS_ENTRY(G, _counts, OUT_COUNTS)    \
  ROWS_ENTRY(G, _scaled, OUT_SCALED)    \
  ROWS_ENTRY(G, _bits, OUT_BITS)

ROWS_ENTRIES(1)
ROWS_ENTRIES(2)
ROWS_ENTRIES(4)
ROWS_ENTRIES(8)
ROWS_ENTRIES(16)
ROWS_ENTRIES(32)

// The fused BSpMM-then-BMM (`_then_<out2>_k<G>`): bits out, then those bits
// times w (`t_*`: the second product's operand, shape and epilogue).
#define THEN_ENTRY(G, NAME, OUT2)                                                                          \
  extern "C" __global__ void __launch_bounds__(ROWS_BLOCK, 4) CAT(CAT(CAT(bits_bspmm_csr_bits_then, NAME), _k), G)( \
      const u32* rowptr, const u32* colidx, u64 m, const u64* x, u64 n, u64 S, void* out, u32 long_min,  \
      const u32* long_rows, u32 nlong, EPI_PARAMS, const u64* t_w, u64 t_n, u64 t_ws, void* t_out,       \
      EPI_PARAMS_AS(t)) {                                                                                 \
    bspmm_csr_rows<G, OUT_BITS, OUT2>(rowptr, colidx, m, x, n, S, out, long_min, long_rows, nlong, EPI_MAKE, \
                                      Then{t_w, t_n, t_ws, t_out, EPI_MAKE_AS(t)});                       \
  }
#define THEN_ENTRIES(G)                   \
  THEN_ENTRY(G, _counts, OUT_COUNTS)      \
  THEN_ENTRY(G, _scaled, OUT_SCALED)

THEN_ENTRIES(1)
THEN_ENTRIES(2)
THEN_ENTRIES(4)
THEN_ENTRIES(8)
THEN_ENTRIES(16)
THEN_ENTRIES(32)

// CSR by lanes (`_lanes_<out>_k<G>`, `_lanes_bits_then_<out2>_k<G>`), G
// lanes a row: the vertical counters' parameters (S = 1, the host's bound).
#define LANES_ENTRY(G, NAME, OUT)                                                                           \
  extern "C" __global__ void __launch_bounds__(LANES_BLOCK, 4) CAT(CAT(CAT(bits_bspmm_lanes, NAME), _k), G)( \
      const u32* rowptr, const u32* colidx, u64 m, const u64* x, u64 n, u64 S, void* out, u32 long_min,    \
      const u32* long_rows, u32 nlong, EPI_PARAMS) {                                                        \
    bspmm_lanes<G, OUT>(rowptr, colidx, m, x, n, S, out, long_min, long_rows, nlong, EPI_MAKE);             \
  }
#define LANES_THEN_ENTRY(G, NAME, OUT2)                                                                     \
  extern "C" __global__ void __launch_bounds__(LANES_BLOCK, 4)                                              \
      CAT(CAT(CAT(bits_bspmm_lanes_bits_then, NAME), _k), G)(                                               \
          const u32* rowptr, const u32* colidx, u64 m, const u64* x, u64 n, u64 S, void* out, u32 long_min, \
          const u32* long_rows, u32 nlong, EPI_PARAMS, const u64* t_w, u64 t_n, u64 t_ws, void* t_out,      \
          EPI_PARAMS_AS(t)) {                                                                               \
    bspmm_lanes<G, OUT_BITS, OUT2>(rowptr, colidx, m, x, n, S, out, long_min, long_rows, nlong, EPI_MAKE,   \
                                   Then{t_w, t_n, t_ws, t_out, EPI_MAKE_AS(t)});                            \
  }
#define LANES_ENTRIES(G)                   \
  LANES_ENTRY(G, _counts, OUT_COUNTS)      \
  LANES_ENTRY(G, _scaled, OUT_SCALED)      \
  LANES_ENTRY(G, _bits, OUT_BITS)          \
  LANES_THEN_ENTRY(G, _counts, OUT_COUNTS) \
  LANES_THEN_ENTRY(G, _scaled, OUT_SCALED)

LANES_ENTRIES(4)
LANES_ENTRIES(8)
LANES_ENTRIES(16)
LANES_ENTRIES(32)
