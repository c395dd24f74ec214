// cuda/b2sr_pack.cu: CSR <-> B2SR: packing (a group of k lanes merges the k
// rows of a tile row: no host loop; power-law hubs cut into chunks) and
// unpacking (row lengths, then entries); 16-bit tile columns widened. Part of the type-free module `pack` (cuda/pack.cu).
#include "common.cuh"
#include "columns.cuh"

// ---- CSR -> B2SR --------------------------------------------------------------
// A group of K lanes per unit; lane r walks row tr*K + r of the unit's tile
// row. Each round the group takes the smallest tile column at the heads of its
// rows, and the lanes whose head is in it consume their entries there.
// `out_colidx == NULL`: count only (counts[unit]), else write from
// unit_tiles[unit].
//
// A unit is a tile row (`chunk_row == NULL`) or a chunk of one: tile rows
// whose longest row has more than `chunk_len` entries (power-law hubs) are cut
// into chunks of tile columns [chunk_lo[c], chunk_lo[c + 1]) taken every
// `chunk_len` entries of that row, so many groups share a hub's tile row
// instead of one group merging it alone. A lane finds its part of a chunk by
// binary search; tile columns are disjoint between chunks, so chunk c's tiles
// follow chunk c - 1's in the output.

__device__ __forceinline__ u32 lower_bound_col(const u32* __restrict__ colidx, u32 p, u32 e, u32 x) {
  while (p < e) {
    const u32 mid = p + (e - p) / 2;
    if (colidx[mid] < x) p = mid + 1; else e = mid;
  }
  return p;
}

template <int K>
__device__ __forceinline__ void pack_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                          u64 nrows, u32 nunits, const u32* __restrict__ chunk_row,
                                          const u32* __restrict__ chunk_lo, u32* __restrict__ counts,
                                          const u32* __restrict__ unit_tiles, u32* __restrict__ out_colidx,
                                          u8* __restrict__ out_tiles) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u64 groups = ((u64)nunits + G - 1) / G;
  for (u64 wg = warp; wg < groups; wg += nwarps) {
    const u64 unit = wg * G + g;
    const bool live = unit < nunits;
    const u64 tr = !live ? 0 : (chunk_row ? chunk_row[unit] : unit);
    const u64 i = tr * K + r;
    u32 p = 0, e = 0;
    if (live && i < nrows) {
      p = rowptr[i];
      e = rowptr[i + 1];
      if (chunk_row) {
        const u32 lo = chunk_lo[unit];
        const bool last = unit + 1 >= nunits || chunk_row[unit + 1] != tr;
        if (lo > 0) p = lower_bound_col(colidx, p, e, lo * K);
        if (!last) e = lower_bound_col(colidx, p, e, chunk_lo[unit + 1] * K);
      }
    }
    u32 n = 0;
    u32 out = (live && out_colidx) ? unit_tiles[unit] : 0u;
    while (true) {
      u32 head = p < e ? colidx[p] / K : 0xffffffffu;
      u32 m = head;
#pragma unroll
      for (int off = 1; off < K; off <<= 1) m = min(m, __shfl_xor_sync(FULL_MASK, m, off));
      if (!__any_sync(FULL_MASK, m != 0xffffffffu)) break;
      u32 bits = 0;
      if (m != 0xffffffffu && head == m) {
        while (p < e && colidx[p] / K == m) { bits |= 1u << (colidx[p] % K); ++p; }
      }
      // k = 4: the group's four rows go into one u16 (every lane shuffles).
      u32 word = bits << (4 * (r & 3));
      if (K == 4) {
#pragma unroll
        for (int off = 1; off < 4; off <<= 1) word |= __shfl_xor_sync(FULL_MASK, word, off);
      }
      if (m != 0xffffffffu) {
        if (out_colidx) {
          const u64 t = (u64)out + n;
          if (r == 0) out_colidx[t] = m;
          if (K == 4) {
            if (r == 0) ((u16*)out_tiles)[t] = (u16)word;
          } else if (K == 8) {
            out_tiles[t * 8 + r] = (u8)bits;
          } else if (K == 16) {
            ((u16*)out_tiles)[t * 16 + r] = (u16)bits;
          } else {
            ((u32*)out_tiles)[t * 32 + r] = bits;
          }
        }
        ++n;
      }
    }
    if (!out_colidx && r == 0 && live) counts[unit] = n;
  }
}

