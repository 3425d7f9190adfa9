# The call of this record, on the GPU machine with the build of 7fb4401 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h1.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h1.sh (histogram range_ranked: tests, sanitize, bench, profile)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*range_ranked*:*HistogramLadder*range_partitioned*:*HistogramLadder*gpulab__histogram*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -8
echo "tests exit ${PIPESTATUS[0]}"
echo "== sanitize"
timeout 150 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md 2>&1 | tail -4; echo "sanitize exit ${PIPESTATUS[0]}"
echo "== benches"
timeout 200 $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10 --json $OUT/h/hist_ranked.json --md $OUT/h/hist_ranked.md > /dev/null; echo "histogram exit $?"
timeout 60 $B/gpulab bench histogram -n 2^24,2^26 -m 2^20 -d uniform --variants range_partitioned,range_ranked,library,vendor --no-cpu --reps 20 --md $OUT/h/hist_vendor.md > /dev/null; echo "vendor exit $?"
echo "== profile"
timeout 120 $B/gpulab profile histogram -n 2^26 -m 2^20 -d uniform --variants range_partitioned,range_ranked --md $OUT/h/profile.md > $OUT/h/profile.txt 2>&1; echo "profile exit $?"
tail -30 $OUT/h/profile.md
echo "== done $(date -u +%FT%TZ)"
