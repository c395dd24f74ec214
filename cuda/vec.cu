// cuda/vec.cu: element-wise kernels for one element type.
//
// Compiled once per element type with -DVT=<type> -DVT_NAME=<suffix>; every
// entry point ends in `_<VT_NAME>` (`vec_writeback_f32`).
//
// A vector on the device is `vals` (one per index) plus `pres` (a bit vector,
// NULL = every entry present). The output phase of every operation is
// `vec_writeback`: z = accum(w, t) on the union of patterns (or t), then where
// the mask allows w takes z, elsewhere it keeps its entry (or loses it under
// replace). Output presence words are written whole with a warp ballot.
#include "common.cuh"

typedef VT T;

__device__ __forceinline__ bool present(const u32* pres, u64 i) { return pres == 0 || bit_get(pres, i); }

#define ENTRY(name) extern "C" __global__ void CAT(name, CAT(_, VT_NAME))

// vals[i] = value for i < n
ENTRY(vec_fill)(T* vals, u64 n, u64 vbits) {
  const T v = Sc<T>::from_bits(vbits);
  for (u64 i = gtid(); i < n; i += gthreads()) vals[i] = v;
}

// The positions a mask over (vals, pres) allows: present (structural) or present
// and nonzero, complemented when asked. `vals == NULL`: a bit vector.
ENTRY(vec_mask)(const T* vals, const u32* pres, u64 n, int structural, int comp, u32* out) {
  const u64 cap = bit_words(n) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 i = base + (threadIdx.x & 31);
    bool m = false;
    if (i < n) {
      m = present(pres, i) && (structural || vals == 0 || Sc<T>::nz(vals[i]));
      if (comp) m = !m;
    }
    ballot_store(out, i, m, n);
  }
}

// w<allowed> = accum(w, t) (accum < 0: none), with replace. NULL values: all one.
ENTRY(vec_writeback)(const T* t_vals, const u32* t_pres, const T* w_vals, const u32* w_pres,
                     const u32* allowed, int accum, int replace, u64 n, T* out_vals, u32* out_pres) {
  const u64 cap = bit_words(n) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 i = base + (threadIdx.x & 31);
    bool p = false;
    if (i < n) {
      const bool ht = present(t_pres, i), hw = present(w_pres, i);
      T z = Sc<T>::zero();
      bool hz = false;
      const T tv = t_vals ? t_vals[i] : Sc<T>::one();
      const T wv = w_vals ? w_vals[i] : Sc<T>::one();
      if (accum >= 0 && ht && hw) { z = binop<T>(accum, wv, tv); hz = true; }
      else if (accum >= 0 && hw) { z = wv; hz = true; }
      else if (ht) { z = tv; hz = true; }
      T o = Sc<T>::zero();
      if (allowed == 0 || bit_get(allowed, i)) { o = z; p = hz; }
      else if (!replace && hw) { o = wv; p = true; }
      out_vals[i] = o;
    }
    // No presence out for a result known to be full. out_vals may be w_vals
    // (in place): each index is read before it is written, by one thread.
    if (out_pres) ballot_store(out_pres, i, p, n);
  }
}

// Element-wise: kind 0 add (union), 1 mult (intersection), 2 union with alpha/beta fills.
ENTRY(vec_ewise)(int kind, int op, u64 abits, u64 bbits, const T* u_vals, const u32* u_pres, const T* v_vals,
                 const u32* v_pres, u64 n, T* out_vals, u32* out_pres) {
  const T alpha = Sc<T>::from_bits(abits), beta = Sc<T>::from_bits(bbits);
  const u64 cap = bit_words(n) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 i = base + (threadIdx.x & 31);
    bool p = false;
    if (i < n) {
      const bool hu = present(u_pres, i), hv = present(v_pres, i);
      const T x = u_vals ? u_vals[i] : Sc<T>::one();
      const T y = v_vals ? v_vals[i] : Sc<T>::one();
      T o = Sc<T>::zero();
      if (hu && hv) { o = binop<T>(op, x, y); p = true; }
      else if (kind == 0 && hu) { o = x; p = true; }
      else if (kind == 0 && hv) { o = y; p = true; }
      else if (kind == 2 && hu) { o = binop<T>(op, x, beta); p = true; }
      else if (kind == 2 && hv) { o = binop<T>(op, alpha, y); p = true; }
      out_vals[i] = o;
    }
    if (out_pres) ballot_store(out_pres, i, p, n);  // NULL: the result is full
  }
}

