// cuda/csr_merge.cu: `w = A ⊕.⊗ u` on CSR, merge path (`csr_merge_start`,
// `csr_mxv_merge`, `csr_merge_fix`): rows of any length, no early exit. Part
// of the semiring modules `sr_<semiring>_<type>` (cuda/sr.cu: compiled with
// -DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME; entries end in `_<SR_NAME>`).
#include "semiring.cuh"
#include "sr_csr.cuh"

//
// The product as a merge of the row ends (rowptr[1 ..]) with the entries:
// nrows + nnz items cut into chunks of MERGE_D = 32 * MERGE_E items, a warp
// per chunk, lane l taking items l * E .. (l + 1) * E of it. Every lane does
// the same work whatever the row lengths (empty rows, hubs and short rows
// alike), and reads its entries' columns and gathers with E loads in flight.
// `csr_merge_start` finds each chunk's first row (the merge path search,
// once per matrix: src/backend/cuda/mxv/csr.rs keeps the result with it);
// within a chunk a lane searches its own start among the chunk's rows.
// A lane sums its entries row by row; the partial of the row open at a lane's
// end is carried to the next lanes by a segmented scan over the warp (keys:
// rows, non-decreasing). Rows whose start and end lie in one chunk are written
// by that chunk. A row crossing chunks leaves its pieces in `part` (slot 2c:
// the piece of the row open at chunk c's start, slot 2c + 1: the piece of the
// row open at its end), and `csr_merge_fix` (a lane per chunk: the chunk
// that closes such a row) folds them in a fixed order. Fixed order
// throughout: results do not depend on scheduling. `accum`, `iso`, `allowed`
// and presence as in `csr_mxv`; `d_vals` and `affine` (with `cbits`: `c`) as
// in the fused B2SR product: the gather reads `d_j ⊗ u_j`, and every row is
// written once as `c ⊕ value` (`c` where it has none), the output not read.
//
// MERGE_E = 6 items a lane: measured on the H100 (R-MAT 22, PageRank's
// product, benches/results/algorithms-gpu-gpr9.md), 6 is faster than 4, 8 and
// 12: 8 and more take 90+ registers a thread (16 warps an SM), 6 takes 76
// (24 warps), 4 halves the loads in flight and doubles the chunks.
//
// Two one-launch forms measured slower (gpu_bench, f32 PLUS.TIMES, R-MAT 22):
// rows crossing chunks folded by the chunk that counts their last piece (a
// counter per chunk, a fence per piece): 2.8 ms where the same kernel with
// `csr_merge_fix` as a second launch took 1.4 ms (H200, one run); with the
// chunk's row ends and products also staged in shared memory for coalesced
// loads: 2.9 ms (H100; this kernel 1.04 ms in an earlier run).
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
  u32* __restrict__ pres;
  const u32* __restrict__ allowed;
  int accum;
  int affine;
  T c;
};

// Row i's final value into the output (none where `allowed` excludes it).
__device__ __forceinline__ void merge_put(const MergeOut& o, u64 i, T acc, bool has) {
  if (o.affine) {
    o.vals[i] = has ? SR::add(o.c, acc) : o.c;
    return;
  }
  if (o.allowed && !bit_get(o.allowed, i)) has = false;
  csr_put(o.vals, i, o.accum, acc, has);
  if (o.accum < 0 && has) atomicOr(&o.pres[i >> 5], 1u << (i & 31));
}

