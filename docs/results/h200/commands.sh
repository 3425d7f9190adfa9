#!/usr/bin/env bash
# One H200 (session 28): the sgemm GPU tests again after the copies fix; every form at 4096^3 and
# 8192^3 in three rounds (8192^3's cuBLAS times moved 7% between variants in BF: the lower of the rounds).
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm tests, tf32 library and cuBLAS TF32 in every form at 4096^3 and 8192^3, three rounds"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 240 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  for round in 1 2 3; do
    timeout 100 $G bench sgemm -s 4096,8192 --forms NN,NT,TN,TT --variants library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --json $R/forms$round.json > $R/forms$round.txt 2>&1; echo "round $round exit code: $?"
  done
  python3 - $R/forms1.json $R/forms2.json $R/forms3.json <<'PY'
import json,sys
best={}
for f in sys.argv[1:]:
    for c in json.load(open(f))['cases']:
        key=(c['params']['shape'], c['params'].get('form','NN'))
        for v in c['variants']:
            if v.get('kernel'): best.setdefault(key,{}).setdefault(v['name'],[]).append(v['kernel']['median_ms'])
for key,t in best.items():
    lo={k:min(x) for k,x in t.items()}
    print(key, {k:[round(y,4) for y in x] for k,x in t.items()}, 'lower of rounds: library_tf32 / cublas_tf32 speed %.3f, / cublasSgemm %.2f' % (lo['cublas_tf32']/lo['library_tf32'], lo['cublasSgemm']/lo['library_tf32']))
PY
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
