#!/usr/bin/env bash
# One H200: C written a row at a time from the staged tile, and the tensor rule (k >= 256, MACs >=
# 900·2^20): every sgemm GPU test, memcheck and racecheck on the small wgmma cases, the sweep of the
# rule's shapes, and every form at 4096^3 and 8192^3.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm tests, sanitizers, sweep, bench every form 4096/8192"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 200 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='*small_wgmma*plain*:*small_wgmma*300x301*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  S=768,896,1000,1024,2048,4097,512x512x4096,4096x4096x64,4096x4096x128,4096x4096x256,5000x3000x700,8192x256x1024,2^16x256x256,300x300x20000
  timeout 200 $G bench sgemm -s $S --variants library,wgmma_3xtf32,library_3xtf32,wgmma_tf32_wide,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/sweep.md --json $R/sweep.json > $R/sweep.txt 2>&1; echo "exit code: $?"
  python3 - $R/sweep.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    print(c.get('params'), {k:round(x,4) for k,x in t.items()})
PY
  timeout 200 $G bench sgemm -s 4096,8192 --forms NN,NT,TN,TT --variants wgmma_3xtf32,library_3xtf32,wgmma_tf32,wgmma_tf32_wide,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench_forms.md --json $R/bench_forms.json > $R/bench_forms.txt 2>&1; echo "exit code: $?"
  grep -E "^#|^\| *[0-9]+ \|" $R/bench_forms.md | cut -c1-90
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
