// cuda/csr_merge.cu: `w = A ⊕.⊗ u` on CSR, merge path, one launch
// (`csr_mxv_merge`; `csr_merge_start` finds the chunks' first rows once per
// matrix): rows of any length, no early exit. Part of the semiring modules
// `sr_<semiring>_<type>` (cuda/sr.cu: compiled with -DSR_T, -DSR_ADD,
// -DSR_MUL, -DSR_NAME; entries end in `_<SR_NAME>`).
#include "semiring.cuh"
#include "sr_csr.cuh"

//
// The product as a merge of the row ends (rowptr[1 ..]) with the entries:
// nrows + nnz items cut into chunks of MERGE_D = 32 * MERGE_E items, a warp
// per chunk, lane l taking items l * E .. (l + 1) * E of it. Every lane does
// the same work whatever the row lengths (empty rows, hubs and short rows
// alike), and reads its entries' columns and gathers with E loads in flight.
// The chunks' first rows (the merge path search) are found once per matrix
// by `csr_merge_start`; within a chunk a lane searches its own start among
// the chunk's rows. A lane sums its entries row by row; the partial of the
// row open at a lane's end is carried to the next lanes by a segmented scan
// over the warp (keys: rows, non-decreasing). Rows whose start and end lie in
// one chunk are written by that chunk. A row crossing chunks s .. e leaves
// one piece per chunk in `part` (slot 2s + 1: its first piece, slot 2q: the
// piece of chunk q > s), and each chunk counts its piece in `counter[s]`:
// the chunk that counts the last piece folds them all in chunk order (one
// lane where the row spans fewer than MERGE_FIX_SERIAL chunks, else the whole
// warp, lanes strided and a fixed tree) and sets the counter back to zero for
// the next product. The fold's order depends on the matrix alone: results do
// not depend on scheduling. Presence bits are written per word by the lanes
// that own them (every row is written exactly once, present or not; the
// lanes of a warp merge their words first), so the output needs no memset.
// `accum`, `iso`, `allowed` and presence as in `csr_mxv`; `d_vals` and
// `affine` (with `cbits`: `c`) as in the fused B2SR product: the gather reads
// `d_j ⊗ u_j`, and every row is written once as `c ⊕ value` (`c` where it has
// none), the output not read.
//
// A form that staged the chunk's row ends and products in shared memory
// (coalesced loads, the lanes' searches in shared memory) ran 1.3-3x slower
// on the H100 on every graph larger than delaunay_n14 (R-MAT 22: 2.90 ms
// against 1.04 ms): the values stay in registers.
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
  const u32* __restrict__ allowed;
  int accum;
  int affine;
  T c;
};

// Row i's final value into the output (none where `allowed` excludes it);
// whether its presence bit is set.
__device__ __forceinline__ bool merge_put(const MergeOut& o, u64 i, T acc, bool has) {
  if (o.affine) {
    o.vals[i] = has ? SR::add(o.c, acc) : o.c;
    return false;
  }
  if (o.allowed && !bit_get(o.allowed, i)) has = false;
  csr_put(o.vals, i, o.accum, acc, has);
  return has;
}

// The presence bits a lane writes, one word at a time: `own` the rows it
// wrote (for the last row also the word's bits above it), `bits` those with a
// value.
struct PresRun {
  u64 word;
  u32 bits, own;
};

// The bits of row i within its word: its own bit, and for the last row the
// bits above it too (no row owns those).
__device__ __forceinline__ u32 row_own(u64 i, u64 nrows) {
  return i + 1 == nrows ? FULL_MASK << (i & 31) : 1u << (i & 31);
}

// Adds row i to the lane's run (writing the run out first when i lies in
// another word). `pres` NULL: the output has no presence bits.
__device__ __forceinline__ void pres_add(u32* pres, u64 nrows, PresRun& r, u64 i, bool has) {
  if (!pres) return;
  if (r.own && (i >> 5) != r.word) {
    pres_set(&pres[r.word], r.bits, r.own);
    r.bits = r.own = 0;
  }
  r.word = i >> 5;
  r.own |= row_own(i, nrows);
  if (has) r.bits |= 1u << (i & 31);
}

