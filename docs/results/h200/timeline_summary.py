# Summarises the per-tile timestamps of scan rung 7 written by the experiment build 8062460 (GPULAB_SCAN_TIMELINE): 8 uint64 a tile
# (start, ticket known, thread 0 scanned, all warps scanned, look-back done, second barrier, stored, look-back stats: spins<<32 | windows<<16 | nearest inclusive).
# Run: python3 timeline_summary.py timeline_*.bin (needs numpy)
import numpy as np,sys
for f in sys.argv[1:]:
    a=np.fromfile(f,dtype=np.uint64).reshape(-1,8).astype(np.int64)
    stats=a[:,7].copy(); t=a[:,:7]
    valid=(t[:,0]>0)&(t[:,6]>0)
    t=t[valid]; stats=stats[valid]
    looked=t[:,4]>0  # tile 0 looks back at nothing
    t0=t[:,0].min(); t=t-t0
    n=len(t)
    d=lambda i,j: (t[:,j]-t[:,i])/1000.0
    tot=t[:,6].max()/1000
    print(f"== {f}: {n} tiles, span {tot:.1f} us")
    for name,(i,j) in [('start->ticket',(0,1)),('ticket->own data scanned',(1,2)),('start->own scanned',(0,2)),('own->all warps',(2,3)),('all->lookback done',(3,4)),('lookback->barrier',(4,5)),('barrier->stored',(5,6)),('lifetime',(0,6))]:
        x=d(i,j); 
        if 4 in (i,j): x=x[looked]
        print(f"  {name:26s} mean {x.mean():6.2f} p10 {np.percentile(x,10):6.2f} p50 {np.median(x):6.2f} p90 {np.percentile(x,90):6.2f} p99 {np.percentile(x,99):6.2f}")
    win=(stats>>16)&0xFFFF; spins=stats>>32; start=stats&0xFFFF
    print("  windows: "+", ".join(f"{w}:{(win==w).sum()}" for w in np.unique(win)[:12]))
    print(f"  spins mean {spins.mean():.1f} p50 {np.median(spins)} p90 {np.percentile(spins,90)}  nearest inclusive (start idx) mean {start[start<1000].mean():.1f} p50 {np.median(start)} p90 {np.percentile(start,90)}")
    # concurrency: tiles alive at mid time
    mid=tot*1000/2
    alive=((t[:,0]<=mid)&(t[:,6]>=mid)).sum(); print(f"  tiles alive at mid-run {alive}")
