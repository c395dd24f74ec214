#!/usr/bin/env python3
"""SuiteSparse:GraphBLAS timings of the products `benches/mxv.rs` runs.

For each graph: LOR.LAND mxv (bool matrix, a ~half-full random bool vector),
PLUS.TIMES and MIN.PLUS mxv (fp32 matrix of ones, a full fp32 vector), through
python-graphblas on the SuiteSparse backend with a fixed thread count.
Prints `graph,op,ms` lines (the file `cargo bench --bench mxv -- --suitesparse
FILE` reads), then a summary table on stderr.

    /work/venv-gb/bin/python scripts/suitesparse_mxv.py --threads 2 --min \
        --gen-dir /tmp/gen > ss.csv

Real graphs come from shared/data (`--data`); the generated ones (grid_1024,
rmat_18) from `--gen-dir`, written there by `cargo bench --bench mxv --
--write-mtx DIR` so both sides multiply the same matrices.
"""

import argparse
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import graphblas as gb

gb.init("suitesparse", blocking=True)
from graphblas import Matrix, Vector, dtypes, semiring  # noqa: E402

REAL = [
    ("delaunay_n14", "suitesparse/delaunay_n14.mtx"),
    ("USA-road-d.NY", "large/USA-road-d.NY.mtx.gz"),
    ("ego-Twitter", "large/ego-Twitter.mtx.gz"),
    ("cnr-2000", "large/cnr-2000.mtx.gz"),
]
GENERATED = ["grid_1024", "rmat_18"]


def load(path):
    """The pattern of a Matrix Market file as bool and fp32 GraphBLAS matrices."""
    a = sp.coo_matrix(scipy.io.mmread(path))
    a.sum_duplicates()
    n, m = a.shape
    rows, cols = a.row.astype(np.uint64), a.col.astype(np.uint64)
    b = Matrix.from_coo(rows, cols, True, nrows=n, ncols=m, dtype=dtypes.BOOL)
    f = Matrix.from_coo(rows, cols, 1.0, nrows=n, ncols=m, dtype=dtypes.FP32)
    return b, f


def timed(reps, use_min, fn):
    fn()
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        fn()
        t.append((time.perf_counter() - s) * 1e3)
    t.sort()
    return t[0] if use_min else t[len(t) // 2]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=21)
    p.add_argument("--min", action="store_true", help="minimum instead of median")
    p.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"))
    p.add_argument("--gen-dir", default=None)
    p.add_argument("--only", default=None)
    # As in suitesparse_algorithms.py: the wheel's JIT cannot compile here, and in
    # its installed mode ("run") it searches an empty kernel cache on every call.
    p.add_argument("--jit", default="off", help="SuiteSparse JIT control: off (default), run or on")
    args = p.parse_args()
    gb.ss.config["nthreads"] = args.threads
    gb.ss.config["jit_c_control"] = args.jit

    graphs = [(name, os.path.join(args.data, rel)) for name, rel in REAL]
    if args.gen_dir:
        graphs += [(g, os.path.join(args.gen_dir, g + ".mtx")) for g in GENERATED]
    rng = np.random.default_rng(7)
    summary = []
    for name, path in graphs:
        if args.only and args.only not in name:
            continue
        if not os.path.exists(path):
            print(f"skipping {name}: {path} missing", file=sys.stderr)
            continue
        ab, af = load(path)
        n = ab.nrows
        idx = np.flatnonzero(rng.random(n) < 0.5).astype(np.uint64)
        ub = Vector.from_coo(idx, True, size=n, dtype=dtypes.BOOL)
        uf = Vector.from_coo(
            np.arange(n, dtype=np.uint64),
            (rng.integers(0, 100, n) * 0.01).astype(np.float32),
            size=n,
            dtype=dtypes.FP32,
        )
        times = {
            "lor_land": timed(args.reps, args.min, lambda: ab.mxv(ub, semiring.lor_land).new()),
            "plus_times": timed(args.reps, args.min, lambda: af.mxv(uf, semiring.plus_times).new()),
            "min_plus": timed(args.reps, args.min, lambda: af.mxv(uf, semiring.min_plus).new()),
        }
        for op, ms in times.items():
            print(f"{name},{op},{ms:.4f}", flush=True)
        summary.append((name, n, ab.nvals, times))
    print(f"\nSuiteSparse:GraphBLAS {gb.ss.about['library_version']}, threads {args.threads}, "
          f"{'minimum' if args.min else 'median'} of {args.reps}", file=sys.stderr)
    print("| graph | n | nnz | lor_land ms | plus_times ms | min_plus ms |", file=sys.stderr)
    print("|---|---|---|---|---|---|", file=sys.stderr)
    for name, n, nnz, t in summary:
        print(f"| {name} | {n} | {nnz} | {t['lor_land']:.3f} | {t['plus_times']:.3f} | "
              f"{t['min_plus']:.3f} |", file=sys.stderr)


if __name__ == "__main__":
    main()
