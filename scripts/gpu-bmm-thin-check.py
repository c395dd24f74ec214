#!/usr/bin/env python3
"""The thin-k BMM kernel (cuda/bits_bmm.cu, `bmm_thin`) against the general
tensor-core kernel (`bmm_tc`) on the same operands, standalone: outputs equal
bit for bit (and counts equal to a host product on sampled rows), then both
timed at the GNN shapes of issue 17 (docs/gpu-bmm-epilogue.md).

Here (no GPU), after a build has written codes.cuh:
    python3 scripts/gpu-bmm-thin-check.py flatten CODES_CUH bmm.cu
On the GPU machine (CuPy):
    python3 scripts/gpu-bmm-thin-check.py run bmm.cu [OUT.json]

The kernels are called through small wrappers that take the plane pointers
one by one; the thin kernel at two blocks an SM (its launch bound), the general
one as the library launches it (tc4 plain, tc2 for planes). Times: CUDA-event
medians of 20 replays of a CUDA graph of 10 calls. `run FILE OUT --times`
skips the checks.
"""
import sys, os, json
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_flatten import flatten

LB = 2

WRAP = r'''
#define WARGS const u64* a0, const u64* a1, const u64* w0, const u64* w1, int nb, int nc, u64 m, u64 n, u64 S, u64 out_w64, void* out, int need_pa, int need_pw, EPI_PARAMS
#define MKP Planes ap = {{a0, a1, 0, 0, 0, 0, 0, 0}}; Planes wp = {{w0, w1, 0, 0, 0, 0, 0, 0}};
#define CALLARGS ap, wp, nb, nc, m, n, S, out_w64, out, need_pa, need_pw, EPI_MAKE
#define H(NAME, BODY, LBS) extern "C" __global__ void LBS NAME(WARGS) { MKP BODY; }
H(h_thin_counts, (bmm_thin<OUT_COUNTS, false>(CALLARGS)), __launch_bounds__(256, LBV))
H(h_thin_scaled, (bmm_thin<OUT_SCALED, false>(CALLARGS)), __launch_bounds__(256, LBV))
H(h_thin_bits, (bmm_thin<OUT_BITS, false>(CALLARGS)), __launch_bounds__(256, LBV))
H(h_thin_counts_planes, (bmm_thin<OUT_COUNTS, true>(CALLARGS)), __launch_bounds__(256, LBV))
H(h_thin_scaled_planes, (bmm_thin<OUT_SCALED, true>(CALLARGS)), __launch_bounds__(256, LBV))
H(h_thin_bits_planes, (bmm_thin<OUT_BITS, true>(CALLARGS)), __launch_bounds__(256, LBV))
H(h_tc4_counts, (bmm_tc<4, 4, 8, OUT_COUNTS, false>(CALLARGS)), __launch_bounds__(256, 1))
H(h_tc4_scaled, (bmm_tc<4, 4, 8, OUT_SCALED, false>(CALLARGS)), __launch_bounds__(256, 1))
H(h_tc4_bits, (bmm_tc<4, 4, 8, OUT_BITS, false>(CALLARGS)), __launch_bounds__(256, 1))
H(h_tc2_counts_planes, (bmm_tc<2, 4, 4, OUT_COUNTS, true>(CALLARGS)), __launch_bounds__(128, 1))
H(h_tc2_scaled_planes, (bmm_tc<2, 4, 4, OUT_SCALED, true>(CALLARGS)), __launch_bounds__(128, 1))
H(h_tc2_bits_planes, (bmm_tc<2, 4, 4, OUT_BITS, true>(CALLARGS)), __launch_bounds__(128, 1))
'''
NULL = np.uint64(0)
mod = cp = SMS = None

def rand_bits(lines, bits, rng, density=0.5):
    S = (bits + 63) // 64
    b = rng.random((lines, S * 64)) < density
    b[:, bits:] = False
    return np.packbits(b, axis=1, bitorder='little').view(np.uint64).reshape(lines, S), b[:, :bits]

def f32(x): return np.float32(x)

