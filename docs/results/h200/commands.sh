#!/usr/bin/env bash
# One H200: fp32_tensor's Ozaki path in every form (operands read in place): every sgemm GPU test,
# memcheck on the forms' Ozaki test, and every form at 4096^3 and 8192^3 against cuBLAS FP32.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm tests, memcheck on the forms' Ozaki test, bench every form 4096/8192"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 300 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -6; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 150 $G bench sgemm -s 4096,8192 --forms NN,NT,TN,TT --variants library_fp32_tensor,wgmma_3xtf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench_forms.md --json $R/bench_forms.json > $R/bench_forms.txt 2>&1; echo "exit code: $?"
  python3 - $R/bench_forms.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('cublasSgemm')
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, {k:round(r/x,3) for k,x in t.items() if r})
PY
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='SgemmForms.TheGuardedOzaki*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -2 $R/san_memcheck.txt
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
