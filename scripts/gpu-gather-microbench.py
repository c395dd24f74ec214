"""Gather microbenchmark of PageRank's product on one graph (CuPy RawKernel).

    python3 scripts/gpu-gather-microbench.py GRAPH.csr [CUDA_DIR] [--reps N]
        [--new-cuda DIR] [--merge-only] [--profile]

CUDA_DIR (default `cuda`) holds the library's kernels measured as "the
library's"; `--new-cuda DIR`: also the merge path of another copy of them
(`merge-new`); `--merge-only`: the merge-path variants alone; `--profile`:
stop after the first two products (cuSPARSE, merge path), for
`ncu -k regex:csr_mxv_merge|csrmv -c 1 python3 ...`.

GRAPH.csr as algorithms/examples/bench_gpu.rs writes it (`--graphs DIR`: n u64,
nnz u64, n+1 u64 row offsets, nnz u32 columns; entry (i, j) = edge i -> j).
The product is PageRank's: y = A' t (A' the transpose, CSR with sorted
columns, iso: no values read), t a full f64 vector. Every variant's y is
checked against cuSPARSE's (cupyx `A' @ t`, f64) and timed with CUDA events,
best and median of N runs (after one warm-up), in the same process:

- `cusparse`: cupyx `A' @ t` (values and columns streamed);
- `merge`: the library's merge-path product (cuda/sr.cu `csr_merge_start` +
  `csr_mxv_merge` + `csr_merge_fix`, plus_times f64, compiled from CUDA_DIR);
  each lane takes MERGE_E consecutive items (8 before gpr9, 6 after);
- `lib-row vV`: the library's row kernel `csr_mxv` (V lanes a row, 2 entries a
  lane in flight) with `csr_mxv_long`/`csr_mxv_fix` for rows over 1024;
- `row vV uU s|c [hubH]`: a row layout, V lanes a row (32/V rows a warp,
  rows over LONG entries cut into warp-sized chunks folded with atomics), U
  entries a lane in flight per round, lanes strided (`s`: neighbouring lanes
  read neighbouring entries) or consecutive (`c`: a lane U consecutive
  entries); `hubH`: the H columns of highest degree have their values in
  shared memory (their column indices recoded as 0x80000000 | slot, filled
  once per block, one or two persistent blocks of 1024 threads an SM);
- `merge E=e`, `merge-new [lbB] E=e`: the merge path of CUDA_DIR (or of
  `--new-cuda`) with e items a lane (`MERGE_E`), optionally with
  `__launch_bounds__(256, B)`; the product, then each of its three kernels
  alone; `merge regcap R`: the library's with at most R registers a thread;
  `merge grid`: other launch shapes; `merge hubH`: the merge path gathering
  the H hub columns' values from shared memory (as `row ... hubH` above);
- `stream`: the column indices read once (evict-first) and summed: the floor
  of the column stream alone.
"""
import re
import sys
import numpy as np
import cupy as cp
import cupyx.scipy.sparse as csp

args = [a_ for a_ in sys.argv[1:] if a_ not in ("--profile", "--merge-only")]
merge_only = "--merge-only" in sys.argv
reps = 10
new_cuda = None
if "--new-cuda" in args:
    k = args.index("--new-cuda")
    new_cuda = args[k + 1]
    args = args[:k] + args[k + 2:]
if "--reps" in args:
    k = args.index("--reps")
    reps = int(args[k + 1])
    args = args[:k] + args[k + 2:]
path = args[0]
cuda_dir = args[1] if len(args) > 1 else "cuda"

with open(path, "rb") as f:
    n, nnz = (int(v) for v in np.fromfile(f, dtype="<u8", count=2))
    rp = np.fromfile(f, dtype="<u8", count=n + 1)
    ci = np.fromfile(f, dtype="<u4", count=nnz)
a = csp.csr_matrix((cp.ones(nnz, dtype=cp.float64), cp.asarray(ci.astype(np.int32)),
                    cp.asarray(rp.astype(np.int32))), shape=(n, n))
