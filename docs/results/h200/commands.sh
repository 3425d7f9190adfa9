#!/usr/bin/env bash
# H200: sgemm forms and batches — GPU tests, the forms bench, the batched bench, python.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests (*Sgemm*), bench sgemm --forms, bench sgemm --batch 64, python"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) GPU tests"
  timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_output=json:$R/gpu_tests.json --gtest_brief=1 2>&1 | grep -v "vectorized: 16-byte\|Skipped$" | tail -30; echo "gpu tests exit code: ${PIPESTATUS[0]}"
  echo "== $(date -u +%T) bench sgemm --forms"
  timeout 150 $G bench sgemm --shapes 4096,8192 --forms NN,NT,TN,TT --variants fragments,staged,library,library_3xtf32,library_tf32,cublas_tf32,vendor --no-cpu --reps 10 --json $R/sgemm_forms.json --md $R/sgemm_forms.md > $R/sgemm_forms.txt 2>&1; echo "bench exit code: $?"
  awk '/^sgemm/{s=$2" "$3} /^ +([0-9]+|vendor) /{print s, $2, $3, $10, $NF}' $R/sgemm_forms.txt | sed 's/(8.053e+08//;s/(2.013e+08//'
  echo "== $(date -u +%T) bench sgemm --batch 64"
  timeout 120 $G bench sgemm --shapes 512,256,1000x1000x64 --batch 64 --forms NN,NT --variants library,library_3xtf32,library_tf32,cublas_tf32,vendor --reps 20 --json $R/sgemm_batched.json --md $R/sgemm_batched.md > $R/sgemm_batched.txt 2>&1; echo "bench exit code: $?"
  awk '/^sgemm/{s=$2" "$3" "$4} /^ +([0-9]+|vendor) /{print s, $2, $3, $10, $NF}' $R/sgemm_batched.txt
  echo "== $(date -u +%T) python"
  pyroot=/tmp/gpulab_python; rm -rf $pyroot && python3 -m pip install -q --no-build-isolation --no-deps --target $pyroot -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$B/prefix" . > $R/python_build.txt 2>&1; echo "python build exit code: $?"; grep -i "error" $R/python_build.txt | head
  export PYTHONPATH=$pyroot XLA_PYTHON_CLIENT_PREALLOCATE=false
  timeout 170 python3 -m pytest -q -rs -p no:cacheprovider python/tests --junitxml=$R/python_tests.xml 2>&1 | tail -8; echo "python tests exit code: ${PIPESTATUS[0]}"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
