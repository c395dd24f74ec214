"""CSR SpMV kernel variants against cuSPARSE on the GPU (docs/gpu-csr-row-blocks.md).

    python3 scripts/gpu-csr-spmv-variants.py DATA_DIR

DATA_DIR holds delaunay_n14.mtx and the .mtx.gz graphs of ../shared/data/large.
Compiles the bare variants (f32 pattern, y = A x) with CuPy, checks each against
SciPy in float64 and times it (CUDA-graph replays) beside cuSPARSE's default
SpMV (a plain loop); writes $OUT/spmv.json. Needs CuPy, SciPy and a GPU.
"""
import os, sys, json
import numpy as np
import cupy as cp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from csr_bench_graphs import graphs as bench_graphs, time_graph as shared_time_graph  # noqa: E402

SRC = r'''
typedef unsigned int u32;
// V lanes per row, U entries a lane per round (loads first)
template<int V, int U>
__global__ void vec(const u32* __restrict__ rp, const u32* __restrict__ ci, const float* __restrict__ x,
                    float* __restrict__ y, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = t / V, l = t % V;
  float acc = 0.f;
  if (row < n) {
    const u32 p0 = rp[row], p1 = rp[row + 1];
    u32 p = p0 + l;
    for (; p + (U - 1) * V < p1; p += U * V) {
      u32 c[U];
#pragma unroll
      for (int j = 0; j < U; ++j) c[j] = __ldcs(ci + p + j * V);
#pragma unroll
      for (int j = 0; j < U; ++j) acc += x[c[j]];
    }
    for (; p < p1; p += V) acc += x[__ldcs(ci + p)];
  }
#pragma unroll
  for (int o = V / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (row < n && l == 0) y[row] = acc;
}

// rows in blocks: block b has rows [br[b], br[b+1]) whose entries (at most
// NT*E) are gathered into shared memory, coalesced, then each row summed by
// a group of lanes: G lanes a row where the block has few rows.
template<int NT, int E>
__global__ void adaptive(const u32* __restrict__ rp, const u32* __restrict__ ci, const float* __restrict__ x,
                         float* __restrict__ y, const u32* __restrict__ br, int nb, float* __restrict__ part) {
  __shared__ float s[NT * E];
  const int b = blockIdx.x;
  const u32 r0 = br[b], r1 = br[b + 1];
  const u32 q0 = rp[r0], q1 = rp[r1];
  const int tid = threadIdx.x;
  if (r1 - r0 == 1 && q1 - q0 > NT * E) {
    // one long row: the whole block strides it (this experiment: long rows
    // in one block)
    float acc = 0.f;
    for (u32 p = q0 + tid; p < q1; p += NT * 4) {
      u32 c[4]; float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) c[j] = p + j * NT < q1 ? __ldcs(ci + p + j * NT) : 0u;
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = p + j * NT < q1 ? x[c[j]] : 0.f;
      acc += (v[0] + v[1]) + (v[2] + v[3]);
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((tid & 31) == 0) s[tid >> 5] = acc;
    __syncthreads();
    if (tid == 0) { float t = 0.f; for (int w = 0; w < NT / 32; ++w) t += s[w]; y[r0] = t; }
    return;
  }
  {
    u32 c[E];
#pragma unroll
    for (int j = 0; j < E; ++j) { const u32 p = q0 + tid + j * NT; c[j] = p < q1 ? __ldcs(ci + p) : 0u; }
#pragma unroll
    for (int j = 0; j < E; ++j) { const u32 p = q0 + tid + j * NT; if (p < q1) s[tid + j * NT] = x[c[j]]; }
  }
  __syncthreads();
  const u32 nr = r1 - r0;
  // lanes a row: the largest power of two with nr * G <= NT, at most 32
  int G = 1;
  while (G < 32 && nr * (G * 2) <= NT) G *= 2;
  const int g = tid / G, l = tid % G;
  {
    // nr <= NT: one row a group
    const u32 r = r0 + g;
    const bool ok = r < r1;
    const u32 a = ok ? rp[r] - q0 : 0, e = ok ? rp[r + 1] - q0 : 0;
    float acc = 0.f;
    for (u32 p = a + l; p < e; p += G) acc += s[p];
    for (int o = G / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o, G);
    if (ok && l == 0) y[r] = acc;
  }
}

// Rows by the merge path's diagonals: block b owns rows [br[b], br[b+1])
// (those whose end item lies in its D items); their entries are staged in
// shared memory when they fit (D of them), else every warp strides its rows.
template<int NT, int D>
__global__ void admp(const u32* __restrict__ rp, const u32* __restrict__ ci, const float* __restrict__ x,
                     float* __restrict__ y, const u32* __restrict__ br) {
  __shared__ float s[D];
  const int b = blockIdx.x, tid = threadIdx.x;
  const u32 r0 = br[b], r1 = br[b + 1];
  if (r0 == r1) return;
  const u32 q0 = rp[r0], q1 = rp[r1];
  const u32 nr = r1 - r0;
  if (q1 - q0 > D) {
    const int w = tid >> 5, l = tid & 31;
    for (u32 r = r0 + w; r < r1; r += NT / 32) {
      const u32 a = rp[r], e = rp[r + 1];
      float acc = 0.f;
      for (u32 p = a + l; p < e; p += 128) {
        u32 c[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) c[j] = p + 32 * j < e ? __ldcs(ci + p + 32 * j) : 0u;
#pragma unroll
        for (int j = 0; j < 4; ++j) if (p + 32 * j < e) acc += x[c[j]];
      }
      for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
      if (l == 0) y[r] = acc;
    }
    return;
  }
  {
    constexpr int E = (D + NT - 1) / NT;
    u32 c[E];
#pragma unroll
    for (int j = 0; j < E; ++j) { const u32 p = q0 + tid + j * NT; c[j] = p < q1 ? __ldcs(ci + p) : 0u; }
#pragma unroll
    for (int j = 0; j < E; ++j) { const u32 p = q0 + tid + j * NT; if (p < q1) s[tid + j * NT] = x[c[j]]; }
  }
  __syncthreads();
  int G = 1;
  while (G < 32 && nr * (G * 2) <= NT) G *= 2;
  const int g = tid / G, l = tid % G;
  for (u32 base = r0; base < r1; base += NT / G) {
    const u32 r = base + g;
    const bool ok = r < r1;
    const u32 a = ok ? rp[r] - q0 : 0, e = ok ? rp[r + 1] - q0 : 0;
    float acc = 0.f;
    for (u32 p = a + l; p < e; p += G) acc += s[p];
    for (int o = G / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o, G);
    if (ok && l == 0) y[r] = acc;
  }
}

// adaptive, rows longer than LIM within a staged block summed by whole warps
// in a second phase (rows of very different lengths in one block)
template<int NT, int E, int LIM>
__global__ void adtwo(const u32* __restrict__ rp, const u32* __restrict__ ci, const float* __restrict__ x,
                      float* __restrict__ y, const u32* __restrict__ br) {
  __shared__ float s[NT * E];
  const int b = blockIdx.x, tid = threadIdx.x;
  const u32 r0 = br[b], r1 = br[b + 1];
  const u32 q0 = rp[r0], q1 = rp[r1];
  if (r1 - r0 == 1 && q1 - q0 > NT * E) {
    float acc = 0.f;
    for (u32 p = q0 + tid; p < q1; p += NT * 4) {
      u32 c[4]; float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) c[j] = p + j * NT < q1 ? __ldcs(ci + p + j * NT) : 0u;
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = p + j * NT < q1 ? x[c[j]] : 0.f;
      acc += (v[0] + v[1]) + (v[2] + v[3]);
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((tid & 31) == 0) s[tid >> 5] = acc;
    __syncthreads();
    if (tid == 0) { float t = 0.f; for (int w = 0; w < NT / 32; ++w) t += s[w]; y[r0] = t; }
    return;
  }
  {
    u32 c[E];
#pragma unroll
    for (int j = 0; j < E; ++j) { const u32 p = q0 + tid + j * NT; c[j] = p < q1 ? __ldcs(ci + p) : 0u; }
#pragma unroll
    for (int j = 0; j < E; ++j) { const u32 p = q0 + tid + j * NT; if (p < q1) s[tid + j * NT] = x[c[j]]; }
  }
  __syncthreads();
  const u32 nr = r1 - r0;
  int G = 1;
  while (G < 32 && nr * (G * 2) <= NT) G *= 2;
  const int g = tid / G, l = tid % G;
  {
    const u32 r = r0 + g;
    const bool ok = r < r1;
    const u32 a = ok ? rp[r] - q0 : 0, e = ok ? rp[r + 1] - q0 : 0;
    const bool lng = G < 32 && e - a > (u32)(LIM * G);
    float acc = 0.f;
    if (!lng) for (u32 p = a + l; p < e; p += G) acc += s[p];
    for (int o = G / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o, G);
    if (ok && !lng && l == 0) y[r] = acc;
  }
  if (G == 32) return;
  // phase 2: the long rows, a warp each
  const int w = tid >> 5, lane = tid & 31;
  u32 k = 0;  // long rows seen so far (the same count in every warp)
  for (u32 c0 = r0; c0 < r1; c0 += 32) {
    const u32 r = c0 + lane;
    const bool lng = G < 32 && r < r1 && rp[r + 1] - rp[r] > (u32)(LIM * G);
    u32 m = __ballot_sync(0xffffffffu, lng);
    while (m) {
      const int src = __ffs(m) - 1;
      m &= m - 1;
      if ((int)(k % (NT / 32)) == w) {
        const u32 rr = c0 + src;
        const u32 a = rp[rr] - q0, e = rp[rr + 1] - q0;
        float acc = 0.f;
        for (u32 p = a + lane; p < e; p += 32) acc += s[p];
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (lane == 0) y[rr] = acc;
      }
      ++k;
    }
  }
}
'''

