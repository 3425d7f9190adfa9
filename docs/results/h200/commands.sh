#!/usr/bin/env bash
# One H200 (session 32): the products' final residues by an unsigned remainder (bf05a3b): every sgemm
# GPU test; memcheck on the guard tests; ceilings (the INT8 rate); ncu kernel times at 4096^3 and
# 8192^3; the library ÷ cuBLAS FP32 (two rounds, with rung 16) and the forms at 4096^3 and 8192^3.
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
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm GPU tests; memcheck on the guard tests; ceilings; ncu kernel times 4096^3, 8192^3; bench library two rounds, forms"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 300 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -1 $R/san_memcheck.txt
  timeout 60 $G ceilings --json $R/ceilings.json 2>&1 | grep -iE "int8|tf32|fma|copy|read"
  for s in 4096 8192; do
    echo "-- ncu $s^3"
    timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $G run sgemm -s $s --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
  done
  for round in 1 2; do
    timeout 150 $G bench sgemm -s 4096,4097,8192,16384 --variants ozaki2_wgmma,library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/library$round.md --json $R/library$round.json > $R/library$round.txt 2>&1; echo "exit code: $?"
    summ $R/library$round.json
  done
  timeout 150 $G bench sgemm -s 4096,8192 --forms NT,TN,TT --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/bench_forms.md --json $R/bench_forms.json > $R/bench_forms.txt 2>&1; echo "exit code: $?"
  summ $R/bench_forms.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
