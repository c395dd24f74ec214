"""The library's CSR row-block kernel checked and timed against cuSPARSE (docs/gpu-csr-row-blocks.md).

Here (no GPU), after a build has written codes.cuh (target/*/build/bitgraphblas-*/out):
    python3 scripts/gpu-csr-blocks-check.py flatten CODES_CUH blocks.cu
On the GPU machine (CuPy, SciPy):
    python3 scripts/gpu-csr-blocks-check.py run blocks.cu DATA_DIR

`flatten` inlines cuda/csr_blocks.cu and its headers into one source; `run`
compiles it for f32 PLUS.TIMES, checks it against SciPy on a pattern with
awkward rows (empty, 513, 2048, 2049, 5000, 9000 entries; absent inputs, a
mask, an accumulator, the affine form, twice in a row), then times it on the
benchmark graphs beside cuSPARSE's default SpMV (plain loops for both; ours
also as CUDA-graph replays, the kernel's own time, writing presence bits and
with the presence given, as the library does for a full input) and writes
$OUT/blocks.json.
"""
import sys, os, json
from cuda_flatten import flatten

NT, CAP, PIECE = 128, 512, 2048
NULL = None  # np.uint64(0) once NumPy is loaded (run)


def plan(ip):
    n = len(ip) - 1
    brow = [0]; piece = []
    r = 0
    while r < n:
        ln = ip[r + 1] - ip[r]
        if ln > CAP:
            np_ = (ln + PIECE - 1) // PIECE
            for j in range(np_):
                piece.append(0x80000000 | j); brow.append(r + 1 if j + 1 == np_ else r)
            r += 1
            continue
        hi = min(r + NT, n)
        # rows r+1..hi-1 join while the entries fit
        e = r + 1 + int(np.searchsorted(ip[r + 2:hi + 1] - ip[r], CAP, side='right'))
        piece.append(0); brow.append(e); r = e
    return np.array(brow, np.uint32), np.array(piece, np.uint32)


class Prod:
    def __init__(self, fn, a):
        self.fn = fn
        self.n = a.shape[0]
        self.ip = a.indptr.astype(np.int64)
        self.rp = cp.asarray(a.indptr.astype(np.uint32)); self.ci = cp.asarray(a.indices.astype(np.uint32))
        self.vals = cp.asarray(a.data.astype(np.float32))
        brow, piece = plan(self.ip)
        self.nb = len(piece)
        self.brow = cp.asarray(brow); self.piece = cp.asarray(piece)
        self.part_v = cp.zeros(max(self.nb, 1), np.float32); self.part_h = cp.zeros(max(self.nb, 1), np.uint8)
        self.count = cp.zeros(max(self.nb, 1), np.uint32)

    def __call__(self, x, y, pres=None, iso=True, upres=None, allowed=None, accum=-1, d=None, affine=False, c=0.0):
        iso_bits = np.uint64(np.array([1.0], np.float32).view(np.uint32)[0])
        cbits = np.uint64(np.array([c], np.float32).view(np.uint32)[0])
        self.fn((self.nb,), (NT,), (self.rp, self.ci, NULL if iso else self.vals, iso_bits,
                                    x, NULL if upres is None else upres, NULL if allowed is None else allowed,
                                    y, NULL if pres is None else pres, np.int32(accum), self.brow, self.piece,
                                    self.part_v, self.part_h, self.count, NULL if d is None else d,
                                    np.int32(1 if affine else 0), cbits))


