#!/usr/bin/env bash
# H200: the sgemm forms — their GPU tests, the bench against cuBLAS's same call, the Python tests of sgemm.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests (SgemmForms.*:SgemmLibrary.*:*SgemmLadder*staged*:*SgemmLadder*library*), bench sgemm --forms, pytest -k sgemm"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) GPU tests"
  timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmForms.*:SgemmLibrary.*:*SgemmLadder*staged*:*SgemmLadder*library*' --gtest_output=json:$R/gpu_tests.json --gtest_brief=1 2>&1 | tail -40; echo "gpu tests exit code: ${PIPESTATUS[0]}"
  echo "== $(date -u +%T) bench sgemm --forms"
  timeout 200 $G bench sgemm --shapes 4096,8192 --forms NN,NT,TN,TT --variants library,library_3xtf32,library_tf32,cublas_tf32,vendor --no-cpu --reps 10 --json $R/sgemm_forms.json --md $R/sgemm_forms.md > $R/sgemm_forms.txt 2>&1; echo "bench exit code: $?"
  cat $R/sgemm_forms.txt | cut -c1-150 | head -80
  echo "== $(date -u +%T) python"
  pyroot=/tmp/gpulab_python; rm -rf $pyroot && python3 -m pip install -q --no-build-isolation --no-deps --target $pyroot -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$B/prefix" . > $R/python_build.txt 2>&1; echo "python build exit code: $?"; tail -20 $R/python_build.txt
  export PYTHONPATH=$pyroot XLA_PYTHON_CLIENT_PREALLOCATE=false
  timeout 150 python3 -m pytest -q -rs -p no:cacheprovider python/tests -k "sgemm or gradient or cupy" 2>&1 | tail -15; echo "python tests exit code: ${PIPESTATUS[0]}"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