extern "C" __global__ void CAT(csr_mxv_merge_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                        const T* __restrict__ avals, u64 isobits, u64 nrows, u64 nnz,
                                                        const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                        const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                        u32* __restrict__ out_pres, int accum,
                                                        const u32* __restrict__ start_row, u64 nchunks,
                                                        T* __restrict__ part_vals, u8* __restrict__ part_has,
                                                        const T* __restrict__ d_vals, int affine, u64 cbits) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const T iso = Sc<T>::from_bits(isobits);
  const MergeOut out{out_vals, out_pres, allowed, accum, affine, Sc<T>::from_bits(cbits)};
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
          merge_put(out, row, acc, has);
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
    if (frow != ~0ull) {
      T fv = fval;
      bool fh = fhas;
      if (lane > 0 && ph) {
        fv = fh ? SR::add(pv, fv) : pv;
        fh = true;
      }
      if (frow == r0 && open_start) {
        // the end of a row begun in an earlier chunk: for csr_merge_fix
        part_vals[2 * c] = fv;
        part_has[2 * c] = fh;
      } else {
        merge_put(out, frow, fv, fh);
      }
    }
    if (lane == 31 && r1 < nrows && n1 > rowptr[r1]) {
      // the row open at the chunk's end: a middle piece or a first piece
      const u64 slot = open_start && r0 == r1 ? 2 * c : 2 * c + 1;
      part_vals[slot] = sv;
      part_has[slot] = sh;
    }
  }
}

// The pieces of row `r0` left in `part` by chunks s .. c (s: the chunk holding
// its first entry, which left its first piece in slot 1; the chunks between
// left middle pieces in slot 0; chunk c its last), folded in a fixed order.
// Serially by one lane (`lane < 0`), or by the whole warp: lanes strided over
// the chunks, then a fixed tree.
__device__ __forceinline__ void merge_fold_pieces(const T* __restrict__ part_vals, const u8* __restrict__ part_has,
                                                  u64 s, u64 c, int lane, T& acc, bool& has) {
  for (u64 q = s + max(lane, 0); q <= c; q += lane < 0 ? 1 : 32) {
    const u64 slot = q == s ? 2 * q + 1 : 2 * q;
    if (part_has[slot]) fold(acc, has, part_vals[slot]);
  }
  if (lane < 0) return;
  for (int off = 1; off < 32; off <<= 1) {
    const T oa = shfl_xor(acc, off);
    const bool oh = shfl_xor(has, off);
    if (oh) fold(acc, has, oa);
  }
}

// Rows spanning at most this many chunks are folded by one lane.
#define MERGE_FIX_SERIAL 8

// A lane per chunk: the chunk that closes a row begun in an earlier chunk
// folds its pieces, serially where the row spans at most MERGE_FIX_SERIAL
// chunks (most rows: a row crossing one chunk boundary has two pieces), else
// with the whole warp, one such row after another. Which way a row is folded
// depends on the matrix alone: results do not depend on scheduling. (A warp
// per chunk, as before, spent most of its time on chunks closing no row, or
// two pieces: measured on the H100, R-MAT 22, see
// benches/results/algorithms-gpu-gpr9.md.)
extern "C" __global__ void CAT(csr_merge_fix_, SR_NAME)(const u32* __restrict__ rowptr, u64 nrows,
                                                        const u32* __restrict__ start_row, u64 nchunks,
                                                        const T* __restrict__ part_vals,
                                                        const u8* __restrict__ part_has,
                                                        const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                        u32* __restrict__ out_pres, int accum, int affine,
                                                        u64 cbits) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const MergeOut out{out_vals, out_pres, allowed, accum, affine, Sc<T>::from_bits(cbits)};
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
      merge_put(out, r0, acc, has);
    }
    for (u32 wide = __ballot_sync(FULL_MASK, closes && !serial); wide; wide &= wide - 1) {
      const int src = __ffs(wide) - 1;
      const u64 ws = __shfl_sync(FULL_MASK, s, src), wc = __shfl_sync(FULL_MASK, c, src);
      const u64 wr = __shfl_sync(FULL_MASK, r0, src);
      T acc = SR::zero();
      bool has = false;
      merge_fold_pieces(part_vals, part_has, ws, wc, lane, acc, has);
      if (lane == 0) merge_put(out, wr, acc, has);
    }
  }
}
