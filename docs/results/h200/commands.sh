#!/usr/bin/env bash
# One H200 (session 30): the guard over every 4th p: tests, bench, kernel times at 8192^3.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests; R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Ozaki GPU tests; bench 4096, 8192, 16384 (exponents 0), 8192 (exponents 20); ncu kernel times at 8192^3"
  timeout 100 $T --gtest_filter='SgemmOzaki*:SgemmLibrary.Tensor*' 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) |Failure|Expected|Which" | head -30
  timeout 200 $G bench sgemm --shapes 4096,8192,16384 --variants ozaki2_wgmma,ozaki2_guarded,vendor --no-cpu --no-ceilings --reps 5 --json $R/bench.json 2>&1 | grep -E "^ +(1[0-9]|vendor) |shape="
  timeout 100 $G bench sgemm --shapes 8192 --exponents 20 --variants ozaki2_wgmma,ozaki2_guarded,vendor --no-cpu --no-ceilings --reps 5 --json $R/bench_e20.json 2>&1 | grep -E "^ +(1[0-9]|vendor) |shape="
  timeout 150 ncu --clock-control none --kernel-name regex:"norms|facts_of|residues|int8_products|reconstruct|fix_up" --launch-count 9 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second $G run sgemm -s 8192 --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-z_:<>A-Za-z0-9 ]+\(|gpu__time_duration|per_second" | sed -E 's/\(GemmArgs.*|\(const .*|\(float.*|\(__grid.*|\(Resid.*|\(gpulab.*|\(sgemm_device.*//' | cut -c1-120
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
