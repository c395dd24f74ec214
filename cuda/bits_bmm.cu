// cuda/bits_bmm.cu: the type-free module `bits_bmm`: BMM, dense bits (or
// f32) times column-major bits, over a bit semiring or over bit planes, into
// i32 counts, scaled f32 or re-binarised bits (src/backend/cuda/bits/bmm.rs
// and planes.rs choose the kernel and launch it). Four kernel families:
//
// - `bits_bmm_tc<WM>_<out>[_planes]`: the 1-bit tensor cores (mma.sync
//   m16n8k256 .and.popc), tiles of (64 WM) x 128 outputs (x 64 for planes),
//   WM = 2 or 4 warps along m times 2 along n, each warp 64 x 64 (4 x 8
//   fragments; planes 64 x 32). A persistent grid: each block takes every
//   grid-th tile and streams the k dimension of all of them through shared
//   memory, 1024 bits of every line per stage, three stages deep (cp.async,
//   zero-filled past the rows, columns and line ends), so a tile's epilogue
//   overlaps the next tile's loads.
// - `bits_bmm_thin_<out>[_planes]`: the same tensor cores where all of w fits
//   in shared memory (a GNN layer's weight product; planes k <= 1024 bits):
//   w there for the whole grid, each warp a 16-row strip of a at a time,
//   straight from global memory into its fragments (below, "the thin-k
//   tensor-core kernel").
// - `bits_bmm_popc_<out>[_planes]`: plain popcounts for thin shapes: a warp
//   per 8 rows x 32 columns, a lane per column.
// - `bits_bmm_f32_<out>`: f32 activations times bits on the CUDA cores, a
//   lane per column, each output summed in k order (the CPU's order).
//
// `_planes` kernels run the bit-plane product Σ_{p,q} 2^(p+q) popc(a_p & w_q):
// the (p, q) pairs are a loop around the k loop (the shift applied to each
// partial count), and the epilogue dequantises (MODE_DEQ). The others turn
// AND popcounts into the semiring's value (MODE_LIN): popc(a_i) and popc(w_j)
// are counted from the same loads where the semiring needs them.
//
// Tensor-core fragments (PTX ISA, "Matrix Fragments for mma.m16n8k256",
// .b1; gid = lane / 4, tig = lane % 4; a 256-bit k step is 8 u32 words):
//   A (16 x 256, row): a0 = row gid word tig, a1 = row gid+8 word tig,
//                      a2 = row gid word tig+4, a3 = row gid+8 word tig+4;
//   B (256 x 8, col):  b0 = column gid word tig, b1 = column gid word tig+4;
//   D (16 x 8, s32):   d0 = (gid, 2 tig), d1 = (gid, 2 tig+1),
//                      d2 = (gid+8, 2 tig), d3 = (gid+8, 2 tig+1).
// A row-major line of a and a column-major line of w are exactly these rows
// and columns, so both operands load with `ldmatrix` (8 x 8 b16 matrices =
// 8 rows of 16 bytes = 4 words; thread T gets row T / 4, word T % 4 of each):
//   A: x4 of (rows 0-7, words 0-3), (rows 8-15, words 0-3), (rows 0-7, words
//      4-7), (rows 8-15, words 4-7) = a0, a1, a2, a3;
//   B: x4 of (columns 0-7, words 0-3), (columns 0-7, words 4-7), (columns 8-15,
//      words 0-3), (columns 8-15, words 4-7) = b0, b1 of two n fragments.
// Whatever order the hardware gives the 32 bits of a word, a and w words of the
// same k positions meet in the same AND, so the counts do not depend on it.
// (Checked on an H100: this mapping with the swizzle below, ldmatrix into
// mma against host popcounts, 0 of 256 wrong.)
//
// Shared memory: a stage holds (64 WM + 16 NF) lines of 128 bytes (a's rows,
// then w's columns), each line eight 16-byte chunks stored at chunk c ^ (line
// % 8): the 8 rows an ldmatrix phase reads fall in 8 different bank groups,
// and so do the 8 chunks 8 consecutive threads copy. After the stages, the
// tile's row and column terms for the epilogue (TileTerms: staged once a tile,
// so that over a semiring an output costs an integer multiply-add and, for f32
// or bits, two products and a compare; on an H100 that made the bits output at
// 232,965 x 602 x 128 3.2x and the f32 output 1.9x faster than reading the
// scales and thresholds from global memory for every output).
#include "common.cuh"
#include "bits_common.cuh"

#define TC_KW 16      // u64 words of a line per stage (1024 bits)
#define TC_CH 8       // 16-byte chunks of a line per stage
#define TC_KS 4       // 256-bit mma k steps per stage
#define TC_STAGES 3   // pipeline depth
#define TC_LINE 128   // bytes of a line per stage
#define POPC_R 8      // rows of a warp in the popc and f32 kernels

// ---- PTX wrappers -----------------------------------------------------------------

__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }

