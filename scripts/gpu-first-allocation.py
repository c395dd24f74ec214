"""How long a process's first device allocations take, by the driver alone (ctypes, no library).

On the GPU machine, each mode in a fresh process:
    python3 scripts/gpu-first-allocation.py async|sync|sync-then-async|pool|big

async: three 4 KB cuMemAllocAsync (the stream-ordered pool, what the library's
allocations use), a synchronisation, one more; sync: three cuMemAlloc;
sync-then-async: both, sync first; pool: the default pool's release threshold
raised first (as the library does); big: 4 KB, 1 MB and 64 MB async. Prints
one line: the driver's start-up (cuInit, primary context, a stream) and each
call's time (docs/gpu-cli-start-up.md).
"""
import ctypes
import sys
import time


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ('async', 'sync', 'sync-then-async', 'pool', 'big'):
        sys.exit(__doc__)
    mode = sys.argv[1]
    cu = ctypes.CDLL('libcuda.so.1')

    def ck(r, what):
        if r != 0:
            raise SystemExit(f'{what}: CUresult {r}')

    t0 = time.perf_counter()
    ck(cu.cuInit(0), 'cuInit')
    dev = ctypes.c_int()
    ck(cu.cuDeviceGet(ctypes.byref(dev), 0), 'cuDeviceGet')
    ctx = ctypes.c_void_p()
    ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), 'cuDevicePrimaryCtxRetain')
    ck(cu.cuCtxSetCurrent(ctx), 'cuCtxSetCurrent')
    stream = ctypes.c_void_p()
    ck(cu.cuStreamCreate(ctypes.byref(stream), 1), 'cuStreamCreate')
    out = [f'{mode}: init + context + stream {1e3 * (time.perf_counter() - t0):.1f} ms']
    p = ctypes.c_uint64()

    def timed(name, f):
        t = time.perf_counter()
        f()
        out.append(f'{name} {1e3 * (time.perf_counter() - t):.3f} ms')

    def alloc_async(n):
        ck(cu.cuMemAllocAsync(ctypes.byref(p), ctypes.c_size_t(n), stream), 'cuMemAllocAsync')

    if mode == 'pool':
        pool = ctypes.c_void_p()
        ck(cu.cuDeviceGetDefaultMemPool(ctypes.byref(pool), dev), 'cuDeviceGetDefaultMemPool')
        threshold = ctypes.c_uint64(2 ** 63)
        # CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4
        timed('release threshold', lambda: ck(cu.cuMemPoolSetAttribute(pool, 4, ctypes.byref(threshold)), 'attr'))
    if mode in ('sync', 'sync-then-async'):
        for i in range(3):
            timed(f'cuMemAlloc #{i}', lambda: ck(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(4096)), 'cuMemAlloc'))
    if mode in ('async', 'pool', 'sync-then-async'):
        for i in range(3):
            timed(f'cuMemAllocAsync #{i}', lambda: alloc_async(4096))
        timed('synchronise', lambda: ck(cu.cuStreamSynchronize(stream), 'cuStreamSynchronize'))
        timed('cuMemAllocAsync after it', lambda: alloc_async(4096))
    if mode == 'big':
        for n in (4096, 1 << 20, 64 << 20):
            timed(f'cuMemAllocAsync {n} B', lambda n=n: alloc_async(n))
    print('; '.join(out))


if __name__ == '__main__':
    main()
