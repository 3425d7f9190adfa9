#!/usr/bin/env bash
# One H200: one-product wgmma with a slice in flight (wait_group 1), and 3xTF32 in clusters of two:
# tests and sanitizers of the changed kernels, the launch list of the wide rung at 4096^3 (what the
# split passes cost), the TF32 and 3xTF32 rungs at 4096^3 and 8192^3 with cuBLAS's.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests, sanitizers, launch list, bench 4096/8192"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 200 $T --gtest_filter='*wgmma*:*x_tf32*:*x_3xtf32*:*library_tf32*:*library_3xtf32*:SgemmLibrary.TensorCore*:SgemmForms.*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck synccheck; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='*small_wgmma_tf32_wide*plain*:*small_wgmma_tf32_wide_300x301*:*small_x_3xtf32_c2*plain*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  timeout 60 $G run sgemm -s 4096 --variant wgmma_tf32_wide --reps 5 > $R/run_wide.txt 2>&1; echo "exit code: $?"; cut -c1-200 $R/run_wide.txt | tail -12
  timeout 200 $G bench sgemm -s 4096,8192 --variants wgmma_3xtf32,x_3xtf32_c2,wgmma_tf32,wgmma_tf32_wide,x_tf32_256,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench.md --json $R/bench.json > $R/bench.txt 2>&1; echo "exit code: $?"
  grep -E "^\| *[0-9]+ \|" $R/bench.md | cut -c1-120
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
