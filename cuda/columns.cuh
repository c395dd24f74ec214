// cuda/columns.cuh: tile column indices stored as 32-bit values or as 16-bit
// offsets from a base per tile row (src/storage/b2sr/columns.rs): tile t of
// tile row tr is at column base[tr] + offset[t], unless base[tr] has
// COL_ESCAPE set: then at escaped[(base[tr] & ~COL_ESCAPE) + t - rowptr[tr]].
#pragma once
#include "common.cuh"

// Set in a tile row's base when its columns are stored whole in `escaped`.
#define COL_ESCAPE 0x80000000u

// A pattern's tile columns as a kernel reads them: `colidx` (32 bits), or
// `base`, `offset` and `escaped` (16 bits).
struct Cols {
  const u32* __restrict__ colidx;
  const u32* __restrict__ base;
  const u16* __restrict__ offset;
  const u32* __restrict__ escaped;
};

// What a tile row needs to find its tiles' columns: its base word and its
// first tile (loaded once a row).
struct RowCols {
  u32 base;
  u32 t0;
};

// NARROW: the 16-bit form (else `colidx`), fixed at compile time so that
// each kernel reads one form with no test per tile.
template <bool NARROW> __device__ __forceinline__ RowCols row_cols(const Cols& c, u64 tr, u32 t0) {
  return RowCols{NARROW ? c.base[tr] : 0u, t0};
}

// The column of tile t of the row `r` describes.
template <bool NARROW> __device__ __forceinline__ u32 tile_col(const Cols& c, RowCols r, u32 t) {
  if constexpr (!NARROW) {
    return c.colidx[t];
  } else {
    if (r.base & COL_ESCAPE) return c.escaped[(r.base & ~COL_ESCAPE) + (t - r.t0)];
    return r.base + c.offset[t];
  }
}
