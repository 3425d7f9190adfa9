#!/usr/bin/env bash
# One H200 (session 28): where the Ozaki scheme's time goes at 8192^3 and 16384^3 (7 and 8 moduli):
# every launch of one call with its time (`gpulab run`).
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: gpulab run sgemm ozaki2_int8_7 and ozaki2_int8 at 16384^3, cuBLAS's INT8 products timed apart"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  for s in 16384; do for v in ozaki2_int8_7 ozaki2_int8; do
    echo "-- $s $v"; timeout 120 $G run sgemm -s $s --variant $v --reps 5 2>&1 | grep -E "^\* " | head -24
  done; done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
