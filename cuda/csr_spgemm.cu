// cuda/csr_spgemm.cu: `mxm` with a sparse result on CSR, `C = A ⊕.⊗ B` row by
// row, for any semiring of the module (cuda/sr.cu: compiled with -DSR_T,
// -DSR_ADD, -DSR_MUL, -DSR_NAME; the entry ends in `_<SR_NAME>`). The
// general path: where operands, semiring or result do not suit the B2SR
// boolean product (cuda/mxm.cu), this one computes any of them.
//
// A thread per row i of A merges the sorted rows B(k,:), k in A(i,:): a
// cursor per entry of A(i,:) (kept in `cursor`, one per entry of A), the
// smallest column under the cursors next, its terms folded in the order of
// k. Row i of C comes out sorted, and each value is the left fold over k that
// the CPU's Gustavson product computes, so both agree bit for bit. Cost per
// row: (entries of C(i,:)) x (entries of A(i,:)) steps; the B2SR product is
// the fast path.
//
// Two launches: `c_rowptr == NULL` counts each row's entries into `counts`
// (and their sum into `*total`, in 64 bits); then, with the scanned row
// pointers, the columns and values are written.
#include "semiring.cuh"

extern "C" __global__ void CAT(csr_mxm_merge_, SR_NAME)(
    const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx, const T* __restrict__ a_vals, u64 nrows,
    const u32* __restrict__ b_rowptr, const u32* __restrict__ b_colidx, const T* __restrict__ b_vals,
    u32* __restrict__ cursor, u32* __restrict__ counts, unsigned long long* __restrict__ total,
    const u32* __restrict__ c_rowptr, u32* __restrict__ c_colidx, T* __restrict__ c_vals) {
  const u32 NONE = 0xffffffffu;
  for (u64 i = gtid(); i < nrows; i += gthreads()) {
    const u32 p0 = a_rowptr[i], p1 = a_rowptr[i + 1];
    for (u32 p = p0; p < p1; ++p) cursor[p] = b_rowptr[a_colidx[p]];
    u32 n = 0;
    const u32 out = c_rowptr ? c_rowptr[i] : 0;
    for (;;) {
      u32 j = NONE;
      for (u32 p = p0; p < p1; ++p) {
        const u32 q = cursor[p];
        if (q < b_rowptr[a_colidx[p] + 1]) j = min(j, b_colidx[q]);
      }
      if (j == NONE) break;
      T acc = SR::zero();
      bool has = false;
      for (u32 p = p0; p < p1; ++p) {
        const u32 q = cursor[p];
        if (q < b_rowptr[a_colidx[p] + 1] && b_colidx[q] == j) {
          if (c_rowptr) fold(acc, has, SR::mul(a_vals[p], b_vals[q]));
          cursor[p] = q + 1;
        }
      }
      if (c_rowptr) {
        c_colidx[out + n] = j;
        c_vals[out + n] = acc;
      }
      ++n;
    }
    if (!c_rowptr) {
      counts[i] = n;
      atomicAdd(total, (unsigned long long)n);
    }
  }
}
