#!/usr/bin/env bash
# One H200 (session 30): the guarded Ozaki scheme (fp32_tensor): GPU tests, then the rungs against 3xTF32 and cuBLAS.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests; R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Sgemm GPU tests; bench of the Ozaki rungs, 3xTF32, fp32_tensor, cuBLAS"
  timeout 200 $T --gtest_filter='SgemmOzaki*:Sgemm*Tensor*:SgemmLibrary*' 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) |Failure|Expected|Which|taken|planted|C\[" | head -60
  timeout 300 $G bench sgemm --shapes 4096,8192,16384,4097 --variants ozaki2_wgmma,ozaki2_guarded,wgmma_3xtf32,library_fp32_tensor,vendor --no-cpu --no-ceilings --reps 5 --json $R/bench.json 2>&1 | tail -40
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
