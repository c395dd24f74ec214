"""The CSR product of i32 counts (`ext::mxm_counts_scaled`, cuda/csr_counts.cu) on a
Reddit-size row length and on the Planetoid graphs, standalone
(docs/gpu-gnn-forward-profile.md).

Here (no GPU), after a build has written codes.cuh (target/*/build/bitgraphblas-*/out):
    python3 scripts/gpu-counts-check.py flatten CODES_CUH dense_rows.cu
On the GPU machine (CuPy, SciPy):
    python3 scripts/gpu-counts-check.py run dense_rows.cu [ROWS] [PER_ROW] [COLS]
    python3 scripts/gpu-counts-check.py graphs dense_rows.cu DATA_DIR

`run` compiles the module as the library does (no options), draws a CSR matrix of
ROWS rows (default 232,965) of PER_ROW random columns (default 490: the
Reddit-size graph's mean), all ones, with D^-1/2 of its row lengths, and counts V
of COLS columns (default 41) as a binary layer of 128 hidden bits gives them
(even, in [-128, 128]); checks that the packed kernel (`counts_pack`, then
`csr_mxm_counts_packed`) and the direct one (`csr_mxm_counts`) give the same bits,
and both the float64 value on sampled rows (relative 1e-5); times each as CUDA
events around 20 calls (medians), the pass that packs alone too, and a copy of
the column indices for the bandwidth; writes $OUT/counts-check.json.

`graphs` takes the GCN aggregation of Bi-GCN's second layer on Cora, CiteSeer,
PubMed (DATA_DIR/NAME/adj.mtx) and the Flickr-size graph of scripts/gpu-gnn-bench.sh
(A + I, D^-1/2 both sides, a column factor and a
bias; counts of 64 hidden bits, as many columns as the classes) through the
direct kernel with the long rows a block each (listed as the library lists
them), the same kernel with none listed (every row in rounds) and the packed
path with and without its long rows listed; checks the same bits from all four
and the float64 value; times each as CUDA-graph replays; appends to
$OUT/counts-check.json.
"""
import json
import os
import sys

from cuda_flatten import flatten


