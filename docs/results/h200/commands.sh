#!/usr/bin/env bash
# One H200: the split finds the operands' maxima itself (no maxima pass), the rare rows rescaled after:
# the sgemm library and wgmma tests, sanitizers (incl. the subnormal/huge operands test), the launch
# lists of the wide and 3xTF32 rungs at 4096^3, the TF32 and 3xTF32 rungs at 4096^3 and 8192^3.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: tests, sanitizers, launch lists, bench 4096/8192"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 240 $T --gtest_filter='*wgmma*:*x_tf32*:*x_3xtf32*:*library_tf32*:*library_3xtf32*:SgemmLibrary.*:SgemmForms.*:SgemmBatched.*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -4; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck initcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='*small_wgmma_tf32_wide*plain*:*small_wgmma_3xtf32_127x129x131*:*small_wgmma_tf32_wide_300x301*:SgemmLibrary.TensorCorePrecisionKeepsItsBound*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  for v in wgmma_tf32_wide wgmma_3xtf32; do
    timeout 60 $G run sgemm -s 4096 --variant $v --reps 5 > $R/run_$v.txt 2>&1; echo "exit code: $?"; grep -E "^\* (sgemm|Kernel|Time)" $R/run_$v.txt | cut -c1-120
  done
  timeout 200 $G bench sgemm -s 4096,8192 --variants wgmma_3xtf32,x_3xtf32_c2,library_3xtf32,wgmma_tf32,wgmma_tf32_wide,library_tf32,cublas_tf32,cublasSgemm --reps 20 --no-cpu --no-ceilings --md $R/bench.md --json $R/bench.json > $R/bench.txt 2>&1; echo "exit code: $?"
  grep -E "^\| *[0-9]+ \|" $R/bench.md | cut -c1-120
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results

#!/usr/bin/env bash
# One H200: why the wgmma split runs at 1.5 TB/s: its time with both operands along k (NT), one of each
# (NN), both transposed (TN) at 4096^3; ncu of the NN split; racecheck of the library's subnormal test.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: split by form, ncu of the split, racecheck"
  for f in NN NT TN; do
    timeout 60 $G run sgemm -s 4096 --forms $f --variant wgmma_tf32_wide --reps 5 > $R/run_$f.txt 2>&1; echo "$f exit code: $?"; grep -E "^\* (Kernel|Time)" $R/run_$f.txt | cut -c1-120
  done
  timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy -k regex:split_operands --launch-count 1 $G run sgemm -s 4096 --variant wgmma_tf32_wide --reps 1 > $R/ncu_split.txt 2>&1; echo "ncu exit code: $?"
  grep -E "Duration|Throughput|Warp Cycles Per Issued|stalled|Achieved Occ|Theoretical Occ|Block Limit" $R/ncu_split.txt | cut -c1-150 | head -30
  timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='SgemmLibrary.TensorCorePrecisionKeepsItsBound*' --gtest_brief=1 > $R/san_racecheck.txt 2>&1; echo "racecheck exit code: $?"; tail -2 $R/san_racecheck.txt
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
