#!/usr/bin/env python3
"""The warpgroup BMM kernel (cuda/bits_bmm.cu, `bmm_wg`) against the
mma.sync kernel (`bmm_tc`, 128 x 128 tiles, as `bits_bmm_tc2_*`) on the same
operands, standalone: outputs equal bit for bit over four semirings (and
counts and f32 equal to a host computation on sampled rows), every output
kind, odd and even strides, partial tiles; then both timed on square products
(docs/gpu-bmm-square-profile.md).

Here (no GPU), after a build has written codes.cuh:
    python3 scripts/gpu-bmm-wg-check.py flatten CODES_CUH bmm.cu
On the GPU machine (CuPy; an sm_90a device):
    python3 scripts/gpu-bmm-wg-check.py run bmm.cu [OUT.json]

The line popcounts the warpgroup kernel takes are counted by `h_popc` below,
a one-plane copy of the module's `bits_line_popc` (which takes its planes as
a struct parameter that CuPy cannot pass; keep the two alike), as the library
counts them; `NEED=0,0` in the environment times both kernels without them
(a semiring that needs no popcounts). Times:
CUDA-event medians of replays of a CUDA graph of several calls (as
gpu-bmm-thin-check.py), the popcount pass included.
"""
import importlib.util
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_flatten import flatten

