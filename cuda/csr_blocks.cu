// cuda/csr_blocks.cu: `w = A ⊕.⊗ u` on CSR by row blocks (`csr_mxv_blocks`):
// rows of any length, no early exit, one launch. Part of the semiring
// modules `sr_<semiring>_<type>` (cuda/sr.cu: compiled with -DSR_T, -DSR_ADD,
// -DSR_MUL, -DSR_NAME; entries end in `_<SR_NAME>`).
//
// The rows are cut once per matrix, on the host, into blocks of consecutive
// rows holding at most BLOCKS_CAP entries and BLOCKS_NT rows
// (src/backend/cuda/mxv/csr.rs keeps the plan with the matrix). A block of
// BLOCKS_NT threads stages its entries' products in shared memory, each
// thread loading BLOCKS_E of them with all loads in flight (coalesced column
// reads whatever the row lengths), then sums each row from shared memory
// with a group of G lanes, G the largest power of two with rows x G <=
// BLOCKS_NT (at most 32). A row longer than BLOCKS_LIM x G entries in such a
// block is left to a second phase, a whole warp each, so that one long row
// among short ones does not hold a lane for its whole length. A row of more
// than BLOCKS_CAP entries (a hub) is cut into pieces of BLOCKS_PIECE entries,
// a block each; each piece's partial goes to `part`, and the last piece to
// finish (a counter per row) folds them in piece order. Every fold order
// depends on the matrix alone: results do not depend on scheduling.
//
// `accum`, `allowed` and presence as in `csr_mxv`; `out_pres` NULL without
// `accum`: the caller has written the output's presence (a full input, no
// mask: the rows with an entry) and only values are written. `d_vals` and
// `affine` (with `cbits`: `c`) as in the fused B2SR product: the gather reads
// `d_j ⊗ u_j`, and every row is written once as `c ⊕ value` (`c` where it
// has none), the output not read.
//
// Sizes measured on the H100: docs/gpu-csr-row-blocks.md.
#include "semiring.cuh"
#include "sr_csr.cuh"

#define BLOCKS_NT 128
#define BLOCKS_E 4
#define BLOCKS_CAP (BLOCKS_NT * BLOCKS_E)
#define BLOCKS_LIM 16
#define BLOCKS_PIECE (4 * BLOCKS_CAP)
// Set in a block's `bpiece` entry when it is a piece of a hub row (the
// other bits: which piece).
#define BLOCKS_HUB 0x80000000u

// How a row's result is written: `accum` as in `csr_put`, or with `affine`
// every row as `c ⊕ value`.
struct RowOut {
  T* __restrict__ vals;
  u32* __restrict__ pres;
  const u32* __restrict__ allowed;
  int accum;
  int affine;
  T c;
};

// Row i's final value into the output; whether its presence bit is to be
// set (none where `allowed` excludes it; presence only without `accum` and
// `affine`, and where the output's presence is not given): the caller ORs it
// in, a word at a time.
__device__ __forceinline__ bool row_put(const RowOut& o, u64 i, T acc, bool has) {
  if (o.affine) {
    o.vals[i] = has ? SR::add(o.c, acc) : o.c;
    return false;
  }
  if (o.allowed && !bit_get(o.allowed, i)) has = false;
  csr_put(o.vals, i, o.accum, acc, has);
  return o.pres && o.accum < 0 && has;
}

// What a product reads besides the pattern: values (NULL: every entry is
// `iso`), the input (values NULL: all one; presence NULL: all present) and
// the affine factors `d` (NULL: none).
struct RowIn {
  const T* __restrict__ avals;
  T iso;
  const T* __restrict__ u_vals;
  const u32* __restrict__ u_pres;
  const T* __restrict__ d_vals;
};

// Entry p's product `a_p ⊗ (d_j ⊗ u_j)` at column j; `h`: whether u_j is present.
__device__ __forceinline__ T row_term(const RowIn& in, u64 p, u32 j, bool& h) {
  h = !in.u_pres || bit_get(in.u_pres, j);
  T x = (in.u_vals && h) ? in.u_vals[j] : Sc<T>::one();
  if (in.d_vals && h) x = SR::mul(in.d_vals[j], x);
  return SR::mul(in.avals ? in.avals[p] : in.iso, x);
}