// Unary codes (UNARY_*): the built-in unary operators, UNARY_BIND_FIRST + op:
// op(s, x), UNARY_BIND_SECOND + op: op(x, s).
__device__ __forceinline__ T unop(int code, T x, T s) {
  if (code >= UNARY_BIND_SECOND) return binop<T>(code - UNARY_BIND_SECOND, x, s);
  if (code >= UNARY_BIND_FIRST) return binop<T>(code - UNARY_BIND_FIRST, s, x);
  switch (code) {
    case UNARY_IDENTITY: return x;
    case UNARY_AINV: return sizeof(T) == 1 ? x : Sc<T>::minus(Sc<T>::zero(), x);
    case UNARY_ABS: return x < Sc<T>::zero() ? Sc<T>::minus(Sc<T>::zero(), x) : x;
    case UNARY_LNOT: return Sc<T>::nz(x) ? Sc<T>::zero() : Sc<T>::one();
    default: return Sc<T>::one();  // UNARY_ONE
  }
}

// out = f(u) where present (presence is the caller's copy of u's).
ENTRY(vec_apply)(int code, u64 sbits, const T* u_vals, u64 n, T* out_vals) {
  const T s = Sc<T>::from_bits(sbits);
  for (u64 i = gtid(); i < n; i += gthreads()) out_vals[i] = unop(code, u_vals ? u_vals[i] : Sc<T>::one(), s);
}

// Select: SELECT_* codes (`select_keep` in common.cuh, i = the index, j = 0).
ENTRY(vec_select)(int code, i64 k, u64 tbits, const T* u_vals, const u32* u_pres, u64 n, T* out_vals,
                  u32* out_pres) {
  const T th = Sc<T>::from_bits(tbits);
  const u64 cap = bit_words(n) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 i = base + (threadIdx.x & 31);
    bool p = false;
    if (i < n) {
      const T x = u_vals ? u_vals[i] : Sc<T>::one();
      const bool keep = select_keep<T>(code, (i64)i, 0, k, x, th);
      p = present(u_pres, i) && keep;
      out_vals[i] = x;
    }
    ballot_store(out_pres, i, p, n);
  }
}

// Per-block ⊕ of the present entries (from the identity): block b takes the
// range [b·per, (b+1)·per), thread t its indices t, t + 256, ... in order
// (coalesced loads), then thread 0 folds the 256 partials in thread order: a
// fixed order, so results do not depend on scheduling. `partials[blockIdx.x]`.
// Run again over the partials with one block.
#define RED_THREADS 256
ENTRY(vec_reduce)(int op, const T* vals, const u32* pres, u64 n, T* partials, u32* part_pres) {
  // Only present values meet: ANY has no true identity (it keeps its first
  // operand), so a fold from the identity would keep the identity. A block's
  // partial is present where the block met a value (bit `blockIdx.x` of
  // `part_pres`, zeroed by the caller; NULL for the last stage, whose one
  // partial is the identity where nothing was present).
  __shared__ T sh[RED_THREADS];
  __shared__ bool shh[RED_THREADS];
  const u64 per = (n + gridDim.x - 1) / gridDim.x;
  const u64 lo = blockIdx.x * per, hi = min(n, lo + per);
  T acc = identity_of<T>(op);
  bool has = false;
  for (u64 i = lo + threadIdx.x; i < hi; i += RED_THREADS)
    if (present(pres, i)) {
      const T x = vals ? vals[i] : Sc<T>::one();
      acc = has ? binop<T>(op, acc, x) : x;
      has = true;
    }
  sh[threadIdx.x] = acc;
  shh[threadIdx.x] = has;
  __syncthreads();
  if (threadIdx.x == 0) {
    T t = identity_of<T>(op);
    bool h = false;
    for (int k = 0; k < RED_THREADS; ++k)
      if (shh[k]) {
        t = h ? binop<T>(op, t, sh[k]) : sh[k];
        h = true;
      }
    partials[blockIdx.x] = t;
    if (part_pres && h) atomicOr(&part_pres[blockIdx.x >> 5], 1u << (blockIdx.x & 31));
  }
}

