// cuda/pack.cu: kernels that do not depend on an element type.
//
// Exclusive scans, the load-balance segments of a B2SR matrix, CSR -> B2SR
// packing (a group of k lanes merges the k rows of a tile row: no host loop),
// B2SR -> CSR unpacking, bit counts, the fused masked count `bin_bin_sum`
// (triangle counting, exact 64-bit integer accumulation), structural select
// on B2SR tiles, and bit-vector helpers.
#include "common.cuh"

// ---- exclusive scan of u32 (three-phase: blocks, block sums, add back) ----------

#define SCAN_THREADS 256
#define SCAN_ITEMS 4
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

extern "C" __global__ void scan_block(u32* data, u64 n, u32* block_sums) {
  __shared__ u32 sh[SCAN_THREADS];
  const u64 base = (u64)blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
  u32 v[SCAN_ITEMS];
  u32 sum = 0;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    v[k] = base + k < n ? data[base + k] : 0u;
    sum += v[k];
  }
  sh[threadIdx.x] = sum;
  __syncthreads();
  for (int off = 1; off < SCAN_THREADS; off <<= 1) {
    u32 x = threadIdx.x >= off ? sh[threadIdx.x - off] : 0u;
    __syncthreads();
    sh[threadIdx.x] += x;
    __syncthreads();
  }
  u32 run = sh[threadIdx.x] - sum;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    if (base + k < n) data[base + k] = run;
    run += v[k];
  }
  if (threadIdx.x == SCAN_THREADS - 1) block_sums[blockIdx.x] = sh[threadIdx.x];
}

extern "C" __global__ void scan_add(u32* data, u64 n, const u32* block_sums) {
  const u64 i = (u64)blockIdx.x * SCAN_TILE + threadIdx.x;
  const u32 add = block_sums[blockIdx.x];
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; ++k) {
    const u64 j = i + k * SCAN_THREADS;
    if (j < n) data[j] += add;
  }
}

// ---- load-balance segments ----------------------------------------------------

// counts[tr] = number of segments of `seg_len` tiles of a long tile row
// (more than `short_max` tiles), 0 for short rows; counts[tile_rows] = 0.
extern "C" __global__ void seg_count(const u32* rowptr, u32 tile_rows, u32 short_max, u32 seg_len, u32* counts) {
  for (u64 tr = gtid(); tr <= tile_rows; tr += gthreads()) {
    if (tr == tile_rows) { counts[tr] = 0; continue; }
    const u32 len = rowptr[tr + 1] - rowptr[tr];
    counts[tr] = len <= short_max ? 0u : (len + seg_len - 1) / seg_len;
  }
}

// seg_row[s] = tr for every segment s of tile row tr; split rows listed (any order).
extern "C" __global__ void seg_fill(const u32* seg_off, u32 tile_rows, u32* seg_row, u32* split_rows,
                                    u32* nsplit) {
  for (u64 tr = gtid(); tr < tile_rows; tr += gthreads()) {
    const u32 a = seg_off[tr], b = seg_off[tr + 1];
    for (u32 s = a; s < b; ++s) seg_row[s] = (u32)tr;
    if (b - a > 1) split_rows[atomicAdd(nsplit, 1u)] = (u32)tr;
  }
}

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

// ---- bin_bin_sum: Σ over mask entries (i, j) of |A(i,:) ∧ Bt(j,:)| ---------------
// A warp per mask tile (tile row by binary search): lanes match A's tile row
// against Bt's by binary search, then G = 32/K matched tile pairs at a time,
// lane (g, r) adds popc(a_r & b_c) for the c its mask row selects.