// The staged products of a block's entries [q0, q1) (at most BLOCKS_CAP; this
// thread's are q0 + tid + j BLOCKS_NT) into `sv`, with their presence bits in
// `sh` where the input has absent entries. `Plain`: every input present, a
// value each, no `d`, iso matrix (`a_p ⊗ u_j`, every gather in flight before
// any product: the general form's conditions would serialise them).
template <bool Plain>
__device__ __forceinline__ void stage(const u32* __restrict__ colidx, const RowIn& in, u32 q0, u32 q1, T* sv,
                                      u32* sh, int tid) {
  u32 col[BLOCKS_E];
#pragma unroll
  for (int j = 0; j < BLOCKS_E; ++j) {
    const u32 p = q0 + tid + j * BLOCKS_NT;
    col[j] = p < q1 ? __ldcs(colidx + p) : 0u;
  }
  if (Plain) {
    T x[BLOCKS_E];
#pragma unroll
    for (int j = 0; j < BLOCKS_E; ++j) x[j] = q0 + tid + j * BLOCKS_NT < q1 ? in.u_vals[col[j]] : SR::zero();
#pragma unroll
    for (int j = 0; j < BLOCKS_E; ++j)
      if (q0 + tid + j * BLOCKS_NT < q1) sv[tid + j * BLOCKS_NT] = SR::mul(in.iso, x[j]);
    return;
  }
  const bool all = in.u_pres == nullptr;
#pragma unroll
  for (int j = 0; j < BLOCKS_E; ++j) {
    const u32 p = q0 + tid + j * BLOCKS_NT;
    bool h = false;
    if (p < q1) sv[tid + j * BLOCKS_NT] = row_term(in, p, col[j], h);
    if (all) continue;
    const u32 bits = __ballot_sync(FULL_MASK, p < q1 && h);
    if ((tid & 31) == 0) sh[(tid + j * BLOCKS_NT) >> 5] = bits;
  }
}

// Whether `in` is plain (see `stage`).
__device__ __forceinline__ bool is_plain(const RowIn& in) {
  return !in.u_pres && in.u_vals && !in.d_vals && !in.avals;
}

// Folds the lanes' accumulators over groups of G lanes (a fixed tree).
__device__ __forceinline__ void group_fold(T& acc, bool& has, int G) {
  for (int off = 1; off < G; off <<= 1) {
    const T oa = shfl_xor(acc, off);
    const bool oh = shfl_xor(has, off);
    if (oh) fold(acc, has, oa);
  }
}

// The presence bits of the rows a warp's groups of G lanes wrote (`set` on
// the groups' first lanes; the warp's rows from `base`, the block's end at
// `end`), ORed into `pres` (zeroed before the product); a word of 32 rows
// all the warp's is stored.
__device__ __forceinline__ void warp_presence(u32* __restrict__ pres, bool set, u64 base, u64 end, int G,
                                              int lane) {
  const u32 b = __ballot_sync(FULL_MASK, set);
  if (lane != 0 || b == 0) return;
  const int rows = 32 / G;
  u32 word = b;
  if (G > 1) {
    word = 0;
    for (int q = 0; q < rows; ++q) word |= ((b >> (q * G)) & 1u) << q;
  }
  const u32 s = base & 31;
  if (rows == 32 && s == 0 && base + 32 <= end) {
    pres[base >> 5] = word;
    return;
  }
  atomicOr(&pres[base >> 5], word << s);
  if (s + rows > 32) atomicOr(&pres[(base >> 5) + 1], word >> (32 - s));
}

// A piece of hub row r: entries [p0, p1), BLOCKS_PIECE at most, the whole
// block striding them; the block's partial in fixed order (lanes, then
// warps), then folded with the other pieces by the last to finish.
__device__ __forceinline__ void hub_piece(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                          const RowIn& in, const RowOut& out, u32 r, u32 piece, u64 first,
                                          T* __restrict__ part_vals, u8* __restrict__ part_has,
                                          u32* __restrict__ count) {
  __shared__ T wv[BLOCKS_NT / 32];
  __shared__ bool wh[BLOCKS_NT / 32];
  const int tid = threadIdx.x;
  const u32 q0 = rowptr[r], q1 = rowptr[r + 1];
  const u32 p0 = q0 + piece * BLOCKS_PIECE, p1 = min(p0 + BLOCKS_PIECE, q1);
  const u32 npieces = (q1 - q0 + BLOCKS_PIECE - 1) / BLOCKS_PIECE;
  const bool plain = is_plain(in);
  T acc = SR::zero();
  bool has = false;
  for (u32 p = p0 + tid; p < p1; p += 4 * BLOCKS_NT) {
    u32 col[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) col[j] = p + j * BLOCKS_NT < p1 ? __ldcs(colidx + p + j * BLOCKS_NT) : 0u;
    if (plain) {
      T x[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) x[j] = p + j * BLOCKS_NT < p1 ? in.u_vals[col[j]] : SR::zero();
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (p + j * BLOCKS_NT < p1) fold(acc, has, SR::mul(in.iso, x[j]));
      continue;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (p + j * BLOCKS_NT >= p1) continue;
      bool h;
      const T v = row_term(in, p + j * BLOCKS_NT, col[j], h);
      if (h) fold(acc, has, v);
    }
  }
  group_fold(acc, has, 32);
  if ((tid & 31) == 0) {
    wv[tid >> 5] = acc;
    wh[tid >> 5] = has;
  }
  __syncthreads();
  if (tid != 0) return;
  acc = SR::zero();
  has = false;
  for (int w = 0; w < BLOCKS_NT / 32; ++w)
    if (wh[w]) fold(acc, has, wv[w]);
  if (npieces == 1) {
    if (row_put(out, r, acc, has)) atomicOr(&out.pres[r >> 5], 1u << (r & 31));
    return;
  }
  part_vals[first + piece] = acc;
  part_has[first + piece] = has;
  __threadfence();
  if (atomicAdd(&count[first], 1u) != npieces - 1) return;
  __threadfence();
  acc = SR::zero();
  has = false;
  for (u32 q = 0; q < npieces; ++q) {
    const volatile u8* ph = part_has + first + q;
    if (*ph) fold(acc, has, *(const volatile T*)(part_vals + first + q));
  }
  count[first] = 0;  // ready for the next product
  if (row_put(out, r, acc, has)) atomicOr(&out.pres[r >> 5], 1u << (r & 31));
}

