#!/usr/bin/env bash
# One H200 (session 32), the session's last build (5eb898f): every sgemm GPU test; memcheck and
# racecheck on the forms' and batches' small tests and the guard tests; fp32_tensor at 8192²×2048
# (the rule's new edge) against rung 13 and cuBLAS; the FP32 forms at 8192³.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
summ() {
python3 - $1 <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('cublasSgemm')
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, {k:round(r/x,3) for k,x in t.items() if r})
PY
}
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm GPU tests; memcheck, racecheck on the forms', batches' and guard tests; bench fp32_tensor 8192x8192x2048, FP32 forms 8192^3"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 300 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmForms.small_*:SgemmBatched.small_*:SgemmOzaki.Guard*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  timeout 100 $G bench sgemm -s 8192x8192x2048 --variants wgmma_3xtf32,library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/edge.json > $R/edge.txt 2>&1; echo "exit code: $?"
  summ $R/edge.json
  $G run sgemm -s 8192x8192x2048 --variant library_fp32_tensor --reps 1 2>&1 | grep -cE "ozaki" | sed 's/^/ozaki launches: /'
  timeout 150 $G bench sgemm -s 8192 --forms NN,NT,TT --variants library,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/forms.json > $R/forms.txt 2>&1; echo "exit code: $?"
  summ $R/forms.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
