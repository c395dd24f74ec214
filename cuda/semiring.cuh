// cuda/semiring.cuh: the semiring of a module compiled with
//   -DSR_T=<type> -DSR_ADD=<op code> -DSR_MUL=<op code> (or a user semiring's
//   operators as source, below)
// (cuda/sr.cu and its parts, cuda/push.cu): its operators, folding, and the atomic
// `*p = *p ⊕ x` of the scatter (push) products.
#pragma once
#include "common.cuh"

typedef SR_T T;

#ifdef SR_USER
// A user semiring (`DeviceOps` in src/algebra/semiring.rs), compiled with
// -DSR_ADD=-1 -DSR_MUL=-1 (no built-in code matches) and its operators as
// expressions in x and y: -DSR_USER_ADD, -DSR_USER_MUL, -DSR_USER_ZERO, and
// -DSR_USER_MUL_FLIPPED where ⊗ takes its operands the other way round.
struct SR {
  static __device__ __forceinline__ T add(T x, T y) { return (T)(SR_USER_ADD); }
#ifdef SR_USER_MUL_FLIPPED
  static __device__ __forceinline__ T mul(T y, T x) { return (T)(SR_USER_MUL); }
#else
  static __device__ __forceinline__ T mul(T x, T y) { return (T)(SR_USER_MUL); }
#endif
  static __device__ __forceinline__ T zero() { return (T)(SR_USER_ZERO); }
  static const bool y_free = false;
  // x ⊕ x ⊕ ... ⊕ x (n >= 1 terms), folded from the left as the CPU does.
  static __device__ __forceinline__ T repeat(T x, u64 n) {
    T acc = x;
    for (u64 i = 1; i < n; ++i) acc = add(acc, x);
    return acc;
  }
};
#else
struct SR {
  static __device__ __forceinline__ T add(T a, T b) { return binop<T>(SR_ADD, a, b); }
  static __device__ __forceinline__ T mul(T a, T b) { return binop<T>(SR_MUL, a, b); }
  static __device__ __forceinline__ T zero() { return identity_of<T>(SR_ADD); }
  // mul(a, y) does not look at y.
  static const bool y_free = (SR_MUL == OP_PAIR || SR_MUL == OP_FIRST);
  // x ⊕ x ⊕ ... ⊕ x (n >= 1 terms).
  static __device__ __forceinline__ T repeat(T x, u64 n) { return repeat_op<T>(SR_ADD, x, n); }
};
#endif

template <class X> __device__ __forceinline__ X shfl_xor(X x, int off) { return __shfl_xor_sync(FULL_MASK, x, off); }
template <> __device__ __forceinline__ bool shfl_xor<bool>(bool x, int off) { return __shfl_xor_sync(FULL_MASK, (int)x, off) != 0; }
template <class X> __device__ __forceinline__ X shfl_up(X x, int off) { return __shfl_up_sync(FULL_MASK, x, off); }
template <> __device__ __forceinline__ bool shfl_up<bool>(bool x, int off) { return __shfl_up_sync(FULL_MASK, (int)x, off) != 0; }

// acc ⊕= x, where an accumulator without `has` takes x as it is.
__device__ __forceinline__ void fold(T& acc, bool& has, T x) {
  acc = has ? SR::add(acc, x) : x;
  has = true;
}

// The start of a floating-point scatter output folded by compare-and-swap:
// a NaN with this payload stands for "nothing folded yet", so the first value
// is taken as it is (the CPU folds present values only: a float MIN over a
// lone NaN is NaN, where folding it into the identity +inf would give +inf).
// The host fills with the same bits (`SCATTER_EMPTY_F32/F64` in
// src/backend/cuda/mxv/push.rs).
#define SCATTER_EMPTY_F32 0x7fc0de5du
#define SCATTER_EMPTY_F64 0x7ff8de5dde5dde5dull

// Atomic `*p = *p ⊕ x` (outputs start at the identity, or at the empty mark
// above for floating point).
// W: the unsigned word of T's size.
template <class W> __device__ __forceinline__ void cas_fold(W* a, T x) {
  const W empty = sizeof(W) == 4 ? (W)SCATTER_EMPTY_F32 : (W)SCATTER_EMPTY_F64;
  W old = *a, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T nv = (Sc<T>::is_float && assumed == empty) ? x : SR::add(cur, x);
    W nb = 0;
    memcpy(&nb, &nv, sizeof(T));
    old = atomicCAS(a, assumed, nb);
  } while (old != assumed);
}
// Atomic `*p = *p ⊕ x` on a one-byte T: a CAS on the aligned word holding it.
__device__ __forceinline__ void cas_fold_byte(T* p, T x) {
  u32* w = (u32*)((size_t)p & ~(size_t)3);
  const u32 shift = (u32)((size_t)p & 3) * 8;
  u32 old = *w, assumed;
  do {
    assumed = old;
    T cur;
    u8 b = (u8)(assumed >> shift);
    memcpy(&cur, &b, 1);
    T nv = SR::add(cur, x);
    u8 nb;
    memcpy(&nb, &nv, 1);
    old = atomicCAS(w, assumed, (assumed & ~(0xffu << shift)) | ((u32)nb << shift));
  } while (old != assumed);
}
__device__ __forceinline__ void atomic_fold(T* p, T x) {
#ifdef SR_USER
  if (sizeof(T) == 1) { cas_fold_byte(p, x); return; }
#endif
  if (sizeof(T) == 1) {
    // bool: only LOR/ANY/PLUS(=OR) monoids are instantiated for bool; MIN/MAX
    // (AND/OR) handled likewise.
    bool b = Sc<T>::nz(x);
    if (SR_ADD == OP_ANY) { *p = x; return; }
    if (SR_ADD == OP_MIN || SR_ADD == OP_LAND || SR_ADD == OP_TIMES) { if (!b) *p = x; return; }
    if (b) *p = x;
    return;
  }
  if (SR_ADD == OP_ANY) { *p = x; return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 4 && Sc<T>::is_float) { atomicAdd((float*)p, (float)x); return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 8 && Sc<T>::is_float) { atomicAdd((double*)p, (double)x); return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 4) { u32 b; memcpy(&b, &x, 4); atomicAdd((u32*)p, b); return; }
  if (SR_ADD == OP_PLUS && sizeof(T) == 8) { u64 b; memcpy(&b, &x, 8); atomicAdd((unsigned long long*)p, (unsigned long long)b); return; }
  if (sizeof(T) == 4) cas_fold((u32*)p, x); else cas_fold((u64*)p, x);
}
