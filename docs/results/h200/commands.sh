#!/usr/bin/env bash
# One H200 (session 28): the tensor ceilings — the ceilings test (as sm_90 and treated as sm_80: the
# mma.sync form), the sgemm GPU tests after the wgmma wrappers moved, `gpulab ceilings`, and the
# tensor rungs of the sgemm bench as shares of their own ceilings.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tensor ceilings test (9.0 and as sm_80), sgemm tests, gpulab ceilings, sgemm tensor rungs against their ceilings"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 60 $T --gtest_filter='Ceilings.*' 2>&1 | grep -E "TF32 tensor|OK|FAILED|Failure|Expected|Which|PASSED" | head; echo "ceilings test exit code: ${PIPESTATUS[0]}"
  GPULAB_TREAT_AS=sm_80 timeout 60 $T --gtest_filter='Ceilings.*' 2>&1 | grep -E "TF32 tensor|OK|FAILED|Failure|Expected|Which|PASSED|treat" | head; echo "as sm_80 exit code: ${PIPESTATUS[0]}"
  timeout 200 $T --gtest_filter='Sgemm*:*Sgemm*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "sgemm tests exit code: ${PIPESTATUS[0]}"
  timeout 90 $G ceilings --json $R/ceilings.json > $R/ceilings.txt 2>&1; echo "ceilings exit code: $?"; cat $R/ceilings.txt | head -30
  timeout 150 $G bench sgemm -s 4096,8192 --variants wgmma_3xtf32,ozaki2_int8,ozaki2_int8_7,wgmma_tf32,wgmma_tf32_wide,cublas_tf32,vendor --reps 10 --no-cpu --json $R/sgemm.json --md $R/sgemm.md > $R/sgemm.txt 2>&1; echo "bench exit code: $?"
  grep -E "^\| *([0-9]+|vendor) \||^#|ceiling" $R/sgemm.md | cut -c1-220 | head -40
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
