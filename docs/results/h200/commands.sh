#!/usr/bin/env bash
# One H200: the clusters without a GPU-wide fence an arrival (a6931ce): the wide and clustered rungs'
# tests and sanitizers, the TF32 rungs at 4096^3 and 8192^3 with cuBLAS TF32, ncu of the two clustered kernels.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests, sanitizers, bench tf32 forms 4096/8192, ncu"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 200 $T --gtest_filter='*wgmma_tf32*:*x_tf32*:*library_tf32*:SgemmLibrary.TensorCore*:SgemmForms.*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck synccheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='*small_wgmma_tf32_wide*plain*:*small_wgmma_tf32_wide_300x301*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  timeout 150 $G bench sgemm -s 4096,8192 --variants wgmma_tf32,wgmma_tf32_wide,x_tf32_256,x_tf32_c2,cublas_tf32 --reps 20 --no-cpu --no-ceilings --md $R/bench.md --json $R/bench.json > $R/bench.txt 2>&1; echo "exit code: $?"
  grep -E "^\| *[0-9]+ \|" $R/bench.md | cut -c1-120
  for v in wgmma_tf32_wide x_tf32_c2; do
    timeout 60 ncu --section SpeedOfLight --section WarpStateStats --metrics lts__t_sectors_op_read.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active -k regex:wgmma_product --launch-count 1 $G bench sgemm -s 4096 --variants $v --reps 1 --warmup 0 --no-cpu --no-ceilings > $R/ncu_$v.txt 2>&1; echo "$v ncu exit code: $?"
    grep -E "^  [a-z_].*\(|Duration|hmma|lts__t_sectors_op|Warp Cycles Per Issued|stalled" $R/ncu_$v.txt | cut -c1-150 | head -12
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
