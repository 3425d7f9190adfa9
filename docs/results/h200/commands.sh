#!/usr/bin/env bash
# One H200 (session 30): the sgemm GPU tests with the guarded Ozaki path on subnormal/huge operands and Inf/NaN.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Sgemm* GPU tests"
  timeout 200 $T --gtest_filter='Sgemm*' 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) |Failure|Expected|Which|pass [0-9]|guarded" | head -60
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
