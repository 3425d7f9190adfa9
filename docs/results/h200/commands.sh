#!/usr/bin/env bash
# One H200 (session 30): fp32_tensor's rule: the guarded Ozaki rung against 3xTF32, the FP32 library and cuBLAS over a sweep of shapes.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab; R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sweep of ozaki2_guarded, wgmma_3xtf32, library, cuBLAS (reps 5)"
  timeout 560 $G bench sgemm --shapes 1024,2048,3072,4096,4097,5000x3000x700,6144,8192x8192x1024,8192x8192x2048,2048x2048x16384,16384x2048x4096,2048x16384x4096,8192,12288,16384 \
    --variants wgmma_3xtf32,ozaki2_guarded,library,vendor --no-cpu --no-ceilings --reps 5 --json $R/sweep.json 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
