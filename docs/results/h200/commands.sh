#!/usr/bin/env bash
# One H200: the split streams rows along k (a warp a piece of 512 floats): tests of the wgmma rungs
# and the library (every form, pad1/pad3), memcheck on the small ones, the split's time by form at
# 4096^3, the TF32 and 3xTF32 rungs and libraries at 4096^3 and 8192^3 with cuBLAS.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests, memcheck, split by form, bench 4096/8192"
  timeout 240 $T --gtest_filter='*wgmma*:*x_tf32*:*x_3xtf32*:*library_tf32*:*library_3xtf32*:SgemmLibrary.*:SgemmForms.*:SgemmBatched.*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='*small_wgmma*:SgemmForms.small*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -1 $R/san_memcheck.txt
  for f in NN NT TN; do
    timeout 60 $G run sgemm -s 4096 --forms $f --variant wgmma_tf32_wide --reps 5 > $R/run_$f.txt 2>&1; echo "$f exit code: $?"; grep -E "^\* (Kernel|Time)" $R/run_$f.txt | cut -c1-120
  done
  timeout 60 $G run sgemm -s 4096 --variant wgmma_3xtf32 --reps 5 > $R/run_3x.txt 2>&1; echo "3x exit code: $?"; grep -E "^\* (Kernel|Time)" $R/run_3x.txt | cut -c1-120
  timeout 200 $G bench sgemm -s 4096,8192 --variants wgmma_3xtf32,library_3xtf32,wgmma_tf32,wgmma_tf32_wide,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench.md --json $R/bench.json > $R/bench.txt 2>&1; echo "exit code: $?"
  grep -E "^\| *[0-9]+ \|" $R/bench.md | cut -c1-120
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
