#!/usr/bin/env bash
# One H200 (session 33), the session's last build (d584a9f's code): every sgemm GPU test; memcheck
# and racecheck on the forms' and batches' small tests and on staged N,T's whole tiles; the FP32
# forms NN, NT, TT at 4096³ and 8192³, two rounds; the batches 64 × 512³, 256³, 1000×1000×64, NN
# and NT, against cuBLAS's same call.
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
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm GPU tests; memcheck, racecheck on the forms' and batches' small tests and on staged NT; bench FP32 forms NN, NT, TT at 4096^3 and 8192^3, two rounds; batches 64 x 512^3, 256^3, 1000x1000x64 NN, NT"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 200 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmForms.small_*:SgemmBatched.small_*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $G run sgemm -s 512x512x1024 --forms NT --variant staged --reps 1 > $R/san_racecheck_deep.txt 2>&1; echo "racecheck (staged NT 512x512x1024, whole tiles) exit code: $?"; tail -1 $R/san_racecheck_deep.txt
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $G run sgemm -s 515x517x1030 --forms NT --variant staged --reps 1 > $R/san_memcheck_deep.txt 2>&1; echo "memcheck (staged NT 515x517x1030) exit code: $?"; tail -1 $R/san_memcheck_deep.txt
  for round in 1 2; do
    timeout 150 $G bench sgemm -s 4096,8192 --forms NN,NT,TT --variants library,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/forms$round.json > $R/forms$round.txt 2>&1; echo "exit code: $?"
    summ $R/forms$round.json
  done
  timeout 120 $G bench sgemm --shapes 512,256,1000x1000x64 --batch 64 --forms NN,NT --variants library,cublasSgemm --reps 20 --no-cpu --no-ceilings --json $R/batched.json > $R/batched.txt 2>&1; echo "exit code: $?"
  summ $R/batched.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
