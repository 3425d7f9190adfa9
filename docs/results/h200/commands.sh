#!/usr/bin/env bash
# One H200 (session 28): the Ozaki residues of 7 moduli in 32 bits — their
# tests, each launch's time at 8192^3 and 16384^3, and the rungs against cuBLAS FP32 and 3xTF32.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Ozaki tests and ladders, launch times at 8192^3 and 16384^3, bench against cuBLAS FP32"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 200 $T --gtest_filter='*Ozaki*:Ladders.*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for s in 8192 16384; do for v in ozaki2_int8_7; do
    echo "-- $s $v"; timeout 120 $G run sgemm -s $s --variant $v --reps 5 2>&1 | grep -E "^\* (Kernel|Time|Check)" | head -12
  done; done
  timeout 300 $G bench sgemm -s 8192,16384 --variants wgmma_3xtf32,ozaki2_int8,ozaki2_int8_7,vendor --reps 5 --no-cpu --json $R/sgemm.json --md $R/sgemm.md > $R/sgemm.txt 2>&1; echo "bench exit code: $?"
  grep -E "^\| *([0-9]+|vendor) \||^##" $R/sgemm.md | cut -c1-160 | head -20
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