// 16 bytes global -> shared, `bytes` of them read (0 or 16; the rest zero), L2 only.
__device__ __forceinline__ void cp_async16(u32 dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
// 8 bytes global -> shared, `bytes` of them read (0 or 8).
__device__ __forceinline__ void cp_async8(u32 dst, const void* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(u32& r0, u32& r1, u32& r2, u32& r3, u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

// d += popc(a & b) over a 16 x 256 by 256 x 8 fragment pair (fragments above).
__device__ __forceinline__ void mma_and(u32* d, const u32* a, const u32* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// d = popc(a & b) (a zero accumulator).
__device__ __forceinline__ void mma_and0(u32* d, const u32* a, const u32* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%10,%10,%10};\n"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(0));
}

// Byte offset of 16-byte chunk `c` of stage line `line` (the swizzle above).
__device__ __forceinline__ u32 swz(u32 line, u32 c) { return line * TC_LINE + ((c ^ (line & 7u)) << 4); }

// ---- writing one output element or word -----------------------------------------------

__device__ __forceinline__ u32 as_u32(i32 v) { return (u32)v; }
__device__ __forceinline__ u32 as_u32(f32 v) { return __float_as_uint(v); }

// Writes values v0, v1 of columns j, j + 1 of row i (counts or scaled), as one
// 8-byte store where both exist and n is even (then i n + j is even).
// Streaming stores (st.global.cs): the output is not read again here, and a
// GNN-shaped product writes far more than it reads (measured on an H100: the
// 232,965 x 128 i32 output 5% faster than with plain stores).
template <class T> __device__ __forceinline__ void store_pair(T* out, u64 i, u64 j, u64 n, T v0, T v1) {
  T* p = out + i * n + j;
  if (j + 1 < n && (n & 1) == 0) {
    __stcs((uint2*)p, make_uint2(as_u32(v0), as_u32(v1)));
  } else {
    if (j < n) __stcs((u32*)p, as_u32(v0));
    if (j + 1 < n) __stcs((u32*)p + 1, as_u32(v1));
  }
}

// Writes a quad's values of two adjacent n fragments (16 columns from j0) of
// rows[0] and rows[1], 16 bytes a store: v[f][h][x] is this thread's value of
// fragment f, row h, column 8 f + 2 tig + x. The quad's neighbours swap one
// column pair, so that a thread holds four adjacent columns of its row: even
// tig 2 tig .. 2 tig + 3 of fragment 0, odd tig 2 tig - 2 .. 2 tig + 1 of
// fragment 1 (half the stores of `store_pair`, each 64 bytes of a row with
// its neighbour's). Every thread of the warp calls it (shuffles).
//
// INSIDE: every row and column is inside the output and n is a multiple of 4,
// and at[h] points at this thread's column (`quad_col`) of row h, so a store
// is one instruction, with no bounds and no address arithmetic (otherwise
// about 30 instructions a store, most of a warpgroup tile's epilogue;
// docs/gpu-bmm-square-profile.md). Elsewhere at is unused (null).
__device__ __forceinline__ u64 quad_col(u64 j0, int tig) { return j0 + ((tig & 1) ? 2 * tig + 6 : 2 * tig); }
template <bool INSIDE = false>
__device__ __forceinline__ void store_quads(const u32 (&v)[2][2][2], u64 j0, const u64 (&rows)[2], int tig, u64 m,
                                            u64 n, void* out, u32* const* at = nullptr) {
  const bool odd = tig & 1;
  const u64 j = quad_col(j0, tig);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const u32 r0 = __shfl_xor_sync(FULL_MASK, odd ? v[0][h][0] : v[1][h][0], 1);
    const u32 r1 = __shfl_xor_sync(FULL_MASK, odd ? v[0][h][1] : v[1][h][1], 1);
    const uint4 q = odd ? make_uint4(r0, r1, v[1][h][0], v[1][h][1]) : make_uint4(v[0][h][0], v[0][h][1], r0, r1);
    if (INSIDE) {
      __stcs((uint4*)at[h], q);
      continue;
    }
    if (rows[h] >= m) continue;
    u32* o = (u32*)out + rows[h] * n + j;
    if (j + 3 < n && (n & 3) == 0) {
      __stcs((uint4*)o, q);
    } else {
      if (j < n) __stcs(o, q.x);
      if (j + 1 < n) __stcs(o + 1, q.y);
      if (j + 2 < n) __stcs(o + 2, q.z);
      if (j + 3 < n) __stcs(o + 3, q.w);
    }
  }
}

// ---- the tensor-core kernel -----------------------------------------------------------

// WM warps along m (16 MF rows each), 2 along n (8 NF columns each).
template <int WM, int MF, int NF> struct Tc {
  static const int WR = 16 * MF;               // output rows of a warp
  static const int BM = WR * WM;               // output rows of a tile
  static const int BN = 16 * NF;               // output columns of a tile
  static const int THREADS = 64 * WM;          // WM x 2 warps
  static const int LINES = BM + BN;            // stage lines: a's rows, then w's columns
  static const int STAGE = LINES * TC_LINE;    // bytes of a stage
  static const int POPS = TC_STAGES * STAGE;   // offset of the tile's row and column terms
  static const int SMEM = POPS + (2 * BM + 4 * BN) * 4;  // dynamic shared memory
};

// A finished tile's per-row and per-column terms in shared memory, staged once
// for all its warps (`tc_stage`): rows' beta popc(a_i) (MODE_LIN; the raw
// popc(a_i) otherwise) and scale, columns' gamma popc(w_j) + dk (or the raw
// popc(w_j)), scale, bias and threshold. An absent scale is staged as 1 (a
// product by 1 changes no f32 value); the bias is added only where given (so
// a -0 stays -0); columns past n get a NaN threshold (no bit).
template <int BM, int BN> struct TileTerms {
  char* base;
  __device__ __forceinline__ u32* ra() const { return (u32*)base; }
  __device__ __forceinline__ u32* cw() const { return ra() + BM; }
  __device__ __forceinline__ f32* rs() const { return (f32*)(cw() + BN); }
  __device__ __forceinline__ f32* cs() const { return rs() + BM; }
  __device__ __forceinline__ f32* cb() const { return cs() + BN; }
  __device__ __forceinline__ f32* ct() const { return cb() + BN; }
};

// A block's tiles: its l-th is tile blockIdx.x + l gridDim.x of the raster,
// groups of 8 tile rows column by column in a group (tiles running at once
// share w's columns and a's rows in L2). The origin of tile t (divisions:
// once per tile).
__device__ __forceinline__ void tile_origin(u64 t, u64 gm, u64 gn, u64 bm_rows, u64 bn_cols, u64& row0, u64& col0) {
  const u64 width = 8 * gn, first = t / width * 8, gsz = min(gm - first, (u64)8);
  row0 = (first + t % width % gsz) * bm_rows;
  col0 = (t % width / gsz) * bn_cols;
}

// A position in a block's pipeline steps: its tile tl, the plane pair (p, q)
// and the k chunk kc, advanced a step at a time (no divisions in the loop).
struct Cursor {
  u32 tl, kc;
  int p, q;
  __device__ __forceinline__ Cursor() : tl(0), kc(0), p(0), q(0) {}
  // the step after this one; true where it starts the next tile
  __device__ __forceinline__ bool next(u32 nk, int nb, int nc) {
    if (++kc < nk) return false;
    kc = 0;
    if (++q < nc) return false;
    q = 0;
    if (++p < nb) return false;
    p = 0;
    ++tl;
    return true;
  }
  // whether this is its tile's last step
  __device__ __forceinline__ bool last(u32 nk, int nb, int nc) const {
    return kc == nk - 1 && q == nc - 1 && p == nb - 1;
  }
};

// Issues the copies of step `c` (tile at row0, col0) into the stage at shared
// address `sb`: a's rows and w's columns, k chunk kc, planes p and q (zero past
// the matrix and past the lines' ends). Thread t copies chunk t % 8 (16 bytes)
// of lines t / 8, t / 8 + THREADS / 8, ... (8-byte halves for odd strides).
template <int WM, int MF, int NF, bool PLANES>
__device__ __forceinline__ void tc_load(u32 sb, const Cursor& c, u64 row0, u64 col0, const Planes& ap,
                                        const Planes& wp, u64 m, u64 n, u64 S) {
  typedef Tc<WM, MF, NF> C;
  const u64* A = ap.p[PLANES ? c.p : 0];
  const u64* W = wp.p[PLANES ? c.q : 0];
  const u64 w0 = (u64)c.kc * TC_KW;
  if ((S & 1) == 0) {
    const int STEP = C::THREADS / TC_CH, ch = threadIdx.x % TC_CH, l0 = threadIdx.x / TC_CH;
    const u64 w = w0 + 2 * ch;
#pragma unroll
    for (int j = 0; j < C::LINES / STEP; ++j) {
      const int line = l0 + j * STEP;
      const bool is_a = j < C::BM / STEP;
      const u64 gl = is_a ? row0 + line : col0 + (line - C::BM);
      const bool ok = w < S && gl < (is_a ? m : n);
      const u64* src = is_a ? A : W;
      cp_async16(sb + swz(line, ch), ok ? src + gl * S + w : src, ok ? 16 : 0);
    }
  } else {
    // odd strides: lines start 8-byte aligned only
    const int STEP = C::THREADS / (2 * TC_CH), wi = threadIdx.x % (2 * TC_CH), l0 = threadIdx.x / (2 * TC_CH);
    const u64 w = w0 + wi;
#pragma unroll
    for (int j = 0; j < C::LINES / STEP; ++j) {
      const int line = l0 + j * STEP;
      const bool is_a = j < C::BM / STEP;
      const u64 gl = is_a ? row0 + line : col0 + (line - C::BM);
      const bool ok = w < S && gl < (is_a ? m : n);
      const u64* src = is_a ? A : W;
      cp_async8(sb + swz(line, wi >> 1) + 8 * (wi & 1), ok ? src + gl * S + w : src, ok ? 8 : 0);
    }
  }
}

// popc of stage line `line` (its 1024 bits).
__device__ __forceinline__ u32 stage_popc(const char* stage, int line) {
  u32 c = 0;
#pragma unroll
  for (int ch = 0; ch < TC_CH; ++ch) {
    const uint4 v = *(const uint4*)(stage + swz(line, ch));
    c += __popc(v.x) + __popc(v.y) + __popc(v.z) + __popc(v.w);
  }
  return c;
}

// The warp's 16 MF x 8 NF outputs over one stage: its first `nks` 256-bit k
// steps (the others hold only zero padding past the lines' ends).
// PLANES: acc += popc << sh; otherwise acc += popc.
template <int WM, int MF, int NF, bool PLANES>
__device__ __forceinline__ void tc_compute(u32 sb, int wm, int wn, int lane, u32 (&acc)[MF][NF][4], int sh,
                                           int nks) {
  typedef Tc<WM, MF, NF> C;
  // unrolled (7% faster at 16384^3 on an H100, a standalone copy of this
  // kernel); the planes kernels keep the registers instead
#pragma unroll(PLANES ? 1 : TC_KS)
  for (int ks = 0; ks < TC_KS; ++ks) {
    if (ks >= nks) break;  // warp-uniform
    u32 af[MF][4], bf[NF][2];
#pragma unroll
    for (int mf = 0; mf < MF; ++mf) {
      const u32 line = wm * C::WR + mf * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
      ldmatrix_x4(af[mf][0], af[mf][1], af[mf][2], af[mf][3], sb + swz(line, ks * 2 + (lane >> 4)));
    }
#pragma unroll
    for (int np = 0; np < NF / 2; ++np) {
      const u32 line = C::BM + wn * 8 * NF + np * 16 + (lane & 7) + (lane >> 4) * 8;
      ldmatrix_x4(bf[2 * np][0], bf[2 * np][1], bf[2 * np + 1][0], bf[2 * np + 1][1],
                  sb + swz(line, ks * 2 + ((lane >> 3) & 1)));
    }
#pragma unroll
    for (int mf = 0; mf < MF; ++mf)
#pragma unroll
      for (int nf = 0; nf < NF; ++nf) {
        if (PLANES) {
          u32 d[4];
          mma_and0(d, af[mf], bf[nf]);
#pragma unroll
          for (int x = 0; x < 4; ++x) acc[mf][nf][x] += d[x] << sh;
        } else {
          mma_and(acc[mf][nf], af[mf], bf[nf]);
        }
      }
  }
}

// Row i's output bits of a warp's 8 NF columns from column col0w on: the quad's
// four threads hold them between them (`bits`, each at its own positions); the
// quad ORs them and its thread `slot` writes the u64 output word (NF = 8) or
// the u32 word (NF = 4). Every thread of the warp calls it (shuffles).
template <int NF>
__device__ __forceinline__ void store_quad_bits(u64 bits, int tig, int slot, u64 i, u64 m, u64 col0w, u64 out_w64,
                                                void* out) {
  bits |= __shfl_xor_sync(FULL_MASK, bits, 1);
  bits |= __shfl_xor_sync(FULL_MASK, bits, 2);
  const u64 word = col0w / (8 * NF), words = NF == 8 ? out_w64 : 2 * out_w64;
  if (tig == slot && i < m && word < words) {
    if (NF == 8) ((u64*)out)[i * out_w64 + word] = bits;
    else ((u32*)out)[i * 2 * out_w64 + word] = (u32)bits;
  }
}

// Column j's terms for the epilogue, from popc(w_j) (or its code sum) pw:
// MODE_LIN's gamma pw + dk (the raw pw otherwise), scale, bias, threshold; an
// absent scale is 1 and an absent bias 0 (`TileTerms`), past n the threshold
// is NaN (no bit). Staged by `tc_stage` and by `bmm_thin`.
struct ColTerms {
  u32 cw;
  f32 cs, cb, ct;
};
template <int MODE> __device__ __forceinline__ ColTerms col_terms(const Epi& e, u32 pw, u64 j, u64 n) {
  return ColTerms{MODE == MODE_LIN ? (u32)e.gamma * pw + (u32)e.dk : pw, e.col && j < n ? e.col[j] : 1.0f,
                  e.bias && j < n ? e.bias[j] : 0.0f,
                  j < n ? (e.tcol ? e.tcol[j] : e.t) : __int_as_float(0x7fffffff)};
}

// Stages the finished tile's terms (TileTerms): thread t for row t and column t.
template <int BM, int BN, int MODE>
__device__ __forceinline__ void tc_stage(const TileTerms<BM, BN>& tt, u32 pop_a, u32 pop_w, u64 row0, u64 col0, u64 m,
                                         u64 n, const Epi& e) {
  const int tid = threadIdx.x;
  if (tid < BM) {
    const u64 i = row0 + tid;
    tt.ra()[tid] = MODE == MODE_LIN ? (u32)e.beta * pop_a : pop_a;
    tt.rs()[tid] = e.row && i < m ? e.row[i] : 1.0f;
  }
  if (tid < BN) {
    const ColTerms c = col_terms<MODE>(e, pop_w, col0 + tid, n);
    tt.cw()[tid] = c.cw;
    tt.cs()[tid] = c.cs;
    tt.cb()[tid] = c.cb;
    tt.ct()[tid] = c.ct;
  }
}

// The semiring's value of AND count c from the staged terms (MODE_LIN):
// alpha c + beta pa + (gamma pw + dk), wrapping, or min(c, 1).
template <bool CLAMP> __device__ __forceinline__ i32 lin_staged(u32 alpha, u32 c, u32 ra, u32 cw) {
  return CLAMP ? (c > 0 ? 1 : 0) : (i32)(alpha * c + ra + cw);
}

// (f32)v rs cs (+ cb) of a thread's two columns jl, jl + 1 of a tile, from
// the staged terms (the bias added only where given, so a -0 stays -0).
template <class TT>
__device__ __forceinline__ float2 tc_scaled(const TT& tt, int jl, i32 v0, i32 v1, f32 rs, bool bias) {
  const float2 cs = *(const float2*)(tt.cs() + jl);
  f32 s0 = __fmul_rn(__fmul_rn((f32)v0, rs), cs.x), s1 = __fmul_rn(__fmul_rn((f32)v1, rs), cs.y);
  if (bias) {
    const float2 cb = *(const float2*)(tt.cb() + jl);
    s0 = __fadd_rn(s0, cb.x);
    s1 = __fadd_rn(s1, cb.y);
  }
  return make_float2(s0, s1);
}

// Whether a tile of counts or f32 lies wholly inside the output, with rows
// of a multiple of 4 values (16-byte aligned), so that its epilogue can store
// without bounds (`store_quads<true>`).
template <int OUT> __device__ __forceinline__ bool tile_inside(u64 row0, u64 col0, u64 bm, u64 bn, u64 m, u64 n) {
  return OUT != OUT_BITS && row0 + bm <= m && col0 + bn <= n && (n & 3) == 0;
}

// The warp's outputs of the tile at (row0, col0) over a semiring (MODE_LIN),
// from its fragments and the staged terms: per output an integer multiply-add,
// and for f32 or bits two products and a compare. A thread holds columns
// 2 tig, 2 tig + 1 of each n fragment (adjacent: their terms load in pairs);
// counts and f32 leave 16 bytes a store (`store_quads`; on an H200, i32 out
// at 4096^3: the warpgroup kernel 33% -> 37% of the mma.sync peak, `bmm_tc`
// 25% -> 27%); for bits it gathers them at bit 8 nf + x of a 64-bit row word,
// shifts by 2 tig, and the quad ORs its four parts.
template <int WM, int MF, int NF, int OUT, bool CLAMP, bool INSIDE = false, class TT>
__device__ __forceinline__ void tc_epilogue_lin(const u32 (&acc)[MF][NF][4], const TT& tt, u64 row0, u64 col0,
                                                int wm, int wn, int lane, u64 m, u64 n, u64 out_w64, void* out,
                                                const Epi& e) {
  const int gid = lane >> 2, tig = lane & 3;
  const u32 alpha = (u32)e.alpha;
  const bool bias = e.bias != nullptr;
  if constexpr (OUT != OUT_BITS) {
    // both rows of a fragment at once, a pair of n fragments at a time, 16
    // bytes a store (`store_quads`)
#pragma unroll
    for (int mf = 0; mf < MF; ++mf) {
      const int il0 = wm * 16 * MF + mf * 16 + gid;
      const u64 rows[2] = {row0 + il0, row0 + il0 + 8};
      const u32 ra[2] = {tt.ra()[il0], tt.ra()[il0 + 8]};
      const f32 rs[2] = {tt.rs()[il0], tt.rs()[il0 + 8]};
      const u64 j = quad_col(col0 + wn * 8 * NF, tig);
      u32* const at[2] = {(u32*)out + rows[0] * n + j, (u32*)out + rows[1] * n + j};
#pragma unroll
      for (int p = 0; p < NF / 2; ++p) {
        u32 v[2][2][2];  // [fragment 2 p + f][h][column 2 tig + x]
#pragma unroll
        for (int f = 0; f < 2; ++f) {
          const int jl = wn * 8 * NF + (2 * p + f) * 8 + 2 * tig;
          const uint2 cw = *(const uint2*)(tt.cw() + jl);
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const i32 v0 = lin_staged<CLAMP>(alpha, acc[mf][2 * p + f][2 * h], ra[h], cw.x);
            const i32 v1 = lin_staged<CLAMP>(alpha, acc[mf][2 * p + f][2 * h + 1], ra[h], cw.y);
            if (OUT == OUT_COUNTS) {
              v[f][h][0] = (u32)v0;
              v[f][h][1] = (u32)v1;
              continue;
            }
            const float2 sv = tc_scaled(tt, jl, v0, v1, rs[h], bias);
            v[f][h][0] = __float_as_uint(sv.x);
            v[f][h][1] = __float_as_uint(sv.y);
          }
        }
        u32* const at_p[2] = {at[0] + 16 * p, at[1] + 16 * p};
        store_quads<INSIDE>(v, col0 + wn * 8 * NF + 16 * p, rows, tig, m, n, out, at_p);
      }
    }
  } else {
#pragma unroll
    for (int mf = 0; mf < MF; ++mf)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int il = wm * 16 * MF + mf * 16 + gid + 8 * h;
        const u64 i = row0 + il;
        const u32 ra = tt.ra()[il];
        const f32 rs = tt.rs()[il];
        u32 lo = 0, hi = 0;
#pragma unroll
        for (int nf = 0; nf < NF; ++nf) {
          const int jl = wn * 8 * NF + nf * 8 + 2 * tig;
          const uint2 cw = *(const uint2*)(tt.cw() + jl);
          const i32 v0 = lin_staged<CLAMP>(alpha, acc[mf][nf][2 * h], ra, cw.x);
          const i32 v1 = lin_staged<CLAMP>(alpha, acc[mf][nf][2 * h + 1], ra, cw.y);
          const float2 sv = tc_scaled(tt, jl, v0, v1, rs, bias);
          const float2 ct = *(const float2*)(tt.ct() + jl);
          const u32 two = (sv.x >= ct.x ? 1u : 0u) | (sv.y >= ct.y ? 2u : 0u);
          if (nf < 4) lo |= two << (8 * nf);
          else hi |= two << (8 * (nf - 4));
        }
        store_quad_bits<NF>((((u64)hi << 32) | lo) << (2 * tig), tig, (mf * 2 + h) & 3, i, m, col0 + wn * 8 * NF,
                            out_w64, out);
      }
  }
}

