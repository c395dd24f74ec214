// cuda/matrix.cu: matrix-level kernels on CSR with values, for one element type.
//
// Compiled once per element type with -DMT=<type> -DMT_NAME=<suffix>; every
// entry point ends in `_<MT_NAME>` (`csr_compact_f32`).
//
// Building blocks (each a count pass, an exclusive scan on the host side's
// `Dev::scan`, then a fill pass, or a flag pass then a compaction):
// - CSR transpose: a stable LSD radix sort of the entries by column (8-bit
//   digits; per-block histograms, then a scatter that keeps the input order
//   within a digit), so each new row lists its entries in increasing source
//   row: the CPU's order exactly.
// - element-wise merges of two sorted rows (union / intersection);
// - flags + compaction (select, diagonal scaling, dropping a region);
// - gather of rows and columns through index maps (extract, assign);
// - the output phase `C<mask> = accum(C, T)` with replace: a merge of C's
//   row, T's row and the mask's row, as src/backend/cpu/writeback.rs.
// Merges take a thread per row (grid-stride).
#include "common.cuh"

typedef MT T;

#define ENTRY(name) extern "C" __global__ void CAT(name, CAT(_, MT_NAME))
#define NO_ROW 0xffffffffu

// The row holding entry p: the last i with rowptr[i] <= p (empty rows skipped).
__device__ __forceinline__ u32 row_of(const u32* rowptr, u64 nrows, u64 p) {
  u64 lo = 0, hi = nrows;
  while (hi - lo > 1) {
    const u64 mid = (lo + hi) / 2;
    if (rowptr[mid] <= p) lo = mid; else hi = mid;
  }
  return (u32)lo;
}

// ---- transpose ------------------------------------------------------------------

// rows[p] = the row of entry p.
ENTRY(csr_row_ids)(const u32* rowptr, u64 nrows, u64 nnz, u32* rows) {
  for (u64 p = gtid(); p < nnz; p += gthreads()) rows[p] = row_of(rowptr, nrows, p);
}

// counts[j] += entries in column j (counts zeroed before).
ENTRY(col_counts)(const u32* colidx, u64 nnz, u32* counts) {
  for (u64 p = gtid(); p < nnz; p += gthreads()) atomicAdd(&counts[colidx[p]], 1u);
}

#define RADIX_THREADS 256
#define RADIX_WARPS (RADIX_THREADS / 32)

