#!/usr/bin/env bash
# One H200: rung wgmma_tf32_wide (128x256 tiles, clusters of two sharing B by TMA multicast) and the
# library's tf32 on it: its ladder cases and the library's tensor-core tests, compute-sanitizer on the
# small cases, then the TF32 rungs against cuBLAS TF32 at 4096^3 and 8192^3, and ncu's L2 bytes.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tf32 wide tests, sanitizer, bench 4096/8192 TF32, ncu"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  echo "== $(date -u +%T) tests"
  timeout 200 $T --gtest_filter='*wgmma_tf32*:*library_tf32*:SgemmLibrary.TensorCore*:SgemmLibrary.AlphaZero*:SgemmForms.*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -25; echo "tests exit code: ${PIPESTATUS[0]}"
  echo "== $(date -u +%T) memcheck, racecheck on small wide cases"
  for tool in memcheck racecheck synccheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='*small_wgmma_tf32_wide*plain*:*small_wgmma_tf32_wide_300x301*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -3 $R/san_$tool.txt
  done
  echo "== $(date -u +%T) bench"
  timeout 150 $G bench sgemm -s 4096,8192 --variants wgmma_tf32,wgmma_tf32_wide,library_tf32,cublas_tf32,wgmma_3xtf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench.md --json $R/bench.json > $R/bench.txt 2>&1; echo "exit code: $?"
  grep -E "^\| *[0-9]+ \|" $R/bench.md | cut -c1-200
  echo "== $(date -u +%T) ncu 4096^3"
  timeout 120 ncu --metrics gpu__time_duration.sum,lts__t_sectors_op_read.sum,sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors.avg.pct_of_peak_sustained_elapsed -k regex:"wgmma_product|sm90|gemm" --launch-count 8 $G bench sgemm -s 4096 --variants wgmma_tf32,wgmma_tf32_wide,cublas_tf32 --reps 1 --warmup 0 --no-cpu --no-ceilings > $R/ncu.txt 2>&1; echo "exit code: $?"
  grep -E "wgmma_product|Kernel|gemm|duration|sectors|pipe|==" $R/ncu.txt | cut -c1-160 | head -60
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
