# The call of this record, on the GPU machine with the build of 5bc5991 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h7.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" build/b875
tar xJf build/device.tar.xz -C build
tar xJf build/device_875.tar.xz -C build/b875
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h7.sh (count_kernel streams by ranges; beside it $(cat build/b875/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md 2>&1 | tail -2; echo "sanitize exit ${PIPESTATUS[0]}"
H="histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10"
timeout 120 $B/gpulab bench $H --json $OUT/h/hist_new.json --md $OUT/h/hist_new.md > /dev/null; echo "histogram new exit $?"
timeout 120 build/b875/device/gpulab bench $H --json $OUT/h/hist_875.json --md $OUT/h/hist_875.md > /dev/null; echo "histogram 875 exit $?"
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