template <int K>
__device__ __forceinline__ void tc_body(const u32* __restrict__ m_rowptr, const u32* __restrict__ m_colidx,
                                        const u8* __restrict__ m_tiles, u32 m_tile_rows, u64 m_ntiles,
                                        const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx,
                                        const u8* __restrict__ a_tiles, const u32* __restrict__ b_rowptr,
                                        const u32* __restrict__ b_colidx, const u8* __restrict__ b_tiles,
                                        unsigned long long* total) {
  const int G = 32 / K;
  const int lane = threadIdx.x & 31, g = lane / K, r = lane % K;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  u64 cnt = 0;
  for (u64 tm = warp; tm < m_ntiles; tm += nwarps) {
    // tile row of tm: the last tr with m_rowptr[tr] <= tm
    u32 lo = 0, hi = m_tile_rows;
    while (hi - lo > 1) {
      const u32 mid = (lo + hi) / 2;
      if (m_rowptr[mid] <= tm) lo = mid; else hi = mid;
    }
    const u32 tr = lo, tc = m_colidx[tm];
    const u32 mrow = tile_row<K>(m_tiles, tm, r);
    const u32 ab = a_rowptr[tr], ae = a_rowptr[tr + 1];
    const u32 bb = b_rowptr[tc], be = b_rowptr[tc + 1];
    if (ab == ae || bb == be) continue;
    for (u32 a0 = ab; a0 < ae; a0 += 32) {
      const u32 ta = a0 + lane;
      int tb = -1;
      if (ta < ae) {
        const u32 col = a_colidx[ta];
        u32 l = bb, h = be;
        while (l < h) {
          const u32 mid = (l + h) / 2;
          if (b_colidx[mid] < col) l = mid + 1; else h = mid;
        }
        if (l < be && b_colidx[l] == col) tb = (int)l;
      }
      u32 match = __ballot_sync(FULL_MASK, tb >= 0);
      while (match) {
        u32 mine = match;
        for (int q = 0; q < g; ++q) mine &= mine - 1;
        const int src = mine ? __ffs(mine) - 1 : 0;
        const bool valid = mine != 0;
        for (int q = 0; q < G; ++q) match &= match - 1;
        const u32 ta_g = __shfl_sync(FULL_MASK, ta, src);
        const int tb_g = __shfl_sync(FULL_MASK, tb, src);
        const u32 ar = valid ? tile_row<K>(a_tiles, ta_g, r) : 0u;
        const u32 br = valid ? tile_row<K>(b_tiles, (u32)tb_g, r) : 0u;
#pragma unroll
        for (int c = 0; c < K; ++c) {
          const u32 bc = __shfl_sync(FULL_MASK, br, g * K + c);
          if ((mrow >> c) & 1u) cnt += __popc(ar & bc);
        }
      }
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cnt += __shfl_xor_sync(FULL_MASK, cnt, off);
  if (lane == 0 && cnt) atomicAdd(total, (unsigned long long)cnt);
}

// ---- structural select on tiles: keep (i, j) by an index predicate --------------
// code: 0 Tril (j <= i + k), 1 Triu (j >= i + k), 2 Diag, 3 OffDiag, 4 RowLe (i <= k), 5 RowGt (i > k).

__device__ __forceinline__ bool keep_ij(int code, i64 i, i64 j, i64 k) {
  switch (code) {
    case 0: return j <= i + k;
    case 1: return j >= i + k;
    case 2: return j == i + k;
    case 3: return j != i + k;
    case 4: return i <= k;
    default: return i > k;
  }
}

// Pass 1: new tile bits in place into `out_tiles` and a keep flag per tile.
template <int K>
__device__ __forceinline__ void select_body(const u32* __restrict__ rowptr, const u32* __restrict__ colidx,
                                            const u8* __restrict__ tiles, u32 tile_rows, int code, i64 k,
                                            u8* __restrict__ out_tiles, u32* __restrict__ keep) {
  // a thread per (tile row, tile): walk tile rows with a grid-stride over tile rows
  for (u64 tr = gtid(); tr < tile_rows; tr += gthreads()) {
    for (u32 t = rowptr[tr]; t < rowptr[tr + 1]; ++t) {
      const u64 base = (u64)colidx[t] * K;
      bool any = false;
      u32 rows[K];
#pragma unroll
      for (int r = 0; r < K; ++r) {
        u32 w = tile_row<K>(tiles, t, r), o = 0;
        const i64 i = (i64)(tr * K + r);
        while (w) {
          const int c = __ffs(w) - 1;
          w &= w - 1;
          if (keep_ij(code, i, (i64)(base + c), k)) o |= 1u << c;
        }
        rows[r] = o;
        any |= o != 0;
      }
      if (K == 4) {
        u32 word = 0;
#pragma unroll
        for (int r = 0; r < K; ++r) word |= rows[r] << (4 * r);
        ((u16*)out_tiles)[t] = (u16)word;
      } else {
#pragma unroll
        for (int r = 0; r < K; ++r) {
          if (K == 8) out_tiles[(u64)t * 8 + r] = (u8)rows[r];
          else if (K == 16) ((u16*)out_tiles)[(u64)t * 16 + r] = (u16)rows[r];
          else ((u32*)out_tiles)[(u64)t * 32 + r] = rows[r];
        }
      }
      keep[t] = any ? 1u : 0u;
    }
  }
}

// Pass 2 (after scanning `keep` into `pos`): compact kept tiles; new row pointers.
extern "C" __global__ void tiles_compact(const u32* rowptr, const u32* colidx, const u8* tiles, u32 tile_rows,
                                         u64 ntiles, u32 tile_bytes, const u32* keep, const u32* pos,
                                         u32* out_rowptr, u32* out_colidx, u8* out_tiles) {
  for (u64 t = gtid(); t < ntiles; t += gthreads()) {
    if (!keep[t]) continue;
    const u32 o = pos[t];
    out_colidx[o] = colidx[t];
    for (u32 b = 0; b < tile_bytes; ++b) out_tiles[(u64)o * tile_bytes + b] = tiles[t * tile_bytes + b];
  }
  for (u64 tr = gtid(); tr <= tile_rows; tr += gthreads()) {
    const u32 t = rowptr[tr];
    out_rowptr[tr] = t < ntiles ? pos[t] : (ntiles ? pos[ntiles - 1] + keep[ntiles - 1] : 0u);
  }
}

// ---- bit counts ---------------------------------------------------------------

// Σ popc over `nwords` u32 words.
extern "C" __global__ void popc_words(const u32* words, u64 nwords, unsigned long long* total) {
  u64 c = 0;
  for (u64 i = gtid(); i < nwords; i += gthreads()) c += __popc(words[i]);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) c += __shfl_xor_sync(FULL_MASK, c, off);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(total, (unsigned long long)c);
}

// out = comp ? ~a : a over `nwords` words (padding past `n` bits cleared).
extern "C" __global__ void bits_not(const u32* a, u64 n, u64 nwords, u32* out) {
  for (u64 w = gtid(); w < nwords; w += gthreads()) {
    u32 x = ~a[w];
    const u64 lo = w * 32;
    if (lo >= n) x = 0;
    else if (n - lo < 32) x &= (1u << (n - lo)) - 1u;
    out[w] = x;
  }
}

// Bits-only output phase: out = (t & allowed) | (w & ~allowed unless replace).
extern "C" __global__ void bits_writeback(const u32* t, const u32* w, const u32* allowed, int replace, u64 nwords,
                                          u32* out) {
  for (u64 q = gtid(); q < nwords; q += gthreads()) {
    const u32 m = allowed[q];
    out[q] = (t[q] & m) | (replace ? 0u : (w[q] & ~m));
  }
}

// flags[i] = 1 where present (pres NULL: all), for i < n; flags[n] = 0.
extern "C" __global__ void pres_flags(const u32* pres, u64 n, u32* flags) {
  for (u64 i = gtid(); i <= n; i += gthreads()) flags[i] = (i < n && (pres == 0 || bit_get(pres, i))) ? 1u : 0u;
}

#define PACK_KERNELS(K)                                                                                   \
  extern "C" __global__ void CAT(csr_to_b2sr_count_k, K)(const u32* rowptr, const u32* colidx, u64 nrows,  \
                                                         u32 nunits, const u32* chunk_row,                 \
                                                         const u32* chunk_lo, u32* counts) {               \
    pack_body<K>(rowptr, colidx, nrows, nunits, chunk_row, chunk_lo, counts, 0, 0, 0);                    \
  }                                                                                                       \
  extern "C" __global__ void CAT(csr_to_b2sr_fill_k, K)(const u32* rowptr, const u32* colidx, u64 nrows,   \
                                                        u32 nunits, const u32* chunk_row,                 \
                                                        const u32* chunk_lo, const u32* unit_tiles,       \
                                                        u32* out_colidx, u8* out_tiles) {                 \
    pack_body<K>(rowptr, colidx, nrows, nunits, chunk_row, chunk_lo, 0, unit_tiles, out_colidx, out_tiles); \
  }                                                                                                       \
  extern "C" __global__ void CAT(b2sr_to_csr_count_k, K)(const u32* trowptr, const u32* tcolidx,          \
                                                         const u8* tiles, u64 nrows, u32* lens) {         \
    unpack_body<K>(trowptr, tcolidx, tiles, nrows, lens, 0, 0);                                           \
  }                                                                                                       \
  extern "C" __global__ void CAT(b2sr_to_csr_fill_k, K)(const u32* trowptr, const u32* tcolidx,           \
                                                        const u8* tiles, u64 nrows, const u32* rowptr,    \
                                                        u32* colidx) {                                    \
    unpack_body<K>(trowptr, tcolidx, tiles, nrows, 0, rowptr, colidx);                                    \
  }                                                                                                       \
  extern "C" __global__ void CAT(b2sr_tc_k, K)(                                                           \
      const u32* m_rowptr, const u32* m_colidx, const u8* m_tiles, u32 m_tile_rows, u64 m_ntiles,         \
      const u32* a_rowptr, const u32* a_colidx, const u8* a_tiles, const u32* b_rowptr,                   \
      const u32* b_colidx, const u8* b_tiles, unsigned long long* total) {                                \
    tc_body<K>(m_rowptr, m_colidx, m_tiles, m_tile_rows, m_ntiles, a_rowptr, a_colidx, a_tiles, b_rowptr, \
               b_colidx, b_tiles, total);                                                                 \
  }                                                                                                       \
  extern "C" __global__ void CAT(b2sr_select_k, K)(const u32* rowptr, const u32* colidx, const u8* tiles,  \
                                                   u32 tile_rows, int code, i64 k, u8* out_tiles,         \
                                                   u32* keep) {                                           \
    select_body<K>(rowptr, colidx, tiles, tile_rows, code, k, out_tiles, keep);                           \
  }

PACK_KERNELS(4)
PACK_KERNELS(8)
PACK_KERNELS(16)
PACK_KERNELS(32)
