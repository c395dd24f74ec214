#!/usr/bin/env python3
"""The anchors of the dense-bit benchmark (issue 17, examples/bits_bench.rs):
the best dense GEMM and the best cuSPARSE SpMM this GPU offers through
PyTorch, CuPy and the CUDA libraries they load, on the shapes and the graphs
bits_bench timed. Run on the GPU machine (PyTorch and CuPy are there):

    python3 scripts/gpu-bits-anchors.py --out ANCHORS.json \
        [--square 4096,8192,16384] [--gnn 232965x602x128,89250x500x256] \
        [--graphs DIR] [--mtx NAME=PATH ...] [--features 64,128,256] \
        [--reps 20] [--warm 3] [--quick] [--skip-gemm] [--skip-spmm] [--budget-s 150]

bits_bench writes the arguments that match its own run into
`CSR_DIR/anchor-args.txt` (`scripts/gpu-run.sh bits` passes them on).

GEMM, `MxKxN` = an M x K matrix times a K x N matrix (row-major, as torch
stores them), on random data, every path's result checked on two 64 x 64
corners against a float64 product of the same inputs:
- f16 (cuBLAS through `torch.matmul`, the right operand row- and
  column-major; cuBLASLt through ctypes, the best of its heuristic's
  candidates timed one by one): f16 output, f32 accumulation;
- int8 -> int32 (`torch._int_mm`, the right operand row- and column-major;
  cuBLASLt int8 through ctypes, heuristic candidates timed; cublasGemmEx
  through CuPy; `torch._scaled_mm` on int8 is tried and its error recorded):
  K padded with zeros to a multiple of 16 where it is not one (these paths
  need it; the padded K is recorded and the op count uses the real K);
- fp8 e4m3 -> bf16 (`torch._scaled_mm`, unit scales), K padded likewise: a
  further anchor, not one the issue asks for.
SpMM, a CSR pattern (every value 1) times a dense K x F matrix of random
values, f32 and f16 (f32 accumulation): `torch.sparse_csr_tensor @ dense`
(the dense operand row- and column-major), cuSPARSE `cusparseSpMM` through
ctypes (default algorithm, CSR_ALG1 column-major, CSR_ALG2 and CSR_ALG3
row-major; `cusparseSpMM_preprocess` for ALG1 and ALG3 done once before
timing, as bits_bench packs B2SR before timing), cupyx `cusparse.spmm` (f32,
column-major); every result checked on sampled rows (the largest-degree ones
among them) against float64 sums on the host.

`--budget-s`: after this many seconds (from the first timing) no further
GEMM shape or graph is started; those are recorded as skipped.

Timing (the same as bits_bench's `time_ms`): `--warm` calls, then per
repetition one CUDA-event-timed batch of back-to-back calls (as many as make
a batch about 0.5 ms, at most 64, chosen from one timed call), divided by its
length; the median of `--reps` repetitions (5 where one call takes over
100 ms). To bound the run, every variant of
one (shape or graph, width, element type) is first screened (median of 3
single timed calls after one warm-up) and only the fastest correct one is
timed in full; the JSON keeps every screen time and every error.

Graphs: `--graphs DIR` reads every `DIR/*.csr.json` header written by
bits_bench: {"name", "nrows", "ncols", "nnz", "row_ptr": {"file", "dtype":
"u64"|"u32"}, "col_idx": {"file", "dtype": "u32"}, "order"} with the arrays
as raw little-endian files beside it; `--mtx NAME=PATH` reads a Matrix
Market file (plain or .gz; values ignored) instead, for standalone use.

The JSON: versions and device, the copy bandwidth measured here, and one
record per GEMM shape and per (graph, width) with every variant's screen
time or error, the full timing of the best variant of each kind ("best"),
and the checks. Nothing is printed or written that this run did not measure.
"""
import argparse
import ctypes
import glob
import gzip
import json
import math
import os
import sys
import time

import numpy as np

MAX_INNER = 64
BATCH_MS = 0.5


# ---------------------------------------------------------------- arguments


def parse_shape(s):
    """'MxKxN' -> (m, k, n)."""
    parts = s.lower().split("x")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"shape {s!r}: expected MxKxN")
    try:
        m, k, n = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape {s!r}: expected integers MxKxN")
    if min(m, k, n) <= 0:
        raise argparse.ArgumentTypeError(f"shape {s!r}: sizes must be positive")
    return (m, k, n)