class Case:
    def __init__(self, m, k, n, rng, planes=1):
        self.m, self.k, self.n, self.S = m, k, n, (k + 63) // 64
        self.a = [rand_bits(m, k, rng) for _ in range(planes)]
        self.w = [rand_bits(n, k, rng) for _ in range(planes)]
        self.da = [cp.asarray(x[0]) for x in self.a] + [None] * (2 - planes)
        self.dw = [cp.asarray(x[0]) for x in self.w] + [None] * (2 - planes)
        self.planes = planes
        self.row = cp.asarray(rng.random(m).astype(np.float32) + 0.5)
        self.col = cp.asarray(rng.random(n).astype(np.float32) + 0.5)
        self.bias = cp.asarray(rng.standard_normal(n).astype(np.float32))
        self.tcol = cp.asarray((rng.standard_normal(n) * 20).astype(np.float32))
        self.sa = cp.asarray(np.array([0.1], np.float32)); self.za = cp.asarray(np.array([1.5], np.float32))
        self.sw = cp.asarray(rng.random(n).astype(np.float32)); self.zw = cp.asarray(rng.random(n).astype(np.float32))
        self.ow = (n + 63) // 64

    def out(self, kind):
        if kind == 'bits': return cp.full((self.m, self.ow), np.uint64(0xffffffffffffffff))
        return cp.full((self.m, self.n), 0x7fc00001, dtype=np.uint32)

    def args(self, out, kind, lin=(4, -2, -2, None, 0)):
        al, be, ga, dk, cl = lin
        dk = self.k if dk is None else dk
        p = lambda x: NULL if x is None else x
        nb = self.planes
        need = 1
        return (p(self.da[0]), p(self.da[1]), p(self.dw[0]), p(self.dw[1]), np.int32(nb), np.int32(nb),
                np.uint64(self.m), np.uint64(self.n), np.uint64(self.S), np.uint64(self.ow if kind == 'bits' else 0), out,
                np.int32(need), np.int32(need),
                np.int32(al), np.int32(be), np.int32(ga), np.int32(dk), np.int32(cl),
                p(self.row), p(self.col), p(self.bias), f32(0.0), self.tcol,
                self.sa, self.za, self.sw, self.zw, np.int32(1), np.float64(self.k))

def kern(name, smem):
    f = mod.get_function(name)
    f.max_dynamic_shared_size_bytes = smem
    return f

