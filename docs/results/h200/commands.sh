#!/usr/bin/env bash
# One H200 (session 28): FP32-accurate GEMM at the large end: 3xTF32 and the Ozaki scheme (8 and 7
# moduli) against cuBLAS FP32 at 8192^3, 12288^3 and 16384^3, each as a share of its tensor ceiling.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm 8192^3, 12288^3, 16384^3: 3xTF32, Ozaki 8 and 7 moduli, cuBLAS FP32"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 400 $G bench sgemm -s 8192,12288,16384 --variants wgmma_3xtf32,library_3xtf32,ozaki2_int8,ozaki2_int8_7,vendor --reps 5 --no-cpu --json $R/sgemm.json --md $R/sgemm.md > $R/sgemm.txt 2>&1; echo "bench exit code: $?"
  grep -E "^\| *([0-9]+|vendor) \||^#|ceiling" $R/sgemm.md | cut -c1-200 | head -40
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
