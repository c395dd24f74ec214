"""The fused binary aggregation and bit product (`bits_bspmm_{lanes,csr}_bits_then_*`,
cuda/bits_bspmm.cu) against the two kernels it replaces, standalone
(docs/gpu-gnn-forward-profile.md).

Here (no GPU), after a build has written codes.cuh (target/*/build/bitgraphblas-*/out):
    python3 scripts/gpu-bspmm-bmm-check.py flatten CODES_CUH DIR
On the GPU machine (CuPy, SciPy), DATA_DIR holding cora/, citeseer/ and pubmed/ (adj.mtx each):
    python3 scripts/gpu-bspmm-bmm-check.py run DIR DATA_DIR

`flatten` writes DIR/bits_bspmm.cu and DIR/bits_bmm.cu (the modules with their
headers inlined). `run` makes Bi-GCN's second half on Cora, CiteSeer, PubMed
(real adjacency with self loops) and a Flickr-size graph (skewed degrees, as
scripts/gpu-gnn-bench.sh draws it): `h = (A + I) x >= t` over PLUS.LAND_SIGNED
(x: random hidden bits, 64 or 128 a row; t per column) and `y = (h W) * scale`
over PLUS.XNOR into f32 (W: 7 or 41 columns). It checks that the fused kernel
writes the same h and the same y bits as the BSpMM the library would launch
(`library_shape`: by lanes, `bits_bspmm_lanes_bits_k<G>`, or by vertical counters,
`bits_bspmm_csr_bits_k<G>`) followed by `bits_bmm_popc_scaled`, and both
against NumPy; then times both as CUDA-graph replays, with the long rows
listed as the library lists them (more than four times the mean entries, 32
at least) and, to see what that bound costs, at 32 and 64 entries (the bound's floor, now and before). Writes
$OUT/bspmm-bmm.json.
"""
import json
import os
import sys

from cuda_flatten import flatten

ROWS_BLOCK = 256
POPC_R = 8

WRAP = r'''
extern "C" __global__ void h_popc_scaled(const u64* a, const u64* w, u64 m, u64 n, u64 S, void* out, int need_pa,
                                         int need_pw, EPI_PARAMS) {
  const Planes ap = {{a, 0, 0, 0, 0, 0, 0, 0}}, wp = {{w, 0, 0, 0, 0, 0, 0, 0}};
  bmm_popc<OUT_SCALED, false>(ap, wp, 1, 1, m, n, S, 0, out, need_pa, need_pw, EPI_MAKE);
}
'''