def thin_launch(c, kind, grid_per_sm=LB):
    suffix = '_planes' if c.planes > 1 else ''
    np_ = (c.n + 63) // 64 * 64
    k_blocks = 1 if c.planes > 1 else max(1, (c.S + 15) // 16)
    smem = c.planes * k_blocks * np_ * 128 + 4 * np_ * 4
    f = kern('h_thin_' + kind + suffix, smem)
    strips = (c.m + 15) // 16
    grid = max(1, min(SMS * grid_per_sm, (strips + 7) // 8))
    return lambda out, lin=(4, -2, -2, None, 0): f((grid,), (256,), c.args(out, kind, lin), shared_mem=smem)

def tc_launch(c, kind):
    if c.planes > 1:
        bm, bn, wm = 128, 64, 2
        f = kern('h_tc2_' + kind + '_planes', 3 * (bm + bn) * 128 + (2 * bm + 4 * bn) * 4)
    else:
        bm, bn, wm = 256, 128, 4
        f = kern('h_tc4_' + kind, 3 * (bm + bn) * 128 + (2 * bm + 4 * bn) * 4)
    smem = 3 * (bm + bn) * 128 + (2 * bm + 4 * bn) * 4
    tiles = ((c.m + bm - 1) // bm) * ((c.n + bn - 1) // bn)
    grid = min(tiles, SMS)
    return lambda out, lin=(4, -2, -2, None, 0): f((grid,), (64 * wm,), c.args(out, kind, lin), shared_mem=smem)

def time_ms(fn, out, reps=20, inner=10):
    """Per call: `inner` calls captured as one CUDA graph (so that Python's
    launch cost, tens of microseconds with these arguments, is not timed),
    the graph replayed `reps` times between CUDA events, the median."""
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        for _ in range(3): fn(out)
        stream.synchronize()
        stream.begin_capture()
        for _ in range(inner): fn(out)
        graph = stream.end_capture()
        graph.launch(stream)
        s, e = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(reps):
            s.record(stream)
            graph.launch(stream)
            e.record(stream); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e) / inner)
    return float(np.median(ts))

def host_counts(c, rows):
    a = c.a[0][1][rows].astype(np.int32); w = c.w[0][1].astype(np.int32)
    return a @ w.T



def main():
    global mod, cp, SMS
    if len(sys.argv) == 4 and sys.argv[1] == 'flatten':
        return flatten(sys.argv[2], 'bits_bmm.cu', sys.argv[3])
    times_only = sys.argv[-1] == '--times'
    if times_only: sys.argv.pop()
    if len(sys.argv) not in (3, 4) or sys.argv[1] != 'run':
        sys.exit(__doc__)
    import cupy
    cp = cupy
    mod = cp.RawModule(code=open(sys.argv[2]).read() + WRAP.replace('LBV', str(LB)),
                       options=('--std=c++17', '--fmad=false'))
    SMS = cp.cuda.Device().attributes['MultiProcessorCount']
    out_path = sys.argv[3] if len(sys.argv) == 4 else os.path.join(os.environ.get('OUT', '.'), 'bmm-thin.json')
    res = {"checks": [], "times": []}
    rng = np.random.default_rng(7)
    shapes = [(1000, 70, 100, 1), (777, 1024, 33, 1), (4001, 602, 128, 1), (513, 500, 256, 1), (100, 1, 64, 1),
              (1000, 200, 100, 2), (3000, 602, 128, 2), (515, 900, 250, 2),
              (2708, 1433, 64, 1), (3327, 3703, 64, 1), (3000, 2049, 100, 1), (600, 8191, 40, 1), (3000, 1025, 64, 1)]
    lins = [(4, -2, -2, None, 0), (1, 0, 0, 0, 0), (1, 0, 0, 0, 1)]
    bad = 0
    for (m, k, n, pl) in ([] if times_only else shapes):
        c = Case(m, k, n, rng, pl)
        for kind in ['counts', 'scaled', 'bits']:
            for lin in (lins if pl == 1 else lins[:1]):
                o1, o2 = c.out(kind), c.out(kind)
                thin_launch(c, kind)(o1, lin); tc_launch(c, kind)(o2, lin)
                eq = bool(cp.all(o1 == o2))
                ok = eq
                if pl == 1 and kind == 'counts' and lin[0] == 1 and lin[4] == 0:
                    rows = np.arange(min(m, 64))
                    ok = ok and bool(np.all(cp.asnumpy(o1)[rows].view(np.int32) == host_counts(c, rows)))
                res["checks"].append({"shape": [m, k, n], "planes": pl, "kind": kind, "lin": str(lin), "equal": ok})
                if not ok:
                    bad += 1
                    d = cp.asnumpy(o1 != o2); idx = np.argwhere(d)[:3]
                    print("MISMATCH", m, k, n, pl, kind, lin, int(d.sum()), idx.tolist(),
                          [cp.asnumpy(o1)[tuple(i)] for i in idx], [cp.asnumpy(o2)[tuple(i)] for i in idx])
    # bits by one bound a column (`thin_bound`): thresholds equal to outputs
    # the f32 product reaches (ties), just above and below them, with and
    # without row scales and bias; a column scale <= 0 or a bias of inf (the
    # block falls back to the full test)
    for (m, k, n) in ([] if times_only else [(3000, 602, 128), (1000, 500, 256), (517, 1024, 70), (517, 1433, 70)]):
        for variant in ['ties', 'ties-no-row', 'ties-no-bias', 'ties-nothing', 'neg-col', 'zero-col', 'inf-bias',
                        'nan-row']:
            c = Case(m, k, n, rng)
            if 'no-row' in variant or variant == 'ties-nothing': c.row = None
            if 'no-bias' in variant or variant == 'ties-nothing': c.bias = None
            if variant == 'nan-row': c.row[::7] = np.float32('nan'); c.row[3::11] = np.float32('inf')
            if variant in ('neg-col', 'zero-col'):
                c.col[5] = np.float32(-0.75 if variant == 'neg-col' else 0.0)
            if variant == 'inf-bias': c.bias[2] = np.float32('inf')
            for lin in lins:
                sc = c.out('scaled')
                tc_launch(c, 'scaled')(sc, lin)
                s = cp.asnumpy(sc).view(np.float32)
                pick = rng.integers(0, m, n)
                t = s[pick, np.arange(n)].copy()
                t[1::3] = np.nextafter(t[1::3], np.float32(np.inf))
                t[2::3] = np.nextafter(t[2::3], np.float32(-np.inf))
                c.tcol = cp.asarray(t.astype(np.float32))
                o1, o2 = c.out('bits'), c.out('bits')
                thin_launch(c, 'bits')(o1, lin); tc_launch(c, 'bits')(o2, lin)
                ok = bool(cp.all(o1 == o2))
                res["checks"].append({"shape": [m, k, n], "planes": 1, "kind": "bits-" + variant, "lin": str(lin),
                                      "equal": ok})
                if not ok:
                    bad += 1
                    print("MISMATCH", m, k, n, variant, lin, int(cp.asnumpy(o1 != o2).sum()))
    print("checks", len(res["checks"]), "bad", bad, flush=True)

    for (m, k, n) in [(232965, 602, 128), (89250, 500, 256), (2708, 1433, 64), (3327, 3703, 64),
                      (232965, 1433, 128), (89250, 2048, 256)]:
        for pl in ([1, 2] if k <= 1024 else [1]):
            c = Case(m, k, n, rng, pl)
            for kind in ['counts', 'scaled', 'bits'] + (['bits-no-bias'] if pl == 1 else []):
                if kind == 'bits-no-bias': c.bias, kind = None, 'bits'
                o = c.out(kind)
                row = {"shape": [m, k, n], "planes": pl, "kind": kind + ('' if c.bias is not None else ' (no bias)'),
                       "thin_ms": time_ms(thin_launch(c, kind), o), "tc_ms": time_ms(tc_launch(c, kind), o)}
                res["times"].append(row)
                print(json.dumps(row), flush=True)
    json.dump(res, open(out_path, 'w'), indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