def bits_of(mask):
    n = len(mask)
    w = np.zeros((n + 31) // 32, np.uint32)
    idx = np.nonzero(mask)[0]
    np.bitwise_or.at(w, idx // 32, (1 << (idx % 32)).astype(np.uint32))
    return w


def check(fn, rng, failures):
    # awkward rows: empty, hubs of 513, 2048, 2049, 9000 entries, mixed lengths in a block
    n = 12000
    lens = rng.integers(0, 12, n)
    lens[rng.integers(0, n, 300)] = 0
    for r, l in ((5, 513), (17, 2048), (18, 2049), (900, 9000), (n - 1, 5000), (2000, 300), (2001, 100), (2002, 40)):
        lens[r] = l
    rows = np.repeat(np.arange(n), lens)
    cols = np.concatenate([rng.choice(n, l, replace=False) if l else np.zeros(0, np.int64) for l in lens])
    vals = rng.integers(1, 5, len(rows)).astype(np.float32)
    a = sp.csr_matrix((vals, (rows, cols)), shape=(n, n)); a.sort_indices()
    p = Prod(fn, a)
    x = rng.integers(-3, 4, n).astype(np.float32)
    upm = rng.random(n) < 0.8
    alm = rng.random(n) < 0.7
    d = rng.integers(1, 3, n).astype(np.float32)
    A = a.astype(np.float64)
    for case in ('plain', 'iso', 'upres', 'allowed', 'accum', 'affine', 'again'):
        y = cp.full(n, np.nan, np.float32); pres = cp.zeros((n + 31) // 32, np.uint32)
        kw = {}
        xs = x.copy()
        if case in ('upres',):
            kw['upres'] = cp.asarray(bits_of(upm)); xs = np.where(upm, x, 0)
        if case == 'allowed':
            kw['allowed'] = cp.asarray(bits_of(alm))
        iso = case == 'iso'
        M = (A != 0).astype(np.float64) if iso else A
        present = (M != 0).astype(np.float64) @ (upm if case == 'upres' else np.ones(n))
        ref = M @ xs.astype(np.float64)
        if case == 'accum':
            y = cp.full(n, 2.0, np.float32); kw['accum'] = 0  # OP_PLUS
            ref = np.where(present > 0, ref + 2.0, 2.0)
        if case == 'affine':
            kw['d'] = cp.asarray(d); kw['affine'] = True; kw['c'] = 0.5
            ref = 0.5 + M @ (d.astype(np.float64) * x)
        if case == 'again':
            p(cp.asarray(x), y, pres, iso=False)
        p(cp.asarray(x), y, None if kw.get('accum', -1) >= 0 or kw.get('affine') else pres, iso=iso, **kw)
        cp.cuda.runtime.deviceSynchronize()
        yh = cp.asnumpy(y).astype(np.float64)
        if case == 'allowed':
            ok = alm & (present > 0)
            bad = np.abs(np.where(ok, yh - ref, 0)).max()
        elif case in ('accum', 'affine'):
            bad = np.abs(yh - ref).max()
        else:
            bad = np.abs(np.where(present > 0, yh - ref, np.where(np.isnan(yh), 1, yh))).max()
        if case in ('plain', 'iso', 'upres', 'allowed', 'again'):
            want = present > 0
            if case == 'allowed': want = want & alm
            got = np.unpackbits(cp.asnumpy(pres).view(np.uint8), bitorder='little')[:n].astype(bool)
            if (got != want).any():
                failures.append(f'{case}: presence differs at {np.nonzero(got != want)[0][:5]}')
        if not (bad < 1e-3):
            failures.append(f'{case}: max error {bad}')
    print('checks:', 'PASS' if not failures else failures)


def time_loop(fn, reps=200, batches=5, stream=None):
    with stream:
        fn(); stream.synchronize()
        ts = []
        for _ in range(batches):
            e0 = cp.cuda.Event(); e1 = cp.cuda.Event()
            e0.record(stream)
            for _ in range(reps): fn()
            e1.record(stream); e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1) / reps)
    return float(np.median(ts))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'flatten':
        return flatten(sys.argv[2], 'csr_blocks.cu', sys.argv[3])
    if len(sys.argv) != 4 or sys.argv[1] != 'run':
        sys.exit(__doc__)
    global np, sp, cp, cs, NULL
    import numpy as np
    import scipy.sparse as sp
    import cupy as cp
    from cupy_backends.cuda.libs import cusparse as cs
    NULL = np.uint64(0)
    src = open(sys.argv[2]).read()
    d = sys.argv[3]
    mod = cp.RawModule(code=src, options=('-DSR_T=f32', '-DSR_ADD=0', '-DSR_MUL=2', '-DSR_NAME=plus_times_f32',
                                          '--fmad=false'))
    fn = mod.get_function('csr_mxv_blocks_plus_times_f32')
    print('regs', fn.num_regs, 'smem', fn.shared_size_bytes, 'local', fn.local_size_bytes)
    failures = []
    check(fn, np.random.default_rng(7), failures)
    stream = cp.cuda.Stream(non_blocking=True)
    h = cp.cuda.device.get_cusparse_handle(); cs.setStream(h, stream.ptr)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from csr_bench_graphs import graphs as bench_graphs, time_graph
    graphs = bench_graphs(d)
    out = []
    for name, f in graphs:
        a = f(); n = a.shape[0]; nnz = a.nnz
        p = Prod(fn, a)
        xh = np.random.default_rng(1).random(n).astype(np.float32)
        x = cp.asarray(xh); y = cp.full(n, np.nan, np.float32)
        pres = cp.zeros((n + 31) // 32, np.uint32)
        ref = a.astype(np.float64) @ xh.astype(np.float64)
        with stream:
            p(x, y, pres)
            p(x, y, pres)
        stream.synchronize()
        err = float(np.abs(cp.asnumpy(y) - ref).max() / max(1.0, np.abs(ref).max()))
        ours = time_loop(lambda: p(x, y, pres), stream=stream)
        kernel = time_graph(lambda: p(x, y, pres), stream)
        y.fill(np.nan)
        given = time_graph(lambda: p(x, y, None), stream)
        stream.synchronize()
        err = max(err, float(np.abs(cp.asnumpy(y) - ref).max() / max(1.0, np.abs(ref).max())))
        mat = cs.createCsr(n, n, nnz, p.rp.data.ptr, p.ci.data.ptr, p.vals.data.ptr, 2, 2, 0, 0)
        xv = cs.createDnVec(n, x.data.ptr, 0); yv = cs.createDnVec(n, y.data.ptr, 0)
        one = np.array([1.0], np.float32); zero = np.array([0.0], np.float32)
        bs = cs.spMV_bufferSize(h, 0, one.ctypes.data, mat, xv, zero.ctypes.data, yv, 0, 0)
        buf = cp.empty(max(bs, 1), np.uint8)
        cus = time_loop(lambda: cs.spMV(h, 0, one.ctypes.data, mat, xv, zero.ctypes.data, yv, 0, 0, buf.data.ptr),
                        stream=stream)
        row = dict(graph=name, n=n, nnz=nnz, blocks=p.nb, ours_ms=ours, cusparse_ms=cus, err=err,
                   kernel_ms=kernel, kernel_presence_given_ms=given)
        out.append(row)
        print(f'{name:14s} n {n:9d} nnz {nnz:10d} blocks {p.nb:8d} ours {ours:.4f} ms cuSPARSE {cus:.4f} ms '
              f'({cus / ours:.2f}x) err {err:.1e}; kernel (graph replays) {kernel:.4f} ms, '
              f'presence given {given:.4f} ms', flush=True)
        if not err < 1e-5: failures.append(f'{name}: err {err}')
        del p
    with open(os.path.join(os.environ.get('OUT', '.'), 'blocks.json'), 'w') as fh:
        json.dump(out, fh)
    print('FAILURES' if failures else 'ALL OK', failures)


if __name__ == "__main__":
    main()
