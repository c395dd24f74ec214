#!/usr/bin/env python3
"""Times SuiteSparse:GraphBLAS (through python-graphblas) on the algorithms of
bitgraphblas-algorithms, with LAGraph-style formulations, on the real graphs of
../shared/data. The counterpart in Rust is algorithms/examples/bench_cpu.rs;
benches/results/cpu-algorithms.md records both, measured in one run
(raw output: benches/results/cpu-algorithms.txt).

    python scripts/suitesparse_algorithms.py [--threads 2] [--reps 5] [--only ALGORITHM] [GRAPH ...]

Needs python-graphblas, suitesparse-graphblas and scipy (pip install
python-graphblas suitesparse-graphblas scipy). Prints one line per graph and
algorithm: the best and the median wall time over the repetitions (after one
warm-up run) and a check value to compare with the Rust side.

Conventions as in the bitgraphblas command line: vertices from 0, an entry
(i, j) is an edge i -> j, symmetric files hold both directions, pattern entries
weigh 1; the graph is loaded and the derived matrices (A', the lower triangle,
out-degrees) are built before timing, as LAGraph caches them as graph properties.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io

import splitmix  # scripts/splitmix.py

import graphblas as gb

gb.init("suitesparse", blocking=True)

from graphblas import Matrix, Vector, binary, dtypes, monoid, semiring, select, unary  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
GRAPHS = [
    "suitesparse/delaunay_n14.mtx",
    "large/USA-road-d.NY.mtx.gz",
    "large/ego-Twitter.mtx.gz",
    "large/cnr-2000.mtx.gz",
]
BC_SOURCES = 16
# Betweenness on the high-diameter road graph and the large web crawl takes
# minutes on both sides; it runs on these.
BC_GRAPHS = ("delaunay_n14", "ego-Twitter")


def load(path):
    m = scipy.io.mmread(str(path)).tocsr()
    m.data[:] = 1.0
    m.sum_duplicates()
    m.data[:] = 1.0
    return gb.io.from_scipy_sparse(m).apply(unary.one).new(dtype=dtypes.FP64)


def even_sources(n, k):
    k = min(k, n)
    return [i * n // k for i in range(k)]


def bfs_levels(A, s):
    """LAGraph-style BFS levels: q<!v, replace> = q any.pair A (SuiteSparse picks push or pull)."""
    n = A.nrows
    v = Vector(dtypes.INT64, n)
    q = Vector(dtypes.BOOL, n)
    q[s] << True
    level = 0
    while q.nvals:
        v(q.S)[:] << level
        level += 1
        q(~v.S, replace=True) << q.vxm(A, semiring.any_pair)
    return v


def sssp_unweighted(A, s):
    """Level-synchronous MIN.PLUS relaxation (delta-stepping with delta = 1 on unit weights)."""
    n = A.nrows
    d = Vector(dtypes.FP64, n)
    d[s] << 0.0
    f = d.dup()
    while f.nvals:
        f(~d.S, replace=True) << f.vxm(A, semiring.min_plus)
        d(f.S) << f
    return d


def integer_weights(A, max_weight=100, seed=0):
    """bitgraphblas::generate::integer_weights: one splitmix64 stream over A's entries in CSR order."""
    indptr, cols, _ = A.to_csr()
    w = splitmix.integer_weights(len(cols), max_weight, seed)
    return Matrix.from_csr(indptr, cols, w, nrows=A.nrows, ncols=A.ncols)


def improve(t, treq):
    """t = min(t, treq) where treq is smaller; returns the improved entries."""
    lt = treq.ewise_mult(t, binary.lt).new()
    imp = Vector(dtypes.FP64, t.size)
    imp(lt.V) << treq
    t(imp.S) << imp
    return imp


