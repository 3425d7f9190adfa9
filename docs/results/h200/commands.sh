#!/usr/bin/env bash
# H200: the closing sgemm checks — GPU tests of the forms, batches and arguments, gpulab sanitize sgemm (forms NN, NT, TN), the Python fuzz run.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests (SgemmForms.*:SgemmBatched.*:SgemmLibrary.*), sanitize sgemm, fuzz 20000"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) GPU tests"
  timeout 120 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmForms.*:SgemmBatched.*:SgemmLibrary.*' --gtest_output=json:$R/gpu_tests.json --gtest_brief=1 2>&1 | tail -5; echo "gpu tests exit code: ${PIPESTATUS[0]}"
  echo "== $(date -u +%T) gpulab sanitize sgemm"
  timeout 300 $G sanitize sgemm --md $R/sanitize_sgemm.md > $R/sanitize_sgemm.txt 2>&1; echo "sanitize exit code: $?"
  grep -E " pass, |FAIL|clean|report" $R/sanitize_sgemm.txt | head -20
  echo "== $(date -u +%T) python fuzz"
  pyroot=/tmp/gpulab_python; rm -rf $pyroot && python3 -m pip install -q --no-build-isolation --no-deps --target $pyroot -Ccmake.source-dir=python -Ccmake.define.CMAKE_PREFIX_PATH="$PWD/$B/prefix" . > $R/python_build.txt 2>&1; echo "python build exit code: $?"
  export PYTHONPATH=$pyroot XLA_PYTHON_CLIENT_PREALLOCATE=false
  timeout 150 python3 python/tests/fuzz.py --calls 20000 --seed 7 --json $R/fuzz.json 2>&1 | tail -15; echo "fuzz exit code: ${PIPESTATUS[0]}"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
