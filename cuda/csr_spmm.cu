// cuda/csr_spmm.cu: CSR times dense row-major (`csr_mxm_dense`). Part of the
// semiring modules `sr_<semiring>_<type>` (cuda/sr.cu: entries end in
// `_<SR_NAME>`), so built-in and user semirings share it.
//
// C[i, f] = (A(i,j0) ⊗ B[j0, f]) ⊕ (A(i,j1) ⊗ B[j1, f]) ... over the row's
// entries in column order, the first term starting the sum as on the CPU; a
// row of A with no entry gives `zero`. A thread per output element.
#include "semiring.cuh"

extern "C" __global__ void CAT(csr_mxm_dense_, SR_NAME)(const u32* __restrict__ rowptr,
                                                         const u32* __restrict__ colidx,
                                                         const T* __restrict__ vals, u64 nrows,
                                                         const T* __restrict__ b, u64 nf, T* __restrict__ c) {
  for (u64 q = gtid(); q < nrows * nf; q += gthreads()) {
    const u64 i = q / nf, f = q % nf;
    const u32 s = rowptr[i], e = rowptr[i + 1];
    T acc = SR::zero();
    if (s < e) {
      acc = SR::mul(vals[s], b[(u64)colidx[s] * nf + f]);
      for (u32 p = s + 1; p < e; ++p) acc = SR::add(acc, SR::mul(vals[p], b[(u64)colidx[p] * nf + f]));
    }
    c[q] = acc;
  }
}