// The lanes' runs written out, merged per word: one write per word a warp
// holds (the lanes' rows are consecutive, so most chunks hold one or two).
__device__ __forceinline__ void pres_warp_flush(u32* pres, PresRun& r, int lane) {
  if (!pres) return;
  const u64 key = r.own ? r.word : ~0ull;
  const u32 peers = __match_any_sync(FULL_MASK, key);
#if __CUDA_ARCH__ >= 800
  const u32 bits = __reduce_or_sync(peers, r.bits), own = __reduce_or_sync(peers, r.own);
#else
  u32 bits = 0, own = 0;
  for (u32 m = peers; m; m &= m - 1) {
    bits |= __shfl_sync(peers, r.bits, __ffs(m) - 1);
    own |= __shfl_sync(peers, r.own, __ffs(m) - 1);
  }
#endif
  if (key != ~0ull && lane == __ffs(peers) - 1) pres_set(&pres[key], bits, own);
  r.bits = r.own = 0;
}

// The pieces of a row crossing chunks s .. e left in `part` (slot 2s + 1:
// the first piece, slot 2q: chunk q's), folded in a fixed order: serially by
// one lane (`lane < 0`), or by the whole warp (lanes strided over the chunks,
// then a fixed tree). Read past the L1 cache: other warps wrote them.
__device__ __forceinline__ void merge_fold_pieces(const T* part_vals, const u8* part_has, u64 s, u64 e, int lane,
                                                  T& acc, bool& has) {
  for (u64 q = s + max(lane, 0); q <= e; q += lane < 0 ? 1 : 32) {
    const u64 slot = q == s ? 2 * q + 1 : 2 * q;
    if (((const volatile u8*)part_has)[slot]) fold(acc, has, ((const volatile T*)part_vals)[slot]);
  }
  if (lane < 0) return;
  for (int off = 1; off < 32; off <<= 1) {
    const T oa = shfl_xor(acc, off);
    const bool oh = shfl_xor(has, off);
    if (oh) fold(acc, has, oa);
  }
}

// Rows spanning fewer than this many chunks are folded by one lane.
#define MERGE_FIX_SERIAL 8

// A lane that left a piece of `row` (a row crossing chunks) counts it; the
// lane counting the row's last piece folds every piece and writes the row
// (the whole warp helps for rows over many chunks). Called by every lane.
__device__ __forceinline__ void merge_close(const u32* __restrict__ rowptr, const MergeOut& out, u32* pres,
                                            u64 nrows, T* part_vals, u8* part_has, u32* counter, int lane,
                                            bool piece, u64 row) {
  u64 s = 0, e = 0;
  bool last = false;
  if (piece) {
    s = (row + rowptr[row]) / MERGE_D;
    e = (row + rowptr[row + 1]) / MERGE_D;
    __threadfence();
    last = atomicAdd(&counter[s], 1u) == (u32)(e - s);
  }
  if (last && e - s < MERGE_FIX_SERIAL) {
    __threadfence();
    T acc = SR::zero();
    bool has = false;
    merge_fold_pieces(part_vals, part_has, s, e, -1, acc, has);
    counter[s] = 0;
    const bool p = merge_put(out, row, acc, has);
    if (pres) pres_set(&pres[row >> 5], (u32)p << (row & 31), row_own(row, nrows));
  }
  for (u32 wide = __ballot_sync(FULL_MASK, last && e - s >= MERGE_FIX_SERIAL); wide; wide &= wide - 1) {
    const int src = __ffs(wide) - 1;
    const u64 ws = __shfl_sync(FULL_MASK, s, src), we = __shfl_sync(FULL_MASK, e, src);
    const u64 wr = __shfl_sync(FULL_MASK, row, src);
    __threadfence();
    T acc = SR::zero();
    bool has = false;
    merge_fold_pieces(part_vals, part_has, ws, we, lane, acc, has);
    if (lane == 0) {
      counter[ws] = 0;
      const bool p = merge_put(out, wr, acc, has);
      if (pres) pres_set(&pres[wr >> 5], (u32)p << (wr & 31), row_own(wr, nrows));
    }
  }
}

