#!/usr/bin/env bash
# One H200: the tensor rule per precision (9922761): the library's tensor-precision tests, and its
# choices across the sweep's shapes (the library rows against the FP32 library).
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm library tests, the rule's sweep"
  timeout 120 $T --gtest_filter='SgemmLibrary.*:SgemmForms.*:SgemmBatched.*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  S=768,896,1000,1024,512x512x4096,4096x4096x64,4096x4096x128,4096x4096x256,8192x256x1024,2^16x256x256,300x300x20000
  timeout 150 $G bench sgemm -s $S --variants library,library_3xtf32,library_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/sweep.md --json $R/sweep.json > $R/sweep.txt 2>&1; echo "exit code: $?"
  python3 - $R/sweep.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    print(c.get('params'), {k:round(x,4) for k,x in t.items()})
PY
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