// Row `r`'s sum from the staged products [a, e) by a group of G lanes (lane
// `l` of it); `all`: every input present (the presence words not read).
__device__ __forceinline__ void staged_sum(const T* sv, const u32* sh, u32 a, u32 e, int l, int G, bool all,
                                           T& acc, bool& has) {
  if (all) {
    for (u32 p = a + l; p < e; p += G) fold(acc, has, sv[p]);
  } else {
    for (u32 p = a + l; p < e; p += G)
      if ((sh[p >> 5] >> (p & 31)) & 1u) fold(acc, has, sv[p]);
  }
  group_fold(acc, has, G);
}

extern "C" __global__ void CAT(csr_mxv_blocks_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                         const T* __restrict__ avals, u64 isobits,
                                                         const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                         const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                         u32* __restrict__ out_pres, int accum,
                                                         const u32* __restrict__ brow, const u32* __restrict__ bpiece,
                                                         T* __restrict__ part_vals, u8* __restrict__ part_has,
                                                         u32* __restrict__ count, const T* __restrict__ d_vals,
                                                         int affine, u64 cbits) {
  __shared__ T sv[BLOCKS_CAP];
  __shared__ u32 sh[BLOCKS_CAP / 32];
  __shared__ u32 waiting[BLOCKS_NT];      // rows left to a warp each
  __shared__ u32 nwait;
  const RowIn in{avals, Sc<T>::from_bits(isobits), u_vals, u_pres, d_vals};
  const RowOut out{out_vals, out_pres, allowed, accum, affine, Sc<T>::from_bits(cbits)};
  const u64 b = blockIdx.x;
  const int tid = threadIdx.x, lane = tid & 31;
  const u32 r0 = brow[b], r1 = brow[b + 1], bp = bpiece[b];
  if (bp & BLOCKS_HUB) {
    const u32 piece = bp & ~BLOCKS_HUB;
    hub_piece(rowptr, colidx, in, out, r0, piece, b - piece, part_vals, part_has, count);
    return;
  }
  // stage the block's products (and their presence where the input has
  // some), all loads in flight
  const u32 q0 = rowptr[r0], q1 = rowptr[r1];
  const bool all = in.u_pres == nullptr;
  if (tid == 0) nwait = 0;
  if (is_plain(in))
    stage<true>(colidx, in, q0, q1, sv, sh, tid);
  else
    stage<false>(colidx, in, q0, q1, sv, sh, tid);
  __syncthreads();
  // a group of G lanes a row; rows of more than BLOCKS_LIM x G entries wait
  // for a warp each (the order they are listed in does not change a result:
  // each row is folded by one warp, lanes then a fixed tree)
  const u32 nr = r1 - r0;
  int G = 1;
  while (G < 32 && nr * (2 * G) <= BLOCKS_NT) G *= 2;
  const u32 lim = G < 32 ? BLOCKS_LIM * G : ~0u;
  bool waits = false;
  {
    const u32 r = r0 + tid / G;
    const int l = tid % G;
    const bool ok = r < r1;
    const u32 a = ok ? rowptr[r] - q0 : 0, e = ok ? rowptr[r + 1] - q0 : 0;
    const bool wait = e - a > lim;
    T acc = SR::zero();
    bool has = false;
    staged_sum(sv, sh, a, wait ? a : e, l, G, all, acc, has);
    bool set = false;
    if (ok && l == 0) {
      if (wait) waiting[atomicAdd(&nwait, 1u)] = r;
      else set = row_put(out, r, acc, has);
    }
    if (out.pres) warp_presence(out.pres, set, r0 + (tid - lane) / G, r1, G, lane);
    waits = ok && l == 0 && wait;
  }
  if (!__syncthreads_or(waits)) return;
  for (u32 i = tid >> 5; i < nwait; i += BLOCKS_NT / 32) {
    const u32 r = waiting[i];
    T acc = SR::zero();
    bool has = false;
    staged_sum(sv, sh, rowptr[r] - q0, rowptr[r + 1] - q0, lane, 32, all, acc, has);
    if (lane == 0 && row_put(out, r, acc, has)) atomicOr(&out.pres[r >> 5], 1u << (r & 31));
  }
}