// Sparse ⊙ full: out_vals[k] = op(s_vals[k], f_vals[s_idx[k]]) (`swap`: the
// full operand first), for the nnz entries of the sparse operand (the
// intersection's pattern is the sparse operand's): O(nnz), no pass over n.
ENTRY(vec_ewise_gather)(int op, int swap, const u32* s_idx, const T* s_vals, u64 nnz, const T* f_vals,
                        T* out_vals) {
  for (u64 k = gtid(); k < nnz; k += gthreads()) {
    const T x = s_vals ? s_vals[k] : Sc<T>::one(), y = f_vals[s_idx[k]];
    out_vals[k] = swap ? binop<T>(op, y, x) : binop<T>(op, x, y);
  }
}

// vals[i] = one where bit i is set, zero elsewhere.
ENTRY(bits_to_vals)(const u32* bits, u64 n, T* vals) {
  for (u64 i = gtid(); i < n; i += gthreads()) vals[i] = bit_get(bits, i) ? Sc<T>::one() : Sc<T>::zero();
}

// Counts present entries whose value is not `x` (packing into bits needs all
// one; B2SR needs all equal).
ENTRY(count_ne)(const T* vals, const u32* pres, u64 n, u64 xbits, unsigned long long* bad) {
  const T x = Sc<T>::from_bits(xbits);
  u64 c = 0;
  for (u64 i = gtid(); i < n; i += gthreads()) c += (present(pres, i) && !(vals[i] == x)) ? 1 : 0;
  if (c) atomicAdd(bad, (unsigned long long)c);
}

// Dense -> sparse: entry i goes to pos[i] (an exclusive scan of presence flags).
ENTRY(vec_compact)(const T* vals, const u32* pres, const u32* pos, u64 n, u32* out_idx, T* out_vals) {
  for (u64 i = gtid(); i < n; i += gthreads()) {
    if (!present(pres, i)) continue;
    out_idx[pos[i]] = (u32)i;
    out_vals[pos[i]] = vals ? vals[i] : Sc<T>::one();
  }
}

// Sparse (indices, values) -> dense (vals, pres); pres zeroed before.
ENTRY(sparse_scatter)(const u32* idx, const T* svals, u64 nnz, T* vals, u32* pres) {
  for (u64 k = gtid(); k < nnz; k += gthreads()) {
    const u32 i = idx[k];
    vals[i] = svals[k];
    atomicOr(&pres[i >> 5], 1u << (i & 31));
  }
}

// out(k) = u(idx[k]) for k < m.
ENTRY(vec_gather)(const T* u_vals, const u32* u_pres, const u32* idx, u64 m, T* out_vals, u32* out_pres) {
  const u64 cap = bit_words(m) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 k = base + (threadIdx.x & 31);
    bool p = false;
    if (k < m) {
      const u32 i = idx[k];
      p = present(u_pres, i);
      out_vals[k] = u_vals ? u_vals[i] : Sc<T>::one();
    }
    ballot_store(out_pres, k, p, m);
  }
}

// z(idx[k]) = accum(z(idx[k]), u(k)) (accum < 0: u(k); absent u(k) keeps z
// with accum, deletes it without). One writer per index: `idx` has no repeats
// (a repeat is resolved by the last, as on the CPU, by the host check).
ENTRY(vec_scatter)(const T* u_vals, const u32* u_pres, u64 scalar_bits, int use_scalar, const u32* idx, u64 m,
                   int accum, T* z_vals, u32* z_pres) {
  const T s = Sc<T>::from_bits(scalar_bits);
  for (u64 k = gtid(); k < m; k += gthreads()) {
    const u32 i = idx[k];
    const bool hu = use_scalar || present(u_pres, k);
    const T x = use_scalar ? s : (u_vals ? u_vals[k] : Sc<T>::one());
    const bool hz = bit_get(z_pres, i);
    if (accum >= 0 && hu && hz) z_vals[i] = binop<T>(accum, z_vals[i], x);
    else if (hu) { z_vals[i] = x; atomicOr(&z_pres[i >> 5], 1u << (i & 31)); }
    else if (accum < 0 && hz) atomicAnd(&z_pres[i >> 5], ~(1u << (i & 31)));
  }
}

