// cuda/csr_dot.cu: `mxm_reduce` on CSR, `⊕` over the masked product
// `(A ⊕.⊗ B)<M>` as dot products: for each entry (i, j) of the mask's
// pattern, the sorted rows A(i,:) and Bt(j,:) (the rows of Bt are the
// columns of B) are merged and `⊗` taken on the columns they share. Part of
// the semiring modules `sr_<semiring>_<type>` (cuda/sr.cu: compiled with
// -DSR_T, -DSR_ADD, -DSR_MUL, -DSR_NAME; the entry ends in `_<SR_NAME>`).
//
// A warp per mask row, its lanes striding over the row's mask entries; the
// lanes' terms are folded over the warp into out_vals[i] with presence bit i
// (a row without a term stays absent), and the caller reduces that vector
// with the monoid. `a_vals == NULL` (`b_vals == NULL`): every entry of A (B)
// holds the value `a_iso` (`b_iso`) and the values are not read. The order of
// the fold depends only on the shapes, never on scheduling.
#include "semiring.cuh"

// `⊕` over the shared columns of the sorted index lists [pa, pa_end) of A and
// [pb, pb_end) of Bt, folded into (acc, has).
__device__ __forceinline__ void csr_dot(const u32* __restrict__ a_colidx, const T* __restrict__ a_vals, T a_iso,
                                        u32 pa, u32 pa_end, const u32* __restrict__ b_colidx,
                                        const T* __restrict__ b_vals, T b_iso, u32 pb, u32 pb_end, T& acc,
                                        bool& has) {
  while (pa < pa_end && pb < pb_end) {
    const u32 ka = a_colidx[pa], kb = b_colidx[pb];
    if (ka == kb) {
      fold(acc, has, SR::mul(a_vals ? a_vals[pa] : a_iso, b_vals ? b_vals[pb] : b_iso));
      if (SR_ADD == OP_ANY) return;
      ++pa;
      ++pb;
    } else if (ka < kb) {
      ++pa;
    } else {
      ++pb;
    }
  }
}

extern "C" __global__ void CAT(csr_mxm_reduce_dot_, SR_NAME)(
    const u32* __restrict__ m_rowptr, const u32* __restrict__ m_colidx, u64 nrows,
    const u32* __restrict__ a_rowptr, const u32* __restrict__ a_colidx, const T* __restrict__ a_vals, u64 a_isobits,
    const u32* __restrict__ b_rowptr, const u32* __restrict__ b_colidx, const T* __restrict__ b_vals, u64 b_isobits,
    T* __restrict__ out_vals, u32* __restrict__ out_pres) {
  const int lane = threadIdx.x & 31;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const T a_iso = Sc<T>::from_bits(a_isobits), b_iso = Sc<T>::from_bits(b_isobits);
  for (u64 i = warp; i < nrows; i += nwarps) {
    const u32 pa = a_rowptr[i], pa_end = a_rowptr[i + 1];
    T acc = SR::zero();
    bool has = false;
    if (pa < pa_end) {
      for (u32 q = m_rowptr[i] + lane; q < m_rowptr[i + 1]; q += 32) {
        const u32 j = m_colidx[q];
        csr_dot(a_colidx, a_vals, a_iso, pa, pa_end, b_colidx, b_vals, b_iso, b_rowptr[j], b_rowptr[j + 1], acc,
                has);
      }
    }
    for (int off = 1; off < 32; off <<= 1) {
      const T oa = shfl_xor(acc, off);
      const bool oh = shfl_xor(has, off);
      if (oh) fold(acc, has, oa);
    }
    if (lane == 0) {
      out_vals[i] = has ? acc : SR::zero();
      if (has) atomicOr(&out_pres[i >> 5], 1u << (i & 31));
    }
  }
}