def lanes(nf, per_lane):
    return min(32, 1 << max(0, (-(-nf // per_lane) - 1).bit_length()))


def run(src_path, rows, per_row, nf):
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(code=open(src_path).read(), options=('-std=c++17',))
    pack = mod.get_function('counts_pack')
    direct = mod.get_function('csr_mxm_counts')
    no_long = (cp.uint64(0), cp.uint32(0), cp.uint32(0))
    packed_k = mod.get_function('csr_mxm_counts_packed')
    rng = np.random.default_rng(1)
    n = rows
    indptr = cp.arange(n + 1, dtype=cp.uint32) * per_row
    cols = cp.sort(cp.random.randint(0, n, (n, per_row), dtype=cp.int64).astype(cp.uint32), axis=1).ravel()
    d = (1.0 / cp.sqrt(cp.full(n, per_row, dtype=cp.float32))).astype(cp.float32)
    v = (2 * cp.random.randint(-64, 65, (n, nf), dtype=cp.int32)).astype(cp.int32)
    s = cp.asarray(rng.uniform(0.5, 1.5, nf).astype(np.float32))
    bias = cp.asarray(rng.uniform(-1, 1, nf).astype(np.float32))
    stride = -(-(16 + nf) // 16) * 4
    packed = cp.zeros(n * stride, dtype=cp.uint32)
    sm = cp.cuda.Device().attributes['MultiProcessorCount']
    threads = lambda work: (min(-(-work // 256), sm * 16),)
    null = cp.uint64(0)
    iso = cp.uint64(np.float32(1.0).view(np.uint32))

    def do_pack():
        pack(threads(n * 32), (256,), (v, cp.uint64(n), cp.uint64(nf), d, cp.uint64(stride), packed))

    def product(kernel, out, packed_ptr):
        g = lanes(nf, 16 if packed_ptr is packed else 1)
        args = (indptr, cols, null, iso, cp.uint64(n), v, packed_ptr, cp.uint64(stride), cp.uint64(nf),
                cp.uint32(g), d, d, s, bias, out)
        kernel(threads(n * g), (256,), args + no_long)

    out_p = cp.full((n, nf), cp.nan, dtype=cp.float32)
    out_d = cp.full((n, nf), cp.nan, dtype=cp.float32)
    do_pack()
    product(packed_k, out_p, packed)
    product(direct, out_d, null)
    cp.cuda.Device().synchronize()
    same = bool(cp.all(out_p.view(cp.uint32) == out_d.view(cp.uint32)))
    sample = np.sort(rng.choice(n, 200, replace=False))
    ip = cp.asnumpy(indptr).astype(np.int64)
    c_host = cp.asnumpy(cols)
    v_host, d_host = cp.asnumpy(v).astype(np.float64), cp.asnumpy(d).astype(np.float64)
    want = np.stack([d_host[i] * (d_host[c_host[ip[i]:ip[i + 1]]][:, None] * v_host[c_host[ip[i]:ip[i + 1]]]).sum(0)
                     for i in sample]) * cp.asnumpy(s) + cp.asnumpy(bias)
    got = cp.asnumpy(out_p)[sample]
    # against the sum of the terms' magnitudes (the f32 sums of 490 terms cancel)
    mag = np.stack([d_host[i] * (d_host[c_host[ip[i]:ip[i + 1]]][:, None] * np.abs(v_host[c_host[ip[i]:ip[i + 1]]])).sum(0)
                    for i in sample]) * cp.asnumpy(s)
    err = float(np.max(np.abs(got - want) / (mag + 1e-30)))

    def timed(f, reps=20):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(reps):
            start.record()
            f()
            end.record()
            end.synchronize()
            ts.append(cp.cuda.get_elapsed_time(start, end))
        return float(np.median(ts))

    copy_dst = cp.empty_like(cols)
    res = {
        'source': os.path.basename(src_path),
        'registers': {'product': packed_k.num_regs, 'direct': direct.num_regs, 'pack': pack.num_regs},
        'rows': n, 'per_row': per_row, 'cols': nf, 'lanes_packed': lanes(nf, 16), 'lanes_direct': lanes(nf, 1), 'stride_bytes': stride * 4,
        'same_bits_packed_direct': same, 'max_rel_err_vs_f64': err,
        'pack_ms': timed(do_pack),
        'packed_product_ms': timed(lambda: product(packed_k, out_p, packed)),
        'pack_and_product_ms': timed(lambda: (do_pack(), product(packed_k, out_p, packed))),
        'direct_product_ms': timed(lambda: product(direct, out_d, null)),
        'copy_colidx_ms': timed(lambda: copy_dst.__setitem__(Ellipsis, cols)),
        'colidx_mb': cols.nbytes / 1e6,
    }
    print(json.dumps(res))
    out = os.environ.get('OUT', '.')
    with open(os.path.join(out, 'counts-check.json'), 'a') as f:
        f.write(json.dumps(res) + '\n')
    if not same or err > 1e-5:
        sys.exit(1)


def graphs(src_path, data):
    import cupy as cp
    import numpy as np
    import scipy.sparse as sp
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from csr_bench_graphs import flickr_size_bench, planetoid_adj, time_graph

    mod = cp.RawModule(code=open(src_path).read(), options=('-std=c++17',))
    pack = mod.get_function('counts_pack')
    direct = mod.get_function('csr_mxm_counts')
    packed_k = mod.get_function('csr_mxm_counts_packed_ones')
    sm = cp.cuda.Device().attributes['MultiProcessorCount']
    rng = np.random.default_rng(5)
    stream = cp.cuda.Stream(non_blocking=True)
    failed = False
    for name, nf in (('cora', 7), ('citeseer', 6), ('pubmed', 3), ('flickr-size', 7)):
        a = flickr_size_bench(rng) if name == 'flickr-size' else planetoid_adj(f'{data}/{name}/adj.mtx')
        n = a.shape[0]
        a = (a + sp.identity(n, np.float32, format='csr')).tocsr()
        a.sum_duplicates()
        a.sort_indices()
        a.data[:] = 1.0
        deg = np.diff(a.indptr)
        dinv = cp.asarray((1.0 / np.sqrt(deg)).astype(np.float32))
        long_min = min(max(4 * a.nnz // n, 32), 8 * 255)
        long = cp.asarray(np.nonzero(deg > long_min)[0].astype(np.uint32))
        rp, ci = cp.asarray(a.indptr.astype(np.uint32)), cp.asarray(a.indices.astype(np.uint32))
        v = (2 * cp.random.randint(-32, 33, (n, nf), dtype=cp.int32)).astype(cp.int32)
        s = cp.asarray(rng.uniform(0.5, 1.5, nf).astype(np.float32))
        bias = cp.asarray(rng.uniform(-1, 1, nf).astype(np.float32))
        stride = -(-(16 + nf) // 16) * 4
        packed = cp.zeros(n * stride, dtype=cp.uint32)
        null, iso = cp.uint64(0), cp.uint64(np.float32(1.0).view(np.uint32))
        g = lanes(nf, 1)
        short = min(-(-(n * g) // 256), sm * 16)
        outs = {k: cp.full((n, nf), cp.nan, dtype=cp.float32) for k in ('long', 'rounds', 'packed', 'packed_rounds')}

        def run_direct(out, with_long):
            nl = long.size if with_long else 0
            direct((nl * -(-nf // 16) + short,), (256,),
                   (rp, ci, null, iso, cp.uint64(n), v, null, cp.uint64(0), cp.uint64(nf), cp.uint32(g), dinv, dinv,
                    s, bias, out, long, cp.uint32(nl), cp.uint32(long_min)))

        def run_packed(out, with_long=True):
            nl = long.size if with_long else 0
            pack((min(-(-(n * 32) // 256), sm * 16),), (256,),
                 (v, cp.uint64(n), cp.uint64(nf), dinv, cp.uint64(stride), packed))
            packed_k((nl * -(-nf // 16) + min(-(-n // 256), sm * 16),), (256,),
                     (rp, ci, null, iso, cp.uint64(n), v, packed, cp.uint64(stride), cp.uint64(nf), cp.uint32(1),
                      dinv, dinv, s, bias, out, long, cp.uint32(nl), cp.uint32(long_min)))

        fns = {'long': lambda: run_direct(outs['long'], True), 'rounds': lambda: run_direct(outs['rounds'], False),
               'packed': lambda: run_packed(outs['packed']),
               'packed_rounds': lambda: run_packed(outs['packed_rounds'], False)}
        with stream:
            for f in fns.values():
                f()
        stream.synchronize()
        bits = {k: o.view(cp.uint32) for k, o in outs.items()}
        same = all(bool(cp.all(bits['long'] == bits[k])) for k in ('rounds', 'packed', 'packed_rounds'))
        dh = cp.asnumpy(dinv).astype(np.float64)
        a64 = sp.diags(dh) @ a.astype(np.float64) @ sp.diags(dh)
        want = (a64 @ cp.asnumpy(v).astype(np.float64)) * cp.asnumpy(s) + cp.asnumpy(bias)
        err = float(np.max(np.abs(cp.asnumpy(outs['long']) - want) / (np.abs(want) + 1)))
        res = {'graph': name, 'rows': n, 'nnz': int(a.nnz), 'cols': nf, 'long_rows': int(long.size),
               'long_min': long_min, 'longest': int(deg.max()), 'registers_direct': direct.num_regs,
               'same_bits_all_four': same, 'max_rel_err_vs_f64': err}
        for k, f in fns.items():
            res[f'{k}_us'] = 1e3 * time_graph(f, stream)
        print(json.dumps(res))
        with open(os.path.join(os.environ.get('OUT', '.'), 'counts-check.json'), 'a') as f:
            f.write(json.dumps(res) + '\n')
        failed |= not same or err > 1e-5
    if failed:
        sys.exit(1)


if __name__ == '__main__':
    if sys.argv[1] == 'flatten':
        flatten(sys.argv[2], sys.argv[3], os.path.basename(sys.argv[3]))
    elif sys.argv[1] == 'graphs':
        graphs(sys.argv[2], sys.argv[3])
    else:
        args = [int(a) for a in sys.argv[3:]]
        rows, per_row, nf = (args + [232965, 490, 41][len(args):])[:3]
        run(sys.argv[2], rows, per_row, nf)
