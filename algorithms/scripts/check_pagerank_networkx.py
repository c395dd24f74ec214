#!/usr/bin/env python3
"""One-off cross-check: `bitgraphblas pagerank` against networkx.pagerank on real graphs.

    python algorithms/scripts/check_pagerank_networkx.py BIN [GRAPH ...]

BIN is the bitgraphblas binary; GRAPHs are paths relative to ../shared/data.
Both run with damping 0.85, tol 1e-10 and max_iter 200 (NetworkX's stopping
rule: L1 change < n * tol). Prints the largest per-vertex difference.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.io

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def main():
    binary = sys.argv[1]
    graphs = sys.argv[2:] or ["suitesparse/extra/karate.mtx", "suitesparse/extra/curtis54.mtx",
                              "suitesparse/delaunay_n14.mtx", "large/cit-HepPh.mtx.gz"]
    worst = 0.0
    for rel in graphs:
        path = DATA / rel
        m = scipy.io.mmread(str(path)).tocsr()
        m.data[:] = 1.0
        g = nx.from_scipy_sparse_array(m, create_using=nx.DiGraph, edge_attribute=None)
        want = nx.pagerank(g, alpha=0.85, tol=1e-10, max_iter=200, weight=None)
        want = np.array([want[i] for i in range(m.shape[0])])
        with tempfile.NamedTemporaryFile(suffix=".txt") as out:
            subprocess.run([binary, "pagerank", str(path), "--tol", "1e-10", "--max-iters", "200",
                            "--output", out.name], check=True)
            got = np.loadtxt(out.name)
        diff = float(np.max(np.abs(got - want)))
        worst = max(worst, diff)
        print(f"{rel}: n={m.shape[0]} max |ours - networkx| = {diff:.3e}, sum ours = {got.sum():.12f}")
    print(f"worst {worst:.3e}: {'OK' if worst < 1e-6 else 'FAIL'} (tolerance 1e-6)")
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