at = a.T.tocsr()
at.sort_indices()
del a
rowptr = at.indptr.astype(cp.uint32)
colidx = at.indices.astype(cp.uint32)
print(f"graph {path}: n={n} nnz={nnz} max in-degree {int(cp.diff(rowptr.astype(cp.int64)).max())}", flush=True)
rng = np.random.default_rng(1)
t = cp.asarray(rng.random(n))
ref = at @ t
scale = float(cp.abs(ref).max())

SRC = r'''
#include "sr.cu"

// ---- microbenchmark kernels (not part of the library) ----
#define HUB_BIT 0x80000000u

// t[c], or for a recoded hub column (HUB_BIT | slot) its value in shared
// memory; no branch: both loads predicated
__device__ __forceinline__ double hub_get(const double* __restrict__ t, const double* sh, u32 c) {
  const bool hb = (c & HUB_BIT) != 0;
  const double xs = sh[hb ? c & ~HUB_BIT : 0u];
  const double xg = hb ? 0.0 : t[c];
  return hb ? xs : xg;
}

template <int V, int U, bool CONSEC, bool HUB>
__device__ __forceinline__ double mb_span(const u32* __restrict__ col, const double* __restrict__ t,
                                          const double* sh, u32 p0, u32 p1, int l) {
  double acc = 0.0;
  for (u32 b = p0; b < p1; b += V * U) {
    u32 c[U];
    bool in[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const u32 p = CONSEC ? b + l * U + k : b + l + k * V;
      in[k] = p < p1;
      c[k] = in[k] ? __ldcs(col + p) : 0u;
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      double x = 0.0;
      if (in[k]) x = HUB ? hub_get(t, sh, c[k]) : t[c[k]];
      acc += x;
    }
  }
#pragma unroll
  for (int off = 1; off < V; off <<= 1) acc += __shfl_xor_sync(FULL_MASK, acc, off);
  return acc;
}

// Work items of a warp: long chunks first (a warp each), then groups of 32/V rows.
template <int V, int U, bool CONSEC, bool HUB>
__device__ __forceinline__ void mb_rows(const u32* __restrict__ rowptr, const u32* __restrict__ col,
                                        const double* __restrict__ t, u64 nrows, u32 long_min,
                                        const u32* __restrict__ lc_row, const u32* __restrict__ lc_p0,
                                        u64 nlc, const u32* __restrict__ hubs, u32 nhub, double* __restrict__ y) {
  extern __shared__ double sh[];
  if (HUB) {
    for (u32 s = threadIdx.x; s < nhub; s += blockDim.x) sh[s] = t[hubs[s]];
    __syncthreads();
  }
  const int G = 32 / V;
  const int lane = threadIdx.x & 31, g = lane / V, l = lane % V;
  const u64 warp = gtid() / 32, nwarps = gthreads() / 32;
  const u64 nitems = nlc + (nrows + G - 1) / G;
  for (u64 w = warp; w < nitems; w += nwarps) {
    if (w < nlc) {
      const u32 row = lc_row[w], p0 = lc_p0[w], p1 = min(p0 + long_min, rowptr[row + 1]);
      const double s = mb_span<32, U, CONSEC, HUB>(col, t, sh, p0, p1, lane);
      if (lane == 0) atomicAdd(y + row, s);
      continue;
    }
    const u64 i = (w - nlc) * G + g;
    u32 p0 = 0, p1 = 0;
    if (i < nrows) { p0 = rowptr[i]; p1 = rowptr[i + 1]; }
    const bool is_long = p1 - p0 > long_min;
    if (is_long) p1 = p0;
    const double s = mb_span<V, U, CONSEC, HUB>(col, t, sh, p0, p1, l);
    if (l == 0 && i < nrows && !is_long) y[i] = s;
  }
}

#define MB_ROWS(V, U, C, H, NAME)                                                                     \
  extern "C" __global__ void __launch_bounds__(1024) NAME(const u32* __restrict__ rowptr, const u32* __restrict__ col,        \
                                  const double* __restrict__ t, u64 nrows, u32 long_min,             \
                                  const u32* __restrict__ lc_row, const u32* __restrict__ lc_p0,     \
                                  u64 nlc, const u32* __restrict__ hubs, u32 nhub, double* y) {      \
    mb_rows<V, U, C, H>(rowptr, col, t, nrows, long_min, lc_row, lc_p0, nlc, hubs, nhub, y);         \
  }
#define MB_ALL(V, U)                                   \
  MB_ROWS(V, U, false, false, mb_rows_v##V##_u##U##_s) \
  MB_ROWS(V, U, true, false, mb_rows_v##V##_u##U##_c)  \
  MB_ROWS(V, U, false, true, mb_rows_v##V##_u##U##_s_hub) \
  MB_ROWS(V, U, true, true, mb_rows_v##V##_u##U##_c_hub)
MB_ALL(8, 4)
MB_ALL(16, 4)
MB_ALL(32, 4)
MB_ALL(32, 8)

extern "C" __global__ void mb_stream(const u32* __restrict__ col, u64 nnz, u32* __restrict__ out) {
  u32 s = 0;
  for (u64 p = gtid(); p < nnz; p += gthreads()) s += __ldcs(col + p);
  if (s == 0x12345678u) out[0] = s;
}
'''