// Writes the warp's outputs of the tile at (row0, col0) from its fragments
// (spa, spw: the tile's popc(a_i), popc(w_j) in shared memory); the bit-plane
// products (MODE_DEQ).
template <int WM, int MF, int NF, int OUT, int MODE>
__device__ __forceinline__ void tc_epilogue(const u32 (&acc)[MF][NF][4], const u32* spa, const u32* spw, u64 row0,
                                            u64 col0, int wm, int wn, int lane, u64 m, u64 n, u64 out_w64, void* out,
                                            const Epi& e) {
  const int gid = lane >> 2, tig = lane & 3;
#pragma unroll
  for (int mf = 0; mf < MF; ++mf)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int il = wm * 16 * MF + mf * 16 + gid + 8 * h;
      const u64 i = row0 + il;
      const u32 pa = spa[il];
      u64 bits = 0;
#pragma unroll
      for (int nf = 0; nf < NF; ++nf) {
        const int jl = wn * 8 * NF + nf * 8 + 2 * tig;
        const u64 j = col0 + jl;
        const u32 r0 = acc[mf][nf][2 * h], r1 = acc[mf][nf][2 * h + 1];
        if (OUT == OUT_COUNTS) {
          if (i < m)
            store_pair<i32>((i32*)out, i, j, n, count_value<MODE>(e, r0, pa, spw[jl]),
                            count_value<MODE>(e, r1, pa, spw[jl + 1]));
        } else if (OUT == OUT_SCALED) {
          if (i < m) {
            const f32 s0 = j < n ? scaled(e, pre_value<MODE>(e, r0, pa, spw[jl], j), i, j) : 0.0f;
            const f32 s1 = j + 1 < n ? scaled(e, pre_value<MODE>(e, r1, pa, spw[jl + 1], j + 1), i, j + 1) : 0.0f;
            store_pair<f32>((f32*)out, i, j, n, s0, s1);
          }
        } else {
          if (i < m && j < n && over(e, scaled(e, pre_value<MODE>(e, r0, pa, spw[jl], j), i, j), j))
            bits |= 1ull << (nf * 8 + 2 * tig);
          if (i < m && j + 1 < n &&
              over(e, scaled(e, pre_value<MODE>(e, r1, pa, spw[jl + 1], j + 1), i, j + 1), j + 1))
            bits |= 1ull << (nf * 8 + 2 * tig + 1);
        }
      }
      if (OUT == OUT_BITS) store_quad_bits<NF>(bits, tig, (mf * 2 + h) & 3, i, m, col0 + wn * 8 * NF, out_w64, out);
    }
}

// A persistent grid: block b takes tiles b, b + grid, b + 2 grid, ... and
// streams all their steps through one pipeline, so the next tile's loads are
// in flight during a tile's epilogue. k = 0 still runs one (all-zero) step.
template <int WM, int MF, int NF, int OUT, bool PLANES>
__device__ __forceinline__ void bmm_tc(const Planes& ap, const Planes& wp, int nb, int nc, u64 m, u64 n, u64 S,
                                       u64 out_w64, void* out, int need_pa, int need_pw, const Epi& e) {
  typedef Tc<WM, MF, NF> C;
  const int MODE = PLANES ? MODE_DEQ : MODE_LIN;
  extern __shared__ uint4 tc_smem[];
  char* smem = (char*)tc_smem;
  const u32 sb = smem_u32(smem);
  const TileTerms<C::BM, C::BN> tt{smem + C::POPS};
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp % WM, wn = warp / WM;
  const u64 gm = (m + C::BM - 1) / C::BM, gn = (n + C::BN - 1) / C::BN, tiles = gm * gn;
  if (blockIdx.x >= tiles) return;
  const u32 mine = (u32)((tiles - 1 - blockIdx.x) / gridDim.x + 1);
  const u32 nk = (u32)max((S + TC_KW - 1) / TC_KW, (u64)1);
  const int NB = PLANES ? nb : 1, NC = PLANES ? nc : 1;

  u32 acc[MF][NF][4];
#pragma unroll
  for (int mf = 0; mf < MF; ++mf)
#pragma unroll
    for (int nf = 0; nf < NF; ++nf)
#pragma unroll
      for (int x = 0; x < 4; ++x) acc[mf][nf][x] = 0;
  u32 pop_a = 0, pop_w = 0;

  // the load side runs TC_STAGES - 1 steps ahead of the compute side
  Cursor ld, cc;
  u64 lrow0, lcol0;
  tile_origin(blockIdx.x, gm, gn, C::BM, C::BN, lrow0, lcol0);
  int lst = 0, cst = 0;
  for (int s = 0; s < TC_STAGES - 1; ++s) {
    if (ld.tl < mine) {
      tc_load<WM, MF, NF, PLANES>(sb + lst * C::STAGE, ld, lrow0, lcol0, ap, wp, m, n, S);
      if (ld.next(nk, NB, NC) && ld.tl < mine)
        tile_origin(blockIdx.x + (u64)ld.tl * gridDim.x, gm, gn, C::BM, C::BN, lrow0, lcol0);
    }
    cp_async_commit();
    ++lst;
  }
  while (cc.tl < mine) {
    cp_async_wait<TC_STAGES - 2>();
    __syncthreads();  // this step landed for all; the previous step's stage is free again
    if (ld.tl < mine) {
      tc_load<WM, MF, NF, PLANES>(sb + lst * C::STAGE, ld, lrow0, lcol0, ap, wp, m, n, S);
      if (ld.next(nk, NB, NC) && ld.tl < mine)
        tile_origin(blockIdx.x + (u64)ld.tl * gridDim.x, gm, gn, C::BM, C::BN, lrow0, lcol0);
    }
    cp_async_commit();
    lst = lst + 1 == TC_STAGES ? 0 : lst + 1;
    const char* stage = smem + cst * C::STAGE;
    // popc(a_i) (each plane once: q == 0) and popc(w_j) (p == 0), from the stage
    if (need_pa && cc.q == 0 && tid < C::BM) pop_a += stage_popc(stage, tid) << cc.p;
    if (need_pw && cc.p == 0 && tid < C::BN) pop_w += stage_popc(stage, C::BM + tid) << cc.q;
    const u64 left = S - min(S, (u64)cc.kc * TC_KW);  // words of this chunk: 256-bit steps to run
    tc_compute<WM, MF, NF, PLANES>(sb + cst * C::STAGE, wm, wn, lane, acc, cc.p + cc.q, (int)min((left + 3) / 4, (u64)TC_KS));
    cst = cst + 1 == TC_STAGES ? 0 : cst + 1;
    if (cc.last(nk, NB, NC)) {
      // the tile is done: its epilogue (the next steps' copies keep landing)
      u64 row0, col0;
      tile_origin(blockIdx.x + (u64)cc.tl * gridDim.x, gm, gn, C::BM, C::BN, row0, col0);
      tc_stage<C::BM, C::BN, MODE>(tt, pop_a, pop_w, row0, col0, m, n, e);
      __syncthreads();
      if (MODE != MODE_LIN)
        tc_epilogue<WM, MF, NF, OUT, MODE>(acc, tt.ra(), tt.cw(), row0, col0, wm, wn, lane, m, n, out_w64, out, e);
      else if (e.clamp)
        tc_epilogue_lin<WM, MF, NF, OUT, true>(acc, tt, row0, col0, wm, wn, lane, m, n, out_w64, out, e);
      else
        tc_epilogue_lin<WM, MF, NF, OUT, false>(acc, tt, row0, col0, wm, wn, lane, m, n, out_w64, out, e);
#pragma unroll
      for (int mf = 0; mf < MF; ++mf)
#pragma unroll
        for (int nf = 0; nf < NF; ++nf)
#pragma unroll
          for (int x = 0; x < 4; ++x) acc[mf][nf][x] = 0;
      pop_a = pop_w = 0;
    }
    cc.next(nk, NB, NC);
  }
  cp_async_wait<0>();
}

