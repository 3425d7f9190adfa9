# The call of this record, on the GPU machine with the build of 9db095f carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s11.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" build/b79
tar xJf build/device.tar.xz -C build
tar xJf build/device_79de50c.tar.xz -C build/b79
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s11.sh (the sample kernel zeroing the counts, beside $(cat build/b79/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md > /dev/null 2>&1; echo "sanitize exit $?"
grep -E "hot_cached|gpulab::histogram" $OUT/h/sanitize.md
for t in memcheck initcheck; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 99 --print-limit 5 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "$t library tests exit ${PIPESTATUS[0]}"
done
H="histogram -n 2^22,2^24,2^26 -m 2^17,2^20,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10"
timeout 120 $B/gpulab bench $H --json $OUT/h/hist_zero.json --md $OUT/h/hist_zero.md > /dev/null; echo "grid exit $?"
timeout 120 build/b79/device/gpulab bench $H --json $OUT/h/hist_79de50c.json --md $OUT/h/hist_79de50c.md > /dev/null; echo "grid 79de50c exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/h/log.txt
cp $OUT/h/log.txt $OUT/log.txt
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h