# the library's merge-path kernel with hub columns in shared memory: its text
# from sr.cu, the gather through hub_get, a shared-memory fill first
sr = open(f"{cuda_dir}/sr.cu").read()
k0 = sr.index('extern "C" __global__ void CAT(csr_mxv_merge_, SR_NAME)')
k1 = sr.index("\n}\n", k0) + 3  # the kernel's closing brace
kern = sr[k0:k1]
for a_, b_ in (('__global__ void CAT(csr_mxv_merge_, SR_NAME)', '__global__ void __launch_bounds__(512) csr_mxv_merge_hub'),
               ('u64 cbits) {', 'u64 cbits, const u32* __restrict__ hubs, u32 nhub) {\n'
                '  extern __shared__ double shm[];\n'
                '  for (u32 s = threadIdx.x; s < nhub; s += blockDim.x) shm[s] = u_vals[hubs[s]];\n'
                '  __syncthreads();\n'),
               ('u_vals[col[j]]', 'hub_get(u_vals, shm, col[j])')):
    assert a_ in kern, a_
    kern = kern.replace(a_, b_)
SRC = SRC + kern
mod = cp.RawModule(code=SRC, options=(f"-I{cuda_dir}", "-DSR_T=f64", "-DSR_ADD=0", "-DSR_MUL=2",
                                      "-DSR_NAME=plus_times_f64", "-std=c++17"),
                   backend="nvrtc")
dev = cp.cuda.Device()
sms = dev.attributes["MultiProcessorCount"]
print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {sms} SMs", flush=True)


