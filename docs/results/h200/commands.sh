#!/usr/bin/env bash
# One H200 (session 30): kernel times of the guarded Ozaki rung at 8192^3 with the guard decided on the GPU.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu kernel times of ozaki2_guarded at 8192^3 (one call)"
  timeout 200 ncu --clock-control none --launch-skip 0 --launch-count 16 --metrics gpu__time_duration.sum $G run sgemm -s 8192 --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