def time_loop(fn, reps=200, batches=5):
    s = STREAM
    with s:
        fn()
        s.synchronize()
        ts = []
        for _ in range(batches):
            e0 = cp.cuda.Event(); e1 = cp.cuda.Event()
            e0.record(s)
            for _ in range(reps): fn()
            e1.record(s); e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1) / reps)
    return float(np.median(ts))

def time_graph(fn, reps=50, batches=7):
    return shared_time_graph(fn, STREAM, reps, batches)

VS = (2, 4, 8, 16, 32)
ADS = ((64, 2), (64, 4), (64, 8), (128, 2), (128, 4), (256, 2), (256, 4))
MPS = ((64, 256), (64, 512), (128, 256), (128, 512), (128, 1024), (256, 512), (256, 1024))
STREAM = None
TWO = ((128, 2, 8), (128, 4, 8), (128, 4, 16), (256, 2, 8), (256, 4, 8), (64, 4, 8))

def main():
    global STREAM
    STREAM = cp.cuda.Stream(non_blocking=True)
    d = sys.argv[1]
    mod = cp.RawModule(code=SRC, options=('-std=c++17',), name_expressions=[
        f'vec<{v},{u}>' for v in VS for u in (4,)] + [
        f'adaptive<{nt},{e}>' for nt, e in ADS] + [f'admp<{nt},{dd}>' for nt, dd in MPS] + [f'adtwo<{nt},{e},{lim}>' for nt, e, lim in TWO])
    from cupy_backends.cuda.libs import cusparse as cs
    graphs = bench_graphs(d)
    rows = []
    for name, f in graphs:
        a = f()
        n = a.shape[0]; nnz = a.nnz
        deg = np.diff(a.indptr)
        rp = cp.asarray(a.indptr.astype(np.uint32)); ci = cp.asarray(a.indices.astype(np.uint32))
        vals = cp.asarray(a.data.astype(np.float32))
        xh = np.random.default_rng(1).random(n).astype(np.float32)
        x = cp.asarray(xh); y = cp.full(n, np.nan, np.float32)
        ref = a.astype(np.float64) @ xh.astype(np.float64)
        CALLS = {}
        res = {'graph': name, 'n': n, 'nnz': nnz, 'avg': nnz / n, 'max': int(deg.max()),
               'p99': float(np.percentile(deg, 99))}
        # cuSPARSE
        try:
            h = cp.cuda.device.get_cusparse_handle()
            cs.setStream(h, STREAM.ptr)
            mat = cs.createCsr(n, n, nnz, rp.data.ptr, ci.data.ptr, vals.data.ptr, 2, 2, 0, 0)
            xv = cs.createDnVec(n, x.data.ptr, 0); yv = cs.createDnVec(n, y.data.ptr, 0)
            one = np.array([1.0], np.float32); zero = np.array([0.0], np.float32)
            for alg, an in ((0, 'default'), (3, 'alg2')):
                bs = cs.spMV_bufferSize(h, 0, one.ctypes.data, mat, xv, zero.ctypes.data, yv, 0, alg)
                buf = cp.empty(max(bs, 1), np.uint8)
                def call(alg=alg, buf=buf):
                    cs.spMV(h, 0, one.ctypes.data, mat, xv, zero.ctypes.data, yv, 0, alg, buf.data.ptr)
                cp.cuda.runtime.deviceSynchronize()
                res['cusparse_' + an] = time_loop(call)
                if False:
                    # not capturable: plain loop
                    call(); cp.cuda.runtime.deviceSynchronize()
                    e0 = cp.cuda.Event(); e1 = cp.cuda.Event(); e0.record()
                    for _ in range(200): call()
                    e1.record(); e1.synchronize()
                    res['cusparse_' + an] = cp.cuda.get_elapsed_time(e0, e1) / 200
                    res['cusparse_note'] = 'loop: ' + str(e)[:80]
                err = float(np.abs(cp.asnumpy(y) - ref).max() / max(1, np.abs(ref).max()))
                res['cusparse_' + an + '_err'] = err
        except Exception as e:
            res['cusparse_error'] = str(e)[:200]
        for v in VS:
            for u in (4,):
                k = mod.get_function(f'vec<{v},{u}>')
                nt = 256
                grid_ = ((n * v + nt - 1) // nt,)
                call = lambda k=k, grid_=grid_: k(grid_, (nt,), (rp, ci, x, y, np.int32(n)))
                y.fill(np.nan)
                call(); cp.cuda.runtime.deviceSynchronize()
                err = float(np.nanmax(np.abs(cp.asnumpy(y) - ref)) / max(1, np.abs(ref).max()))
                if np.isnan(cp.asnumpy(y)).any(): err = 'nan'
                CALLS[f'vec{v}x{u}'] = call; res[f'vec{v}x{u}'] = time_graph(call); res[f'vec{v}x{u}_err'] = err
        for ntb, e in ADS:
            if nnz < 20_000_000 or (ntb, e) in ((128, 2), (256, 2), (128, 4)):
                cap = ntb * e
                # row blocks: greedy, at most cap entries, a row longer than cap alone
                br = [0]; acc = 0
                ip = a.indptr
                # vectorised greedy is awkward; plain loop (n <= 1M here)
                starts = []
                r = 0
                while r < n:
                    q0 = ip[r]
                    # last row end with ip[end] - q0 <= cap, at least one row
                    end = int(np.searchsorted(ip, q0 + cap, side='right') - 1)
                    end = max(end, r + 1)
                    # at most NT rows per block (a lane a row at least)
                    end = min(end, r + ntb)
                    br.append(end); r = end
                brd = cp.asarray(np.array(br, np.uint32)); nb = len(br) - 1
                k = mod.get_function(f'adaptive<{ntb},{e}>')
                call = lambda k=k, brd=brd, nb=nb, ntb=ntb: k((nb,), (ntb,), (rp, ci, x, y, brd, np.int32(nb), y))
                y.fill(np.nan)
                call(); cp.cuda.runtime.deviceSynchronize()
                yh = cp.asnumpy(y)
                err = float(np.nanmax(np.abs(yh - ref)) / max(1, np.abs(ref).max())) if not np.isnan(yh).any() else 'nan'
                CALLS[f'ad{ntb}x{e}'] = call; res[f'ad{ntb}x{e}'] = time_graph(call); res[f'ad{ntb}x{e}_err'] = err
                res[f'ad{ntb}x{e}_blocks'] = nb
        def greedy(ntb, cap):
            ip = a.indptr; br = [0]; r = 0
            while r < n:
                end = int(np.searchsorted(ip, ip[r] + cap, side='right') - 1)
                end = min(max(end, r + 1), r + ntb, n)
                br.append(end); r = end
            return cp.asarray(np.array(br, np.uint32)), len(br) - 1
        for ntb, e, lim in TWO:
            brd, nb = greedy(ntb, ntb * e)
            k = mod.get_function(f'adtwo<{ntb},{e},{lim}>')
            call = lambda k=k, brd=brd, nb=nb, ntb=ntb: k((nb,), (ntb,), (rp, ci, x, y, brd))
            y.fill(np.nan)
            call(); cp.cuda.runtime.deviceSynchronize()
            yh = cp.asnumpy(y)
            err = float(np.nanmax(np.abs(yh - ref)) / max(1, np.abs(ref).max())) if not np.isnan(yh).any() else 'nan'
            kk = f'two{ntb}x{e}l{lim}'
            CALLS[kk] = call; res[kk] = time_graph(call); res[kk + '_err'] = err
        ip64 = a.indptr.astype(np.int64)
        key = ip64[1:] + np.arange(1, n + 1)
        for ntb, dd in MPS:
            nchunks = (n + nnz + dd - 1) // dd
            diag = np.minimum(np.arange(nchunks + 1, dtype=np.int64) * dd, n + nnz)
            br = np.searchsorted(key, diag, side='right').astype(np.uint32)
            br[-1] = n
            brd = cp.asarray(br)
            k = mod.get_function(f'admp<{ntb},{dd}>')
            call = lambda k=k, brd=brd, nb=nchunks, ntb=ntb: k((nb,), (ntb,), (rp, ci, x, y, brd))
            y.fill(np.nan)
            call(); cp.cuda.runtime.deviceSynchronize()
            yh = cp.asnumpy(y)
            err = float(np.nanmax(np.abs(yh - ref)) / max(1, np.abs(ref).max())) if not np.isnan(yh).any() else 'nan'
            CALLS[f'mp{ntb}x{dd}'] = call; res[f'mp{ntb}x{dd}'] = time_graph(call); res[f'mp{ntb}x{dd}_err'] = err
        ours = [k for k in res if (k.startswith('vec') or k.startswith('ad') or k.startswith('mp') or k.startswith('two')) and isinstance(res[k], float) and not k.endswith('_err')]
        best = min(ours, key=lambda k: res[k])
        res['best'] = best
        res['best_loop'] = time_loop(CALLS[best])
        for kk in ('two128x4l8', 'ad128x2', 'two256x2l8'): res[kk + '_loop'] = time_loop(CALLS[kk])
        rows.append(res)
        keys = [k for k in res if not k.endswith('_err') and not k.endswith('_blocks') and k not in ('graph', 'n', 'nnz', 'avg', 'max', 'p99', 'best')]
        print(f"{name}: n {n} nnz {nnz} avg {nnz/n:.1f} max {res['max']} p99 {res['p99']:.0f} | cuSP {res.get('cusparse_default', -1):.4f} alg2 {res.get('cusparse_alg2', -1):.4f} | best {best} {res[best]:.4f} loop {res['best_loop']:.4f} ({res.get('cusparse_default', 0)/res['best_loop']:.2f}x)", flush=True)
        print('   ' + ' '.join(f"{k}={res[k]:.4f}" for k in keys if isinstance(res[k], float)), flush=True)
        errs = {k: res[k] for k in res if k.endswith('_err') and (res[k] == 'nan' or res[k] > 1e-5)}
        if errs: print('   ERR', errs)
        if 'cusparse_note' in res or 'cusparse_error' in res: print('   ', res.get('cusparse_note'), res.get('cusparse_error'))
    with open(os.path.join(os.environ.get('OUT', '.'), 'spmv.json'), 'w') as fh: json.dump(rows, fh)

if __name__ == "__main__":
    main()
