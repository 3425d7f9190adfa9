#!/usr/bin/env bash
# One H200: where the tensor paths pay since the split got faster: the wgmma rungs (which run at any
# shape) against the FP32 library and cuBLAS across small cubes, shallow and narrow shapes, and the
# sgemm bench's own shapes.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: bench sgemm sweep for the tensor rule"
  S=256,384,512,640,768,896,1000,1024,1536,2048,4097,512x512x4096,1024x1024x8192,4096x4096x64,4096x4096x128,4096x4096x256,5000x3000x700,8192x256x1024,256x8192x1024,2^16x256x256,300x300x20000
  timeout 500 $G bench sgemm -s $S --variants library,wgmma_3xtf32,library_3xtf32,wgmma_tf32_wide,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/sweep.md --json $R/sweep.json > $R/sweep.txt 2>&1; echo "exit code: $?"
  python3 - $R/sweep.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    print(c.get('params'), {k:(round(x,4) if isinstance(x,(int,float)) else x) for k,x in t.items()})
PY
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
