"""Triangle counting through cuSPARSE SpGEMM (CuPy), the baseline of the GPU
benchmark: sum(L .* (L @ L.T)) with L = tril(S, -1), S the symmetrised pattern
without its diagonal. Run on the GPU machine (CuPy is installed there):

    python3 scripts/gpu-tc-cupy.py DATA_DIR [OUT_JSON]

Times are medians of 5 CUDA-event-timed runs after one warm-up, product and
masked sum included.
"""
import json, sys, time
import numpy as np
import scipy.io, scipy.sparse as sp
import cupy as cp
import cupyx.scipy.sparse as csp

data = sys.argv[1]
graphs = {
    "delaunay_n14": f"{data}/delaunay_n14.mtx",
    "USA-road-d.NY": f"{data}/large/USA-road-d.NY.mtx.gz",
    "cit-HepPh": f"{data}/large/cit-HepPh.mtx.gz",
    "ego-Twitter": f"{data}/large/ego-Twitter.mtx.gz",
    "cnr-2000": f"{data}/large/cnr-2000.mtx.gz",
}
rows = []
for name, path in graphs.items():
    a = sp.csr_matrix(scipy.io.mmread(path))
    a.data[:] = 1
    s = ((a + a.T) > 0).astype(np.float32)
    s.setdiag(0)
    s.eliminate_zeros()
    l = sp.tril(s, -1).tocsr().astype(np.float32)
    gl = csp.csr_matrix(l)
    glt = gl.T.tocsr()

    def run():
        c = gl @ glt
        return float(c.multiply(gl).sum())

    try:
        count = run()
        ts = []
        for _ in range(5):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            count = run()
            e1.record()
            e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1))
        ms = sorted(ts)[len(ts) // 2]
        rows.append({"graph": name, "triangles": int(round(count)), "ms": ms})
        print(f"cupy spgemm tc {name}: {int(round(count))} triangles in {ms:.3f} ms")
    except Exception as e:  # report, do not hide
        rows.append({"graph": name, "error": str(e)})
        print(f"cupy spgemm tc {name}: failed: {e}")
if len(sys.argv) > 2:
    json.dump(rows, open(sys.argv[2], "w"), indent=1)