// ---- the warpgroup tensor-core kernel (sm_90a) ------------------------------------------

// `bits_bmm_wg_<out>`: plain products on Hopper's warpgroup MMA (`wgmma`
// m64n256k256 .and.popc, PTX ISA "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"), which reads both operands from shared memory itself:
// no fragment loads and no mma issue stream beside the copies, so two warps
// a scheduler keep the tensor cores busy where `bits_bmm_tc*` (mma.sync) is
// bound by its own instruction latencies (ncu on an H200: 2 warps a
// scheduler, 0.47 eligible, tensor pipe 36%). Tiles of 128 x 256 outputs, two
// warpgroups of 64 x 256 (128 accumulators a thread); the same persistent
// grid, cursor, copies and epilogue as `bmm_tc` (`Tc<4, 2, 16>` is the same
// 128 + 256 lines of 1024 bits a stage, copied by 256 threads). The stage's
// 128-byte lines with chunk c at c ^ (line % 8) are exactly wgmma's 128-byte
// swizzle, so a K-major descriptor (8-line groups 1024 bytes apart) reads
// them as copied; a 256-bit k step is 32 bytes further along the lines.
// Products are asynchronous: a stage is copied into again two steps after
// its products were issued (waited for then), so the copies run WG_STAGES -
// 2 steps ahead.
#define WG_STAGES 4
typedef Tc<4, 2, 16> Wg;  // the stage layout and copies (128 + 256 lines, 256 threads)
// Shared memory (src/backend/cuda/bits/bmm.rs sizes it): WG_STAGES stages
// from the first 1024-byte boundary (the swizzle's atom; up to 1008 bytes
// skipped), then the tile's terms (`TileTerms<128, 256>`).

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A K-major shared-memory matrix descriptor with the 128-byte swizzle: start
// address, leading offset (unused by swizzled K-major; 1 by convention), 8-row
// groups 1024 bytes apart, swizzle mode 1 (128 bytes) in bits 62-63.
__device__ __forceinline__ u64 wg_desc(u32 addr) {
  return (u64)((addr & 0x3FFFF) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// d += popc(a & b) over a 64 x 256 by 256 x 256 product of the warpgroup, a
// and b in shared memory; d[q][0][nf] holds columns 64 q + 8 nf .. + 7 as an
// mma.sync m16n8 fragment of the warp's 16 rows would (warp w of the group:
// rows 16 (w % 4) + gid, + 8).
#define WG_F(q, f) "+r"(d[q][0][f][0]), "+r"(d[q][0][f][1]), "+r"(d[q][0][f][2]), "+r"(d[q][0][f][3])
#define WG_Q(q) WG_F(q, 0), WG_F(q, 1), WG_F(q, 2), WG_F(q, 3), WG_F(q, 4), WG_F(q, 5), WG_F(q, 6), WG_F(q, 7)
__device__ __forceinline__ void wg_mma_and(u32 (&d)[4][1][8][4], u64 da, u64 db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p;\n}\n"
      : WG_Q(0), WG_Q(1), WG_Q(2), WG_Q(3)
      : "l"(da), "l"(db), "r"(1));
}
#endif

// A warpgroup tile's outputs: each 64-column quarter as the tc kernel's warp
// column wn = q (NF = 8).
template <int OUT, bool INSIDE, class TT>
__device__ __forceinline__ void wg_epilogue(const u32 (&acc)[4][1][8][4], const TT& tt, u64 row0, u64 col0, int warp,
                                            int lane, u64 m, u64 n, u64 out_w64, void* out, const Epi& e) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (e.clamp)
      tc_epilogue_lin<8, 1, 8, OUT, true, INSIDE>(acc[q], tt, row0, col0, warp, q, lane, m, n, out_w64, out, e);
    else
      tc_epilogue_lin<8, 1, 8, OUT, false, INSIDE>(acc[q], tt, row0, col0, warp, q, lane, m, n, out_w64, out, e);
  }
}

// pa, pw: popc(a_i), popc(w_j) where the semiring needs them (else NULL),
// counted beforehand by `bits_line_popc`: counted from the stages as
// `bmm_tc` does, every tile would count its lines again (on an H200 at
// 16384^3 that took the kernel from 75% to 52% of the mma.sync peak).
template <int OUT>
__device__ __forceinline__ void bmm_wg(const Planes& ap, const Planes& wp, u64 m, u64 n, u64 S, u64 out_w64,
                                       void* out, const u32* pa, const u32* pw, const Epi& e) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ uint4 wg_smem[];
  const u32 base = smem_u32(wg_smem), sb = (base + 1023) & ~1023u;
  char* smem = (char*)wg_smem + (sb - base);
  const TileTerms<Wg::BM, Wg::BN> tt{smem + WG_STAGES * Wg::STAGE};
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const u64 gm = (m + Wg::BM - 1) / Wg::BM, gn = (n + Wg::BN - 1) / Wg::BN, tiles = gm * gn;
  if (blockIdx.x >= tiles) return;
  const u32 mine = (u32)((tiles - 1 - blockIdx.x) / gridDim.x + 1);
  const u32 nk = (u32)max((S + TC_KW - 1) / TC_KW, (u64)1);

  u32 acc[4][1][8][4];
  Cursor ld;
  u64 lrow0, lcol0;
  tile_origin(blockIdx.x, gm, gn, Wg::BM, Wg::BN, lrow0, lcol0);
  const auto load = [&](int lst) {
    if (ld.tl < mine) {
      tc_load<4, 2, 16, false>(sb + lst * Wg::STAGE, ld, lrow0, lcol0, ap, wp, m, n, S);
      if (ld.next(nk, 1, 1) && ld.tl < mine)
        tile_origin(blockIdx.x + (u64)ld.tl * gridDim.x, gm, gn, Wg::BM, Wg::BN, lrow0, lcol0);
    }
    cp_async_commit();
  };
  int lst = 0, cst = 0;
  for (; lst < WG_STAGES - 2; ++lst) load(lst);
  // tile by tile, k chunk by k chunk (the copies run on across tiles): the
  // accumulators are read only after the last products of a tile are waited
  // for, outside the k loop, so the compiler keeps the products in flight
  for (u32 tl = 0; tl < mine; ++tl) {
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
      for (int nf = 0; nf < 8; ++nf)
#pragma unroll
        for (int x = 0; x < 4; ++x) acc[q][0][nf][x] = 0;
    u64 row0, col0;
    tile_origin(blockIdx.x + (u64)tl * gridDim.x, gm, gn, Wg::BM, Wg::BN, row0, col0);
    for (u32 kc = 0; kc < nk; ++kc) {
      cp_async_wait<WG_STAGES - 3>();
      // this thread's copies seen by the tensor cores' reads, then everyone's
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();  // also: the products of two steps ago are done for all (waited below)
      load(lst);
      lst = lst + 1 == WG_STAGES ? 0 : lst + 1;
      const u32 st = sb + cst * Wg::STAGE;
      // every k step, also those past the lines' ends (zeros, counting
      // nothing): no branch between the products
      wg_fence();
#pragma unroll
      for (int ks = 0; ks < TC_KS; ++ks)
        wg_mma_and(acc, wg_desc(st + (warp / 4) * 64 * TC_LINE + ks * 32), wg_desc(st + Wg::BM * TC_LINE + ks * 32));
      wg_commit();
      if (kc == 0) {
        // the tile's terms, staged while its first products run (their loads
        // waited for there, not after the last): every thread has left the
        // last tile's epilogue (the barrier above), and the next step's barrier
        // (or the one below where k is one step) shows them to all
        const u32 pop_a = pa && tid < Wg::BM && row0 + tid < m ? pa[row0 + tid] : 0;
        const u32 pop_w = pw && tid < Wg::BN && col0 + tid < n ? pw[col0 + tid] : 0;
        tc_stage<Wg::BM, Wg::BN, MODE_LIN>(tt, pop_a, pop_w, row0, col0, m, n, e);
      }
      wg_wait<1>();  // the previous step's products are done: its stage is free after the next barrier
      cst = cst + 1 == WG_STAGES ? 0 : cst + 1;
    }
    wg_wait<0>();
    if (nk == 1) __syncthreads();
    if (tile_inside<OUT>(row0, col0, Wg::BM, Wg::BN, m, n))
      wg_epilogue<OUT, true>(acc, tt, row0, col0, warp, lane, m, n, out_w64, out, e);
    else
      wg_epilogue<OUT, false>(acc, tt, row0, col0, warp, lane, m, n, out_w64, out, e);
  }
  cp_async_wait<0>();
#endif
}

