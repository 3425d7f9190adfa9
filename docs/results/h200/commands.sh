#!/usr/bin/env bash
# One H200 (session 30): fp32_tensor (the library's rule) against 3xTF32, the guarded and unguarded Ozaki rungs, FP32 and cuBLAS; exponent spreads 20 and 60.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab; R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: bench of library_fp32_tensor and its paths on the issue's shapes (reps 5); 8192^3 with exponents ±20, ±60"
  timeout 400 $G bench sgemm --shapes 1000,2048,4096,4097,5000x3000x700,6144,8192,16384x2048x4096,12288,16384 \
    --variants wgmma_3xtf32,ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,library,vendor --no-cpu --reps 5 --json $R/library.json --md $R/library.md 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm|ceiling|TB/s|TFLOP"
  for e in 20 60; do
    timeout 100 $G bench sgemm --shapes 8192 --exponents $e --variants ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,vendor --no-cpu --no-ceilings --reps 5 --json $R/exponents$e.json 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm"
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
