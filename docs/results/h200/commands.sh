#!/usr/bin/env bash
# One H200: the guard's test in its product's epilogue, the residue kernels a step ahead: sgemm GPU tests, ncu kernel times of one guarded call at 8192^3, the library's
# fp32_tensor against cuBLAS FP32 (reps 5) at 4096..16384 and in the forms at 8192^3.
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
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm tests, memcheck and initcheck on the guard tests, ncu kernel times of ozaki2_guarded at 8192^3, bench 4096..16384 and forms at 8192^3"
  timeout 300 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck initcheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*:SgemmForms.TheGuardedOzaki*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 15 --metrics gpu__time_duration.sum $G run sgemm -s 8192 --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100
  timeout 200 $G bench sgemm -s 4096,4097,6144,8192,16384 --variants ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,wgmma_3xtf32,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/library.md --json $R/library.json > $R/library.txt 2>&1; echo "exit code: $?"
  summ $R/library.json
  timeout 100 $G bench sgemm -s 8192 --forms NT,TN,TT --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/bench_forms.md --json $R/bench_forms.json > $R/bench_forms.txt 2>&1; echo "exit code: $?"
  summ $R/bench_forms.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
