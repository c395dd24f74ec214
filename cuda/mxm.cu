// cuda/mxm.cu: the type-free module `mxm`. This file only assembles the parts
// (build.rs inlines them into one NVRTC source):
// - b2sr_mxm.cu: the boolean product with a B2SR result (`mxm_bound`,
//   `mxm_symbolic`, `mxm_collect`, `mxm_numeric_k*`) and the masked,
//   accumulating write of a B2SR result (`b2sr_merge_k*`);
// - b2sr_tc_tensor.cu: triangle counting on the 1-bit tensor cores.
#include "common.cuh"
#include "tiles.cuh"

#include "b2sr_mxm.cu"
#include "b2sr_tc_tensor.cu"
