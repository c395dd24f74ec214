"""The thin-k BMM (cuda/bits_bmm.cu, `bmm_thin`) at the first layer of the
binary GNN models, two versions of the source against each other:
the same bits, and the time of each (docs/gpu-gnn-forward-profile.md).

Here (no GPU), after a build has written codes.cuh (target/*/build/bitgraphblas-*/out):
    python3 scripts/gpu-bmm-thin-layer-check.py flatten CODES_CUH OUT.cu
    (once for each version of cuda/bits_bmm.cu, e.g. before and after a change)
On the GPU machine (CuPy):
    python3 scripts/gpu-bmm-thin-layer-check.py run BEFORE.cu AFTER.cu

`run` makes `bits(x W >= t)` over PLUS.LAND_SIGNED (x: random 0/1 features at
the density of Cora's; W: 64 random +1/-1 columns; t per column), Bi-GCN's
first layer, at the shapes of Cora (2,708 x 1,433), CiteSeer (3,327 x 3,703),
PubMed (19,717 x 500) and the Flickr-size graph (89,250 x 500); launches the
kernel as the library does (blocks of eight warps, at most two an SM) and, for
AFTER, also with blocks of four and two warps (`THIN_WARPS`); checks every
output against BEFORE's and against NumPy; times each as CUDA-graph replays.
Writes $OUT/bmm-thin-layer.json.
"""
import json
import os
import sys

from cuda_flatten import flatten

WRAP = r'''
extern "C" __global__ void __launch_bounds__(32 * THIN_WARPS, 2)
h_thin_bits(const u64* a, const u64* w, u64 m, u64 n, u64 S, void* out, int need_pa, int need_pw, EPI_PARAMS) {
  const Planes ap = {{a, 0, 0, 0, 0, 0, 0, 0}}, wp = {{w, 0, 0, 0, 0, 0, 0, 0}};
  bmm_thin<OUT_BITS, false>(ap, wp, 1, 1, m, n, S, 1, out, need_pa, need_pw, EPI_MAKE);
}
'''
SHAPES = [('cora', 2708, 1433), ('citeseer', 3327, 3703), ('pubmed', 19717, 500), ('flickr-size', 89250, 500)]
N = 64


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'flatten':
        return flatten(sys.argv[2], 'bits_bmm.cu', sys.argv[3])
    if len(sys.argv) != 4 or sys.argv[1] != 'run':
        sys.exit(__doc__)
    import numpy as np
    import cupy as cp
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from csr_bench_graphs import time_graph
    sms = cp.cuda.runtime.getDeviceProperties(0)['multiProcessorCount']
    kernels = {}
    for label, path, warps in (('before', sys.argv[2], 8), ('after', sys.argv[3], 8), ('after-4-warps', sys.argv[3], 4),
                               ('after-2-warps', sys.argv[3], 2)):
        src = open(path).read().replace('#define THIN_WARPS 8', f'#define THIN_WARPS {warps}') + WRAP
        mod = cp.RawModule(code=src, options=('-std=c++17', '--fmad=false'))
        kernels[label] = (mod.get_function('h_thin_bits'), warps)
    rng = np.random.default_rng(5)
    stream = cp.cuda.Stream(non_blocking=True)
    null = np.uint64(0)
    rows, failures = [], []
    for name, m, k in SHAPES:
        S = (k + 63) // 64
        xb = rng.random((m, S * 64)) < 18 / 1433
        xb[:, k:] = False
        wb = rng.random((N, S * 64)) < 0.5
        wb[:, k:] = False
        pack = lambda b: cp.asarray(np.packbits(b, axis=1, bitorder='little').view(np.uint64).reshape(b.shape[0], S))
        x, w = pack(xb), pack(wb)
        t_h = rng.integers(-12, 4, N).astype(np.float32)
        tcol = cp.asarray(t_h)
        # PLUS.LAND_SIGNED: 2 popc(x & w) - popc(x), against t_j
        v = 2 * (xb[:, :k].astype(np.float32) @ wb[:, :k].T.astype(np.float32)) - xb.sum(axis=1, keepdims=True)
        want = np.packbits(v >= t_h, axis=1, bitorder='little').view(np.uint64).reshape(m, 1)
        epi = (np.int32(2), np.int32(-1), np.int32(0), np.int32(0), np.int32(0), null, null, null, np.float32(0.0),
               tcol, null, null, null, null, np.int32(0), np.float64(0.0))
        kb = max((S + 15) // 16, 1)
        smem = kb * N * 128 + 16 * N
        strips = (m + 15) // 16
        got, ms = {}, {}
        for label, (f, warps) in kernels.items():
            out = cp.full((m, 1), np.uint64(0xffffffffffffffff))
            grid = min((strips + warps - 1) // warps, sms * 2 * 8 // warps)
            args = (x, w, np.uint64(m), np.uint64(N), np.uint64(S), out, np.int32(1), np.int32(0)) + epi
            call = lambda f=f, grid=grid, warps=warps, args=args: f((grid,), (32 * warps,), args, shared_mem=smem,
                                                                    stream=stream)
            call()
            stream.synchronize()
            got[label] = cp.asnumpy(out)
            ms[label] = time_graph(call, stream)
        for label, g in got.items():
            if not np.array_equal(g, want):
                failures.append(f'{name} {label}: differs from NumPy')
        row = dict(shape=name, m=m, k=k, n=N, k_blocks=kb, **{f'{label}_ms': t for label, t in ms.items()})
        rows.append(row)
        print(f"{name:12s} {m:6d} x {k:5d} by {k:5d} x {N} ({kb} k blocks): " +
              ', '.join(f'{label} {t * 1e3:6.2f} us' for label, t in ms.items()), flush=True)
    print('checks:', 'PASS' if not failures else failures)
    dest = os.environ.get('OUT', '.')
    with open(os.path.join(dest, 'bmm-thin-layer.json'), 'w') as f:
        json.dump(dict(device=cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), rows=rows, failures=failures),
                  f, indent=1)


if __name__ == '__main__':
    main()
