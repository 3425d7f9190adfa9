#!/usr/bin/env bash
# One H200 (session 31, review): the Ozaki GPU tests after the review's refactor (one norms loop, one
# residue store, per-operand partial sums); memcheck on the guard and forms tests; 8192^3 NN and TN.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Ozaki, forms and tensor-precision GPU tests; memcheck on the guard and forms tests; bench 8192^3 NN, TN"
  timeout 150 $T --gtest_filter='SgemmOzaki*:SgemmForms*:SgemmLibrary.TensorCore*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*:SgemmForms.TheGuardedOzaki*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -1 $R/san_memcheck.txt
  timeout 60 $G bench sgemm -s 8192 --forms NN,TN --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/bench.json 2>&1 | grep -E "^ +(vendor|18) |^sgemm"
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