def parse_int_list(s):
    if s.strip() == "":
        return []
    try:
        v = [int(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r}: expected integers separated by commas")
    if any(x <= 0 for x in v):
        raise argparse.ArgumentTypeError(f"{s!r}: sizes must be positive")
    return v


def parse_shape_list(s):
    return [parse_shape(x) for x in s.split(",") if x.strip()]


def parse_mtx(s):
    if "=" not in s:
        raise argparse.ArgumentTypeError(f"--mtx {s!r}: expected NAME=PATH")
    name, path = s.split("=", 1)
    if not name or not path:
        raise argparse.ArgumentTypeError(f"--mtx {s!r}: expected NAME=PATH")
    return (name, path)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="GEMM and cuSPARSE SpMM anchors of the dense-bit benchmark (issue 17)")
    p.add_argument("--out", required=True, help="the JSON file to write")
    p.add_argument("--square", type=parse_int_list, default=None,
                   help="square GEMM sizes, e.g. 4096,8192,16384")
    p.add_argument("--gnn", type=parse_shape_list, default=None,
                   help="GEMM shapes MxKxN, e.g. 232965x602x128,89250x500x256")
    p.add_argument("--graphs", default=None,
                   help="a folder of CSR files and their *.csr.json headers")
    p.add_argument("--mtx", type=parse_mtx, action="append", default=[],
                   help="NAME=PATH of a Matrix Market graph (repeatable)")
    p.add_argument("--features", type=parse_int_list, default=None,
                   help="SpMM dense widths, e.g. 64,128,256")
    p.add_argument("--only", default=None,
                   help="graph names to run, separated by commas (default: all)")
    p.add_argument("--reps", type=int, default=None, help="timed repetitions (default 20)")
    p.add_argument("--warm", type=int, default=3, help="warm-up calls (default 3)")
    p.add_argument("--quick", action="store_true",
                   help="small defaults: square 1024,2048, GNN 20000x602x128, widths 64,128, 5 reps")
    p.add_argument("--skip-gemm", action="store_true")
    p.add_argument("--skip-spmm", action="store_true")
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--budget-s", type=float, default=150.0,
                   help="seconds after which no further shape or graph is started (default 150)")
    a = p.parse_args(argv)
    if a.square is None:
        a.square = [1024, 2048] if a.quick else [4096, 8192, 16384]
    if a.gnn is None:
        a.gnn = [(20000, 602, 128)] if a.quick else [(232965, 602, 128), (89250, 500, 256)]
    if a.features is None:
        a.features = [64, 128] if a.quick else [64, 128, 256]
    if a.reps is None:
        a.reps = 5 if a.quick else 20
    if a.reps < 1 or a.warm < 0:
        p.error("--reps must be at least 1 and --warm at least 0")
    a.only = None if a.only is None else [x for x in a.only.split(",") if x]
    return a


# ---------------------------------------------------------------- graphs

_DTYPES = {"u64": "<u8", "u32": "<u4", "i64": "<i8", "i32": "<i4"}


def read_csr_header(path):
    """A graph from a *.csr.json header and its two raw arrays; checked."""
    with open(path) as f:
        h = json.load(f)
    d = os.path.dirname(os.path.abspath(path))
    for key in ("name", "nrows", "ncols", "nnz", "row_ptr", "col_idx"):
        if key not in h:
            raise ValueError(f"{path}: header lacks {key!r}")
    n, m, nnz = int(h["nrows"]), int(h["ncols"]), int(h["nnz"])

    def arr(spec, count, what):
        dt = _DTYPES.get(spec.get("dtype"))
        if dt is None:
            raise ValueError(f"{path}: {what} dtype {spec.get('dtype')!r} is none of {sorted(_DTYPES)}")
        fp = os.path.join(d, spec["file"])
        size = os.path.getsize(fp)
        want = count * np.dtype(dt).itemsize
        if size != want:
            raise ValueError(f"{fp}: {size} bytes, expected {want} ({count} x {spec['dtype']})")
        return np.fromfile(fp, dtype=dt, count=count)

    rp = arr(h["row_ptr"], n + 1, "row_ptr").astype(np.int64)
    ci = arr(h["col_idx"], nnz, "col_idx")
    check_csr(path, n, m, nnz, rp, ci)
    return {"name": h["name"], "nrows": n, "ncols": m, "nnz": nnz, "row_ptr": rp,
            "col_idx": ci.astype(np.int32) if m < 2**31 else ci.astype(np.int64),
            "source": h.get("source", path), "order": h.get("order", 0)}


def check_csr(what, n, m, nnz, rp, ci):
    if rp[0] != 0 or rp[-1] != nnz:
        raise ValueError(f"{what}: row_ptr runs {rp[0]}..{rp[-1]}, expected 0..{nnz}")
    if n > 0 and np.any(np.diff(rp) < 0):
        raise ValueError(f"{what}: row_ptr decreases")
    if nnz > 0 and int(ci.max()) >= m:
        raise ValueError(f"{what}: a column index {int(ci.max())} >= ncols {m}")


def read_mtx(name, path):
    """A pattern from a Matrix Market file (coordinate; symmetric storage expanded)."""
    import scipy.io
    import scipy.sparse as sp
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        a = scipy.io.mmread(f)
    a = sp.csr_matrix(a)
    a.sum_duplicates()
    a.sort_indices()
    n, m = a.shape
    rp = a.indptr.astype(np.int64)
    ci = a.indices.astype(np.int32)
    check_csr(path, n, m, len(ci), rp, ci)
    return {"name": name, "nrows": n, "ncols": m, "nnz": len(ci), "row_ptr": rp,
            "col_idx": ci, "source": path, "order": 0}


def graph_loaders(args):
    """(name, loader) pairs: headers in --graphs (by their "order", then name), then --mtx."""
    out = []
    if args.graphs:
        heads = []
        for hp in glob.glob(os.path.join(args.graphs, "*.csr.json")):
            with open(hp) as f:
                h = json.load(f)
            heads.append((h.get("order", 0), h.get("name", hp), hp))
        for _, name, hp in sorted(heads):
            out.append((name, lambda hp=hp: read_csr_header(hp)))
    for name, path in args.mtx:
        out.append((name, lambda name=name, path=path: read_mtx(name, path)))
    if args.only is not None:
        out = [x for x in out if x[0] in args.only]
    return out


# ---------------------------------------------------------------- timing


