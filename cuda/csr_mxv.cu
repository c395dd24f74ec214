// cuda/csr_mxv.cu: `w = A ⊕.⊗ u` on CSR with values per entry, by rows:
// `csr_mxv` (row groups), `csr_mxv_long` and `csr_mxv_fix` (long rows in
// chunks). Part of the semiring modules `sr_<semiring>_<type>` (cuda/sr.cu:
// compiled with -DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME; entries end in
// `_<SR_NAME>`). The row-block product is cuda/csr_blocks.cu.
#include "semiring.cuh"
#include "sr_csr.cuh"

//
// Rows with at most `long_min` entries: a group of V = 1 << vlog lanes per row
// (V from the average row length, chosen by the caller), a warp covering 32/V
// consecutive rows. Longer rows (the hubs of power-law graphs) are skipped
// there and cut into chunks of `long_min` consecutive entries instead
// (`csr_mxv_long`, a warp per chunk: a chunk touches at most two long rows,
// the one holding its first entry and the one holding its last, since a row
// lying wholly inside a chunk is not long). `csr_mxv_fix` folds each long
// row's chunk partials in chunk order, so results do not depend on
// scheduling. Presence starts zeroed; both kernels OR their bits in.
//
// `avals == NULL`: every entry holds the value `isobits` (an iso-valued matrix,
// such as a pattern with all-one values): the values are never read.
// `accum >= 0`: the output is a full vector (no presence), and each row with
// an entry in the product becomes `accum(out, row's sum)` in place (the
// accumulated `w += A u` of PageRank in one pass, no temporary); rows without
// one keep their value; `out_pres` is unused (NULL).

