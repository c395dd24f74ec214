"""CSR times dense with long rows a block each against the two thread-per-output kernels (docs/gpu-gnn-forward-profile.md).

Here (no GPU), after a build has written codes.cuh (target/*/build/bitgraphblas-*/out):
    python3 scripts/gpu-csr-spmm-long-check.py flatten CODES_CUH sr.cu
On the GPU machine (CuPy, SciPy), DATA_DIR holding cora/, citeseer/ and pubmed/ (adj.mtx each):
    python3 scripts/gpu-csr-spmm-long-check.py run sr.cu DATA_DIR

`flatten` inlines cuda/sr.cu (the semiring module holding the three kernels of
cuda/csr_spmm.cu) into one source; `run` compiles it for f32 PLUS.TIMES as the
library does (`--fmad=false`), makes the GCN aggregation `D^-1/2 (A + I) D^-1/2 Y
+ bias` on Cora, CiteSeer, PubMed (real adjacency), a Flickr-size graph (skewed
degrees, as scripts/gpu-gnn-bench.sh draws it) and a graph of 50,000 rows of
490 random entries (the Reddit-size graph's row length), for 7 to 128 feature
columns; checks that `csr_mxm_dense_long` (its long rows listed as the
library lists them: more than four times the mean entries, 32 at least; at 7
and 16 columns also with 64 at least, the earlier bound) gives
the same bits as `csr_mxm_dense_rounds` and `csr_mxm_dense` (the same terms in
the same order), and the result against SciPy; times the three as CUDA-graph
replays; writes $OUT/csr-spmm-long.json.
"""
import json
import os
import sys

from cuda_flatten import flatten

NT = 128


def long_rows(indptr, floor):
    """The library's long-row list (`long_row_min`, src/backend/cuda/bits/bspmm.rs) with `floor` for its least
    bound."""
    n = len(indptr) - 1
    long_min = min(max(4 * int(indptr[-1]) // max(n, 1), floor), 8 * 255)
    return np.nonzero(np.diff(indptr) > long_min)[0].astype(np.uint32), long_min


def many_entries(rng, n=50000, per_row=490):
    cols = rng.integers(0, n, (n, per_row))
    rows = np.repeat(np.arange(n), per_row)
    a = sp.csr_matrix((np.ones(n * per_row, np.float32), (rows, cols.ravel())), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1.0
    return a


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'flatten':
        return flatten(sys.argv[2], 'sr.cu', sys.argv[3])
    if len(sys.argv) != 4 or sys.argv[1] != 'run':
        sys.exit(__doc__)
    global np, sp, cp
    import numpy as np
    import scipy.sparse as sp
    import cupy as cp
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from csr_bench_graphs import flickr_size, planetoid_adj, time_graph
    src = open(sys.argv[2]).read()
    d = sys.argv[3]
    mod = cp.RawModule(code=src, options=('-DSR_T=f32', '-DSR_ADD=0', '-DSR_MUL=2', '-DSR_NAME=plus_times_f32',
                                          '--fmad=false'))
    kern = {k: mod.get_function(f'csr_mxm_dense{k}_plus_times_f32') for k in ('', '_rounds', '_long')}
    for k, f in kern.items():
        print(f'csr_mxm_dense{k}: regs {f.num_regs} smem {f.shared_size_bytes} local {f.local_size_bytes}')
    rng = np.random.default_rng(3)
    graphs = [(g, lambda g=g: planetoid_adj(f'{d}/{g}/adj.mtx')) for g in ('cora', 'citeseer', 'pubmed')]
    graphs += [('flickr-size', lambda: flickr_size(rng)), ('long-rows-490', lambda: many_entries(rng))]
    stream = cp.cuda.Stream(non_blocking=True)
    out, failures = [], []
    for name, make in graphs:
        a = make()
        n = a.shape[0]
        a = (a + sp.identity(n, np.float32, format='csr')).tocsr() if name != 'long-rows-490' else a
        a.sum_duplicates()
        a.sort_indices()
        a.data = rng.integers(1, 4, a.nnz).astype(np.float32)  # valued, as a weighted aggregation
        deg = np.asarray(a.sum(axis=1)).ravel()
        dinv = (1.0 / np.sqrt(np.maximum(deg, 1))).astype(np.float32)
        rp = cp.asarray(a.indptr.astype(np.uint32))
        ci = cp.asarray(a.indices.astype(np.uint32))
        av = cp.asarray(a.data)
        lv = rv = cp.asarray(dinv)
        lens = np.diff(a.indptr)
        for nf, floor in ((7, 64), (7, 32), (16, 64), (16, 32), (41, 32), (64, 32), (128, 32)):
            if name == 'long-rows-490' and nf not in (41, 128):
                continue
            lrows, long_min = long_rows(a.indptr.astype(np.int64), floor)
            lr = cp.asarray(lrows if len(lrows) else np.zeros(1, np.uint32))
            yh = rng.standard_normal((n, nf)).astype(np.float32)
            bias_h = rng.standard_normal(nf).astype(np.float32)
            y = cp.asarray(yh)
            bias = cp.asarray(bias_h)
            outs = {k: cp.full((n, nf), np.nan, np.float32) for k in kern}

            def call(k):
                o = outs[k]
                if k == '_long':
                    grid = len(lrows) * ((nf + 15) // 16) + min((n * nf + NT - 1) // NT, 1 << 20)
                    kern[k]((grid,), (NT,), (rp, ci, av, np.uint64(n), y, np.uint64(nf), lv, rv, bias, o, lr,
                                            np.uint32(len(lrows)), np.uint32(long_min)), stream=stream)
                else:
                    kern[k](((n * nf + 255) // 256,), (256,), (rp, ci, av, np.uint64(n), y, np.uint64(nf), lv, rv,
                                                               bias, o), stream=stream)
            for k in kern:
                call(k)
            stream.synchronize()
            got = {k: cp.asnumpy(v) for k, v in outs.items()}
            same = all(np.array_equal(got['_long'].view(np.uint32), got[k].view(np.uint32)) for k in ('', '_rounds'))
            ref = (dinv[:, None] * (a.astype(np.float64) @ (dinv[:, None] * yh.astype(np.float64)))) + bias_h
            err = float(np.abs(got['_long'] - ref).max() / max(1.0, np.abs(ref).max()))
            if not same or not err < 1e-4:
                failures.append(f'{name} nf {nf}: same bits {same}, error {err:.1e}')
            ms = {k: time_graph(lambda k=k: call(k), stream) for k in kern}
            row = dict(graph=name, n=n, nnz=int(a.nnz), max_row=int(lens.max()), long_rows=len(lrows),
                       long_min=long_min, long_floor=floor, nf=nf, one_by_one_ms=ms[''], rounds_ms=ms['_rounds'], long_ms=ms['_long'],
                       same_bits=same, rel_error=err)
            out.append(row)
            print(f"{name:14s} n {n:7d} nnz {a.nnz:9d} max row {lens.max():5d} long {len(lrows):5d} (> {long_min:4d}) "
                  f"nf {nf:3d}: "
                  f"one by one {ms['']:.4f} ms, rounds {ms['_rounds']:.4f}, long rows a block {ms['_long']:.4f} "
                  f"({ms['_rounds'] / ms['_long']:.2f}x rounds); same bits {same}, error {err:.1e}", flush=True)
    print('checks:', 'PASS' if not failures else failures)
    dest = os.environ.get('OUT', '.')
    with open(os.path.join(dest, 'csr-spmm-long.json'), 'w') as f:
        json.dump(dict(device=cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), rows=out,
                       failures=failures), f, indent=1)


if __name__ == '__main__':
    main()
