#!/usr/bin/env bash
# One H200 (session 31): the Ozaki column residues in 128-deep tiles (a column's 128 bytes a warp), with fp32_tensor's guarded scheme in every form, its passes
# with their loads in flight, from 2^36 multiply-adds: sgemm GPU tests; memcheck, initcheck, racecheck
# on the guard's and the forms' Ozaki tests; ncu kernel times at 4096^3 and 8192^3; the library's rows
# (reps 5), the forms at 4096^3 and 8192^3, and 8192^3 at exponent spreads of 20 and 60.
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
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm GPU tests; memcheck, initcheck, racecheck on the Ozaki guard and forms tests; ncu kernel times 4096^3 and 8192^3; bench library rows, forms, exponents 20 and 60"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 300 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck initcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*:SgemmForms.TheGuardedOzaki*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  for s in 8192 4096; do
    echo "-- ncu $s^3"
    timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $G run sgemm -s $s --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
  done
  timeout 200 $G bench sgemm -s 4096,4097,6144,8192,16384 --variants wgmma_3xtf32,ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/library.md --json $R/library.json > $R/library.txt 2>&1; echo "exit code: $?"
  summ $R/library.json
  timeout 150 $G bench sgemm -s 4096,8192 --forms NT,TN,TT --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/bench_forms.md --json $R/bench_forms.json > $R/bench_forms.txt 2>&1; echo "exit code: $?"
  summ $R/bench_forms.json
  for e in 20 60; do
    timeout 100 $G bench sgemm --shapes 8192 --exponents $e --variants wgmma_3xtf32,ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,vendor --no-cpu --no-ceilings --reps 5 --json $R/exponents$e.json 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm"
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