def sssp_delta(AL, AH, s, delta):
    """LAGraph's delta-stepping (LAGr_SingleSourceShortestPath), as bitgraphblas's generic default:
    light edges (w <= delta) relaxed until the bucket settles, heavy ones once per bucket."""
    n = AL.nrows
    t = Vector(dtypes.FP64, n)
    t[:] << np.inf
    t[s] << 0.0
    lo = 0.0
    while True:
        hi = lo + delta
        tb = select.valuelt(select.valuege(t, lo).new(), hi).new()
        settled = Vector(dtypes.BOOL, n)
        while tb.nvals:
            settled(tb.S) << True
            imp = improve(t, tb.vxm(AL, semiring.min_plus).new())
            tb = select.valuelt(imp, hi).new()
        if AH.nvals:
            ts = Vector(dtypes.FP64, n)
            ts(settled.S) << t
            improve(t, ts.vxm(AH, semiring.min_plus).new())
        nxt = select.valuege(t, hi).new().reduce(monoid.min).value
        if nxt is None or nxt == np.inf:
            return t
        lo = nxt


def pagerank(AT, dout_scale, dangling, n, iters, damping=0.85, measure_change=False):
    """NetworkX's PageRank, fixed iteration count: r' = c + A' (r .* damping/dout).

    The L1 change is computed only with measure_change: with a fixed iteration
    count (tolerance 0, as bench_cpu runs ours) no stopping test can hold, and
    bitgraphblas skips it too."""
    r = Vector(dtypes.FP64, n)
    r[:] << 1.0 / n
    for _ in range(iters):
        w = r.ewise_mult(dout_scale, binary.times).new()
        dsum = r.ewise_mult(dangling, binary.times).reduce(monoid.plus).value if dangling.nvals else 0.0
        c = (1.0 - damping) / n + damping * (dsum or 0.0) / n
        rn = Vector(dtypes.FP64, n)
        rn[:] << c
        rn(binary.plus) << AT.mxv(w, semiring.plus_times)
        err = (rn - r).apply(unary.abs).reduce(monoid.plus).value if measure_change else None
        r = rn
    return r, err


def triangles(L):
    """Sandia LL': sum((L * L') .* L) with plus.pair, masked by L."""
    C = L.mxm(L.T, semiring.plus_pair).new(mask=L.S)
    return C.reduce_scalar(monoid.plus).value or 0


def fastsv(S):
    """FastSV as in bitgraphblas: min.second on the symmetric S, hooking through the parent matrix."""
    n = S.nrows
    ids = np.arange(n, dtype=np.uint64)
    f = Vector.from_coo(np.arange(n), ids, dtype=dtypes.UINT64)
    gp = f.dup()
    mngp = f.dup()
    while True:
        mngp(binary.min) << S.mxv(gp, semiring.min_second)
        fh = f.to_coo()[1].astype(np.int64)
        P = Matrix.from_coo(np.arange(n), fh, np.ones(n, dtype=np.uint64), nrows=n, ncols=n)
        f(binary.min) << P.T.mxv(mngp, semiring.min_second)
        f(binary.min) << mngp
        f(binary.min) << gp
        fh = f.to_coo()[1].astype(np.int64)
        gp_new = f[fh].new()
        changed = gp_new.ewise_mult(gp, binary.ne).reduce(monoid.lor).value
        gp = gp_new
        if not changed:
            return f


def betweenness(A, AT, sources):
    """LAGraph-style batched Brandes (LAGr_Betweenness): dense n x k frontiers, plus.second."""
    n, k = A.nrows, len(sources)
    frontier = Matrix.from_coo(sources, list(range(k)), [1.0] * k, nrows=n, ncols=k)
    paths = frontier.dup()
    levels = []
    while frontier.nvals:
        levels.append(frontier.dup())
        frontier(~paths.S, replace=True) << AT.mxm(frontier, semiring.plus_second)
        paths(binary.plus) << frontier
    bcu = Matrix(dtypes.FP64, n, k)
    bcu[:, :] << 1.0
    w = Matrix(dtypes.FP64, n, k)
    # Level 0 holds the sources, whose own dependency is not counted (Brandes).
    for d in range(len(levels) - 1, 1, -1):
        w(levels[d].S, replace=True) << bcu.ewise_mult(paths, binary.truediv)
        w(levels[d - 1].S, replace=True) << A.mxm(w, semiring.plus_second)
        bcu(binary.plus) << w.ewise_mult(paths, binary.times)
    return bcu.reduce_rowwise(monoid.plus).new() - k