def library_long_min(indptr):
    """`long_row_min` (src/backend/cuda/bits/bspmm.rs)."""
    n = len(indptr) - 1
    return min(max(4 * int(indptr[-1]) // max(n, 1), 32), 8 * 255)


def library_shape(S, nnz, m):
    """(kernel family, lanes a row) as `CsrShape::of` (src/backend/cuda/bits/bspmm.rs) picks
    them for lines of S u64 words: lines of one word by lanes where the rows are few (the
    most lanes a row, 32 down to the mean row rounded up to a power of two, at least 4, that
    keep to 96 warps an SM), else vertical counters, a lane a u32 word of the line."""
    import cupy as cp
    if S == 1:
        budget = 96 * cp.cuda.Device().attributes['MultiProcessorCount']
        mean = min(max(1 << (-(-nnz // m) - 1).bit_length(), 4), 32)
        warps = lambda g: -(-m // (32 // g))
        g = 32
        while g > mean and warps(g) > budget:
            g //= 2
        if warps(g) <= budget:
            return 'lanes', g
    return 'csr', min(1 << (2 * S - 1).bit_length(), 32)


def epi(alpha, beta, gamma, dk, col=None, tcol=None):
    """The EPI_PARAMS of a product over a bit semiring (cuda/bits_common.cuh)."""
    null = np.uint64(0)
    p = lambda x: null if x is None else x
    return (np.int32(alpha), np.int32(beta), np.int32(gamma), np.int32(dk), np.int32(0), null, p(col), null,
            np.float32(0.0), p(tcol), null, null, null, null, np.int32(0), np.float64(0.0))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'flatten':
        flatten(sys.argv[2], 'bits_bspmm.cu', os.path.join(sys.argv[3], 'bits_bspmm.cu'))
        flatten(sys.argv[2], 'bits_bmm.cu', os.path.join(sys.argv[3], 'bits_bmm.cu'))
        return
    if len(sys.argv) != 4 or sys.argv[1] != 'run':
        sys.exit(__doc__)
    global np, sp
    import numpy as np
    import scipy.sparse as sp
    import cupy as cp
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from csr_bench_graphs import flickr_size, planetoid_adj, time_graph
    src_dir, data = sys.argv[2], sys.argv[3]
    opts = ('-std=c++17', '--fmad=false')
    sp_mod = cp.RawModule(code=open(f'{src_dir}/bits_bspmm.cu').read(), options=opts)
    mm_mod = cp.RawModule(code=open(f'{src_dir}/bits_bmm.cu').read() + WRAP, options=opts)
    popc = mm_mod.get_function('h_popc_scaled')
    rng = np.random.default_rng(7)
    graphs = [(g, lambda g=g: planetoid_adj(f'{data}/{g}/adj.mtx')) for g in ('cora', 'citeseer', 'pubmed')]
    graphs += [('flickr-size', lambda: flickr_size(rng))]
    stream = cp.cuda.Stream(non_blocking=True)
    rows, failures = [], []
    for name, make in graphs:
        a = make()
        n = a.shape[0]
        a = (a + sp.identity(n, np.float32, format='csr')).tocsr()
        a.sum_duplicates()
        a.sort_indices()
        a.data[:] = 1.0
        indptr = a.indptr.astype(np.int64)
        lens = np.diff(indptr)
        rp = cp.asarray(a.indptr.astype(np.uint32))
        ci = cp.asarray(a.indices.astype(np.uint32))
        # (the library fuses at most 16 columns of W, THEN_MAX_COLS; the kernels by lanes
        # take a lane a column, so 41 columns at 64 bits go to the vertical counters' kernel)
        for hidden, classes in ((64, 7), (64, 16), (64, 41), (128, 41)):
            S = (hidden + 63) // 64
            family, G = library_shape(S, a.nnz, n)
            if classes > 32 and family == 'lanes':
                family, G = 'csr', min(1 << (2 * S - 1).bit_length(), 32)
            xb = rng.random((n, S * 64)) < 0.5
            xb[:, hidden:] = False
            x = cp.asarray(np.packbits(xb, axis=1, bitorder='little').view(np.uint64).reshape(n, S))
            wb = rng.random((classes, S * 64)) < 0.5
            wb[:, hidden:] = False
            w = cp.asarray(np.packbits(wb, axis=1, bitorder='little').view(np.uint64).reshape(classes, S))
            t_h = rng.integers(-3, 4, hidden).astype(np.float32)
            scale_h = (rng.integers(1, 9, classes) / 8).astype(np.float32)
            tcol, scale = cp.asarray(t_h), cp.asarray(scale_h)
            e1 = epi(2, -1, 0, 0, tcol=tcol)  # PLUS.LAND_SIGNED: 2 c - deg
            e2 = epi(4, -2, -2, hidden, col=scale)  # PLUS.XNOR: 4 c - 2 pa - 2 pw + k
            # the reference: signed sums, the threshold, then the +1/-1 product
            xs = np.where(xb[:, :hidden], 1, -1).astype(np.int64)
            agg = np.asarray(a.astype(np.int64) @ xs)
            hb = agg >= t_h
            hs = np.where(hb, 1, -1).astype(np.int64)
            ws = np.where(wb[:, :hidden], 1, -1).astype(np.int64)
            y_ref = ((hs @ ws.T).astype(np.float32) * scale_h).astype(np.float32)
            h_ref = np.packbits(np.pad(hb, ((0, 0), (0, S * 64 - hidden))), axis=1,
                                bitorder='little').view(np.uint64).reshape(n, S)
            for long_min in sorted({library_long_min(indptr), 32, 64}):
                lrows = np.nonzero(lens > long_min)[0].astype(np.uint32)
                lr = cp.asarray(lrows if len(lrows) else np.zeros(1, np.uint32))
                blocks = (n + ROWS_BLOCK // G - 1) // (ROWS_BLOCK // G) + len(lrows)
                outs = {k: (cp.full((n, S), np.uint64(0xffffffffffffffff)), cp.full((n, classes), np.nan, np.float32))
                        for k in ('two', 'fused')}
                head = lambda h: (rp, ci, np.uint64(n), x, np.uint64(hidden), np.uint64(S), h, np.uint32(long_min),
                                  lr, np.uint32(len(lrows))) + e1
                agg_k = sp_mod.get_function(f'bits_bspmm_{family}_bits_k{G}')
                fused_k = sp_mod.get_function(f'bits_bspmm_{family}_bits_then_scaled_k{G}')
                warps = (n + POPC_R - 1) // POPC_R * ((classes + 31) // 32)

                def call(k):
                    h, y = outs[k]
                    if k == 'two':
                        agg_k((blocks,), (ROWS_BLOCK,), head(h), stream=stream)
                        grid = min((warps * 32 + 255) // 256, 132 * 16)
                        popc((grid,), (256,), (h, w, np.uint64(n), np.uint64(classes), np.uint64(S), y,
                                               np.int32(1), np.int32(1)) + e2, stream=stream)
                    else:
                        fused_k((blocks,), (ROWS_BLOCK,), head(h) + (w, np.uint64(classes), np.uint64(S), y) + e2,
                                stream=stream)
                for k in outs:
                    call(k)
                stream.synchronize()
                got = {k: (cp.asnumpy(h), cp.asnumpy(y)) for k, (h, y) in outs.items()}
                same = (np.array_equal(got['two'][0], got['fused'][0]) and
                        np.array_equal(got['two'][1].view(np.uint32), got['fused'][1].view(np.uint32)))
                right = np.array_equal(got['fused'][0], h_ref) and np.array_equal(got['fused'][1], y_ref)
                if not same or not right:
                    failures.append(f'{name} hidden {hidden} long_min {long_min}: same {same}, reference {right}')
                ms = {k: time_graph(lambda k=k: call(k), stream) for k in outs}
                row = dict(graph=name, n=n, nnz=int(a.nnz), max_row=int(lens.max()), hidden=hidden, classes=classes,
                           long_min=long_min, library_long_min=long_min == library_long_min(indptr),
                           long_rows=len(lrows), two_kernels_ms=ms['two'], fused_ms=ms['fused'], same_bits=same,
                           matches_reference=right)
                rows.append(row)
                print(f"{name:12s} n {n:6d} nnz {a.nnz:8d} max row {lens.max():5d} hidden {hidden:3d} classes "
                      f"{classes:2d} long_min {long_min:4d}{'*' if row['library_long_min'] else ' '} long rows "
                      f"{len(lrows):5d}: two kernels {ms['two'] * 1e3:7.2f} us, fused {ms['fused'] * 1e3:7.2f} us "
                      f"({ms['two'] / ms['fused']:.2f}x); same bits {same}, reference {right}", flush=True)
    print('checks:', 'PASS' if not failures else failures)
    dest = os.environ.get('OUT', '.')
    with open(os.path.join(dest, 'bspmm-bmm.json'), 'w') as f:
        json.dump(dict(device=cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), rows=rows,
                       failures=failures), f, indent=1)


if __name__ == '__main__':
    main()
