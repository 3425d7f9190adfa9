#!/usr/bin/env bash
# H200: the sgemm forms' and batches' small_ tests under the four compute-sanitizer tools, and those suites' GPU tests.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests (SgemmForms.*:SgemmBatched.*), sanitize-tests (SgemmForms.small_*:SgemmBatched.small_*)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) GPU tests"
  timeout 60 $T --gtest_filter='SgemmForms.*:SgemmBatched.*' --gtest_output=json:$R/gpu_tests.json --gtest_brief=1 2>&1 | tail -4; echo "gpu tests exit code: ${PIPESTATUS[0]}"
  echo "== $(date -u +%T) compute-sanitizer"
  for tool in memcheck initcheck synccheck racecheck; do
    echo "-- $tool"; timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $T --gtest_filter='SgemmForms.small_*:SgemmBatched.small_*' --gtest_brief=1 2>&1 | tail -6; echo "$tool exit code: ${PIPESTATUS[0]}"
  done 2>&1 | tee $R/sanitizer.txt
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
