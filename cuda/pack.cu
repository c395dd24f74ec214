// cuda/pack.cu: the module `pack`, kernels that do not depend on an element
// type. This file only assembles the parts (build.rs inlines them into one
// NVRTC source):
// - scan.cu: exclusive scans, the load-balance segments of a B2SR matrix;
// - b2sr_pack.cu: CSR -> B2SR packing and B2SR -> CSR unpacking;
// - b2sr_tc.cu: the fused masked count `bin_bin_sum` (triangle counting);
// - b2sr_select.cu: structural select on B2SR tiles and tile compaction;
// - bits.cu: bit counts and bit-vector helpers.
#include "common.cuh"

#include "scan.cu"
#include "b2sr_pack.cu"
#include "b2sr_tc.cu"
#include "b2sr_select.cu"
#include "bits.cu"
