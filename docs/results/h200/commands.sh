#!/usr/bin/env bash
# One H200 (session 30): the sgemm GPU tests, the guard's test under memcheck and initcheck, and gpulab sanitize sgemm.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests; R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Sgemm* GPU tests; SgemmOzaki.Guard* under memcheck and initcheck; gpulab sanitize sgemm"
  timeout 150 $T --gtest_filter='Sgemm*' 2>&1 | grep -E "^\[ *(FAILED|PASSED|SKIPPED) |Failure|Expected|Which|tests ran" | head -30
  for tool in memcheck initcheck; do
    echo "-- $tool"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|Uninit" | head -8
  done
  timeout 360 $G sanitize sgemm --json $R/sanitize.json --md $R/sanitize.md 2>&1 | tail -45
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