def median(v):
    s = sorted(v)
    return s[len(s) // 2]


class Timer:
    """CUDA-event timing on torch's current stream (the legacy default
    stream, which CuPy's null stream and the ctypes calls below use too)."""

    def __init__(self, torch):
        self.torch = torch

    def batch(self, f, inner):
        ev = self.torch.cuda.Event
        a, b = ev(enable_timing=True), ev(enable_timing=True)
        a.record()
        for _ in range(inner):
            f()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) / inner

    def time_ms(self, f, warm, reps):
        """bits_bench's time_ms: median of `reps` batches after `warm` calls."""
        for _ in range(warm):
            f()
        self.torch.cuda.synchronize()
        one = self.batch(f, 1)
        inner = max(1, min(MAX_INNER, math.ceil(BATCH_MS / max(one, 1e-4))))
        if one > 100.0:
            reps = min(reps, 5)     # as bits_bench: a slow call, 5 batches
        ts = [self.batch(f, inner) for _ in range(reps)]
        return {"ms": median(ts), "inner": inner, "reps": reps, "warm": warm,
                "min_ms": min(ts), "max_ms": max(ts)}

    def screen(self, f):
        """One warm-up call, then the median of 3 single timed calls."""
        f()
        self.torch.cuda.synchronize()
        return median([self.batch(f, 1) for _ in range(3)])


def err_text(e):
    s = f"{type(e).__name__}: {e}"
    return s if len(s) < 400 else s[:400] + "..."


# ---------------------------------------------------------------- libraries