def timeit(f):
    f()
    cp.cuda.Device().synchronize()
    ts = []
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(reps):
        e0.record(); f(); e1.record(); e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
    ts.sort()
    return ts[0], ts[len(ts) // 2]


rows = []


def report(name, f, y=None):
    try:
        b, m = timeit(f)
    except Exception as ex:  # one failing variant does not stop the others
        print(f"{name:<28} FAILED: {ex}", flush=True)
        return
    err = ""
    if y is not None:
        e = float(cp.abs(y - ref).max()) / scale
        err = f"maxrelerr={e:.2e}" + ("" if e < 1e-9 else "  WRONG")
    rows.append((name, b, m, err))
    print(f"{name:<28} {b:8.4f} {m:8.4f}  {err}", flush=True)


print(f"{'variant':<28} {'best ms':>8} {'median':>8}", flush=True)
y_cs = [None]


def cus():
    y_cs[0] = at @ t


report("cusparse", cus)
u32, u64, i32 = np.uint32, np.uint64, np.int32

# the library's merge path
MERGE_D = 32 * int(re.search(r"#define MERGE_E (\d+)", sr).group(1))
nchunks = (n + nnz + MERGE_D - 1) // MERGE_D
start_row = cp.zeros(nchunks + 1, dtype=cp.uint32)
part_vals = cp.zeros(2 * nchunks, dtype=cp.float64)
part_has = cp.zeros(2 * nchunks, dtype=cp.uint8)
y = cp.zeros(n, dtype=cp.float64)
fstart = mod.get_function("csr_merge_start_plus_times_f64")
fmerge = mod.get_function("csr_mxv_merge_plus_times_f64")
ffix = mod.get_function("csr_merge_fix_plus_times_f64")


def lib_grid(work):
    return (max(1, min((work + 255) // 256, sms * 16)),)


ONE = u64(np.float64(1.0).view(np.uint64))
# the fix kernel's work: a warp per chunk (before gpr9) or a lane per chunk
FIX_WORK = nchunks * 32 if "merge_fold_pieces" not in sr else ((nchunks + 31) // 32) * 32


def merge_with(fm=None, grid=None, block=(256,), col=None, extra=(), shared_mem=0, start=True, fix=True):
    """The merge path: start, the merge kernel `fm` (the library's by default), fix."""
    if start:
        fstart(lib_grid(nchunks + 1), (256,), (rowptr, u64(n), u64(nnz), u64(nchunks), start_row))
    (fm or fmerge)(grid or lib_grid(nchunks * 32), block,
                   (rowptr, colidx if col is None else col, u64(0), ONE, u64(n), u64(nnz), t, u64(0), u64(0), y,
                    u64(0), i32(-1), start_row, u64(nchunks), part_vals, part_has, u64(0), i32(1), u64(0)) + extra,
                   shared_mem=shared_mem)
    if fix:
        ffix(lib_grid(FIX_WORK), (256,), (rowptr, u64(n), start_row, u64(nchunks), part_vals, part_has, u64(0), y,
                                          u64(0), i32(-1), i32(1), u64(0)))


def merge():
    merge_with()


report("merge (library)", merge, y)
if "--profile" in sys.argv:
    # one product of each for a profiler (ncu -k ...), then stop
    cp.cuda.Device().synchronize()
    print("profiled", flush=True)
    sys.exit(0)


# the library's merge path (any sr.cu text) with E entries per lane (MERGE_E;
# the chunk is 32 E items): the product, and its three kernels alone
def merge_suite(label, text, e, cdir, min_blocks=0):
    text = re.sub(r"#define MERGE_E \d+", f"#define MERGE_E {e}", text)
    if min_blocks:
        # at least this many blocks of 256 an SM (registers capped to fit)
        k = 'extern "C" __global__ void CAT(csr_mxv_merge_, SR_NAME)'
        assert k in text
        text = text.replace(k, k.replace("void", f"void __launch_bounds__(256, {min_blocks})"))
        label = f"{label} lb{min_blocks}"
    mode = cp.RawModule(code=text, options=(f"-I{cdir}", "-DSR_T=f64", "-DSR_ADD=0", "-DSR_MUL=2",
                                            "-DSR_NAME=plus_times_f64", "-std=c++17"), backend="nvrtc")
    fse, fme, ffe = (mode.get_function(f"{k}_plus_times_f64") for k in ("csr_merge_start", "csr_mxv_merge",
                                                                         "csr_merge_fix"))
    nch = (n + nnz + 32 * e - 1) // (32 * e)
    sre = cp.zeros(nch + 1, dtype=cp.uint32)
    pve = cp.zeros(2 * nch, dtype=cp.float64)
    phe = cp.zeros(2 * nch, dtype=cp.uint8)
    print(f"{label} E={e}: merge kernel {fme.num_regs} registers, {fme.local_size_bytes} B local", flush=True)
    one = u64(np.float64(1.0).view(np.uint64))
    st = lambda: fse(lib_grid(nch + 1), (256,), (rowptr, u64(n), u64(nnz), u64(nch), sre))
    me = lambda: fme(lib_grid(nch * 32), (256,), (rowptr, colidx, u64(0), one, u64(n), u64(nnz), t, u64(0), u64(0),
                                                  y, u64(0), i32(-1), sre, u64(nch), pve, phe, u64(0), i32(1),
                                                  u64(0)))
    # the fix kernel's work: a warp per chunk (old) or a lane per chunk (new)
    fw = nch * 32 if "merge_fold_pieces" not in text else ((nch + 31) // 32) * 32
    fx = lambda: ffe(lib_grid(fw), (256,), (rowptr, u64(n), sre, u64(nch), pve, phe, u64(0), y, u64(0), i32(-1),
                                            i32(1), u64(0)))

    def allk():
        st(); me(); fx()
    y.fill(0)
    report(f"{label} E={e}", allk, y)
    report(f"{label} E={e} start alone", st)
    report(f"{label} E={e} merge alone", me)
    report(f"{label} E={e} fix alone", fx)


for e in (4, 8):
    merge_suite("merge", sr, e, cuda_dir)
if new_cuda:
    srn = open(f"{new_cuda}/sr.cu").read()
    for e, lb in ((4, 0), (5, 0), (6, 0), (7, 0), (8, 0), (4, 4), (5, 4), (6, 4), (6, 3), (8, 3)):
        merge_suite("merge-new", srn, e, new_cuda, lb)
if merge_only:
    print("done", flush=True)
    sys.exit(0)



# the library's row kernel
frow = mod.get_function("csr_mxv_plus_times_f64")
flong = mod.get_function("csr_mxv_long_plus_times_f64")
frfix = mod.get_function("csr_mxv_fix_plus_times_f64")
pres = cp.zeros((n + 31) // 32, dtype=cp.uint32)
LIB_LONG = 1024
lchunks = (nnz + LIB_LONG - 1) // LIB_LONG
lpv = cp.zeros(2 * lchunks, dtype=cp.float64)
lph = cp.zeros(2 * lchunks, dtype=cp.uint8)
for vlog in (2, 3, 4, 5):
    def librow(vlog=vlog):
        frow(lib_grid(((n + (32 >> vlog) - 1) // (32 >> vlog)) * 32), (256,),
             (rowptr, colidx, u64(0), u64(np.float64(1.0).view(np.uint64)), u64(n), t, u64(0), u64(0), y, pres,
              u32(vlog), u32(LIB_LONG), i32(-1)))
        flong(lib_grid(lchunks * 32), (256,), (rowptr, colidx, u64(0), u64(np.float64(1.0).view(np.uint64)), u64(n),
                                               u32(nnz), t, u64(0), u64(0), u32(LIB_LONG), lpv, lph))
        frfix(lib_grid(n), (256,), (rowptr, u64(n), u32(LIB_LONG), lpv, lph, y, pres, i32(-1)))
    y.fill(0)
    report(f"lib-row v{1 << vlog}", librow, y)

# stream floor
fs = mod.get_function("mb_stream")
dummy = cp.zeros(1, dtype=cp.uint32)
report("stream (columns only)", lambda: fs((sms * 16,), (256,), (colidx, u64(nnz), dummy)))

# hub recoding: columns by degree, descending (stable)
deg = cp.bincount(colidx.astype(cp.int64), minlength=n)
order = cp.argsort(-deg, kind="stable") if False else cp.asarray(np.argsort(-cp.asnumpy(deg), kind="stable"))
tot = float(nnz)
for h in (12288, 24576, 28672):
    print(f"top {h} columns by degree hold {float(deg[order[:h]].sum()) / tot:.1%} of entries", flush=True)


def hub_code(h):
    hubs = order[:h].astype(cp.uint32)
    slot = cp.full(n, -1, dtype=cp.int64)
    slot[order[:h]] = cp.arange(h)
    s = slot[colidx.astype(cp.int64)]
    code = cp.where(s >= 0, (s | 0x80000000).astype(cp.uint32), colidx)
    return hubs, code


def long_chunks(long_min):
    lens = cp.diff(rowptr.astype(cp.int64))
    lr = cp.nonzero(lens > long_min)[0]
    rs, ls = cp.asnumpy(rowptr[lr]).astype(np.int64), cp.asnumpy(lens[lr])
    lrh = cp.asnumpy(lr)
    row_l, p0_l = [], []
    for r, s, ln in zip(lrh, rs, ls):
        k = np.arange(0, ln, long_min)
        row_l.append(np.full(len(k), r, dtype=np.uint32))
        p0_l.append((s + k).astype(np.uint32))
    if not row_l:
        return cp.zeros(1, cp.uint32), cp.zeros(1, cp.uint32), 0
    rr, pp = np.concatenate(row_l), np.concatenate(p0_l)
    return cp.asarray(rr), cp.asarray(pp), len(rr)


LONG = 2048
lc_row, lc_p0, nlc = long_chunks(LONG)
print(f"rows over {LONG}: {nlc} chunks", flush=True)
empty = cp.zeros(1, dtype=cp.uint32)
hub_sets = {h: hub_code(h) for h in (12288, 24576, 28672)}
fmh = mod.get_function("csr_mxv_merge_hub")
for h, blocks, threads in ((0, 1, 512), (0, 2, 256), (12288, 2, 256), (24576, 1, 512), (28672, 1, 512)):
    hubs, code = hub_sets[h] if h else (empty, colidx)
    fmh.max_dynamic_shared_size_bytes = max(h * 8, 8)

    def run_mhub(hubs=hubs, code=code, h=h, blocks=blocks, threads=threads):
        merge_with(fmh, (sms * blocks,), (threads,), code, (hubs, u32(h)), max(h * 8, 8))
    y.fill(0)
    report(f"merge hub{h // 1024}K x{blocks}x{threads}", run_mhub, y)
def run_m_only():
    merge_with(start=False, fix=False)


merge()
report("merge (library; merge kernel alone)", run_m_only)
for cap in (64, 48, 40):
    modc = cp.RawModule(code='#include "sr.cu"\n', options=(f"-I{cuda_dir}", "-DSR_T=f64", "-DSR_ADD=0", "-DSR_MUL=2",
                                                      "-DSR_NAME=plus_times_f64", "-std=c++17",
                                                      f"--maxrregcount={cap}"), backend="nvrtc")
    fmc = modc.get_function("csr_mxv_merge_plus_times_f64")
    print(f"merge regs cap {cap}: {fmc.num_regs} registers, {fmc.local_size_bytes} B local", flush=True)

    def run_mc(fmc=fmc):
        merge_with(fmc)
    y.fill(0)
    report(f"merge regcap {cap}", run_mc, y)
print(f"merge (library) {fmerge.num_regs} registers", flush=True)
for blocks, threads in ((sms * 16, 256), (sms * 2, 256), (sms * 4, 128)):
    def run_m2(blocks=blocks, threads=threads):
        merge_with(grid=(blocks,), block=(threads,))
    y.fill(0)
    report(f"merge grid {blocks}x{threads}", run_m2, y)
def rows_with(f, grid, block, col=None, hubs=None, h=0):
    """A row kernel of this script (hubs: `h` columns' values in shared memory)."""
    y.fill(0)
    f(grid, block, (rowptr, colidx if col is None else col, t, u64(n), u32(LONG), lc_row, lc_p0, u64(nlc),
                    empty if hubs is None else hubs, u32(h), y), shared_mem=h * 8)


for (v, uu) in ((8, 4), (16, 4), (32, 4), (32, 8)):
    for c in ("s", "c"):
        f = mod.get_function(f"mb_rows_v{v}_u{uu}_{c}")

        for grid, block, what in (((sms * 16,), (256,), ""), ((sms * 2,), (1024,), " grid 2x1024")):
            report(f"row v{v} u{uu} {c}{what}", lambda f=f, grid=grid, block=block: rows_with(f, grid, block), y)
    for c in ("s", "c"):
        fh = mod.get_function(f"mb_rows_v{v}_u{uu}_{c}_hub")
        for h, blocks, threads in ((12288, 2, 1024), (24576, 1, 1024), (28672, 1, 1024)):
            hubs, code = hub_sets[h]
            # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            fh.max_dynamic_shared_size_bytes = h * 8

            def run_hub(fh=fh, hubs=hubs, code=code, h=h, blocks=blocks):
                rows_with(fh, (sms * blocks,), (1024,), code, hubs, h)
            report(f"row v{v} u{uu} {c} hub{h // 1024}K x{blocks}", run_hub, y)
print("done", flush=True)
