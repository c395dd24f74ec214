// cuda/dense_mxm.cu: the modules `dense_mxm_<semiring>_<type>`: C = A ⊕.⊗ B
// on dense row-major matrices (A m x k, B k x n, C m x n, every entry a
// value) for one semiring at one element type: a built-in family, or a user
// semiring's operators as source. Compiled like the semiring modules
// (cuda/sr.cu) with
//   -DSR_T=<type> -DSR_ADD=<op code> -DSR_MUL=<op code> -DSR_NAME=<suffix>
// (or the SR_USER_* macros of cuda/semiring.cuh) and every entry ends in
// `_<SR_NAME>` (`dense_mxm_n64_plus_times_f32`).
//
// c_ij = a_i0 ⊗ b_0j ⊕ a_i1 ⊗ b_1j ⊕ ... ⊕ a_i(k-1) ⊗ b_(k-1)j: ⊕ in k order
// from the first term (the CPU's generic order; the zero where k = 0; for
// the built-in families, f32 and f64 products may contract into fused
// multiply-adds; user semirings are compiled with --fmad=false).
//
// Tiling: a block of GEMM_THREADS threads owns a BM x BN block of C (grid-
// stride over the blocks of C, row blocks outer), each thread TM x TN
// outputs in registers: thread (tx, ty) the rows ty + r TY and the columns
// tx + s TX (TX = BN / TN, TY = BM / TM: consecutive lanes store consecutive
// columns). The first term is read from global memory; then k steps through
// slices of GEMM_BK: the slice of A (BM x BK, stored transposed, a padding
// column against bank conflicts) and of B (BK x BN) in shared memory.
// Variants: `n16` (BM 128, BN 16) for n <= 16 (the classifier layers of
// GNNs: tall and narrow), `n64` (BM 64, BN 64) for the rest.
#include "semiring.cuh"

#define GEMM_THREADS 256
#define GEMM_BK 16

template <int BM, int BN, int TM, int TN>
__device__ __forceinline__ void dense_mxm_body(const T* __restrict__ a, const T* __restrict__ b, u64 m, u64 k,
                                               u64 n, T* __restrict__ c) {
  const int TX = BN / TN, TY = BM / TM;
  static_assert((BM / TM) * (BN / TN) == GEMM_THREADS, "one thread per TM x TN outputs of a block");
  __shared__ T as[GEMM_BK][BM + 1];
  __shared__ T bs[GEMM_BK][BN];
  const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
  const u64 cblocks = (n + BN - 1) / BN, nblocks = (m + BM - 1) / BM * cblocks;
  for (u64 blk = blockIdx.x; blk < nblocks; blk += gridDim.x) {
    const u64 r0 = (blk / cblocks) * BM, c0 = (blk % cblocks) * BN;
    T acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r) {
#pragma unroll
      for (int s = 0; s < TN; ++s) {
        const u64 i = r0 + ty + r * TY, j = c0 + tx + s * TX;
        acc[r][s] = (k > 0 && i < m && j < n) ? SR::mul(a[i * k], b[j]) : SR::zero();
      }
    }
    for (u64 k0 = 1; k0 < k; k0 += GEMM_BK) {
      const int kl = (int)min((u64)GEMM_BK, k - k0);
      // Consecutive threads read consecutive k of one row of A, and
      // consecutive columns of one row of B.
      for (int e = tid; e < BM * GEMM_BK; e += GEMM_THREADS) {
        const int kk = e % GEMM_BK, r = e / GEMM_BK;
        const u64 i = r0 + r;
        as[kk][r] = (i < m && kk < kl) ? a[i * k + k0 + kk] : Sc<T>::zero();
      }
      for (int e = tid; e < GEMM_BK * BN; e += GEMM_THREADS) {
        const int kk = e / BN, s = e % BN;
        const u64 j = c0 + s;
        bs[kk][s] = (j < n && kk < kl) ? b[(k0 + kk) * n + j] : Sc<T>::zero();
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < GEMM_BK; ++kk) {
        if (kk < kl) {  // the same for the whole block
          T av[TM], bv[TN];
#pragma unroll
          for (int r = 0; r < TM; ++r) av[r] = as[kk][ty + r * TY];
#pragma unroll
          for (int s = 0; s < TN; ++s) bv[s] = bs[kk][tx + s * TX];
#pragma unroll
          for (int r = 0; r < TM; ++r) {
#pragma unroll
            for (int s = 0; s < TN; ++s) acc[r][s] = SR::add(acc[r][s], SR::mul(av[r], bv[s]));
          }
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < TM; ++r) {
#pragma unroll
      for (int s = 0; s < TN; ++s) {
        const u64 i = r0 + ty + r * TY, j = c0 + tx + s * TX;
        if (i < m && j < n) c[i * n + j] = acc[r][s];
      }
    }
  }
}

#define DENSE_MXM(NAME, BM, BN, TM, TN)                                                                        \
  extern "C" __global__ void __launch_bounds__(GEMM_THREADS) CAT(CAT(dense_mxm_, NAME), CAT(_, SR_NAME))(    \
      const T* a, const T* b, u64 m, u64 k, u64 n, T* c) {                                                   \
    dense_mxm_body<BM, BN, TM, TN>(a, b, m, k, n, c);                                                        \
  }

DENSE_MXM(n16, 128, 16, 4, 2)
DENSE_MXM(n64, 64, 64, 4, 4)
