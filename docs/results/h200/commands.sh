#!/usr/bin/env bash
# One H200 (session 28): where cuBLAS TF32 beats the library's tf32 — every form, aligned and
# unaligned rows, batches, the sweep's shapes — to set the rule of the library's vendor path.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
summary() { python3 - "$1" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    print(c.get('params'), {k:round(x,4) for k,x in t.items()})
PY
}
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tf32 library against cuBLAS TF32: sweep NN, forms, unaligned rows, batches"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  V=library,wgmma_tf32_wide,library_tf32,cublas_tf32
  S=256,512,768,1000,1024,1031x1029x1027,2048,4096,4097,8192,512x512x4096,4096x4096x64,5000x3000x700,8192x256x1024,2^16x256x256,300x300x20000,16x4096x4096,4096x16x4096,1x4096x4096
  timeout 150 $G bench sgemm -s $S --variants $V --reps 20 --no-cpu --no-ceilings --json $R/sweep.json > $R/sweep.txt 2>&1; echo "sweep exit code: $?"; summary $R/sweep.json
  S=512,1024,2048,4096,4097,8192,5000x3000x700,8192x256x1024,1031x1029x1027
  timeout 150 $G bench sgemm -s $S --forms NT,TN,TT --variants $V --reps 20 --no-cpu --no-ceilings --json $R/forms.json > $R/forms.txt 2>&1; echo "forms exit code: $?"; summary $R/forms.json
  timeout 60 $G bench sgemm -s 1024,2048,4096,8192 --pad 1 --variants $V --reps 20 --no-cpu --no-ceilings --json $R/pad1.json > $R/pad1.txt 2>&1; echo "pad1 exit code: $?"; summary $R/pad1.json
  timeout 90 $G bench sgemm -s 512,256,1000x1000x64,128x128x128 --batch 64 --variants library_tf32,cublas_tf32,library --reps 20 --no-cpu --no-ceilings --json $R/batch.json > $R/batch.txt 2>&1; echo "batch exit code: $?"; summary $R/batch.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
