"""What the steps of a recorded forward pass cost on the GPU, standalone
(docs/gpu-gnn-forward-profile.md, "What is left"): a CUDA graph of 1, 3 and 6
dependent small kernels (each reads 8 scattered values of N and writes one:
Cora-size work at the default N = 2,708 x 8), replayed one graph launch at a
time between CUDA events as the library's `gnn --reps` times its forward pass
(medians of 280):
- plain launches;
- a stream-ordered allocation before each kernel and the intermediates freed
  at the end, as a recorded pass allocates its outputs (graph memory nodes,
  instantiated to free on the next launch);
- programmatic dependent launch (PDL: each kernel after the first may start
  while the one before ends; `griddepcontrol.wait` first in the kernel), and
  the same with `griddepcontrol.launch_dependents` at once.
On the GPU machine (CuPy for the compile, the driver through ctypes):
    python3 scripts/gpu-graph-steps-check.py [N]
"""
import ctypes, json, sys
import cupy as cp
import numpy as np

cuda = ctypes.CDLL('libcuda.so.1')
src = r'''
extern "C" __global__ void step(const float* __restrict__ a, float* __restrict__ b, int n, int trig) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (trig) asm volatile("griddepcontrol.launch_dependents;");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0.f;
  if (i < n) { for (int k = 0; k < 8; ++k) x += a[(i * 37 + k * 101) % n]; b[i] = x * 0.125f + 1.0f; }
}
'''
mod = cp.RawModule(code=src)
fn = mod.get_function('step')
fptr = ctypes.c_void_p(fn.kernel.ptr)

class Attr(ctypes.Structure):
    _fields_ = [('id', ctypes.c_uint), ('pad', ctypes.c_char * 4), ('val', ctypes.c_ubyte * 64)]

class Cfg(ctypes.Structure):
    _fields_ = [('gx', ctypes.c_uint), ('gy', ctypes.c_uint), ('gz', ctypes.c_uint),
                ('bx', ctypes.c_uint), ('by', ctypes.c_uint), ('bz', ctypes.c_uint),
                ('smem', ctypes.c_uint), ('stream', ctypes.c_void_p),
                ('attrs', ctypes.POINTER(Attr)), ('nattrs', ctypes.c_uint)]

def check(r, what):
    if r != 0:
        raise RuntimeError(f'{what}: CUresult {r}')

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2708 * 8
stream = ctypes.c_void_p()
check(cuda.cuStreamCreate(ctypes.byref(stream), 1), 'stream')
base = cp.cuda.runtime.malloc(4 * n * 8)

def launch(a, b, pdl, trig):
    pa, pb = ctypes.c_uint64(a), ctypes.c_uint64(b)
    pn, pt = ctypes.c_int(n), ctypes.c_int(trig)
    params = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.byref(x), ctypes.c_void_p) for x in (pa, pb, pn, pt)])
    attr = Attr()
    attr.id = 6  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attr.val[0] = 1
    cfg = Cfg((n + 255) // 256, 1, 1, 256, 1, 1, 0, stream, ctypes.pointer(attr) if pdl else None, 1 if pdl else 0)
    check(cuda.cuLaunchKernelEx(ctypes.byref(cfg), fptr, params, None), 'launch')

def alloc_async(size):
    p = ctypes.c_uint64()
    check(cuda.cuMemAllocAsync(ctypes.byref(p), ctypes.c_size_t(size), stream), 'alloc')
    return p.value

def forward(kind, nk):
    pdl = kind.startswith('pdl')
    trig = kind == 'pdl-trigger'
    if kind == 'allocs':
        bufs = [base]
        for k in range(nk):
            b = alloc_async(4 * n)
            launch(bufs[-1], b, False, 0)
            bufs.append(b)
        for b in bufs[1:-1]:
            check(cuda.cuMemFreeAsync(ctypes.c_uint64(b), stream), 'free')
    else:
        for k in range(nk):
            launch(base + 4 * n * k, base + 4 * n * (k + 1), pdl and k > 0, trig)

def timed(kind, nk, reps=300):
    check(cuda.cuStreamBeginCapture_v2(stream, 0), 'begin')
    forward(kind, nk)
    graph = ctypes.c_void_p()
    check(cuda.cuStreamEndCapture(stream, ctypes.byref(graph)), 'end')
    exe = ctypes.c_void_p()
    check(cuda.cuGraphInstantiateWithFlags(ctypes.byref(exe), graph, ctypes.c_ulonglong(1)), 'instantiate')
    e0, e1 = ctypes.c_void_p(), ctypes.c_void_p()
    cuda.cuEventCreate(ctypes.byref(e0), 0); cuda.cuEventCreate(ctypes.byref(e1), 0)
    ts = []
    for r in range(reps):
        cuda.cuEventRecord(e0, stream)
        check(cuda.cuGraphLaunch(exe, stream), 'graph launch')
        cuda.cuEventRecord(e1, stream)
        check(cuda.cuEventSynchronize(e1), 'sync')
        ms = ctypes.c_float()
        cuda.cuEventElapsedTime(ctypes.byref(ms), e0, e1)
        if r >= 20:
            ts.append(ms.value * 1e3)
    return float(np.median(ts))

res = {'n': n}
for nk in (1, 3, 6):
    for kind in ('plain', 'allocs', 'pdl', 'pdl-trigger'):
        res[f'{kind}-{nk}'] = round(timed(kind, nk), 2)
print(json.dumps(res))