// The row holding entry p: the last i with rowptr[i] <= p.
__device__ __forceinline__ u64 csr_row_of(const u32* __restrict__ rowptr, u64 nrows, u32 p) {
  u64 lo = 0, hi = nrows;
  while (hi - lo > 1) {
    const u64 mid = (lo + hi) / 2;
    if (rowptr[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}

// acc of entries [p0, p1) of one row, the lanes of a group of `width` lanes
// (lane index `l` inside it) striding over them, reduced over the group.
__device__ __forceinline__ void csr_span(const u32* __restrict__ colidx, const T* __restrict__ avals, T iso,
                                         const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                         u32 p0, u32 p1, int l, int width, T& acc, bool& has) {
  // Two entries per lane per round: both column loads, then both gathers,
  // are in flight together (the gathers of a power-law graph's product are
  // latency-bound: measured on the H100, R-MAT 22, one entry per round).
  u32 p = p0 + l;
  for (; p + width < p1; p += 2 * width) {
    const u32 j0 = colidx[p], j1 = colidx[p + width];
    const bool h0 = !u_pres || bit_get(u_pres, j0), h1 = !u_pres || bit_get(u_pres, j1);
    const T x0 = (u_vals && h0) ? u_vals[j0] : Sc<T>::one(), x1 = (u_vals && h1) ? u_vals[j1] : Sc<T>::one();
    if (h0) fold(acc, has, SR::mul(avals ? avals[p] : iso, x0));
    if (h1) fold(acc, has, SR::mul(avals ? avals[p + width] : iso, x1));
    // ANY, and LOR once true, cannot change: the lane stops (BFS pulls).
    if (SR_ADD == OP_ANY && has) break;
    if (SR_ADD == OP_LOR && has && Sc<T>::nz(acc)) break;
  }
  if (p < p1 && !(SR_ADD == OP_ANY && has) && !(SR_ADD == OP_LOR && has && Sc<T>::nz(acc))) {
    const u32 j = colidx[p];
    if (!u_pres || bit_get(u_pres, j))
      fold(acc, has, SR::mul(avals ? avals[p] : iso, u_vals ? u_vals[j] : Sc<T>::one()));
  }
  for (int off = 1; off < width; off <<= 1) {
    const T oa = shfl_xor(acc, off);
    const bool oh = shfl_xor(has, off);
    if (oh) fold(acc, has, oa);
  }
}


extern "C" __global__ void CAT(csr_mxv_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                  const T* __restrict__ avals, u64 isobits, u64 nrows,
                                                  const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                  const u32* __restrict__ allowed, T* __restrict__ out_vals,
                                                  u32* __restrict__ out_pres, u32 vlog, u32 long_min, int accum) {
  const int V = 1 << vlog, G = 32 / V;
  const int lane = threadIdx.x & 31, g = lane / V, l = lane % V;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const T iso = Sc<T>::from_bits(isobits);
  for (u64 base = warp * G; base < nrows; base += nwarps * G) {
    const u64 i = base + g;
    T acc = SR::zero();
    bool has = false;
    u32 p0 = 0, p1 = 0;
    if (i < nrows) { p0 = rowptr[i]; p1 = rowptr[i + 1]; }
    const bool is_long = p1 - p0 > long_min;
    if (is_long || (allowed && i < nrows && !bit_get(allowed, i))) p1 = p0;
    csr_span(colidx, avals, iso, u_vals, u_pres, p0, p1, l, V, acc, has);
    if (l == 0 && i < nrows && !is_long) csr_put(out_vals, i, accum, acc, has);
    if (accum >= 0) continue;
    // the group leaders' presence bits, as G consecutive bits of one word
    const u32 b = __ballot_sync(FULL_MASK, l == 0 && has);
    u32 word = 0;
    for (int q = 0; q < G; ++q) word |= ((b >> (q * V)) & 1u) << q;
    if (lane == 0 && word) atomicOr(&out_pres[base >> 5], word << (base & 31));
  }
}

extern "C" __global__ void CAT(csr_mxv_long_, SR_NAME)(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                                       const T* __restrict__ avals, u64 isobits, u64 nrows, u32 nnz,
                                                       const T* __restrict__ u_vals, const u32* __restrict__ u_pres,
                                                       const u32* __restrict__ allowed, u32 long_min,
                                                       T* __restrict__ part_vals, u8* __restrict__ part_has) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u64 nchunks = ((u64)nnz + long_min - 1) / long_min;
  const T iso = Sc<T>::from_bits(isobits);
  for (u64 c = warp; c < nchunks; c += nwarps) {
    const u32 q0 = (u32)(c * long_min), q1 = (u32)min((u64)nnz, (c + 1) * long_min);
    const u64 ra = csr_row_of(rowptr, nrows, q0), rb = csr_row_of(rowptr, nrows, q1 - 1);
#pragma unroll 1
    for (int slot = 0; slot < 2; ++slot) {
      const u64 i = slot == 0 ? ra : rb;
      if (slot == 1 && rb == ra) break;
      const u32 r0 = rowptr[i], r1 = rowptr[i + 1];
      if (r1 - r0 <= long_min) continue;  // not long: the row kernel took it
      T acc = SR::zero();
      bool has = false;
      const bool ok = allowed == 0 || bit_get(allowed, i);
      csr_span(colidx, avals, iso, u_vals, u_pres, ok ? max(r0, q0) : 0, ok ? min(r1, q1) : 0, lane, 32, acc,
               has);
      if (lane == 0) {
        part_vals[2 * c + slot] = acc;
        part_has[2 * c + slot] = has;
      }
    }
  }
}

extern "C" __global__ void CAT(csr_mxv_fix_, SR_NAME)(const u32* __restrict__ rowptr, u64 nrows, u32 long_min,
                                                      const T* __restrict__ part_vals, const u8* __restrict__ part_has,
                                                      T* __restrict__ out_vals, u32* __restrict__ out_pres,
                                                      int accum) {
  for (u64 i = gtid(); i < nrows; i += gthreads()) {
    const u32 r0 = rowptr[i], r1 = rowptr[i + 1];
    if (r1 - r0 <= long_min) continue;
    T acc = SR::zero();
    bool has = false;
    const u64 c0 = r0 / long_min, c1 = (r1 - 1) / long_min;
    for (u64 c = c0; c <= c1; ++c) {
      // slot 0 where the chunk starts inside this row, else slot 1
      const u64 s = 2 * c + ((u64)r0 == c * long_min || c > c0 ? 0 : 1);
      if (part_has[s]) fold(acc, has, part_vals[s]);
    }
    csr_put(out_vals, i, accum, acc, has);
    if (accum < 0 && has) atomicOr(&out_pres[i >> 5], 1u << (i & 31));
  }
}