// out[i] = the sum over the nb planes p of popc(line i of plane p) << p, for
// `lines` lines of S words: 8 lanes a line (64 bytes a load of the 8).
extern "C" __global__ void bits_line_popc(PLANES_PARAM(p), int nb, u64 lines, u64 S, u32* out) {
  const u32 group = 0xffu << (threadIdx.x & 24);  // the lanes of this thread's line
  for (u64 t = gtid(); t < lines * 8; t += gthreads()) {  // whole groups of 8 in or out
    const u64 i = t / 8;
    u32 c = 0;
    for (int q = 0; q < nb; ++q)
      for (u64 w = t % 8; w < S; w += 8) c += (u32)__popcll(p.p[q][i * S + w]) << q;
    c += __shfl_xor_sync(group, c, 1);
    c += __shfl_xor_sync(group, c, 2);
    c += __shfl_xor_sync(group, c, 4);
    if (t % 8 == 0) out[i] = c;
  }
}

// ---- the popcount kernel (thin shapes) --------------------------------------------------

// A warp per POPC_R rows x 32 columns (a lane per column j; the words of a's
// rows are the same address for every lane). Output column blocks: every u32
// word of a bits output (padding included), else ceil(n / 32).
template <int OUT, bool PLANES>
__device__ __forceinline__ void bmm_popc(const Planes& ap, const Planes& wp, int nb, int nc, u64 m, u64 n, u64 S,
                                         u64 out_w64, void* out, int need_pa, int need_pw, const Epi& e) {
  const int MODE = PLANES ? MODE_DEQ : MODE_LIN;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const int lane = threadIdx.x & 31;
  const u64 ncb = OUT == OUT_BITS ? 2 * out_w64 : (n + 31) / 32;
  const u64 nrg = (m + POPC_R - 1) / POPC_R;
  const int passes = PLANES ? nb * nc : 1;
  for (u64 task = warp; task < nrg * ncb; task += nwarps) {
    const u64 cb = task % ncb, i0 = task / ncb * POPC_R;
    const u64 j = cb * 32 + lane;
    const bool jv = j < n;
    u32 acc[POPC_R], pop_a[POPC_R], pop_w = 0;
#pragma unroll
    for (int r = 0; r < POPC_R; ++r) acc[r] = pop_a[r] = 0;
    for (int pass = 0; pass < passes; ++pass) {
      const int p = PLANES ? pass / nc : 0, q = PLANES ? pass % nc : 0;
      const u64* A = ap.p[p];
      const u64* W = wp.p[q];
      const int sh = p + q;
      const bool ca = need_pa && q == 0, cw = need_pw && p == 0;
      for (u64 k = 0; k < S; ++k) {
        const u64 wv = jv ? W[j * S + k] : 0;
        if (cw) pop_w += (u32)__popcll(wv) << q;
#pragma unroll
        for (int r = 0; r < POPC_R; ++r) {
          const u64 i = i0 + r;
          const u64 av = i < m ? A[i * S + k] : 0;
          acc[r] += (u32)__popcll(av & wv) << sh;
          if (ca) pop_a[r] += (u32)__popcll(av) << p;
        }
      }
    }
#pragma unroll
    for (int r = 0; r < POPC_R; ++r) {
      const u64 i = i0 + r;
      if (i >= m) break;  // warp-uniform
      if (OUT == OUT_COUNTS) {
        if (jv) ((i32*)out)[i * n + j] = count_value<MODE>(e, acc[r], pop_a[r], pop_w);
      } else if (OUT == OUT_SCALED) {
        if (jv) ((f32*)out)[i * n + j] = scaled(e, pre_value<MODE>(e, acc[r], pop_a[r], pop_w, j), i, j);
      } else {
        const bool b = jv && over(e, scaled(e, pre_value<MODE>(e, acc[r], pop_a[r], pop_w, j), i, j), j);
        const u32 word = __ballot_sync(FULL_MASK, b);
        if (lane == 0) ((u32*)out)[i * 2 * out_w64 + cb] = word;
      }
    }
  }
}

// ---- f32 activations times bits (FBF, FBB) ------------------------------------------------

// A block of 4 warps per POPC_R rows x 128 columns; x's rows come through
// shared memory 64 columns at a time; lane j adds x_ik (bit set) or, Signed,
// -x_ik (bit clear) in k order. The blocks loop over tasks block-uniformly.
template <int OUT>
__device__ __forceinline__ void bmm_f32(const f32* x, const u64* w, int sign, u64 m, u64 n, u64 k, u64 S,
                                        u64 out_w64, void* out, const Epi& e) {
  __shared__ f32 xs[POPC_R][64];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const u64 ncb = OUT == OUT_BITS ? 2 * out_w64 : (n + 31) / 32;
  const u64 ngrp = (ncb + 3) / 4, nrg = (m + POPC_R - 1) / POPC_R;
  for (u64 task = blockIdx.x; task < nrg * ngrp; task += gridDim.x) {
    const u64 cb = task % ngrp * 4 + warp, i0 = task / ngrp * POPC_R;
    const u64 j = cb * 32 + lane;
    const bool jv = j < n;
    f32 s[POPC_R];
#pragma unroll
    for (int r = 0; r < POPC_R; ++r) s[r] = 0.0f;
    for (u64 kw = 0; kw < S; ++kw) {
      __syncthreads();  // the previous chunk is consumed
      for (int t = tid; t < POPC_R * 64; t += 128) {
        const u64 i = i0 + (t >> 6), kk = kw * 64 + (t & 63);
        xs[t >> 6][t & 63] = i < m && kk < k ? x[i * k + kk] : 0.0f;
      }
      __syncthreads();
      const u64 wv = jv ? w[j * S + kw] : 0;
#pragma unroll
      for (int b = 0; b < 64; ++b) {
        const bool bit = (wv >> b) & 1;
#pragma unroll
        for (int r = 0; r < POPC_R; ++r) {
          const f32 xv = xs[r][b];
          s[r] = __fadd_rn(s[r], bit ? xv : (sign ? -xv : 0.0f));
        }
      }
    }
    if (cb >= ncb) continue;  // warp-uniform; no barrier follows before the next task's
#pragma unroll
    for (int r = 0; r < POPC_R; ++r) {
      const u64 i = i0 + r;
      if (i >= m) break;
      if (OUT == OUT_SCALED) {
        if (jv) ((f32*)out)[i * n + j] = scaled(e, s[r], i, j);
      } else {
        const bool b = jv && over(e, scaled(e, s[r], i, j), j);
        const u32 word = __ballot_sync(FULL_MASK, b);
        if (lane == 0) ((u32*)out)[i * 2 * out_w64 + cb] = word;
      }
    }
  }
}

// ---- the thin-k tensor-core kernel (GNN-shaped products) --------------------------------

// w small enough to sit in shared memory: the weight product of a GNN layer
// (232,965 x 602 by 602 x 128; Cora's 2,708 x 1,433 by 1,433 x 64). k runs in
// blocks of THIN_KS 256-bit steps (1024 bits; bit planes: one block): block b
// is words 16 b .. 16 b + 15 of every line, and w holds it as one more plane
// would (its lines after the block before's). A strip's first block stays in
// registers for every chunk, the others load again for each chunk (from L1).
// Each block copies all of w (every plane) into shared memory once and
// stages its column terms; then each warp takes 16-row strips of a (strip
// s to warp s % (warps of the grid), block-minor), loads the strip's words
// straight into mma fragments (the next strip's load in flight meanwhile) and
// computes 64 columns at a time (8 n fragments, 32 accumulators; bit planes
// likewise where one or two planes of a go into counts or f32, by Horner's
// rule, else 32 columns with as many partial sums): few registers, so many
// warps an SM hide the loads and the output stores, which are what these
// shapes are made of. Over a semiring, counts and f32 leave 16 bytes a store
// (`thin_values_by_quads`), and bits compare (f32)v rs against one bound a
// column (`thin_bits_by_bound`): about five instructions an output.
//
// Fragment words: k step ks of thread (gid, tig) is u64 word tig KS + ks of
// its lines' k block (KS = ceil(Sb / 4) steps of the block's Sb words; words
// past Sb are zero): a0 = low half
// of row gid's word, a1 = low half of row gid + 8's, a2 and a3 the high
// halves; b0, b1 = the low and high halves of column gid's word. A and B use
// the same word for the same (tig, ks, half), so each k position meets its own
// (the order of k positions within an mma does not change a count).
// Shared memory: column c of plane (or k block) q at u64 slots (q np + c) 16 +
// 4 tig + (ks ^ c % 4): the XOR puts a half-warp's 16 u64 loads (4 columns x 4
// tig) in distinct bank pairs.
#define THIN_KS 4     // 256-bit k steps at most
#define THIN_WARPS 8  // warps of a block

__device__ __forceinline__ u32 thin_words(u32 line, u32 tig) { return line * 16 + tig * 4; }
__device__ __forceinline__ u32 thin_slot(u32 line, u32 tig, u32 ks) { return thin_words(line, tig) + (ks ^ (line & 3)); }
// Words of k block b of an S-word line, and its k steps (one at least).
__device__ __forceinline__ u64 thin_block_words(u64 S, int b) { return min(S - 16 * (u64)b, (u64)16); }
__device__ __forceinline__ int thin_block_steps(u64 S, int b) { return (int)max((thin_block_words(S, b) + 3) / 4, (u64)1); }

// A strip's fragments of plane A's k block b, as mma wants them: step ks of
// thread (gid, tig) is af[ks] = {low half of row gid's word, of row gid + 8's,
// high half of row gid's, of row gid + 8's} (u32 loads, so no register moves).
__device__ __forceinline__ void thin_load_a(const u64* A, const u64 (&rows)[2], u64 m, u64 S, int b, int tig,
                                            u32 (&af)[THIN_KS][4]) {
  const u32* A32 = (const u32*)(A + 16 * (u64)b);
  const u64 sb = thin_block_words(S, b);
  const int ksn = thin_block_steps(S, b);
#pragma unroll
  for (int ks = 0; ks < THIN_KS; ++ks) {
    const u64 j = (u64)tig * ksn + ks;
    const bool ok = ks < ksn && j < sb;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const bool in = ok && rows[h] < m;
      const u32* p = A32 + 2 * (rows[h] * S + j);
      af[ks][h] = in ? __ldg(p) : 0;
      af[ks][h + 2] = in ? __ldg(p + 1) : 0;
    }
  }
}