// The chunks of tile rows (see pack_body), in three modes, a thread per tile row:
// 0: counts[tr] = chunks of tile row tr (1, or ceil(longest row / chunk_len)),
//    counts[tile_rows] = 0;
// 1: with chunk_off = the scanned counts, chunk_row and chunk_lo of every chunk
//    (boundaries: every chunk_len-th entry of the longest row);
// 2: tile_rowptr[tr] = unit_tiles[chunk_off[tr]] for tr <= tile_rows (the
//    scanned tile counts of the chunks, back per tile row).
extern "C" __global__ void pack_chunks(const u32* rowptr, const u32* colidx, u64 nrows, u32 tile_rows, u32 k,
                                       u32 chunk_len, int mode, u32* chunk_off, u32* chunk_row, u32* chunk_lo,
                                       const u32* unit_tiles, u32* tile_rowptr) {
  for (u64 tr = gtid(); tr <= tile_rows; tr += gthreads()) {
    if (mode == 2) {
      tile_rowptr[tr] = unit_tiles[chunk_off[tr]];
      continue;
    }
    if (tr == tile_rows) {
      if (mode == 0) chunk_off[tr] = 0;
      continue;
    }
    u32 best = 0, best_len = 0;
    for (u64 i = tr * k; i < min((u64)(tr + 1) * k, nrows); ++i) {
      const u32 len = rowptr[i + 1] - rowptr[i];
      if (len > best_len) { best_len = len; best = (u32)i; }
    }
    const u32 nch = best_len > chunk_len ? (best_len + chunk_len - 1) / chunk_len : 1u;
    if (mode == 0) {
      chunk_off[tr] = nch;
    } else {
      const u32 c0 = chunk_off[tr];
      for (u32 q = 0; q < nch; ++q) {
        chunk_row[c0 + q] = (u32)tr;
        chunk_lo[c0 + q] = q == 0 ? 0u : colidx[rowptr[best] + q * chunk_len] / k;
      }
    }
  }
}

// ---- B2SR -> CSR (row lengths, then entries), a thread per row ------------------

template <int K>
__device__ __forceinline__ void unpack_body(const u32* __restrict__ trowptr, const u32* __restrict__ tcolidx,
                                            const u8* __restrict__ tiles, u64 nrows, u32* __restrict__ lens,
                                            const u32* __restrict__ rowptr, u32* __restrict__ colidx) {
  for (u64 i = gtid(); i < nrows; i += gthreads()) {
    const u64 tr = i / K;
    const int r = i % K;
    u32 n = 0;
    u32 o = colidx ? rowptr[i] : 0u;
    for (u32 t = trowptr[tr]; t < trowptr[tr + 1]; ++t) {
      u32 w = tile_row<K>(tiles, t, r);
      if (colidx) {
        const u32 base = tcolidx[t] * K;
        while (w) { colidx[o++] = base + __ffs(w) - 1; w &= w - 1; }
      } else {
        n += __popc(w);
      }
    }
    if (!colidx) lens[i] = n;
  }
}

#define B2SR_PACK_KERNELS(K)                                                                               \
  extern "C" __global__ void CAT(csr_to_b2sr_count_k, K)(const u32* rowptr, const u32* colidx, u64 nrows,  \
                                                         u32 nunits, const u32* chunk_row,                 \
                                                         const u32* chunk_lo, u32* counts) {               \
    pack_body<K>(rowptr, colidx, nrows, nunits, chunk_row, chunk_lo, counts, 0, 0, 0);                     \
  }                                                                                                        \
  extern "C" __global__ void CAT(csr_to_b2sr_fill_k, K)(const u32* rowptr, const u32* colidx, u64 nrows,   \
                                                        u32 nunits, const u32* chunk_row,                  \
                                                        const u32* chunk_lo, const u32* unit_tiles,        \
                                                        u32* out_colidx, u8* out_tiles) {                  \
    pack_body<K>(rowptr, colidx, nrows, nunits, chunk_row, chunk_lo, 0, unit_tiles, out_colidx, out_tiles); \
  }                                                                                                        \
  extern "C" __global__ void CAT(b2sr_to_csr_count_k, K)(const u32* trowptr, const u32* tcolidx,           \
                                                         const u8* tiles, u64 nrows, u32* lens) {          \
    unpack_body<K>(trowptr, tcolidx, tiles, nrows, lens, 0, 0);                                            \
  }                                                                                                        \
  extern "C" __global__ void CAT(b2sr_to_csr_fill_k, K)(const u32* trowptr, const u32* tcolidx,            \
                                                        const u8* tiles, u64 nrows, const u32* rowptr,     \
                                                        u32* colidx) {                                     \
    unpack_body<K>(trowptr, tcolidx, tiles, nrows, 0, rowptr, colidx);                                     \
  }

B2SR_PACK_KERNELS(4)
B2SR_PACK_KERNELS(8)
B2SR_PACK_KERNELS(16)
B2SR_PACK_KERNELS(32)

// ---- 16-bit tile columns (cuda/columns.cuh) ------------------------------------

// The 32-bit columns of a pattern stored in the 16-bit form: a warp per tile
// row (escaped rows, power-law hubs, are long).
extern "C" __global__ void cols_widen(const u32* __restrict__ rowptr, u32 tile_rows, const u32* __restrict__ base,
                                      const u16* __restrict__ offset, const u32* __restrict__ escaped,
                                      u32* __restrict__ colidx) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const Cols c{nullptr, base, offset, escaped};
  for (u64 tr = warp; tr < tile_rows; tr += nwarps) {
    const u32 t0 = rowptr[tr], t1 = rowptr[tr + 1];
    const RowCols rc = row_cols<true>(c, tr, t0);
    for (u32 t = t0 + lane; t < t1; t += 32) colidx[t] = tile_col<true>(c, rc, t);
  }
}
