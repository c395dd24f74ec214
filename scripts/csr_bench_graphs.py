"""The graphs of `examples/gpu_bench.rs` as SciPy CSR patterns (f32, values one, no
diagonal), for the CuPy scripts gpu-csr-spmv-variants.py and gpu-csr-blocks-check.py;
the GNN graphs of the standalone kernel checks (`planetoid_adj`, `flickr_size`, and
`flickr_size_edges`: the GNN benchmark's own); and
the kernel timer they share (`time_graph`, CUDA-graph replays; needs CuPy).

R-MAT and the grids use the parameters of `bitgraphblas::generate` (Graph500
A/B/C, edge factor 16, symmetrised; 4-neighbour grids), not the same draws.
"""
import gzip

import numpy as np
import scipy.io
import scipy.sparse as sp


def pattern(m):
    """The pattern of `m`: CSR, sorted, no duplicates, no diagonal, values one."""
    m = sp.csr_matrix(m)
    m.setdiag(0)
    m.eliminate_zeros()
    m.data[:] = 1.0
    m.sum_duplicates()
    m.sort_indices()
    m.data[:] = 1.0
    return m.astype(np.float32)


def load(path):
    """A Matrix Market file (gzipped where its name ends in .gz)."""
    with (gzip.open(path) if path.endswith('.gz') else open(path, 'rb')) as f:
        return pattern(scipy.io.mmread(f))


def planetoid_adj(path):
    """A Planetoid dataset's adj.mtx as a symmetric pattern (f32, values one; no self loops added)."""
    m = sp.csr_matrix(scipy.io.mmread(path))
    return ((m + m.T) != 0).astype(np.float32)


def flickr_size_edges(rng):
    """The edges (a, b), a > b, sorted, of the Flickr-size graph of scripts/gpu-gnn-bench.sh (89,250
    vertices, 899,756 directed entries): one endpoint drawn with weights (i + 1)^-0.5 (degrees
    skewed), the other uniformly, until that many distinct pairs."""
    n, target = 89250, 899756 // 2
    w = (np.arange(n) + 1.0) ** -0.5
    w /= w.sum()
    edges = set()
    while len(edges) < target:
        i = rng.choice(n, 2 * (target - len(edges)), p=w)
        j = rng.integers(0, n, i.size)
        for a, b in zip(i.tolist(), j.tolist()):
            if a != b and len(edges) < target:
                edges.add((max(a, b), min(a, b)))
    return sorted(edges)


def flickr_size_bench(rng):
    """The graph of `flickr_size_edges` as a symmetric pattern (f32, values one)."""
    e = np.array(flickr_size_edges(rng))
    n = 89250
    m = sp.coo_matrix((np.ones(len(e), np.float32), (e[:, 0], e[:, 1])), shape=(n, n)).tocsr()
    return ((m + m.T) != 0).astype(np.float32)


def flickr_size(rng):
    """A graph of Flickr's vertex count drawn as `flickr_size_edges` draws it (endpoints with weights
    (i + 1)^-0.5, so degrees are skewed), but with three times the draws (about 2.8M entries), symmetrised."""
    n, target = 89250, 899756 // 2
    w = (np.arange(n) + 1.0) ** -0.5
    w /= w.sum()
    i = rng.choice(n, 3 * target, p=w)
    j = rng.integers(0, n, i.size)
    keep = i != j
    a = sp.coo_matrix((np.ones(keep.sum(), np.float32), (i[keep], j[keep])), shape=(n, n)).tocsr()
    return ((a + a.T) != 0).astype(np.float32)


def rmat(scale, edge_factor, seed):
    """R-MAT with 2^scale vertices and edge_factor * 2^scale edges, symmetrised."""
    rng = np.random.default_rng(seed)
    n = 1 << scale
    m = edge_factor * n
    i = np.zeros(m, np.int64)
    j = np.zeros(m, np.int64)
    for _ in range(scale):
        r = rng.random(m)
        i = (i << 1) | (r >= 0.76)
        j = (j << 1) | (((r >= 0.57) & (r < 0.76)) | (r >= 0.95))
    a = sp.coo_matrix((np.ones(m, np.float32), (i, j)), shape=(n, n)).tocsr()
    return pattern(a + a.T)


def grid(k):
    """The k x k grid, 4 neighbours."""
    n = k * k
    idx = np.arange(n).reshape(k, k)
    r = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    c = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    a = sp.coo_matrix((np.ones(len(r), np.float32), (r, c)), shape=(n, n)).tocsr()
    return pattern(a + a.T)


def graphs(data):
    """(name, loader) of the nine graphs; `data` holds delaunay_n14.mtx and the .mtx.gz files."""
    return [('delaunay_n14', lambda: load(f'{data}/delaunay_n14.mtx')),
            ('USA-road-d.NY', lambda: load(f'{data}/USA-road-d.NY.mtx.gz')),
            ('cit-HepPh', lambda: load(f'{data}/cit-HepPh.mtx.gz')),
            ('ego-Twitter', lambda: load(f'{data}/ego-Twitter.mtx.gz')),
            ('cnr-2000', lambda: load(f'{data}/cnr-2000.mtx.gz')),
            ('grid-1024', lambda: grid(1024)),
            ('rmat-18', lambda: rmat(18, 16, 18)),
            ('grid-4096', lambda: grid(4096)),
            ('rmat-22', lambda: rmat(22, 16, 22))]


def time_graph(fn, stream, reps=50, batches=7):
    """ms a call of `fn` (launches on `stream`), as replays of a CUDA graph of
    `reps` calls (no host work between launches), median of `batches`; NaN
    where the calls cannot be captured."""
    import cupy as cp
    with stream:
        fn()
    stream.synchronize()
    try:
        with stream:
            stream.begin_capture()
            for _ in range(reps):
                fn()
            g = stream.end_capture()
    except Exception:
        try:
            stream.end_capture()
        except Exception:
            pass
        cp.cuda.runtime.deviceSynchronize()
        return float('nan')
    g.launch(stream)
    stream.synchronize()
    ts = []
    for _ in range(batches):
        e0 = cp.cuda.Event()
        e1 = cp.cuda.Event()
        e0.record(stream)
        g.launch(stream)
        e1.record(stream)
        e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1) / reps)
    return float(np.median(ts))
