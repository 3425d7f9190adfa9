#!/usr/bin/env bash
# One H200 (session 32): T,T as Cᵀ = B·A on the as-stored big tiles (8b014a9): the forms, batched and
# library sgemm GPU tests; memcheck and racecheck on the forms' small tests; FP32 library ÷ cuBLAS
# in NN, NT, TT at 4096^3 and 8192^3 (two rounds), and TT batched 64 x 512^3.
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
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm forms, batched and library GPU tests; memcheck, racecheck on the forms' small tests; bench FP32 NN, NT, TT two rounds; TT batched"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 240 $T --gtest_filter='SgemmForms*:SgemmBatched*:SgemmLibrary*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmForms.small_*:SgemmBatched.small_*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  for round in 1 2; do
    timeout 150 $G bench sgemm -s 4096,8192 --forms NN,NT,TT --variants library,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/forms$round.json > $R/forms$round.txt 2>&1; echo "exit code: $?"
    summ $R/forms$round.json
  done
  timeout 100 $G bench sgemm -s 512 --batch 64 --forms NN,TT --variants library,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/batch.json > $R/batch.txt 2>&1; echo "exit code: $?"
  summ $R/batch.json
  $G run sgemm -s 4096 --forms TT --variant library --reps 1 2>&1 | grep -iE "big_tiles|transposed" | head -3
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