extern "C" __global__ void CAT(csr_mxv_merge_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                        const T* __restrict__ avals, u64 isobits, u64 nrows, u64 nnz,
                                                        const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                        const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                        u32* __restrict__ out_pres, int accum,
                                                        const u32* __restrict__ start_row, u64 nchunks, T* part_vals,
                                                        u8* part_has, u32* counter, const T* __restrict__ d_vals,
                                                        int affine, u64 cbits) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const T iso = Sc<T>::from_bits(isobits);
  const MergeOut out{out_vals, allowed, accum, affine, Sc<T>::from_bits(cbits)};
  u32* const pres = accum < 0 && !affine ? out_pres : nullptr;
  PresRun run{0, 0, 0};
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
          pres_add(pres, nrows, run, row, merge_put(out, row, acc, has));
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
    // pieces of rows crossing chunks: the row open at the chunk's start,
    // closed here (piece a), and the row open at its end (piece b)
    bool piece_a = false, piece_b = false;
    if (frow != ~0ull) {
      T fv = fval;
      bool fh = fhas;
      if (lane > 0 && ph) {
        fv = fh ? SR::add(pv, fv) : pv;
        fh = true;
      }
      if (frow == r0 && open_start) {
        part_vals[2 * c] = fv;
        part_has[2 * c] = fh;
        piece_a = true;
      } else {
        pres_add(pres, nrows, run, frow, merge_put(out, frow, fv, fh));
      }
    }
    if (lane == 31 && r1 < nrows && n1 > rowptr[r1]) {
      // a middle piece (the chunk lies inside the row) or the first piece
      const u64 slot = open_start && r0 == r1 ? 2 * c : 2 * c + 1;
      part_vals[slot] = sv;
      part_has[slot] = sh;
      piece_b = true;
    }
    pres_warp_flush(pres, run, lane);
    if (counter) {
      merge_close(rowptr, out, pres, nrows, part_vals, part_has, counter, lane, piece_a, r0);
      merge_close(rowptr, out, pres, nrows, part_vals, part_has, counter, lane, piece_b, r1);
    }
  }
}

// Without `counter` in `csr_mxv_merge`: a lane per chunk, the chunk that
// closes a row begun in an earlier chunk folds its pieces, serially where the
// row spans fewer than MERGE_FIX_SERIAL chunks, else with the whole warp.
extern "C" __global__ void CAT(csr_merge_fix_, SR_NAME)(const u32* __restrict__ rowptr, u64 nrows,
                                                        const u32* __restrict__ start_row, u64 nchunks,
                                                        const T* part_vals, const u8* part_has,
                                                        const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                        u32* __restrict__ out_pres, int accum, int affine,
                                                        u64 cbits) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const MergeOut out{out_vals, allowed, accum, affine, Sc<T>::from_bits(cbits)};
  u32* const pres = accum < 0 && !affine ? out_pres : nullptr;
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
      const bool p = merge_put(out, r0, acc, has);
      if (pres) pres_set(&pres[r0 >> 5], (u32)p << (r0 & 31), row_own(r0, nrows));
    }
    for (u32 wide = __ballot_sync(FULL_MASK, closes && !serial); wide; wide &= wide - 1) {
      const int src = __ffs(wide) - 1;
      const u64 ws = __shfl_sync(FULL_MASK, s, src), wc = __shfl_sync(FULL_MASK, c, src);
      const u64 wr = __shfl_sync(FULL_MASK, r0, src);
      T acc = SR::zero();
      bool has = false;
      merge_fold_pieces(part_vals, part_has, ws, wc, lane, acc, has);
      if (lane == 0) {
        const bool p = merge_put(out, wr, acc, has);
        if (pres) pres_set(&pres[wr >> 5], (u32)p << (wr & 31), row_own(wr, nrows));
      }
    }
  }
}
