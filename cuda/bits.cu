// cuda/bits.cu: bit-vector kernels: bit counts, complement, the
// bits-only output phase, presence flags.
// Part of the type-free module `pack` (cuda/pack.cu).
#include "common.cuh"

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