// w<mask> = accum(w, s) at every index, in place on (vals, pres): one pass,
// no index list. `mask` is a bit vector (NULL: all allowed), complemented
// with `comp`; outside the mask an entry stays, or goes under `replace`.
// A warp owns one mask word: under a plain mask without replace, a zero word
// changes nothing, so the warp skips it after one load (BFS records a level
// this way every level, where the new frontier is a sliver of n).
ENTRY(vec_assign_all)(u64 sbits, const u32* mask, int comp, int accum, int replace, u64 n, T* vals,
                      u32* pres) {
  const T s = Sc<T>::from_bits(sbits);
  const u64 cap = bit_words(n) * 32;
  const bool sparse_mask = mask != 0 && comp == 0 && replace == 0;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    if (sparse_mask && mask[base / 32] == 0) continue;  // warp-uniform
    const u64 i = base + (threadIdx.x & 31);
    bool p = false;
    if (i < n) {
      const bool hw = bit_get(pres, i);
      const bool al = mask == 0 || (bit_get(mask, i) != (comp != 0));
      if (al) {
        vals[i] = (accum >= 0 && hw) ? binop<T>(accum, vals[i], s) : s;
        p = true;
      } else {
        p = hw && !replace;
      }
    }
    ballot_store(pres, i, p, n);
  }
}

// Row reductions of an iso-valued B2SR matrix: x ⊕ x ⊕ ... (n_i copies) where
// row i holds n_i entries, absent where n_i = 0. `lens` from b2sr_to_csr_count.
ENTRY(reduce_rows_iso)(int op, u64 vbits, const u32* lens, u64 n, T* out_vals, u32* out_pres) {
  const T v = Sc<T>::from_bits(vbits);
  const u64 cap = bit_words(n) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 i = base + (threadIdx.x & 31);
    bool p = false;
    if (i < n) {
      const u32 c = lens[i];
      p = c > 0;
      out_vals[i] = p ? repeat_op<T>(op, v, c) : Sc<T>::zero();
    }
    ballot_store(out_pres, i, p, n);
  }
}

// Row reductions of a CSR matrix, in column order.
ENTRY(reduce_rows_csr)(int op, const u32* rowptr, const T* avals, u64 n, T* out_vals, u32* out_pres) {
  const u64 cap = bit_words(n) * 32;
  for (u64 base = (gtid() / 32) * 32; base < cap; base += (gthreads() / 32) * 32) {
    const u64 i = base + (threadIdx.x & 31);
    bool p = false;
    if (i < n) {
      const u32 a = rowptr[i], b = rowptr[i + 1];
      p = b > a;
      T acc = p ? avals[a] : Sc<T>::zero();
      for (u32 q = a + 1; q < b; ++q) acc = binop<T>(op, acc, avals[q]);
      out_vals[i] = acc;
    }
    ballot_store(out_pres, i, p, n);
  }
}

// Diagonal scaling of a dense row-major B: with `rows`, C[i, :] = op(d_i, B[i, :])
// where d_i is present; else C[:, j] = op(B[:, j], d_j) where d_j is present;
// B's entries where d's is absent.
ENTRY(scale_dense)(int op, int rows, const T* d_vals, const u32* d_pres, const T* b, u64 nrows, u64 ncols,
                   T* c) {
  for (u64 q = gtid(); q < nrows * ncols; q += gthreads()) {
    const u64 i = rows ? q / ncols : q % ncols;
    const T d = d_vals ? d_vals[i] : Sc<T>::one();
    c[q] = !present(d_pres, i) ? b[q] : rows ? binop<T>(op, d, b[q]) : binop<T>(op, b[q], d);
  }
}

// c[q] = accum(c[q], t[q]) on dense data.
ENTRY(dense_accum)(int op, const T* t, u64 n, T* c) {
  for (u64 q = gtid(); q < n; q += gthreads()) c[q] = binop<T>(op, c[q], t[q]);
}
