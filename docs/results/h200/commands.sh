#!/usr/bin/env bash
# One H200, the record of the TF32 work: every sgemm GPU test, memcheck on the small wgmma and forms
# cases, the split and product times by form at 4096^3, and every form at 4096^3 and 8192^3: the wgmma
# rungs and the libraries against cuBLAS FP32 and TF32.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: sgemm tests, memcheck, launch lists by form, bench every form 4096/8192"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 300 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='*small_wgmma*:SgemmForms.small*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -1 $R/san_memcheck.txt
  for f in NN NT TN; do for v in wgmma_tf32_wide wgmma_3xtf32; do
    timeout 60 $G run sgemm -s 4096 --forms $f --variant $v --reps 5 > $R/run_${v}_$f.txt 2>&1; echo "$v $f exit code: $?"; grep -E "^\* (Kernel|Time)" $R/run_${v}_$f.txt | cut -c1-100
  done; done
  timeout 300 $G bench sgemm -s 4096,8192 --forms NN,NT,TN,TT --variants wgmma_3xtf32,library_3xtf32,wgmma_tf32,wgmma_tf32_wide,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench_forms.md --json $R/bench_forms.json > $R/bench_forms.txt 2>&1; echo "exit code: $?"
  grep -E "^#|^\| *[0-9]+ \|" $R/bench_forms.md | cut -c1-110
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
