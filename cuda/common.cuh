// cuda/common.cuh: shared by every kernel module.
//
// Fixed-width types (NVRTC has no host headers), the scalar semantics of the
// Rust side (src/scalar.rs: wrapping integers, bool plus = OR, float min/max
// ignore NaN), operator codes (the order of `BuiltinOp` in
// src/algebra/binary.rs), bit-vector and B2SR tile access.
//
// Bit vectors on the device are arrays of u32 words: bit i is bit i % 32 of
// word i / 32 (the same bytes as the host's u64 words, LSB first). Bits past
// the length are always 0.
//
// B2SR tiles (src/storage/b2sr/tile.rs): row r of a k x k tile is a k-bit
// word whose bit c is column c. k = 4: one u16 per tile, row r in bits 4r..4r+4;
// k = 8: one u64 per tile, row r is byte r; k = 16: 16 u16; k = 32: 32 u32.
#pragma once

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef float f32;
typedef double f64;

#define FULL_MASK 0xffffffffu
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

// Operator codes: the order of `BuiltinOp` in src/algebra/binary.rs.
#define OP_PLUS 0
#define OP_MINUS 1
#define OP_TIMES 2
#define OP_DIV 3
#define OP_MIN 4
#define OP_MAX 5
#define OP_LOR 6
#define OP_LAND 7
#define OP_LXOR 8
#define OP_FIRST 9
#define OP_SECOND 10
#define OP_PAIR 11
#define OP_ANY 12
#define OP_ABSDIFF 13

// ---- scalar semantics -------------------------------------------------------

template <class T> struct Sc;

#define INT_SCALAR(T, U, LO, HI)                                                         \
  template <> struct Sc<T> {                                                             \
    static const bool is_float = false;                                                  \
    static __device__ __forceinline__ T zero() { return (T)0; }                          \
    static __device__ __forceinline__ T one() { return (T)1; }                           \
    static __device__ __forceinline__ T lowest() { return (T)(LO); }                     \
    static __device__ __forceinline__ T highest() { return (T)(HI); }                    \
    static __device__ __forceinline__ T plus(T a, T b) { return (T)((U)a + (U)b); }      \
    static __device__ __forceinline__ T minus(T a, T b) { return (T)((U)a - (U)b); }     \
    static __device__ __forceinline__ T times(T a, T b) { return (T)((U)a * (U)b); }     \
    static __device__ __forceinline__ T div(T a, T b) {                                  \
      if (b == 0) return 0;                                                              \
      if ((T)(LO) != 0 && a == (T)(LO) && b == (T)-1) return a;                          \
      return a / b;                                                                      \
    }                                                                                    \
    static __device__ __forceinline__ T min_of(T a, T b) { return a < b ? a : b; }       \
    static __device__ __forceinline__ T max_of(T a, T b) { return a > b ? a : b; }       \
    static __device__ __forceinline__ bool nz(T a) { return a != 0; }                    \
    static __device__ __forceinline__ T from_f64(f64 v) { return (T)v; }                 \
    static __device__ __forceinline__ T from_count(u64 n) { return (T)n; }               \
    static __device__ __forceinline__ T from_bits(u64 b) { return (T)b; }                \
  };

INT_SCALAR(i32, u32, (-2147483647 - 1), 2147483647)
INT_SCALAR(u32, u32, 0, 0xffffffffu)
INT_SCALAR(i64, u64, (-9223372036854775807LL - 1), 9223372036854775807LL)
INT_SCALAR(u64, u64, 0, 0xffffffffffffffffULL)

template <> struct Sc<bool> {
  static const bool is_float = false;
  static __device__ __forceinline__ bool zero() { return false; }
  static __device__ __forceinline__ bool one() { return true; }
  static __device__ __forceinline__ bool lowest() { return false; }
  static __device__ __forceinline__ bool highest() { return true; }
  static __device__ __forceinline__ bool plus(bool a, bool b) { return a || b; }
  static __device__ __forceinline__ bool minus(bool a, bool b) { return a != b; }
  static __device__ __forceinline__ bool times(bool a, bool b) { return a && b; }
  static __device__ __forceinline__ bool div(bool a, bool) { return a; }
  static __device__ __forceinline__ bool min_of(bool a, bool b) { return a && b; }
  static __device__ __forceinline__ bool max_of(bool a, bool b) { return a || b; }
  static __device__ __forceinline__ bool nz(bool a) { return a; }
  static __device__ __forceinline__ bool from_f64(f64 v) { return v != 0.0; }
  static __device__ __forceinline__ bool from_count(u64 n) { return n != 0; }
  static __device__ __forceinline__ bool from_bits(u64 b) { return (b & 0xff) != 0; }
};