// wt: this thread's words of the chunk's first column (col0 + gid, word tig
// of plane q, `thin_words`); its step ks is XORed by gid % 4, as for every
// column the thread reads (col0 + 8 nf + gid). acc (+)= the strip's counts
// against the chunk's 8 NF columns; PLANES: summed over the k steps first,
// then added shifted by sh.
template <bool PLANES, int NF>
__device__ __forceinline__ void thin_mma(u32 (&acc)[NF][4], const u32 (&af)[THIN_KS][4], const u64* wt, int ksn,
                                         int gid, int sh) {
  u32 part[NF][4];
  if (PLANES)
#pragma unroll
    for (int nf = 0; nf < NF; ++nf)
#pragma unroll
      for (int x = 0; x < 4; ++x) part[nf][x] = 0;
#pragma unroll
  for (int ks = 0; ks < THIN_KS; ++ks) {
    if (ks >= ksn) break;  // warp-uniform
#pragma unroll
    for (int nf = 0; nf < NF; ++nf) {
      const u64 wv = wt[nf * 8 * 16 + (ks ^ (gid & 3))];
      const u32 bf[2] = {(u32)wv, (u32)(wv >> 32)};
      mma_and(PLANES ? part[nf] : acc[nf], af[ks], bf);
    }
  }
  if (PLANES)
#pragma unroll
    for (int nf = 0; nf < NF; ++nf)
#pragma unroll
      for (int x = 0; x < 4; ++x) acc[nf][x] += part[nf][x] << sh;
}

// Bit planes with one or two planes of a (af, af1) by nc of w, by Horner's
// rule over s = p + q: from the top s down, acc = 2 acc + the sum over p + q
// = s of the strip's counts against w_q, each mma adding into acc itself (no
// partial sums beside the accumulators: 64 columns a chunk). Wrapping as the
// sum of the shifted products does.
__device__ __forceinline__ void thin_mma_horner(u32 (&acc)[8][4], const u32 (&af)[THIN_KS][4],
                                                const u32 (&af1)[THIN_KS][4], const u64* wt, u64 plane, int nb,
                                                int nc, int ksn, int gid) {
  for (int s = nb + nc - 2; s >= 0; --s) {
    if (s < nb + nc - 2)
#pragma unroll
      for (int nf = 0; nf < 8; ++nf)
#pragma unroll
        for (int x = 0; x < 4; ++x) acc[nf][x] <<= 1;
    if (s < nc) thin_mma<false, 8>(acc, af, wt + (u64)s * plane, ksn, gid, 0);
    if (nb == 2 && s >= 1 && s - 1 < nc) thin_mma<false, 8>(acc, af1, wt + (u64)(s - 1) * plane, ksn, gid, 0);
  }
}

// The staged column terms (`col_terms`) of columns 2p, 2p + 1 (`bmm_thin`),
// so that a thread's two columns load as two 16-byte words.
struct __align__(16) ThinPair {
  uint2 cw;
  float2 cs, cb, ct;
};

// The chunk's outputs (columns col0 .. col0 + 8 NF) of rows[0] (row gid of
// the strip) and rows[1] (gid + 8): bits over a semiring by the full test
// (MODE_LIN, as `tc_epilogue_lin`, from the staged column terms loaded once
// for both rows; its counts and f32 are `thin_values_by_quads`), or the
// f32 and bits of the bit planes (MODE_DEQ, as `tc_epilogue`; their counts
// are `thin_values_by_quads` too). pa: the rows' popc (or code sums), rs their
// scales. Bits: a row's u64 output word (NF = 8) or u32 word (NF = 4), as
// `store_quad_bits`.
template <int OUT, int MODE, bool CLAMP, int NF>
__device__ __forceinline__ void thin_epilogue(const u32 (&acc)[NF][4], const ThinPair* terms, u32 col0,
                                              const u64 (&rows)[2], const u32 (&pa)[2], const f32 (&rs)[2],
                                              int tig, u64 m, u64 n, u64 out_w64, void* out, const Epi& e) {
  static_assert(OUT != OUT_COUNTS && (MODE != MODE_LIN || OUT == OUT_BITS), "thin_values_by_quads writes these");
  const u32 alpha = (u32)e.alpha;
  const bool bias = e.bias != nullptr;
  const u32 ra[2] = {MODE == MODE_LIN ? (u32)e.beta * pa[0] : pa[0], MODE == MODE_LIN ? (u32)e.beta * pa[1] : pa[1]};
  u32 lo[2] = {0, 0}, hi[2] = {0, 0};
#pragma unroll
  for (int nf = 0; nf < NF; ++nf) {
    const u32 jl = col0 + nf * 8 + 2 * tig;
    const ThinPair& tp = terms[jl / 2];
    const uint2 w = tp.cw;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const u64 i = rows[h];
      const u32 r0 = acc[nf][2 * h], r1 = acc[nf][2 * h + 1];
      bool b0, b1;
      if (MODE == MODE_LIN) {
        const i32 v0 = lin_staged<CLAMP>(alpha, r0, ra[h], w.x), v1 = lin_staged<CLAMP>(alpha, r1, ra[h], w.y);
        const float2 c = tp.cs;
        f32 s0 = __fmul_rn(__fmul_rn((f32)v0, rs[h]), c.x), s1 = __fmul_rn(__fmul_rn((f32)v1, rs[h]), c.y);
        if (bias) {
          const float2 bb = tp.cb;
          s0 = __fadd_rn(s0, bb.x);
          s1 = __fadd_rn(s1, bb.y);
        }
        const float2 t = tp.ct;
        b0 = s0 >= t.x;
        b1 = s1 >= t.y;
      } else {
        const f32 s0 = jl < n ? scaled(e, pre_value<MODE>(e, r0, ra[h], w.x, jl), i, jl) : 0.0f;
        const f32 s1 = jl + 1 < n ? scaled(e, pre_value<MODE>(e, r1, ra[h], w.y, jl + 1), i, jl + 1) : 0.0f;
        if (OUT == OUT_SCALED) {
          if (i < m) store_pair<f32>((f32*)out, i, jl, n, s0, s1);
          continue;
        }
        b0 = jl < n && over(e, s0, jl);
        b1 = jl + 1 < n && over(e, s1, jl + 1);
      }
      // the thread's bits at 8 nf (+ 1): shifted by 2 tig below
      u32& word = nf < 4 ? lo[h] : hi[h];
      if (b0) word |= 1u << (8 * (nf & 3));
      if (b1) word |= 2u << (8 * (nf & 3));
    }
  }
  if (OUT == OUT_BITS)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const u64 x = (((u64)hi[h] << 32) | lo[h]) << (2 * tig);
      store_quad_bits<NF>(x, tig, h, rows[h], m, col0, out_w64, out);
    }
}

// Bits out over a semiring, one compare an output. The test of column j,
// s = (f32)v rs cs (+ cb) >= ct with u = (f32)v rs, is for cs > 0 and finite
// (and cb finite) a nondecreasing test of u alone (each step rounds
// monotonically, infinities included): it holds exactly where u >= U, U the
// least float that passes (in the order -inf .. +inf; NaN where none does),
// found by bisection on the ordered bit patterns. Where |v| < 2^22, the
// column's part alpha c + cw of v = alpha c + ra + cw is exactly the float of
// bits THIN_MAGIC + alpha c + cw less 1.5 2^23, so (f32)v is that float plus
// (f32)ra - 1.5 2^23 (every step exact): per output an IMAD (cw staged plus
// THIN_MAGIC), an FADD, an FMUL and a compare, the same roundings on the same
// u as `thin_epilogue`.
#define THIN_MAGIC 0x4B400000u  // the bits of 1.5 2^23
#define THIN_MAGIC_F 12582912.0f
__device__ __forceinline__ bool thin_passes(f32 u, f32 cs, f32 cb, f32 ct, bool bias) {
  const f32 s = __fmul_rn(u, cs);
  return (bias ? __fadd_rn(s, cb) : s) >= ct;
}
// Ordered keys of floats (they ascend with the floats; -0 just below +0).
__device__ __forceinline__ f32 float_of_key(u32 x) { return __uint_as_float(x & 0x80000000u ? x & 0x7fffffffu : ~x); }
__device__ __forceinline__ u32 key_of_float(f32 f) {
  const u32 b = __float_as_uint(f);
  return b & 0x80000000u ? ~b : b | 0x80000000u;
}
__device__ __forceinline__ f32 thin_bound(f32 cs, f32 cb, f32 ct, bool bias) {
  u32 lo = 0x007fffffu, hi = 0xff800000u;  // the keys of -inf, +inf
  if (!thin_passes(float_of_key(hi), cs, cb, ct, bias)) return __int_as_float(0x7fffffff);
  if (thin_passes(float_of_key(lo), cs, cb, ct, bias)) return float_of_key(lo);
  // narrowed around the threshold undone, (ct - cb) / cs, where that brackets
  // the bound (the guess only saves steps: lo fails and hi passes throughout)
  const f32 guess = __fdiv_rn(bias ? __fsub_rn(ct, cb) : ct, cs);
  if (guess == guess) {
    const u32 g = key_of_float(guess), l = g - lo > 64 ? g - 64 : lo, h = hi - g > 64 ? g + 64 : hi;
    if (l > lo && !thin_passes(float_of_key(l), cs, cb, ct, bias)) lo = l;
    if (h < hi && thin_passes(float_of_key(h), cs, cb, ct, bias)) hi = h;
  }
  while (hi - lo > 1) {  // passes at hi, not at lo
    const u32 mid = lo + (hi - lo) / 2;
    (thin_passes(float_of_key(mid), cs, cb, ct, bias) ? hi : lo) = mid;
  }
  return float_of_key(hi);
}
__device__ __forceinline__ bool thin_bound_applies(f32 cs, f32 cb, bool bias) {
  return cs > 0.0f && cs <= 3.4028234663852886e38f && (!bias || fabsf(cb) <= 3.4028234663852886e38f);
}

// Rows gid and gid + 8 of a chunk's output bits, which the quad's four
// threads hold between them (lo, hi: bits 8 nf + x of column 2 tig + x, at
// 8 (nf % 4) + x of lo for nf < 4, of hi above): one exchange keeps row gid
// on even tig and gid + 8 on odd, a second completes it, and threads 0 and 1
// write the u64 word (NF = 8) or the u32 word (NF = 4).
template <int NF>
__device__ __forceinline__ void thin_store_bits(const u32 (&lo)[2], const u32 (&hi)[2], int tig, const u64 (&rows)[2],
                                                u64 m, u32 col0, u64 out_w64, void* out) {
  const int h = tig & 1;
  const u64 w0 = (((u64)hi[0] << 32) | lo[0]) << (2 * tig), w1 = (((u64)hi[1] << 32) | lo[1]) << (2 * tig);
  u64 mine = (h ? w1 : w0) | __shfl_xor_sync(FULL_MASK, h ? w0 : w1, 1);
  mine |= __shfl_xor_sync(FULL_MASK, mine, 2);
  const u64 i = h ? rows[1] : rows[0], word = col0 / (8 * NF), words = NF == 8 ? out_w64 : 2 * out_w64;
  if (tig < 2 && i < m && word < words) {
    if (NF == 8) ((u64*)out)[i * out_w64 + word] = mine;
    else ((u32*)out)[i * 2 * out_w64 + word] = (u32)mine;
  }
}

