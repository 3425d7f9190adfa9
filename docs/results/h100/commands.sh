# The call of this record, on the GPU machine with the build of 87532e4 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h3.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_8744e43.tar.xz -C build/old
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT) (and $(cat build/old/device/COMMIT)), parts: build/call_h3.sh"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*range_ranked*:*HistogramLadder*range_partitioned*:*HistogramLadder*gpulab__histogram*:*MatrixLadder*transpose*tile_realigned*:MatrixLibrary.*:SgemmLibrary*:*SgemmLadder*pipelined*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -6
echo "tests exit ${PIPESTATUS[0]}"
echo "== sanitize"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md 2>&1 | tail -2; echo "sanitize exit ${PIPESTATUS[0]}"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*' --gtest_brief=1 2>&1 | tail -2; echo "memcheck library exit ${PIPESTATUS[0]}"
echo "== benches"
H="histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10"
timeout 150 $B/gpulab bench $H --json $OUT/h/hist_new.json --md $OUT/h/hist_new.md > /dev/null; echo "histogram new exit $?"
timeout 150 build/old/device/gpulab bench $H --json $OUT/h/hist_old.json --md $OUT/h/hist_old.md > /dev/null; echo "histogram old exit $?"
timeout 60 $B/gpulab bench histogram -n 2^24,2^26 -m 256,2^20 -d uniform --variants range_partitioned,range_ranked,library,vendor --no-cpu --reps 20 --json $OUT/h/hist_vendor.json --md $OUT/h/hist_vendor.md > /dev/null; echo "vendor exit $?"
for r in 1 2; do
timeout 60 $B/gpulab bench transpose -s 16383x16385,16385x16383,8191x8193,4095x4097 --layout packed --variants 6,tile_realigned,tile_realigned_min4,tile_realigned_512,library,vendor --no-cpu --json $OUT/h/transpose_forms$r.json --md $OUT/h/transpose_forms$r.md > /dev/null; echo "transpose exit $?"
done
echo "== profile"
timeout 90 $B/gpulab profile histogram -n 2^26 -m 2^20 -d uniform --variants range_partitioned,range_ranked --md $OUT/h/profile.md > $OUT/h/profile.txt 2>&1; echo "profile exit $?"
grep -E "partition_kernel|count_kernel" $OUT/h/profile.md | cut -c1-60
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
