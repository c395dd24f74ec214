# Counts the buckets and light passes of the device's delta-stepping loop
# (cuda/sssp.cu, src/backend/cuda/sssp.rs) on a Matrix Market graph, from vertex 0,
# with weights 1..=100 drawn by SplitMix64(0) over the CSR entries (as bench_gpu draws
# them) and delta the mean weight. Each light pass is one launch; the host reads the
# counters after a batch of passes, as many as it launched for the bucket before (at
# most 8): the script counts those reads and the passes launched (the batch's passes
# after the queue ran empty find nothing to do).
#   python3 scripts/delta-stepping-passes.py GRAPH.mtx[.gz]
import gzip, sys, numpy as np
from splitmix import integer_weights  # scripts/splitmix.py
def load(path):
    rows=[]; cols=[]; sym=False
    with gzip.open(path,'rt') if path.endswith('.gz') else open(path) as f:
        h=f.readline(); sym='symmetric' in h
        for line in f:
            if line.startswith('%'): continue
            n,m,nnz=map(int,line.split()); break
        for line in f:
            p=line.split(); i=int(p[0])-1; j=int(p[1])-1
            rows.append(i); cols.append(j)
            if sym and i!=j: rows.append(j); cols.append(i)
    r=np.array(rows); c=np.array(cols)
    key=r*n+c; key=np.unique(key); r=key//n; c=key%n
    return n, r, c
n, r, c = load(sys.argv[1])
m=len(r)
w = integer_weights(m)
rowptr=np.zeros(n+1,dtype=np.int64); np.add.at(rowptr, r+1, 1); rowptr=np.cumsum(rowptr)
delta = w.mean()
light = w <= delta
dist = np.full(n, np.inf); dist[0]=0.0
lo=0.0; buckets=0; passes=0; relaxed=0
batch=1; reads=0; launched=0
while True:
    hi = lo + delta
    q = np.nonzero((dist>=lo)&(dist<hi))[0]
    buckets+=1
    took=0
    while True:
        took+=1
        passes+=1
        nxt=set()
        for v in q:
            d=dist[v]
            for p in range(rowptr[v],rowptr[v+1]):
                if not light[p]: continue
                relaxed+=1
                u=c[p]; nd=d+w[p]
                if nd<dist[u]:
                    dist[u]=nd
                    if nd<hi: nxt.add(u)
        if not nxt: break
        q=np.fromiter(nxt,dtype=np.int64)
    batches=-(-took//batch); reads+=batches; launched+=batches*batch
    # src/backend/cuda/sssp.rs sizes the next batch by the passes it launched
    # in this bucket (it cannot tell which pass of a batch found the queue empty)
    batch=min(batches*batch,8)
    inb=np.nonzero((dist>=lo)&(dist<hi))[0]
    for v in inb:
        d=dist[v]
        for p in range(rowptr[v],rowptr[v+1]):
            if light[p]: continue
            u=c[p]; nd=d+w[p]
            if nd<dist[u]: dist[u]=nd
    rest=dist[(dist>=hi)&np.isfinite(dist)]
    if len(rest)==0: break
    lo=rest.min()
print(f"n {n} m {m} delta {delta:.2f} buckets {buckets} light passes {passes} light relaxations {relaxed} reads {reads} passes launched {launched} max dist {dist[np.isfinite(dist)].max()}")