def loaded_library(stem):
    """A CUDA library this process already loaded (torch's copy), by the
    path in /proc/self/maps; else the first that the loader or the Python
    packages can find. `stem` as 'libcublasLt.so'."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1] if line.strip() else ""
                if os.path.basename(p).startswith(stem):
                    return ctypes.CDLL(p), p
    except OSError:
        pass
    for v in ("13", "12", "11", ""):
        name = f"{stem}.{v}" if v else stem
        try:
            return ctypes.CDLL(name), name
        except OSError:
            pass
    for d in sys.path:
        for p in sorted(glob.glob(os.path.join(d, "nvidia", "**", stem + "*"), recursive=True)):
            try:
                return ctypes.CDLL(p), p
            except OSError:
                pass
    raise OSError(f"{stem} not found")


CUDA_R_32F, CUDA_R_16F, CUDA_R_8I, CUDA_R_32I = 0, 2, 3, 10
CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32I = 68, 72
CUBLAS_OP_N, CUBLAS_OP_T = 0, 1
LT_DESC_TRANSA, LT_DESC_TRANSB = 3, 4
LT_PREF_MAX_WORKSPACE_BYTES = 1
LT_WORKSPACE = 64 << 20


class LtHeuristic(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("workspaceSize", ctypes.c_size_t),
                ("state", ctypes.c_int), ("wavesCount", ctypes.c_float),
                ("reserved", ctypes.c_int * 4)]


class CublasLt:
    """C[m, n] = A[m, k] @ B[k, n] (row-major) through cublasLtMatmul, as the
    column-major product C' = B' A' in the "TN" form the integer kernels
    want: the right operand stored as its transpose (n x k, k contiguous),
    the left row-major (k contiguous)."""

    def __init__(self, torch):
        self.torch = torch
        self.lib, self.path = loaded_library("libcublasLt.so")
        L = self.lib
        vp, i32, u64, i64, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_int64, ctypes.c_size_t
        L.cublasLtCreate.argtypes = [ctypes.POINTER(vp)]
        L.cublasLtMatmulDescCreate.argtypes = [ctypes.POINTER(vp), i32, i32]
        L.cublasLtMatmulDescSetAttribute.argtypes = [vp, i32, vp, sz]
        L.cublasLtMatmulDescDestroy.argtypes = [vp]
        L.cublasLtMatrixLayoutCreate.argtypes = [ctypes.POINTER(vp), i32, u64, u64, i64]
        L.cublasLtMatrixLayoutDestroy.argtypes = [vp]
        L.cublasLtMatmulPreferenceCreate.argtypes = [ctypes.POINTER(vp)]
        L.cublasLtMatmulPreferenceSetAttribute.argtypes = [vp, i32, vp, sz]
        L.cublasLtMatmulPreferenceDestroy.argtypes = [vp]
        L.cublasLtMatmulAlgoGetHeuristic.argtypes = [vp, vp, vp, vp, vp, vp, vp, i32,
                                                     ctypes.POINTER(LtHeuristic), ctypes.POINTER(i32)]
        L.cublasLtMatmul.argtypes = [vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, vp, sz, vp]
        for f in ("cublasLtCreate", "cublasLtMatmulDescCreate", "cublasLtMatmulDescSetAttribute",
                  "cublasLtMatrixLayoutCreate", "cublasLtMatmulPreferenceCreate",
                  "cublasLtMatmulPreferenceSetAttribute", "cublasLtMatmulAlgoGetHeuristic",
                  "cublasLtMatmul"):
            getattr(L, f).restype = i32
        self.handle = vp()
        self.chk(L.cublasLtCreate(ctypes.byref(self.handle)), "create")
        self.ws = torch.empty(LT_WORKSPACE, dtype=torch.uint8, device="cuda")

    @staticmethod
    def chk(s, what):
        if s != 0:
            raise RuntimeError(f"cublasLt {what}: status {s}")

    def plans(self, a, bt, c, in_type, out_type, compute, scale_type, count=8):
        """The heuristic's candidates for c = a @ bt.T; returns a list of
        callables (one per algorithm) and the descriptors to keep alive."""
        L, vp = self.lib, ctypes.c_void_p
        m, k = a.shape
        n = bt.shape[0]
        desc = vp()
        self.chk(L.cublasLtMatmulDescCreate(ctypes.byref(desc), compute, scale_type), "desc")
        ta, tb = ctypes.c_int(CUBLAS_OP_T), ctypes.c_int(CUBLAS_OP_N)
        self.chk(L.cublasLtMatmulDescSetAttribute(desc, LT_DESC_TRANSA, ctypes.byref(ta), 4), "transa")
        self.chk(L.cublasLtMatmulDescSetAttribute(desc, LT_DESC_TRANSB, ctypes.byref(tb), 4), "transb")
        la, lb, lc = vp(), vp(), vp()
        # column-major views: A := bt as k x n (ld k), B := a as k x m (ld k), C := c as n x m (ld n)
        self.chk(L.cublasLtMatrixLayoutCreate(ctypes.byref(la), in_type, k, n, k), "layout A")
        self.chk(L.cublasLtMatrixLayoutCreate(ctypes.byref(lb), in_type, k, m, k), "layout B")
        self.chk(L.cublasLtMatrixLayoutCreate(ctypes.byref(lc), out_type, n, m, n), "layout C")
        pref = vp()
        self.chk(L.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)), "preference")
        ws = ctypes.c_uint64(LT_WORKSPACE)
        self.chk(L.cublasLtMatmulPreferenceSetAttribute(pref, LT_PREF_MAX_WORKSPACE_BYTES,
                                                         ctypes.byref(ws), 8), "workspace")
        res = (LtHeuristic * count)()
        got = ctypes.c_int(0)
        self.chk(L.cublasLtMatmulAlgoGetHeuristic(self.handle, desc, la, lb, lc, lc, pref, count,
                                                   res, ctypes.byref(got)), "heuristic")
        if scale_type == CUDA_R_32I:
            alpha, beta = ctypes.c_int32(1), ctypes.c_int32(0)
        else:
            alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        stream = vp(self.torch.cuda.current_stream().cuda_stream)
        ap, bp, cp_ = vp(bt.data_ptr()), vp(a.data_ptr()), vp(c.data_ptr())
        wsp = vp(self.ws.data_ptr())
        calls = []
        for i in range(got.value):
            r = res[i]
            if r.state != 0 or r.workspaceSize > LT_WORKSPACE:
                continue

            def call(r=r):
                self.chk(L.cublasLtMatmul(self.handle, desc, ctypes.byref(alpha), ap, la, bp, lb,
                                          ctypes.byref(beta), cp_, lc, cp_, lc, ctypes.byref(r.algo),
                                          wsp, LT_WORKSPACE, stream), "matmul")
            calls.append(call)
        keep = (desc, la, lb, lc, pref, res, alpha, beta)
        return calls, keep


CUSPARSE_ORDER_COL, CUSPARSE_ORDER_ROW = 1, 2
SPMM_ALGS = {"default": 0, "csr_alg1": 4, "csr_alg2": 6, "csr_alg3": 12}


class CuSparse:
    """cusparseSpMM through ctypes: C = A @ B, A CSR (32-bit indices), B and C
    dense in the order asked for."""

    def __init__(self, torch):
        self.torch = torch
        self.lib, self.path = loaded_library("libcusparse.so")
        L = self.lib
        vp, i32, i64, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_size_t
        L.cusparseCreate.argtypes = [ctypes.POINTER(vp)]
        L.cusparseSetStream.argtypes = [vp, vp]
        L.cusparseCreateCsr.argtypes = [ctypes.POINTER(vp), i64, i64, i64, vp, vp, vp, i32, i32, i32, i32]
        L.cusparseCreateDnMat.argtypes = [ctypes.POINTER(vp), i64, i64, i64, vp, i32, i32]
        L.cusparseDestroySpMat.argtypes = [vp]
        L.cusparseDestroyDnMat.argtypes = [vp]
        args = [vp, i32, i32, vp, vp, vp, vp, vp, i32, i32]
        L.cusparseSpMM_bufferSize.argtypes = args + [ctypes.POINTER(sz)]
        L.cusparseSpMM_preprocess.argtypes = args + [vp]
        L.cusparseSpMM.argtypes = args + [vp]
        for f in ("cusparseCreate", "cusparseSetStream", "cusparseCreateCsr", "cusparseCreateDnMat",
                  "cusparseSpMM_bufferSize", "cusparseSpMM_preprocess", "cusparseSpMM"):
            getattr(L, f).restype = i32
        self.handle = vp()
        self.chk(L.cusparseCreate(ctypes.byref(self.handle)), "create")
        self.chk(L.cusparseSetStream(self.handle, vp(torch.cuda.current_stream().cuda_stream)), "stream")

    @staticmethod
    def chk(s, what):
        if s != 0:
            raise RuntimeError(f"cuSPARSE {what}: status {s}")

    def plan(self, crow, col, vals, shape, x, y, order, alg):
        """A callable for y = A @ x; x and y are torch tensors, row-major
        contiguous for ORDER_ROW, column-major (a transposed contiguous
        tensor) for ORDER_COL."""
        L, vp = self.lib, ctypes.c_void_p
        n, m = shape
        f = x.shape[1]
        dt = {self.torch.float32: CUDA_R_32F, self.torch.float16: CUDA_R_16F}[vals.dtype]
        a = vp()
        self.chk(L.cusparseCreateCsr(ctypes.byref(a), n, m, vals.numel(), vp(crow.data_ptr()),
                                     vp(col.data_ptr()), vp(vals.data_ptr()), 2, 2, 0, dt), "csr")
        ld_x, ld_y = (f, f) if order == CUSPARSE_ORDER_ROW else (m, n)
        b, c = vp(), vp()
        self.chk(L.cusparseCreateDnMat(ctypes.byref(b), m, f, ld_x, vp(x.data_ptr()), dt, order), "B")
        self.chk(L.cusparseCreateDnMat(ctypes.byref(c), n, f, ld_y, vp(y.data_ptr()), dt, order), "C")
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        size = ctypes.c_size_t(0)
        self.chk(L.cusparseSpMM_bufferSize(self.handle, 0, 0, ctypes.byref(alpha), a, b,
                                           ctypes.byref(beta), c, CUDA_R_32F, alg,
                                           ctypes.byref(size)), "buffer size")
        buf = self.torch.empty(max(size.value, 16), dtype=self.torch.uint8, device="cuda")
        bp = vp(buf.data_ptr())
        if alg in (SPMM_ALGS["csr_alg1"], SPMM_ALGS["csr_alg3"]):
            # where it helps (ALG1, ALG3); a failure leaves the plain call
            L.cusparseSpMM_preprocess(self.handle, 0, 0, ctypes.byref(alpha), a, b,
                                      ctypes.byref(beta), c, CUDA_R_32F, alg, bp)

        def call():
            self.chk(L.cusparseSpMM(self.handle, 0, 0, ctypes.byref(alpha), a, b, ctypes.byref(beta),
                                    c, CUDA_R_32F, alg, bp), "spmm")

        def close():
            L.cusparseDestroySpMat(a)
            L.cusparseDestroyDnMat(b)
            L.cusparseDestroyDnMat(c)
        return call, (buf, alpha, beta), close


# ---------------------------------------------------------------- GEMM


def pad16(k):
    return (k + 15) // 16 * 16


def gemm_shape(torch, timer, lt, args, m, k, n, kind):
    """Every GEMM variant on one shape: screen, check, time the best of each family."""
    g = torch.Generator(device="cuda")
    g.manual_seed(args.seed + m + 7 * k + 13 * n)
    kp = pad16(k)
    rec = {"kind": kind, "m": m, "k": k, "n": n, "ops": 2.0 * m * n * k, "k_padded_int8_fp8": kp,
           "variants": [], "best": {}}
    res = {}

    def corners(out, ref_fn, exact):
        """Compares out's top-left and bottom-right 64 x 64 corners with the
        float64 product of the same inputs; None or what differs."""
        r0, c0 = min(64, m), min(64, n)
        for (rs, cs) in ((slice(0, r0), slice(0, c0)), (slice(m - r0, m), slice(n - c0, n))):
            ref = ref_fn(rs, cs)
            got = out[rs, cs].double()
            if exact:
                if not torch.equal(got, ref):
                    return f"corner {rs.start},{cs.start}: max |diff| {float((got - ref).abs().max())}"
            else:
                scale = float(ref.abs().max()) + 1e-30
                err = float((got - ref).abs().max()) / scale
                if not err < 2e-2:
                    return f"corner {rs.start},{cs.start}: max rel diff {err:.3e}"
        return None

    def variant(family, name, f, out, ref_fn, exact, note=None):
        """Screens f (its result in out(), or res["c"] when out is None) and checks it."""
        v = {"family": family, "name": name}
        if note:
            v["note"] = note
        res.pop("c", None)
        try:
            v["screen_ms"] = timer.screen(f)
            bad = corners(out if out is not None else res["c"], ref_fn, exact)
            v["check"] = "ok" if bad is None else "FAILED " + bad
        except Exception as e:  # report, do not hide
            v.pop("screen_ms", None)
            v["error"] = err_text(e)
        rec["variants"].append(v)
        print(f"  {family:5} {name:30} " + (f"screen {v['screen_ms']:.4f} ms  check {v['check']}"
                                             if "screen_ms" in v else f"error: {v['error']}"), flush=True)
        return v, f

    def put(r):
        res["c"] = r[0] if isinstance(r, tuple) else r

    # f16 -> f16, f32 accumulation
    a16 = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
    b16t = torch.randn(n, k, device="cuda", dtype=torch.float16, generator=g)  # the right operand, transposed
    b16 = b16t.t().contiguous()                                                # k x n row-major
    c16 = torch.empty(m, n, device="cuda", dtype=torch.float16)

    def ref16(rs, cs):
        return a16[rs].double() @ b16t[cs].double().t()
    f16 = [variant("f16", "torch.matmul (cuBLAS)", lambda: torch.matmul(a16, b16, out=c16), c16, ref16, False),
           variant("f16", "torch.matmul B col-major", lambda: torch.matmul(a16, b16t.t(), out=c16),
                   c16, ref16, False)]
    keep = []
    if lt is not None:
        try:
            calls, k16 = lt.plans(a16, b16t, c16, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F)
            keep.append(k16)
            for i, call in enumerate(calls):
                f16.append(variant("f16", f"cuBLASLt heuristic #{i}", call, c16, ref16, False))
        except Exception as e:
            rec["variants"].append({"family": "f16", "name": "cuBLASLt", "error": err_text(e)})
            print(f"  f16   cuBLASLt error: {err_text(e)}", flush=True)
    best_of(timer, args, rec, "f16", f16)
    del a16, b16, b16t, c16, f16
    torch.cuda.empty_cache()

    # int8 -> int32, K padded with zeros to a multiple of 16
    note = None if kp == k else f"K padded {k} -> {kp}"
    a8 = torch.zeros(m, kp, device="cuda", dtype=torch.int8)
    a8[:, :k] = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
    b8t = torch.zeros(n, kp, device="cuda", dtype=torch.int8)   # the right operand, transposed
    b8t[:, :k] = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
    b8 = b8t.t().contiguous()                                   # kp x n row-major
    c32 = torch.empty(m, n, device="cuda", dtype=torch.int32)

    def ref8(rs, cs):
        return a8[rs].double() @ b8t[cs].double().t()
    i8 = [variant("int8", "torch._int_mm", lambda: put(torch._int_mm(a8, b8)), None, ref8, True, note),
          variant("int8", "torch._int_mm B col-major", lambda: put(torch._int_mm(a8, b8t.t())),
                  None, ref8, True, note)]
    if lt is not None:
        try:
            calls, k8 = lt.plans(a8, b8t, c32, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I)
            keep.append(k8)
            for i, call in enumerate(calls):
                i8.append(variant("int8", f"cuBLASLt heuristic #{i}", call, c32, ref8, True, note))
            if not calls:
                rec["variants"].append({"family": "int8", "name": "cuBLASLt", "error": "the heuristic gave no algorithm"})
        except Exception as e:
            rec["variants"].append({"family": "int8", "name": "cuBLASLt", "error": err_text(e)})
            print(f"  int8  cuBLASLt error: {err_text(e)}", flush=True)
    try:
        import cupy
        from cupy.cuda import cublas
        h = cupy.cuda.device.get_cublas_handle()
        one, zero = np.ones(1, np.int32), np.zeros(1, np.int32)

        def gemmex():
            mode = cublas.getPointerMode(h)
            cublas.setPointerMode(h, cublas.CUBLAS_POINTER_MODE_HOST)
            try:
                cublas.gemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, kp, one.ctypes.data, b8t.data_ptr(),
                              CUDA_R_8I, kp, a8.data_ptr(), CUDA_R_8I, kp, zero.ctypes.data,
                              c32.data_ptr(), CUDA_R_32I, n, CUBLAS_COMPUTE_32I, -1)
            finally:
                cublas.setPointerMode(h, mode)
        i8.append(variant("int8", "cublasGemmEx (CuPy)", gemmex, c32, ref8, True, note))
    except Exception as e:
        rec["variants"].append({"family": "int8", "name": "cublasGemmEx (CuPy)", "error": err_text(e)})
        print(f"  int8  cublasGemmEx (CuPy) error: {err_text(e)}", flush=True)
    one_t = torch.ones((), device="cuda", dtype=torch.float32)
    i8.append(variant("int8", "torch._scaled_mm int8",
                      lambda: put(torch._scaled_mm(a8, b8t.t(), one_t, one_t, out_dtype=torch.int32)),
                      None, ref8, True, note))
    best_of(timer, args, rec, "int8", i8)
    del a8, b8, b8t, c32, i8
    torch.cuda.empty_cache()

    # fp8 e4m3 -> bf16, unit scales (a further anchor)
    if hasattr(torch, "float8_e4m3fn"):
        try:
            t = torch.zeros(m, kp, device="cuda", dtype=torch.float16)
            t[:, :k] = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
            a_f8 = t.to(torch.float8_e4m3fn)
            t = torch.zeros(n, kp, device="cuda", dtype=torch.float16)
            t[:, :k] = torch.randn(n, k, device="cuda", dtype=torch.float16, generator=g)
            b_f8t = t.to(torch.float8_e4m3fn)
            del t

            def ref_f8(rs, cs):
                return a_f8[rs].double() @ b_f8t[cs].double().t()
            f8 = [variant("fp8", "torch._scaled_mm e4m3",
                          lambda: put(torch._scaled_mm(a_f8, b_f8t.t(), one_t, one_t, out_dtype=torch.bfloat16)),
                          None, ref_f8, False, note)]
            best_of(timer, args, rec, "fp8", f8)
            del a_f8, b_f8t, f8
        except Exception as e:
            rec["variants"].append({"family": "fp8", "name": "torch._scaled_mm e4m3", "error": err_text(e)})
            print(f"  fp8   error: {err_text(e)}", flush=True)
    res.clear()
    keep.clear()
    torch.cuda.empty_cache()
    return rec


def best_of(timer, args, rec, family, variants):
    """Times in full the fastest screened variant whose check passed."""
    ok = [(v["screen_ms"], i, v, f) for i, (v, f) in enumerate(variants)
          if "screen_ms" in v and v.get("check") == "ok"]
    if not ok:
        rec["best"][family] = {"error": "no variant ran and passed its check"}
        print(f"  {family:5} best: none ran and passed its check", flush=True)
        return
    _, _, v, f = min(ok, key=lambda x: (x[0], x[1]))
    t = timer.time_ms(f, args.warm, args.reps)
    best = {"name": v["name"], **t}
    if "note" in v:
        best["note"] = v["note"]
    if "ops" in rec:
        best["tops"] = rec["ops"] / (t["ms"] * 1e-3) / 1e12
    rec["best"][family] = best
    print(f"  {family:5} best: {v['name']}: {t['ms']:.4f} ms"
          + (f" ({best['tops']:.1f} TOPS)" if "tops" in best else ""), flush=True)


# ---------------------------------------------------------------- SpMM


def sample_rows(rp, seed, random_rows=28, top_rows=4):
    """Rows to check: some at random and the largest-degree ones."""
    n = len(rp) - 1
    if n == 0:
        return np.zeros(0, np.int64)
    rng = np.random.default_rng(seed)
    deg = np.diff(rp)
    top = np.argpartition(deg, -min(top_rows, n))[-min(top_rows, n):]
    return np.unique(np.concatenate([rng.integers(0, n, size=min(n, random_rows)), top])).astype(np.int64)


def reference_rows(rp, ci, xh, rows, chunk=8192):
    """float64 sums of x's rows over each sampled row's columns, and the sums
    of their absolute values (the scale of the rounding error)."""
    f = xh.shape[1]
    ref = np.zeros((len(rows), f))
    mag = np.zeros((len(rows), f))
    for r, i in enumerate(rows):
        for s in range(rp[i], rp[i + 1], chunk):
            g = xh[ci[s:min(s + chunk, rp[i + 1])]]
            ref[r] += g.sum(axis=0)
            mag[r] += np.abs(g).sum(axis=0)
    return ref, mag


def spmm_graph(torch, timer, cs, args, gr, widths):
    """Every SpMM variant on one graph, per width and element type."""
    n, m, nnz = gr["nrows"], gr["ncols"], gr["nnz"]
    rp, ci = gr["row_ptr"], gr["col_idx"]
    if nnz >= 2**31:
        print(f"  {gr['name']}: {nnz} entries need 64-bit offsets; not run", flush=True)
        return [{"graph": gr["name"], "error": "nnz >= 2^31 (64-bit offsets not set up here)"}]
    crow = torch.from_numpy(rp.astype(np.int32)).cuda()
    col = torch.from_numpy(ci.astype(np.int32)).cuda()
    rows = sample_rows(rp, args.seed)
    rows_t = torch.from_numpy(rows).cuda()
    dts = (("f32", torch.float32), ("f16", torch.float16))
    vals = {name: torch.ones(nnz, device="cuda", dtype=dt) for name, dt in dts}
    mats = {name: torch.sparse_csr_tensor(crow, col, vals[name], size=(n, m)) for name, _ in dts}
    g = torch.Generator(device="cuda")
    g.manual_seed(args.seed + n)
    recs = []
    for f in widths:
        # values that f16 holds exactly, so one float64 reference serves both types
        x32 = torch.randn(m, f, device="cuda", dtype=torch.float16, generator=g).float()
        ref, mag = reference_rows(rp, ci, x32.double().cpu().numpy(), rows)
        for dt_name, dt in dts:
            rec = {"graph": gr["name"], "nrows": n, "ncols": m, "nnz": nnz, "features": f,
                   "dtype": dt_name, "ops": 2.0 * nnz * f, "variants": [], "best": {}}
            a, va = mats[dt_name], vals[dt_name]
            x = x32.to(dt).contiguous()
            xc = x.t().contiguous().t()                           # the same values, column-major
            y = torch.empty(n, f, device="cuda", dtype=dt)
            yc = torch.empty(f, n, device="cuda", dtype=dt).t()   # column-major n x f
            tol = 1e-4 if dt == torch.float32 else 2e-2
            variants = []
            res = {}

            def variant(name, fn, out):
                v = {"family": dt_name, "name": name}
                res.pop("y", None)
                try:
                    v["screen_ms"] = timer.screen(fn)
                    got = out()[rows_t].double().cpu().numpy()
                    err = np.abs(got - ref) / (mag + 1.0)
                    worst = float(err.max()) if err.size else 0.0
                    v["check"] = "ok" if worst <= tol else f"FAILED max err {worst:.3e} (tol {tol})"
                except Exception as e:  # report, do not hide
                    v.pop("screen_ms", None)
                    v["error"] = err_text(e)
                rec["variants"].append(v)
                print(f"  {gr['name']} F={f} {dt_name} {name:34} "
                      + (f"screen {v['screen_ms']:.4f} ms  check {v['check']}" if "screen_ms" in v
                         else f"error: {v['error']}"), flush=True)
                variants.append((v, fn))

            def t_row():
                res["y"] = a @ x

            def t_col():
                res["y"] = a @ xc
            variant("torch CSR @ dense", t_row, lambda: res["y"])
            variant("torch CSR @ dense col-major", t_col, lambda: res["y"])
            closers = []
            if cs is not None:
                for alg_name, alg in SPMM_ALGS.items():
                    for order in (CUSPARSE_ORDER_ROW, CUSPARSE_ORDER_COL):
                        if alg_name == "csr_alg1" and order == CUSPARSE_ORDER_ROW:
                            continue          # ALG1: the column-major algorithm
                        if alg_name in ("csr_alg2", "csr_alg3") and order == CUSPARSE_ORDER_COL:
                            continue          # ALG2 and ALG3: the row-major ones
                        xs, ys = (x, y) if order == CUSPARSE_ORDER_ROW else (xc, yc)
                        vname = f"cusparseSpMM {alg_name} {'row' if order == CUSPARSE_ORDER_ROW else 'col'}-major"
                        try:
                            call, keep, close = cs.plan(crow, col, va, (n, m), xs, ys, order, alg)
                            closers.append((close, keep))
                            variant(vname, call, lambda ys=ys: ys)
                        except Exception as e:
                            rec["variants"].append({"family": dt_name, "name": vname, "error": err_text(e)})
                            print(f"  {gr['name']} F={f} {dt_name} {vname}: error: {err_text(e)}", flush=True)
            if dt == torch.float32:
                try:
                    import cupy
                    import cupyx.scipy.sparse as csp
                    from cupyx import cusparse as cxs
                    ca = csp.csr_matrix((cupy.from_dlpack(va), cupy.from_dlpack(col), cupy.from_dlpack(crow)),
                                        shape=(n, m))
                    cx = cupy.asfortranarray(cupy.from_dlpack(x))
                    cy = cupy.empty((n, f), dtype=cupy.float32, order="F")
                    variant("cupyx cusparse.spmm (col-major)", lambda: cxs.spmm(ca, cx, c=cy),
                            lambda: torch.from_dlpack(cy))
                except Exception as e:
                    rec["variants"].append({"family": dt_name, "name": "cupyx cusparse.spmm", "error": err_text(e)})
                    print(f"  cupyx cusparse.spmm error: {err_text(e)}", flush=True)
            best_of(timer, args, rec, dt_name, variants)
            torch.cuda.synchronize()
            for close, _ in closers:
                close()
            recs.append(rec)
            del x, xc, y, yc, variants
            res.clear()
            torch.cuda.empty_cache()
        del x32
    del mats, vals, crow, col
    torch.cuda.empty_cache()
    return recs


# ---------------------------------------------------------------- main


def copy_bandwidth(torch, timer):
    """Device-to-device copy of 1 GiB, bytes read + written per second."""
    src = torch.ones(1 << 28, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    t = timer.time_ms(lambda: dst.copy_(src), 2, 10)
    bw = 2.0 * src.numel() * 4 / (t["ms"] * 1e-3)
    del src, dst
    torch.cuda.empty_cache()
    return bw


def main(argv):
    args = parse_args(argv)
    graphs = graph_loaders(args) if not args.skip_spmm else []
    import torch
    if not torch.cuda.is_available():
        print("gpu-bits-anchors: no CUDA device: nothing timed", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    timer = Timer(torch)
    out = {"tool": "gpu-bits-anchors", "torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "argv": argv,
           "timing": {"warm": args.warm, "reps": args.reps, "batch_ms": BATCH_MS, "max_inner": MAX_INNER,
                      "method": "median over reps of CUDA-event-timed batches of back-to-back calls"},
           "gemm": [], "spmm": [], "libraries": {}}
    try:
        import cupy
        out["cupy"] = cupy.__version__
    except Exception as e:
        out["cupy"] = "unavailable: " + err_text(e)
    props = torch.cuda.get_device_properties(0)
    out["sm_count"] = props.multi_processor_count
    print(f"# anchors: torch {torch.__version__} (CUDA {torch.version.cuda}), CuPy {out['cupy']}, "
          f"{out['device']}", flush=True)
    # load cuBLAS(Lt) and cuSPARSE through torch first, so ctypes finds torch's copies
    torch.matmul(torch.ones(32, 32, device="cuda", dtype=torch.float16),
                 torch.ones(32, 32, device="cuda", dtype=torch.float16))
    w = torch.sparse_csr_tensor(torch.tensor([0, 1], dtype=torch.int32), torch.tensor([0], dtype=torch.int32),
                                torch.ones(1), size=(1, 1)).cuda()
    (w @ torch.ones(1, 1, device="cuda"))
    torch.cuda.synchronize()
    out["copy_bandwidth_bytes_per_s"] = copy_bandwidth(torch, timer)
    print(f"# copy bandwidth {out['copy_bandwidth_bytes_per_s'] / 1e12:.3f} TB/s (read + write, 1 GiB)",
          flush=True)
    lt = cs = None
    try:
        lt = CublasLt(torch)
        out["libraries"]["cublasLt"] = lt.path
    except Exception as e:
        out["libraries"]["cublasLt"] = "unavailable: " + err_text(e)
    try:
        cs = CuSparse(torch)
        out["libraries"]["cusparse"] = cs.path
    except Exception as e:
        out["libraries"]["cusparse"] = "unavailable: " + err_text(e)
    print(f"# libraries: {out['libraries']}", flush=True)
    t0 = time.time()
    if not args.skip_gemm:
        shapes = [("square", (s, s, s)) for s in args.square] + [("gnn", s) for s in args.gnn]
        for kind, (m, k, n) in shapes:
            print(f"== GEMM {m}x{k} by {k}x{n}", flush=True)
            if time.time() - t0 > args.budget_s:
                out["gemm"].append({"kind": kind, "m": m, "k": k, "n": n,
                                    "skipped": f"over the time budget ({args.budget_s} s)"})
                print("  skipped: over the time budget", flush=True)
                continue
            try:
                out["gemm"].append(gemm_shape(torch, timer, lt, args, m, k, n, kind))
            except Exception as e:   # out of memory, say: the other shapes still run
                out["gemm"].append({"kind": kind, "m": m, "k": k, "n": n, "error": err_text(e)})
                print(f"  error: {err_text(e)}", flush=True)
            torch.cuda.empty_cache()
            write(args.out, out)
    for name, load in graphs:
        print(f"== SpMM {name}", flush=True)
        if time.time() - t0 > args.budget_s:
            out["spmm"].append({"graph": name, "skipped": f"over the time budget ({args.budget_s} s)"})
            print("  skipped: over the time budget", flush=True)
            continue
        try:
            gr = load()
            print(f"  {gr['nrows']} x {gr['ncols']}, {gr['nnz']} entries ({gr['source']})", flush=True)
            out["spmm"].extend(spmm_graph(torch, timer, cs, args, gr, args.features))
        except Exception as e:
            out["spmm"].append({"graph": name, "error": err_text(e)})
            print(f"  error: {err_text(e)}", flush=True)
        torch.cuda.empty_cache()
        write(args.out, out)
    out["seconds"] = time.time() - t0
    write(args.out, out)
    print(f"# anchors written to {args.out} ({out['seconds']:.0f} s)", flush=True)
    return 0


def write(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