def timed(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return min(ts), statistics.median(ts), out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pr-iters", type=int, default=20)
    # The wheel's JIT names a compiler path that does not exist here, so it cannot
    # compile; in its installed mode ("run") SuiteSparse then looks for kernels in
    # an empty cache on every call (road PageRank: 140-800 ms instead of 27 ms).
    ap.add_argument("--jit", default="off", help="SuiteSparse JIT control: off (default), run or on")
    ap.add_argument("--only", help="one algorithm (a prefix of its name), as bench_cpu's --only")
    ap.add_argument("graphs", nargs="*", default=GRAPHS)
    args = ap.parse_args()
    gb.ss.config["nthreads"] = args.threads
    gb.ss.config["jit_c_control"] = args.jit
    print(f"# SuiteSparse:GraphBLAS {gb.ss.about['library_version']} via python-graphblas "
          f"{gb.__version__}, {gb.ss.config['nthreads']} threads, JIT {args.jit}, best and median of {args.reps}")
    print(f"{'graph':<16} {'algorithm':<10} {'best ms':>9} {'median ms':>10}  check")
    for rel in args.graphs:
        path = DATA / rel
        name = Path(rel).name.split(".")[0]
        A = load(path)
        n = A.nrows
        AT = A.T.new()
        Ab = A.apply(unary.one).new(dtype=dtypes.BOOL)
        # Undirected simple graph for CC and TC.
        S = A.ewise_add(AT, binary.plus).new(dtype=dtypes.UINT64)
        S = select.offdiag(S).new()
        S = S.apply(unary.one).new()
        L = select.tril(S, -1).new()
        dout = A.reduce_rowwise(monoid.plus).new()
        dout_scale = dout.apply(binary.rdiv, 0.85).new()  # 0.85 / dout
        present = Vector(dtypes.BOOL, n)
        present(dout.S) << True
        dangling = Vector(dtypes.FP64, n)
        dangling(~present.S)[:] << 1.0
        src = even_sources(n, BC_SOURCES)

        def want(alg):
            return args.only is None or alg.startswith(args.only)

        def row(alg, res):
            best, med, check = res
            print(f"{name:<16} {alg:<10} {best * 1e3:>9.2f} {med * 1e3:>10.2f}  {check}", flush=True)

        if want("bfs"):
            b, m, v = timed(lambda: bfs_levels(Ab, 0), args.reps)
            row("bfs", (b, m, f"reached={v.nvals} max_level={v.reduce(monoid.max).value}"))
        if want("sssp"):
            b, m, d = timed(lambda: sssp_unweighted(A, 0), args.reps)
            row("sssp", (b, m, f"reached={d.nvals} max_dist={d.reduce(monoid.max).value}"))
        if want("sssp_weighted"):
            # weights 1..=100 as bench_cpu draws them, delta their mean (bitgraphblas's default),
            # the light and heavy edges split before timing (as Graph::prepare does)
            W = integer_weights(A)
            delta = W.reduce_scalar(monoid.plus).value / W.nvals
            AL = select.valuele(W, delta).new()
            AH = select.valuegt(W, delta).new()
            b, m, d = timed(lambda: sssp_delta(AL, AH, 0, delta), args.reps)
            fin = select.valuelt(d, np.inf).new()
            row("sssp_weighted", (b, m, f"weights 1..=100, reached={fin.nvals} max_dist={fin.reduce(monoid.max).value}"))
        if want("pagerank"):
            b, m, (r, err) = timed(lambda: pagerank(AT, dout_scale, dangling, n, args.pr_iters), args.reps)
            row(f"pagerank{args.pr_iters}", (b, m, f"sum={r.reduce(monoid.plus).value:.12f} r0={r[0].value:.12e}"))
        if want("cc"):
            b, m, f = timed(lambda: fastsv(S), args.reps)
            ncomp = int((f.to_coo()[1] == np.arange(n)).sum())
            row("cc", (b, m, f"components={ncomp}"))
        if want("tc"):
            b, m, t = timed(lambda: triangles(L), args.reps)
            row("tc", (b, m, f"triangles={t}"))
        if name in BC_GRAPHS and want("bc"):
            b, m, c = timed(lambda: betweenness(A, AT, src), max(1, args.reps // 2))
            row(f"bc{len(src)}", (b, m, f"sum={c.reduce(monoid.plus).value:.6f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
