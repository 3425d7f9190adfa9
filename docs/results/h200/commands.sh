#!/usr/bin/env bash
# One H200 (session 30): fp32_tensor on the guarded Ozaki scheme, decided on the GPU: tests, sanitizers on the guard's test, bench of the library's rows.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests; R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Sgemm* GPU tests; SgemmOzaki.Guard* under memcheck, initcheck, synccheck; bench of fp32_tensor's paths (reps 5), 8192^3 at exponents 20 and 60"
  timeout 150 $T --gtest_filter='Sgemm*' 2>&1 | grep -E "^\[ *(FAILED|PASSED|SKIPPED) |Failure|Expected|Which|not the|planted|C\[" | head -30
  for tool in memcheck initcheck synccheck; do
    echo "-- $tool"
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|Uninit" | head -6
  done
  timeout 250 $G bench sgemm --shapes 4096,4097,6144,8192,16384 --variants wgmma_3xtf32,ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,vendor --no-cpu --reps 5 --json $R/library.json --md $R/library.md 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm"
  for e in 20 60; do
    timeout 100 $G bench sgemm --shapes 8192 --exponents $e --variants wgmma_3xtf32,ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,vendor --no-cpu --no-ceilings --reps 5 --json $R/exponents$e.json 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm"
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