// `thin_epilogue` for bits over a semiring where every column of the block
// has THIN_MAGIC added to its staged term and its bound U in place of the
// threshold (`thin_bound`); rf: the rows' staged terms as (f32)ra - 1.5 2^23.
template <int NF>
__device__ __forceinline__ void thin_bits_by_bound(const u32 (&acc)[NF][4], const ThinPair* terms, u32 col0,
                                                   const u64 (&rows)[2], const f32 (&rf)[2], const f32 (&rs)[2],
                                                   int tig, u64 m, u64 out_w64, void* out, u32 alpha) {
  u32 lo[2] = {0, 0}, hi[2] = {0, 0};
#pragma unroll
  for (int nf = 0; nf < NF; ++nf) {
    const ThinPair& tp = terms[(col0 + nf * 8 + 2 * tig) / 2];
    const uint2 w = tp.cw;
    const float2 bound = tp.ct;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const u32 x0 = alpha * acc[nf][2 * h] + w.x, x1 = alpha * acc[nf][2 * h + 1] + w.y;
      const f32 u0 = __fmul_rn(__fadd_rn(__uint_as_float(x0), rf[h]), rs[h]);
      const f32 u1 = __fmul_rn(__fadd_rn(__uint_as_float(x1), rf[h]), rs[h]);
      u32& word = nf < 4 ? lo[h] : hi[h];
      if (u0 >= bound.x) word |= 1u << (8 * (nf & 3));
      if (u1 >= bound.y) word |= 2u << (8 * (nf & 3));
    }
  }
  thin_store_bits<NF>(lo, hi, tig, rows, m, col0, out_w64, out);
}

// Counts or scaled f32 over a semiring, or the bit planes' counts (MODE_DEQ,
// the raw sums): `thin_epilogue`'s values, written 16 bytes a store
// (`store_quads`, a pair of n fragments at a time).
template <int OUT, int MODE, bool CLAMP, int NF>
__device__ __forceinline__ void thin_values_by_quads(const u32 (&acc)[NF][4], const ThinPair* terms, u32 col0,
                                                     const u64 (&rows)[2], const u32 (&ra)[2], const f32 (&rs)[2],
                                                     int tig, u64 m, u64 n, void* out, const Epi& e) {
  const u32 alpha = (u32)e.alpha;
  const bool bias = e.bias != nullptr;
#pragma unroll
  for (int p = 0; p < NF / 2; ++p) {
    u32 v[2][2][2];  // [fragment 2 p + f][h][column 2 tig + x]
#pragma unroll
    for (int f = 0; f < 2; ++f) {
      const ThinPair& tp = terms[(col0 + (2 * p + f) * 8 + 2 * tig) / 2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const u32 c0 = acc[2 * p + f][2 * h], c1 = acc[2 * p + f][2 * h + 1];
        const i32 v0 = MODE == MODE_LIN ? lin_staged<CLAMP>(alpha, c0, ra[h], tp.cw.x) : (i32)c0;
        const i32 v1 = MODE == MODE_LIN ? lin_staged<CLAMP>(alpha, c1, ra[h], tp.cw.y) : (i32)c1;
        if (OUT == OUT_COUNTS) {
          v[f][h][0] = (u32)v0;
          v[f][h][1] = (u32)v1;
          continue;
        }
        f32 s0 = __fmul_rn(__fmul_rn((f32)v0, rs[h]), tp.cs.x), s1 = __fmul_rn(__fmul_rn((f32)v1, rs[h]), tp.cs.y);
        if (bias) {
          s0 = __fadd_rn(s0, tp.cb.x);
          s1 = __fadd_rn(s1, tp.cb.y);
        }
        v[f][h][0] = __float_as_uint(s0);
        v[f][h][1] = __float_as_uint(s1);
      }
    }
    store_quads(v, col0 + 16 * p, rows, tig, m, n, out);
  }
}

// Writes a chunk of a strip from its counts (acc): the epilogue that fits.
template <int OUT, int MODE, int NF>
__device__ __forceinline__ void thin_write(const u32 (&acc)[NF][4], bool by_bound, const ThinPair* terms, u32 col0,
                                           const u64 (&rows)[2], const u32 (&pa)[2], const f32 (&rs)[2], int tig,
                                           u64 m, u64 n, u64 out_w64, void* out, const Epi& e) {
  if constexpr ((MODE == MODE_LIN && OUT != OUT_BITS) || (MODE != MODE_LIN && OUT == OUT_COUNTS)) {
    const u32 ra[2] = {(u32)e.beta * pa[0], (u32)e.beta * pa[1]};
    if (MODE == MODE_LIN && e.clamp)
      thin_values_by_quads<OUT, MODE, true, NF>(acc, terms, col0, rows, ra, rs, tig, m, n, out, e);
    else
      thin_values_by_quads<OUT, MODE, false, NF>(acc, terms, col0, rows, ra, rs, tig, m, n, out, e);
  } else if (by_bound) {
    const f32 rf[2] = {__fsub_rn((f32)(i32)((u32)e.beta * pa[0]), THIN_MAGIC_F),
                       __fsub_rn((f32)(i32)((u32)e.beta * pa[1]), THIN_MAGIC_F)};
    thin_bits_by_bound<NF>(acc, terms, col0, rows, rf, rs, tig, m, out_w64, out, (u32)e.alpha);
  } else if (MODE == MODE_LIN && e.clamp) {
    thin_epilogue<OUT, MODE, true, NF>(acc, terms, col0, rows, pa, rs, tig, m, n, out_w64, out, e);
  } else {
    thin_epilogue<OUT, MODE, false, NF>(acc, terms, col0, rows, pa, rs, tig, m, n, out_w64, out, e);
  }
}