WRAP = r'''
#define WARGS const u64* a0, const u64* a1, const u64* w0, const u64* w1, int nb, int nc, u64 m, u64 n, \
  u64 S, u64 out_w64, void* out, int need_pa, int need_pw, const u32* pa, const u32* pw, EPI_PARAMS
#define MKP Planes ap = {{a0, a1, 0, 0, 0, 0, 0, 0}}; Planes wp = {{w0, w1, 0, 0, 0, 0, 0, 0}};
#define TCARGS ap, wp, nb, nc, m, n, S, out_w64, out, need_pa, need_pw, EPI_MAKE
#define WGARGS ap, wp, m, n, S, out_w64, out, pa, pw, EPI_MAKE
#define H(NAME, LB, BODY) extern "C" __global__ void __launch_bounds__(LB, 1) NAME(WARGS) { MKP BODY; }
H(h_wg_counts, 256, (bmm_wg<OUT_COUNTS>(WGARGS)))
H(h_wg_scaled, 256, (bmm_wg<OUT_SCALED>(WGARGS)))
H(h_wg_bits, 256, (bmm_wg<OUT_BITS>(WGARGS)))
H(h_tc2_counts, 128, (bmm_tc<2, 4, 8, OUT_COUNTS, false>(TCARGS)))
H(h_tc2_scaled, 128, (bmm_tc<2, 4, 8, OUT_SCALED, false>(TCARGS)))
H(h_tc2_bits, 128, (bmm_tc<2, 4, 8, OUT_BITS, false>(TCARGS)))
extern "C" __global__ void h_popc(const u64* a, u64 lines, u64 S, u32* out) {
  Planes p = {{a, 0, 0, 0, 0, 0, 0, 0}};
  for (u64 t = gtid(); t < lines * 8; t += gthreads()) {
    const u32 group = 0xffu << (threadIdx.x & 24);
    const u64 i = t / 8;
    u32 c = 0;
    for (u64 w = t % 8; w < S; w += 8) c += (u32)__popcll(p.p[0][i * S + w]);
    c += __shfl_xor_sync(group, c, 1);
    c += __shfl_xor_sync(group, c, 2);
    c += __shfl_xor_sync(group, c, 4);
    if (t % 8 == 0) out[i] = c;
  }
}
'''
LINS = [(4, -2, -2, None, 0), (1, 0, 0, 0, 0), (1, 0, 0, 0, 1), (2, -1, 3, 5, 0)]


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'flatten':
        return flatten(sys.argv[2], 'bits_bmm.cu', sys.argv[3])
    if len(sys.argv) not in (3, 4) or sys.argv[1] != 'run':
        sys.exit(__doc__)
    import cupy as cp
    spec = importlib.util.spec_from_file_location(
        'thin', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gpu-bmm-thin-check.py'))
    thin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(thin)
    thin.cp = cp
    sms = cp.cuda.Device().attributes['MultiProcessorCount']
    src = open(sys.argv[2]).read()
    src = src[:src.index('#define TC_ENTRY(WM, NF, NAME, OUT, PLANES)')]  # the helpers, not the entries
    mod = cp.RawModule(code=src + WRAP, options=('--std=c++17', '--fmad=false', '--gpu-architecture=sm_90a'))
    popc = mod.get_function('h_popc')
    need = tuple(int(x) for x in os.environ.get('NEED', '1,1').split(','))
    out_path = sys.argv[3] if len(sys.argv) == 4 else os.path.join(os.environ.get('OUT', '.'), 'bmm-wg.json')

    def launcher(c, fam, kind):
        if fam == 'wg':
            smem, bm, bn, threads, per_sm = 1024 + 4 * 384 * 128 + (2 * 128 + 4 * 256) * 4, 128, 256, 256, 1
        else:
            smem, bm, bn, threads, per_sm = 3 * 256 * 128 + (2 * 128 + 4 * 128) * 4, 128, 128, 128, 2
        f = mod.get_function('h_%s_%s' % (fam, kind))
        f.max_dynamic_shared_size_bytes = smem
        grid = min(-(-c.m // bm) * -(-c.n // bn), sms * per_sm)
        pops = cp.zeros(c.m + c.n, dtype=np.uint32)

        def go(out, lin=LINS[0]):
            a = list(c.args(out, kind, lin))
            a[11], a[12] = np.int32(need[0]), np.int32(need[1])
            pa = pw = np.uint64(0)
            if fam == 'wg' and need[0]:
                popc((sms * 8,), (256,), (c.da[0], np.uint64(c.m), np.uint64(c.S), pops))
                pa = pops
            if fam == 'wg' and need[1]:
                popc((sms * 8,), (256,), (c.dw[0], np.uint64(c.n), np.uint64(c.S), pops[c.m:]))
                pw = pops[c.m:]
            f((grid,), (threads,), tuple(a[:13] + [pa, pw] + a[13:]), shared_mem=smem)
        return go

    rng = np.random.default_rng(11)
    res = {'need': list(need), 'checks': [], 'times': []}
    bad = 0
    for (m, k, n) in [(1000, 1000, 1000), (777, 1088, 333), (300, 65, 520), (129, 1, 257), (2000, 4096, 700),
                      (1, 3000, 600), (5000, 3000, 1500)]:
        c = thin.Case(m, k, n, rng)
        for kind in ['counts', 'scaled', 'bits']:
            for lin in LINS:
                o1, o2 = c.out(kind), c.out(kind)
                launcher(c, 'wg', kind)(o1, lin)
                launcher(c, 'tc2', kind)(o2, lin)
                ok = bool(cp.all(o1 == o2))
                rows = np.arange(min(m, 40))
                if kind == 'counts' and lin[:2] == (1, 0) and lin[4] == 0:
                    ok = ok and bool(np.all(cp.asnumpy(o1)[rows].view(np.int32) == thin.host_counts(c, rows)))
                if kind == 'scaled' and lin == LINS[0]:
                    # 4 c - 2 popc(a_i) - 2 popc(w_j) + k, then (f32)v rs cs + bias, each step rounded
                    pa = c.a[0][1][rows].sum(1).astype(np.int64)[:, None]
                    pw = c.w[0][1].sum(1).astype(np.int64)[None, :]
                    v = (4 * thin.host_counts(c, rows) - 2 * pa - 2 * pw + k).astype(np.float32)
                    want = (v * cp.asnumpy(c.row)[rows][:, None]) * cp.asnumpy(c.col)[None, :] + cp.asnumpy(c.bias)
                    ok = ok and bool(np.all(cp.asnumpy(o1)[rows].view(np.float32) == want))
                res['checks'].append({'shape': [m, k, n], 'kind': kind, 'lin': str(lin), 'equal': ok})
                if not ok:
                    bad += 1
                    d = cp.asnumpy(o1 != o2)
                    print('MISMATCH', m, k, n, kind, lin, int(d.sum()), np.argwhere(d)[:3].tolist(), flush=True)
    print('checks', len(res['checks']), 'bad', bad, flush=True)
    for size in [4096, 8192, 16384]:
        c = thin.Case(size, size, size, rng)
        for fam in ['wg', 'tc2']:
            o = c.out('counts')
            ms = thin.time_ms(launcher(c, fam, 'counts'), o, reps=10, inner=5 if size == 16384 else 10)
            pops = 2.0 * size ** 3 / (ms * 1e-3) / 1e15
            row = {'n': size, 'kind': 'counts', 'family': fam, 'ms': ms, 'binary_pops': pops,
                   'of_mma_sync_peak': pops / 9.5}
            print(json.dumps(row), flush=True)
            res['times'].append(row)
    json.dump(res, open(out_path, 'w'), indent=1)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
