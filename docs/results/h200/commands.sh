#!/usr/bin/env bash
# One H200 (session 30): the Ozaki and library sgemm GPU tests after the guard test's last change.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: SgemmOzaki* and SgemmLibrary.Tensor* GPU tests; the guard test under memcheck"
  timeout 100 $T --gtest_filter='SgemmOzaki*:SgemmLibrary.Tensor*' 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) |Failure|Expected|Which" | head -20
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | head -4
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