template <int OUT, bool PLANES>
__device__ __forceinline__ void bmm_thin(const Planes& ap, const Planes& wp, int nb, int nc, u64 m, u64 n, u64 S,
                                         u64 out_w64, void* out, int need_pa, int need_pw, const Epi& e) {
  const int MODE = PLANES ? MODE_DEQ : MODE_LIN;
  const int NB = PLANES ? nb : 1, NC = PLANES ? nc : 1;
  // k blocks (bit planes: one, src/backend/cuda/bits/bmm.rs), and w's planes
  // of lines in shared memory: plane q, k block b at q KB + b
  const int KB = PLANES ? 1 : (int)max((S + 15) / 16, (u64)1), NQ = NC * KB;
  const int ksn = thin_block_steps(S, 0);
  extern __shared__ uint4 thin_smem[];
  u64* ws = (u64*)thin_smem;
  const u32 np = (u32)((n + 63) / 64 * 64);  // columns in shared memory
  // after w: the column terms, a ThinPair for every two columns
  ThinPair* terms = (ThinPair*)(ws + (u64)NQ * np * 16);
  const int tid = threadIdx.x;

  // plain: a's fragments stay in registers for every chunk, and the next
  // strip's load is in flight during this one's (the first one's during the
  // copy of w below); planes: loaded at the strip (below)
  const int lane = tid & 31, gid = lane >> 2, tig = lane & 3;
  const u64 strips = (m + 15) / 16, step = (u64)gridDim.x * THIN_WARPS;
  u64 s = (u64)(tid >> 5) * gridDim.x + blockIdx.x;
  u32 next[THIN_KS][4];
  f32 next_rs[2];
  const auto row_scales = [&](const u64(&r)[2], f32(&rs)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) rs[h] = MODE == MODE_LIN && e.row && r[h] < m ? e.row[r[h]] : 1.0f;
  };
  if (!PLANES) {
    const u64 first[2] = {s * 16 + gid, s * 16 + gid + 8};
    thin_load_a(ap.p[0], first, m, S, 0, tig, next);
    row_scales(first, next_rs);
  }

  // w's columns (every plane and k block; zero past n and past the block's
  // words), then their terms: in shared-memory order, two slots (one 16-byte
  // store) a thread at a time, slot y of line c holding word tg ksn + ks of
  // its block (`thin_slot`)
  for (int q = 0; q < NQ; ++q) {
    const int b = q % KB, kq = thin_block_steps(S, b);
    const u64 sb = thin_block_words(S, b);
    const u64* wq = wp.p[q / KB] + 16 * (u64)b;
#pragma unroll 8
    for (u32 y = 2 * tid; y < np * 16; y += 2 * blockDim.x) {
      const u32 c = y >> 4, tg = (y >> 2) & 3;
      u64 v[2];
#pragma unroll
      for (int x = 0; x < 2; ++x) {
        const u32 ks = ((y + x) & 3) ^ (c & 3), j = tg * kq + ks;
        v[x] = c < n && ks < (u32)kq && j < sb ? __ldg(wq + (u64)c * S + j) : 0;
      }
      *(ulonglong2*)(ws + (u64)q * np * 16 + y) = make_ulonglong2(v[0], v[1]);
    }
  }
  __syncthreads();  // w is in shared memory: its popcounts from there
  // bits over a semiring by one bound a column (`thin_bound`) where |v| < 2^22
  // for every count and every column of the block allows it
  const u64 vmax = (u64)(abs((long long)e.alpha) + abs((long long)e.beta) + abs((long long)e.gamma)) * 64 * S +
                   (u64)abs((long long)e.dk);
  const bool BY_BOUND_KIND = OUT == OUT_BITS && MODE == MODE_LIN;
  bool applies = BY_BOUND_KIND && !e.clamp && vmax < (1u << 22);
  for (u32 c = tid; c < np; c += blockDim.x) {
    u32 pw = 0;
    if (need_pw)
      for (int q = 0; q < NQ; ++q)
        for (int tg = 0; tg < 4; ++tg)
          for (int ks = 0; ks < thin_block_steps(S, q % KB); ++ks)
            pw += (u32)__popcll(ws[thin_slot(q * np + c, tg, ks)]) << (q / KB);
    const ColTerms t = col_terms<MODE>(e, pw, c, n);
    ThinPair& tp = terms[c / 2];
    const int x = c & 1;
    (x ? tp.cw.y : tp.cw.x) = t.cw;
    (x ? tp.cs.y : tp.cs.x) = t.cs;
    (x ? tp.cb.y : tp.cb.x) = t.cb;
    (x ? tp.ct.y : tp.ct.x) = t.ct;
    applies = applies && thin_bound_applies(t.cs, t.cb, e.bias != nullptr);
  }
  const bool by_bound = BY_BOUND_KIND && __syncthreads_and(applies);  // block-uniform either way
  if (by_bound)  // each thread its own columns
    for (u32 c = tid; c < np; c += blockDim.x) {
      ThinPair& tp = terms[c / 2];
      const int x = c & 1;
      f32& ct = x ? tp.ct.y : tp.ct.x;
      ct = thin_bound(x ? tp.cs.y : tp.cs.x, x ? tp.cb.y : tp.cb.x, ct, e.bias != nullptr);
      (x ? tp.cw.y : tp.cw.x) += THIN_MAGIC;
    }
  __syncthreads();

  // strip s to warp s % step, block-minor (s above), so that a last partial
  // round spreads over every block (and multiprocessor) rather than the first
  for (; s < strips; s += step) {
    const u64 rows[2] = {s * 16 + gid, s * 16 + gid + 8};
    u32 af[THIN_KS][4];
    u32 pa[2] = {0, 0};
    f32 rs[2] = {next_rs[0], next_rs[1]};
    if (!PLANES) {
#pragma unroll
      for (int ks = 0; ks < THIN_KS; ++ks)
#pragma unroll
        for (int x = 0; x < 4; ++x) af[ks][x] = next[ks][x];
      // one k block: the next strip's load now; more: `next` holds the
      // later blocks during the strip, and the next strip's first after it
      if (s + step < strips) {
        const u64 after[2] = {rows[0] + 16 * step, rows[1] + 16 * step};
        if (KB == 1) thin_load_a(ap.p[0], after, m, S, 0, tig, next);
        row_scales(after, next_rs);
      }
    } else {
      row_scales(rows, rs);
    }
    // planes: with one or two planes of a, both stay in registers for every
    // chunk (af, af1); with more, each is loaded again for each chunk (and so
    // are one or two into bits, which take the 32-column chunks below: their
    // loads here serve only the popcounts)
    u32 af1[THIN_KS][4];
    // plain products of one chunk of columns (a GNN layer's) over more than
    // one k block: each block counted and multiplied as its load arrives,
    // the next one's load in flight meanwhile (`next` and `af1` in turn),
    // rather than every block loaded once for the counts and again for the
    // products
    const bool one_chunk = !PLANES && KB > 1 && np == 64;
    const auto count_a = [&](const u32(&x)[THIN_KS][4], int p) {
      if (need_pa)
#pragma unroll
        for (int ks = 0; ks < THIN_KS; ++ks) {
          pa[0] += (u32)(__popc(x[ks][0]) + __popc(x[ks][2])) << p;
          pa[1] += (u32)(__popc(x[ks][1]) + __popc(x[ks][3])) << p;
        }
    };
    if (!PLANES) {
      if (one_chunk) thin_load_a(ap.p[0], rows, m, S, 1, tig, next);
      count_a(af, 0);
      if (need_pa && !one_chunk)
        for (int b = 1; b < KB; ++b) {
          thin_load_a(ap.p[0], rows, m, S, b, tig, next);
          count_a(next, 0);
        }
    } else if (NB <= 2) {
      thin_load_a(ap.p[0], rows, m, S, 0, tig, af);
      count_a(af, 0);
      if (NB == 2) {
        thin_load_a(ap.p[1], rows, m, S, 0, tig, af1);
        count_a(af1, 1);
      }
    } else if (need_pa) {
      for (int p = 0; p < NB; ++p) {
        thin_load_a(ap.p[p], rows, m, S, 0, tig, af);
        count_a(af, p);
      }
    }
    // the row counts: summed over the four lanes of a row
    const auto reduce_pa = [&]() {
      if (need_pa)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          pa[h] += __shfl_xor_sync(FULL_MASK, pa[h], 1);
          pa[h] += __shfl_xor_sync(FULL_MASK, pa[h], 2);
        }
    };
    if (!one_chunk) reduce_pa();
    // 64 columns a chunk (one or two planes of a into counts or f32: Horner's
    // rule, no partial sums), 32 with more planes or into bits (each (p, q)
    // product's partial sums beside the accumulators; the bits' epilogue
    // would spill at 64)
    if (!PLANES || (OUT != OUT_BITS && NB <= 2)) {
      for (u32 col0 = 0; col0 < np; col0 += 64) {
        u32 acc[8][4];
#pragma unroll
        for (int nf = 0; nf < 8; ++nf)
#pragma unroll
          for (int x = 0; x < 4; ++x) acc[nf][x] = 0;
        const u64* wt = ws + thin_words(col0 + gid, tig);
        if (one_chunk) {  // block 1 is in `next` (loaded at the strip's start)
          thin_mma<false, 8>(acc, af, wt, ksn, gid, 0);
          for (int b = 1; b < KB; b += 2) {
            if (b + 1 < KB) thin_load_a(ap.p[0], rows, m, S, b + 1, tig, af1);
            count_a(next, 0);
            thin_mma<false, 8>(acc, next, wt + (u64)b * np * 16, thin_block_steps(S, b), gid, 0);
            if (b + 1 < KB) {
              if (b + 2 < KB) thin_load_a(ap.p[0], rows, m, S, b + 2, tig, next);
              count_a(af1, 0);
              thin_mma<false, 8>(acc, af1, wt + (u64)(b + 1) * np * 16, thin_block_steps(S, b + 1), gid, 0);
            }
          }
          reduce_pa();
        } else if (!PLANES) {
          thin_mma<false, 8>(acc, af, wt, ksn, gid, 0);
          for (int b = 1; b < KB; ++b) {
            thin_load_a(ap.p[0], rows, m, S, b, tig, next);
            thin_mma<false, 8>(acc, next, wt + (u64)b * np * 16, thin_block_steps(S, b), gid, 0);
          }
        } else {
          thin_mma_horner(acc, af, af1, wt, (u64)np * 16, NB, NC, ksn, gid);
        }
        thin_write<OUT, MODE, 8>(acc, by_bound, terms, col0, rows, pa, rs, tig, m, n, out_w64, out, e);
      }
      if (!PLANES && KB > 1 && s + step < strips) {
        const u64 after[2] = {rows[0] + 16 * step, rows[1] + 16 * step};
        thin_load_a(ap.p[0], after, m, S, 0, tig, next);
      }
    } else {
      for (u32 col0 = 0; col0 < np; col0 += 32) {
        u32 acc[4][4];
#pragma unroll
        for (int nf = 0; nf < 4; ++nf)
#pragma unroll
          for (int x = 0; x < 4; ++x) acc[nf][x] = 0;
        const u64* wt = ws + thin_words(col0 + gid, tig);
        for (int p = 0; p < NB; ++p) {
          thin_load_a(ap.p[p], rows, m, S, 0, tig, af);
          for (int q = 0; q < NC; ++q) thin_mma<true, 4>(acc, af, wt + (u64)q * np * 16, ksn, gid, p + q);
        }
        thin_write<OUT, MODE, 4>(acc, by_bound, terms, col0, rows, pa, rs, tig, m, n, out_w64, out, e);
      }
    }
  }
}

// ---- entry points ---------------------------------------------------------------------------

#define BMM_PARAMS                                                                                        \
  PLANES_PARAM(ap), PLANES_PARAM(wp), int nb, int nc, u64 m, u64 n, u64 S, u64 out_w64, void *out, int need_pa, \
      int need_pw, EPI_PARAMS
#define BMM_ARGS ap, wp, nb, nc, m, n, S, out_w64, out, need_pa, need_pw, EPI_MAKE

// Plain products: warp tiles of 64 x 64; bit planes (with a shifted add
// after each mma): 64 x 32, to stay within the registers.
#define TC_ENTRY(WM, NF, NAME, OUT, PLANES)                                                       \
  extern "C" __global__ void __launch_bounds__(64 * WM, 1) CAT(CAT(bits_bmm_tc, WM), NAME)(BMM_PARAMS) { \
    bmm_tc<WM, 4, NF, OUT, PLANES>(BMM_ARGS);                                                     \
  }
#define TC_ENTRIES(WM)                              \
  TC_ENTRY(WM, 8, _counts, OUT_COUNTS, false)       \
  TC_ENTRY(WM, 8, _scaled, OUT_SCALED, false)       \
  TC_ENTRY(WM, 8, _bits, OUT_BITS, false)           \
  TC_ENTRY(WM, 4, _counts_planes, OUT_COUNTS, true) \
  TC_ENTRY(WM, 4, _scaled_planes, OUT_SCALED, true) \
  TC_ENTRY(WM, 4, _bits_planes, OUT_BITS, true)

TC_ENTRIES(2)
TC_ENTRIES(4)

// The warpgroup kernel (plain products; on devices other than sm_90a an
// empty body, never launched: src/backend/cuda/bits/bmm.rs).
#define WG_ENTRY(NAME, OUT)                                                                                \
  extern "C" __global__ void __launch_bounds__(256, 1)                                                     \
      CAT(bits_bmm_wg, NAME)(PLANES_PARAM(ap), PLANES_PARAM(wp), u64 m, u64 n, u64 S, u64 out_w64, void* out, \
                             const u32* pa, const u32* pw, EPI_PARAMS) {                                    \
    bmm_wg<OUT>(ap, wp, m, n, S, out_w64, out, pa, pw, EPI_MAKE);                                           \
  }
WG_ENTRY(_counts, OUT_COUNTS)
WG_ENTRY(_scaled, OUT_SCALED)
WG_ENTRY(_bits, OUT_BITS)

#define POPC_ENTRY(NAME, OUT, PLANES) \
  extern "C" __global__ void CAT(bits_bmm_popc, NAME)(BMM_PARAMS) { bmm_popc<OUT, PLANES>(BMM_ARGS); }

#define THIN_ENTRY(NAME, OUT, PLANES)                                                                 \
  extern "C" __global__ void __launch_bounds__(32 * THIN_WARPS, 2) CAT(bits_bmm_thin, NAME)(BMM_PARAMS) { \
    bmm_thin<OUT, PLANES>(BMM_ARGS);                                                                     \
  }

THIN_ENTRY(_counts, OUT_COUNTS, false)
THIN_ENTRY(_scaled, OUT_SCALED, false)
THIN_ENTRY(_bits, OUT_BITS, false)
THIN_ENTRY(_counts_planes, OUT_COUNTS, true)
THIN_ENTRY(_scaled_planes, OUT_SCALED, true)
THIN_ENTRY(_bits_planes, OUT_BITS, true)

POPC_ENTRY(_counts, OUT_COUNTS, false)
POPC_ENTRY(_scaled, OUT_SCALED, false)
POPC_ENTRY(_bits, OUT_BITS, false)
POPC_ENTRY(_counts_planes, OUT_COUNTS, true)
POPC_ENTRY(_scaled_planes, OUT_SCALED, true)
POPC_ENTRY(_bits_planes, OUT_BITS, true)

#define F32_ENTRY(NAME, OUT)                                                                                \
  extern "C" __global__ void __launch_bounds__(128) CAT(bits_bmm_f32, NAME)(                               \
      const f32* x, const u64* w, int sign, u64 m, u64 n, u64 k, u64 S, u64 out_w64, void* out, EPI_PARAMS) { \
    bmm_f32<OUT>(x, w, sign, m, n, k, S, out_w64, out, EPI_MAKE);                                          \
  }

F32_ENTRY(_scaled, OUT_SCALED)
F32_ENTRY(_bits, OUT_BITS)