// Per-block digit counts of keys[lo, hi) (block b owns [b * per, (b + 1) * per)):
// ghist[d * gridDim.x + b]. Launched with exactly RADIX_THREADS threads a block.
ENTRY(radix_hist)(const u32* keys, u64 n, u32 shift, u64 per, u32* ghist) {
  __shared__ u32 h[256];
  h[threadIdx.x] = 0;
  __syncthreads();
  const u64 lo = (u64)blockIdx.x * per, hi = min(n, lo + per);
  for (u64 p = lo + threadIdx.x; p < hi; p += RADIX_THREADS) atomicAdd(&h[(keys[p] >> shift) & 255u], 1u);
  __syncthreads();
  ghist[(u64)threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}

// Stable scatter by digit: `ghist` scanned (exclusive, digit-major), each block
// walks its range in chunks of RADIX_THREADS in order; an element's place is its
// digit's start for this block, plus the same-digit elements before it in
// earlier chunks, earlier warps of this chunk and lower lanes of its warp.
// `pay == NULL`: the payload is the element's position.
ENTRY(radix_scatter)(const u32* keys, const u32* pay, u64 n, u32 shift, u64 per, const u32* ghist,
                     u32* keys_out, u32* pay_out) {
  __shared__ u32 run[256];
  __shared__ u32 wc[RADIX_WARPS][256];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
  run[tid] = ghist[(u64)tid * gridDim.x + blockIdx.x];
  const u64 lo = (u64)blockIdx.x * per, hi = min(n, lo + per);
  for (u64 base = lo; base < hi; base += RADIX_THREADS) {
#pragma unroll
    for (int w = 0; w < RADIX_WARPS; ++w) wc[w][tid] = 0;
    __syncthreads();
    const u64 p = base + tid;
    const bool valid = p < hi;
    const u32 key = valid ? keys[p] : 0u;
    const u32 d = valid ? (key >> shift) & 255u : 256u;
    const u32 peers = __match_any_sync(FULL_MASK, d);
    const u32 lrank = __popc(peers & ((1u << lane) - 1u));
    if (valid && lrank == 0) wc[warp][d] = __popc(peers);
    __syncthreads();
    if (valid) {
      u32 pos = run[d] + lrank;
      for (int w = 0; w < warp; ++w) pos += wc[w][d];
      keys_out[pos] = key;
      pay_out[pos] = pay ? pay[p] : (u32)p;
    }
    __syncthreads();
    u32 s = 0;
#pragma unroll
    for (int w = 0; w < RADIX_WARPS; ++w) s += wc[w][tid];
    run[tid] += s;
    __syncthreads();
  }
}

// out_col[q] = rows[perm[q]], out_vals[q] = vals[perm[q]] (perm NULL: identity).
ENTRY(csr_gather)(const u32* perm, const u32* rows, const T* vals, u64 nnz, u32* out_col, T* out_vals) {
  for (u64 q = gtid(); q < nnz; q += gthreads()) {
    const u32 p = perm ? perm[q] : (u32)q;
    out_col[q] = rows[p];
    out_vals[q] = vals[p];
  }
}

// ---- element-wise ---------------------------------------------------------------

// kind 0 add (union), 1 mult (intersection), 2 union with alpha/beta fills.
// `out_col == NULL`: count into counts[i].
__device__ __forceinline__ void ewise_row(int kind, int op, T alpha, T beta, const u32* ac, const T* av, u32 pa,
                                          u32 ea, const u32* bc, const T* bv, u32 pb, u32 eb, u32* counts, u64 i,
                                          u32 o, u32* out_col, T* out_vals) {
  u32 n = 0;
  while (pa < ea || pb < eb) {
    const u32 ja = pa < ea ? ac[pa] : 0xffffffffu, jb = pb < eb ? bc[pb] : 0xffffffffu;
    const u32 j = min(ja, jb);
    const bool hx = ja == j, hy = jb == j;
    bool keep = true;
    T z = Sc<T>::zero();
    if (hx && hy) { if (out_col) z = binop<T>(op, av[pa], bv[pb]); }
    else if (kind == 1) keep = false;
    else if (out_col) {
      if (kind == 0) z = hx ? av[pa] : bv[pb];
      else z = hx ? binop<T>(op, av[pa], beta) : binop<T>(op, alpha, bv[pb]);
    }
    pa += hx;
    pb += hy;
    if (!keep) continue;
    if (out_col) { out_col[o + n] = j; out_vals[o + n] = z; }
    ++n;
  }
  if (!out_col) counts[i] = n;
}

ENTRY(ewise_count)(int kind, const u32* a_rowptr, const u32* a_col, const u32* b_rowptr, const u32* b_col,
                   u64 nrows, u32* counts) {
  for (u64 i = gtid(); i < nrows; i += gthreads())
    ewise_row(kind, 0, Sc<T>::zero(), Sc<T>::zero(), a_col, 0, a_rowptr[i], a_rowptr[i + 1], b_col, 0,
              b_rowptr[i], b_rowptr[i + 1], counts, i, 0, 0, 0);
}

ENTRY(ewise_fill)(int kind, int op, u64 abits, u64 bbits, const u32* a_rowptr, const u32* a_col, const T* a_vals,
                  const u32* b_rowptr, const u32* b_col, const T* b_vals, u64 nrows, const u32* rowptr,
                  u32* out_col, T* out_vals) {
  const T alpha = Sc<T>::from_bits(abits), beta = Sc<T>::from_bits(bbits);
  for (u64 i = gtid(); i < nrows; i += gthreads())
    ewise_row(kind, op, alpha, beta, a_col, a_vals, a_rowptr[i], a_rowptr[i + 1], b_col, b_vals, b_rowptr[i],
              b_rowptr[i + 1], 0, i, rowptr[i], out_col, out_vals);
}

// ---- flags and compaction -------------------------------------------------------

// flags[p] = 1 where the predicate keeps entry p (SELECT_* codes, `select_keep`
// in common.cuh, on the entry's row, column and value); flags[nnz] = 0.
ENTRY(select_flags)(int code, i64 k, u64 tbits, const u32* rowptr, u64 nrows, const u32* colidx, const T* vals,
                    u64 nnz, u32* flags) {
  const T th = Sc<T>::from_bits(tbits);
  for (u64 p = gtid(); p <= nnz; p += gthreads()) {
    if (p == nnz) { flags[p] = 0; continue; }
    // the row (a search) and column only for the index predicates, the value only for the others
    const bool by_index = code < SELECT_VALUE_EQ;
    const i64 i = by_index ? (i64)row_of(rowptr, nrows, p) : 0, j = by_index ? (i64)colidx[p] : 0;
    const T x = by_index ? Sc<T>::zero() : vals[p];
    flags[p] = select_keep<T>(code, i, j, k, x, th) ? 1u : 0u;
  }
}

// Diagonal scaling: out_vals[p] = op(d_i, a_p) (by_rows) or op(a_p, d_j), flag
// = d present there (d_vals NULL: every value one; d_pres NULL: all present).
ENTRY(scale_flags)(int op, int by_rows, const T* d_vals, const u32* d_pres, const u32* rowptr, u64 nrows,
                   const u32* colidx, const T* vals, u64 nnz, u32* flags, T* out_vals) {
  for (u64 p = gtid(); p <= nnz; p += gthreads()) {
    if (p == nnz) { flags[p] = 0; continue; }
    const u32 at = by_rows ? row_of(rowptr, nrows, p) : colidx[p];
    const bool has = d_pres == 0 || bit_get(d_pres, at);
    const T d = d_vals ? d_vals[at] : Sc<T>::one();
    out_vals[p] = has ? (by_rows ? binop<T>(op, d, vals[p]) : binop<T>(op, vals[p], d)) : Sc<T>::zero();
    flags[p] = has ? 1u : 0u;
  }
}

// flags[p] = 0 where entry p lies in rows x cols (row_in[i] / col_in[j] != NO_ROW), else 1.
ENTRY(region_flags)(const u32* rowptr, u64 nrows, const u32* colidx, u64 nnz, const u32* row_in,
                    const u32* col_in, u32* flags) {
  for (u64 p = gtid(); p <= nnz; p += gthreads()) {
    if (p == nnz) { flags[p] = 0; continue; }
    const bool in = row_in[row_of(rowptr, nrows, p)] != NO_ROW && col_in[colidx[p]] != NO_ROW;
    flags[p] = in ? 0u : 1u;
  }
}

// Keeps the flagged entries: `pos` is the exclusive scan of the flags (nnz + 1
// entries). `out_vals == NULL`: pattern only.
ENTRY(csr_compact)(const u32* rowptr, u64 nrows, const u32* colidx, const T* vals, u64 nnz, const u32* pos,
                   u32* out_rowptr, u32* out_col, T* out_vals) {
  for (u64 p = gtid(); p < nnz; p += gthreads()) {
    const u32 o = pos[p];
    if (pos[p + 1] == o) continue;
    out_col[o] = colidx[p];
    if (out_vals) out_vals[o] = vals[p];
  }
  for (u64 i = gtid(); i <= nrows; i += gthreads()) out_rowptr[i] = pos[rowptr[i]];
}

// ---- gathers through index maps (extract, assign) -------------------------------

// Output row r is source row src_row[r] (NO_ROW: empty); each source entry in
// column j becomes entries at the output columns map_k[map_ptr[j] .. map_ptr[j+1]].
ENTRY(map_count)(const u32* a_rowptr, const u32* src_row, u64 nrows_out, const u32* a_col, const u32* map_ptr,
                 u32* counts) {
  for (u64 r = gtid(); r < nrows_out; r += gthreads()) {
    const u32 s = src_row[r];
    u32 n = 0;
    if (s != NO_ROW)
      for (u32 p = a_rowptr[s]; p < a_rowptr[s + 1]; ++p) n += map_ptr[a_col[p] + 1] - map_ptr[a_col[p]];
    counts[r] = n;
  }
}

ENTRY(map_fill)(const u32* a_rowptr, const u32* a_col, const T* a_vals, const u32* src_row, u64 nrows_out,
                const u32* map_ptr, const u32* map_k, const u32* rowptr, u32* out_col, T* out_vals) {
  for (u64 r = gtid(); r < nrows_out; r += gthreads()) {
    const u32 s = src_row[r];
    if (s == NO_ROW) continue;
    u32 o = rowptr[r];
    for (u32 p = a_rowptr[s]; p < a_rowptr[s + 1]; ++p) {
      const u32 j = a_col[p];
      for (u32 q = map_ptr[j]; q < map_ptr[j + 1]; ++q) {
        out_col[o] = map_k[q];
        out_vals[o] = a_vals[p];
        ++o;
      }
    }
  }
}

// ---- the output phase: C<mask> = accum(C, T) with replace ------------------------

// One row: the merge of C's and T's entries; the mask's row (sorted pattern,
// m_col NULL: no mask) decides where z = accum(old, new) lands, elsewhere the
// old entry stays (or goes under replace). `out_col == NULL`: count.
__device__ __forceinline__ void write_row(const u32* cc, const T* cv, u32 p, u32 pe, const u32* tc, const T* tv,
                                          u32 q, u32 qe, const u32* mc, u32 m, u32 me, int comp, int accum,
                                          int replace, u32* counts, u64 i, u32 o, u32* out_col, T* out_vals) {
  u32 n = 0;
  while (p < pe || q < qe) {
    const u32 jc = p < pe ? cc[p] : 0xffffffffu, jt = q < qe ? tc[q] : 0xffffffffu;
    const u32 j = min(jc, jt);
    const bool ho = jc == j, hn = jt == j;
    bool hz = false;
    T z = Sc<T>::zero();
    if (accum >= 0 && ho && hn) { hz = true; if (out_col) z = binop<T>(accum, cv[p], tv[q]); }
    else if (accum >= 0 && ho) { hz = true; if (out_col) z = cv[p]; }
    else if (hn) { hz = true; if (out_col) z = tv[q]; }
    bool allowed = true;
    if (mc) {
      while (m < me && mc[m] < j) ++m;
      allowed = (m < me && mc[m] == j) != (comp != 0);
    }
    bool has = false;
    T out = Sc<T>::zero();
    if (allowed) { has = hz; out = z; }
    else if (!replace && ho) { has = true; if (out_col) out = cv[p]; }
    if (has) {
      if (out_col) { out_col[o + n] = j; out_vals[o + n] = out; }
      ++n;
    }
    p += ho;
    q += hn;
  }
  if (!out_col) counts[i] = n;
}

ENTRY(mat_write_count)(const u32* c_rowptr, const u32* c_col, const u32* t_rowptr, const u32* t_col,
                       const u32* m_rowptr, const u32* m_col, int comp, int accum, int replace, u64 nrows,
                       u32* counts) {
  for (u64 i = gtid(); i < nrows; i += gthreads())
    write_row(c_col, 0, c_rowptr[i], c_rowptr[i + 1], t_col, 0, t_rowptr[i], t_rowptr[i + 1], m_col,
              m_col ? m_rowptr[i] : 0u, m_col ? m_rowptr[i + 1] : 0u, comp, accum, replace, counts, i, 0, 0, 0);
}

ENTRY(mat_write_fill)(const u32* c_rowptr, const u32* c_col, const T* c_vals, const u32* t_rowptr,
                      const u32* t_col, const T* t_vals, const u32* m_rowptr, const u32* m_col, int comp,
                      int accum, int replace, u64 nrows, const u32* rowptr, u32* out_col, T* out_vals) {
  for (u64 i = gtid(); i < nrows; i += gthreads())
    write_row(c_col, c_vals, c_rowptr[i], c_rowptr[i + 1], t_col, t_vals, t_rowptr[i], t_rowptr[i + 1], m_col,
              m_col ? m_rowptr[i] : 0u, m_col ? m_rowptr[i + 1] : 0u, comp, accum, replace, 0, i, rowptr[i],
              out_col, out_vals);
}