#define FLOAT_SCALAR(T, INF, FROMBITS)                                                   \
  template <> struct Sc<T> {                                                             \
    static const bool is_float = true;                                                   \
    static __device__ __forceinline__ T zero() { return (T)0; }                          \
    static __device__ __forceinline__ T one() { return (T)1; }                           \
    static __device__ __forceinline__ T lowest() { return -(INF); }                      \
    static __device__ __forceinline__ T highest() { return (INF); }                      \
    static __device__ __forceinline__ T plus(T a, T b) { return a + b; }                 \
    static __device__ __forceinline__ T minus(T a, T b) { return a - b; }                \
    static __device__ __forceinline__ T times(T a, T b) { return a * b; }                \
    static __device__ __forceinline__ T div(T a, T b) { return a / b; }                  \
    static __device__ __forceinline__ T min_of(T a, T b) { return a != a ? b : (b != b ? a : (a < b ? a : b)); } \
    static __device__ __forceinline__ T max_of(T a, T b) { return a != a ? b : (b != b ? a : (a > b ? a : b)); } \
    static __device__ __forceinline__ bool nz(T a) { return a != (T)0; }                 \
    static __device__ __forceinline__ T from_f64(f64 v) { return (T)v; }                 \
    static __device__ __forceinline__ T from_count(u64 n) { return (T)n; }               \
    static __device__ __forceinline__ T from_bits(u64 b) { return FROMBITS; }            \
  };

FLOAT_SCALAR(f32, __int_as_float(0x7f800000), __int_as_float((int)(u32)b))
FLOAT_SCALAR(f64, __longlong_as_double(0x7ff0000000000000LL), __longlong_as_double((i64)b))

// `op(x, y)` for a built-in operator code (constant-folded where `op` is constant).
template <class T> __device__ __forceinline__ T binop(int op, T x, T y) {
  switch (op) {
    case OP_PLUS: return Sc<T>::plus(x, y);
    case OP_MINUS: return Sc<T>::minus(x, y);
    case OP_TIMES: return Sc<T>::times(x, y);
    case OP_DIV: return Sc<T>::div(x, y);
    case OP_MIN: return Sc<T>::min_of(x, y);
    case OP_MAX: return Sc<T>::max_of(x, y);
    case OP_LOR: return (Sc<T>::nz(x) || Sc<T>::nz(y)) ? Sc<T>::one() : Sc<T>::zero();
    case OP_LAND: return (Sc<T>::nz(x) && Sc<T>::nz(y)) ? Sc<T>::one() : Sc<T>::zero();
    case OP_LXOR: return (Sc<T>::nz(x) != Sc<T>::nz(y)) ? Sc<T>::one() : Sc<T>::zero();
    case OP_FIRST: return x;
    case OP_SECOND: return y;
    case OP_PAIR: return Sc<T>::one();
    case OP_ABSDIFF: return x > y ? Sc<T>::minus(x, y) : Sc<T>::minus(y, x);
    default: return x;  // OP_ANY
  }
}

// The identity of a monoid code (the Rust side's `Monoid::identity`).
template <class T> __device__ __forceinline__ T identity_of(int op) {
  switch (op) {
    case OP_TIMES: return Sc<T>::one();
    case OP_MIN: return Sc<T>::highest();
    case OP_MAX: return Sc<T>::lowest();
    case OP_LAND: return Sc<T>::one();
    default: return Sc<T>::zero();
  }
}

// `x ⊕ x ⊕ ... ⊕ x` (n >= 1 copies): closed forms for the idempotent
// monoids and integer plus, a loop otherwise.
template <class T> __device__ __forceinline__ T repeat_op(int op, T x, u64 n) {
  switch (op) {
    case OP_MIN: case OP_MAX: case OP_LOR: case OP_LAND: case OP_ANY:
    case OP_FIRST: case OP_SECOND: case OP_PAIR: case OP_LXOR:
      if (op != OP_LXOR) return n == 1 ? x : binop<T>(op, x, x);
      break;
    case OP_PLUS:
      if (!Sc<T>::is_float) return Sc<T>::times(x, Sc<T>::from_count(n));
      break;
    default: break;
  }
  T acc = x;
  for (u64 i = 1; i < n; ++i) acc = binop<T>(op, acc, x);
  return acc;
}

// ---- bits -------------------------------------------------------------------

__device__ __forceinline__ bool bit_get(const u32* b, u64 i) { return (b[i >> 5] >> (i & 31)) & 1u; }

// `k` bits of a bit vector starting at bit `start` (k divides 32, start % k == 0).
template <int K> __device__ __forceinline__ u32 bits_chunk(const u32* b, u64 start) {
  if (K == 32) return b[start >> 5];
  return (b[start >> 5] >> (start & 31)) & ((1u << (K % 32)) - 1u);
}

// Row `r` of tile `t` of a B2SR tile array, as a K-bit word.
template <int K> __device__ __forceinline__ u32 tile_row(const u8* tiles, u64 t, int r) {
  if (K == 4) return (((const u16*)tiles)[t] >> (4 * r)) & 0xfu;
  if (K == 8) return tiles[t * 8 + r];
  if (K == 16) return ((const u16*)tiles)[t * 16 + r];
  return ((const u32*)tiles)[t * 32 + r];
}

// Bytes of one tile.
template <int K> struct TileBytes { static const int value = K * K / 8; };

__device__ __forceinline__ u64 gtid() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 gthreads() { return (u64)gridDim.x * blockDim.x; }

// Writes presence bit `i` (warp-cooperative: every lane of the warp calls it
// with consecutive i = base + lane, base % 32 == 0, i below the bit capacity).
__device__ __forceinline__ void ballot_store(u32* bits, u64 i, bool p, u64 n) {
  u32 w = __ballot_sync(FULL_MASK, p && i < n);
  if ((threadIdx.x & 31) == 0) bits[i >> 5] = w;
}

// Words of a device bit vector of n bits (the host's u64 words, as u32 pairs).
__device__ __forceinline__ u64 bit_words(u64 n) { return ((n + 63) / 64) * 2; }
