// cuda/visit.cu: the module `visit`: breadth-first push levels fused into
// few launches (`ops::bfs_push`, cuda/bfs_push.cu), pulled levels in one
// launch each (`ops::bfs_pull`, cuda/bfs_pull.cu), shared state and storage
// forms in cuda/bfs_rows.cuh, src/backend/cuda/visit.rs; and delta-stepping's
// buckets (`ext::delta_stepping`, cuda/sssp.cu, src/backend/cuda/sssp.rs).
// The searches read patterns only, delta-stepping f64 weights. This file only
// assembles the parts (build.rs inlines them into one NVRTC source).
//
// Two kernels take turns on one search state, both pushing level after level
// from the frontier, and claiming each reached vertex with an atomicOr on the
// level vector's presence bits (the visited set): the claiming thread writes
// the vertex's level and counts it and its out-degree.
//
// * `bfs_block_*` (one block of 1024 threads) runs the levels of small
//   frontiers: the frontier is a queue of vertex numbers (two ping-pong
//   buffers), a level costs its frontier's out-edges and ends with
//   __syncthreads. Where the launch gives it n / 32 words of dynamic shared
//   memory it claims in a shared copy of the visited bits (setting the global
//   ones without waiting), else in global memory. It leaves when a new frontier has more than `block_edges`
//   out-edges or more than `qcap` vertices, after writing it as packed bits.
// * `bfs_push_*` (cooperative, the whole device) runs the levels of large
//   frontiers: each level reads the frontier's packed bits (clearing each word
//   as it reads it), sets the reached vertices' bits in the next frontier, and
//   ends with a grid barrier. It leaves when a new frontier is small again
//   (`block_edges / 2`, `qcap`), after writing it into the queue.
//
// Both stop (`ST_DONE`) when the caller's rule holds: no new vertex, the level
// budget spent, or a frontier with enough edges that the caller should pull
// (`edges * alpha > unvisited edges`, or `edges > max_edges`). The host
// launches block then grid kernel until `ST_DONE` (one round trip per
// hand-over from the grid kernel back to the block).
//
// The state words `st` are described in cuda/bfs_rows.cuh.
#include "bfs_rows.cuh"

#include "bfs_push.cu"
#include "bfs_pull.cu"
#include "sssp.cu"
