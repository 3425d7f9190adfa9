# The call of this record, on the GPU machine with the build of 96ac727 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s4.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s4.sh (the sample as a map of hash bits), then device_run.sh notests suite"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md > /dev/null 2>&1; echo "sanitize exit $?"
grep -E "hot_cached|gpulab::histogram" $OUT/h/sanitize.md
timeout 60 ncu --metrics gpu__time_duration.sum --csv -k regex:'sample|hot_cached|partition|Scan|count' $B/gpulab bench histogram -n 2^24 -m 2^20 -d degenerate,uniform --variants library --no-cpu --no-ceilings --reps 3 --warmup 1 > $OUT/h/ncu_library.csv 2>/dev/null; echo "ncu exit $?"
timeout 150 $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10 --json $OUT/h/hist_ranked.json --md $OUT/h/hist_ranked.md > /dev/null; echo "grid exit $?"
echo "== $(date -u +%FT%TZ) histogram parts done"
} 2>&1 | tee $OUT/h/log.txt
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h
GPULAB_BIN=$B bash scripts/device_run.sh notests suite
