// cuda/sr.cu: the semiring modules `sr_<semiring>_<type>`: `mxv` on B2SR and
// CSR, B2SR times dense, and `mxm_reduce` and `mxm` on CSR, for one semiring
// at one element type.
//
// Compiled once per built-in semiring and element type, with
//   -DSR_T=<type> -DSR_ADD=<op code> -DSR_MUL=<op code> -DSR_NAME=<suffix>
// (src/backend/cuda/kernels.rs lists the instances; op codes as in the
// generated codes.cuh). Every entry point ends in `_<SR_NAME>`, for example
// `b2sr_mxv_fused_k8_plus_times_f32`. This file only assembles the parts
// (build.rs inlines them into one NVRTC source):
// - b2sr_mxv_fused.cu: B2SR `mxv` for K <= 8, one launch;
// - b2sr_mxv_wide.cu: B2SR `mxv` for K >= 16 (short rows, segments, fix-up);
// - csr_mxv.cu: CSR `mxv` by row groups, long rows in chunks;
// - csr_blocks.cu: CSR `mxv` by row blocks (hub rows in pieces);
// - b2sr_spmm.cu: B2SR times dense row-major;
// - csr_spmm.cu: CSR times dense row-major;
// - csr_dot.cu: `mxm_reduce` on CSR, masked dot products;
// - csr_spgemm.cu: `mxm` on CSR, rows of B merged.
//
// Paper schemes (Bit-GraphBLAS, IPDPS'22): with `u_vals == NULL` the input is a
// packed bit vector (bin_bin_*), otherwise full values (bin_full_full); with
// `out_vals == NULL` the output is packed bits only (bin_bin_bin).
//
// Load balance. Tile rows of more than `short_max` tiles are long: cut into
// segments of `seg_len` tiles (src/backend/cuda/mem.rs builds the list on the
// device), a warp per segment. For K <= 8 a whole product is one launch,
// `b2sr_mxv_fused_k*` (whole tiles per lane, several lanes per short tile row
// on small graphs). For K >= 16, `b2sr_mxv_short` takes the short rows,
// `b2sr_mxv` the segments, and `b2sr_mxv_fix_k*` folds the partials of split
// rows in segment order. Either way results do not depend on scheduling, and
// a product needs no memset.
#include "semiring.cuh"

#include "b2sr_mxv_fused.cu"
#include "b2sr_mxv_wide.cu"
#include "csr_mxv.cu"
#include "csr_blocks.cu"
#include "b2sr_spmm.cu"
#include "csr_spmm.cu"
#include "csr_dot.cu"
#include "csr_spgemm.cu"
