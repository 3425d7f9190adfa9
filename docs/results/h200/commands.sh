# The calls of this record, each on the GPU machine with the build of 79de50c carried (scripts/test.sh's build/device.tar.xz)
bash build/call_s6.sh  # one call: the lines below, then the device_run.sh line that ends it
# call_s6.sh: set -u
# call_s6.sh: B=build/device
# call_s6.sh: mkdir -p "$OUT/h"
# call_s6.sh: tar xJf build/device.tar.xz -C build
# call_s6.sh: {
# call_s6.sh: echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s6.sh (histogram tests, ncu, grid), then device_run.sh notests suite"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# call_s6.sh: timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -3
# call_s6.sh: echo "tests exit ${PIPESTATUS[0]}"
# call_s6.sh: timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md > /dev/null 2>&1; echo "sanitize exit $?"
# call_s6.sh: grep -E "hot_cached|gpulab::histogram" $OUT/h/sanitize.md
# call_s6.sh: timeout 60 ncu --metrics gpu__time_duration.sum --csv -k regex:'sample|hot_cached|partition|Scan|count' $B/gpulab bench histogram -n 2^24 -m 2^20 -d degenerate,uniform --variants library --no-cpu --no-ceilings --reps 3 --warmup 1 > $OUT/h/ncu_library.csv 2>/dev/null; echo "ncu exit $?"
# call_s6.sh: timeout 150 $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10 --json $OUT/h/hist_ranked.json --md $OUT/h/hist_ranked.md > /dev/null; echo "grid exit $?"
# call_s6.sh: echo "== $(date -u +%FT%TZ) histogram parts done"
# call_s6.sh: } 2>&1 | tee $OUT/h/log.txt
# call_s6.sh: tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h
# call_s6.sh: GPULAB_BIN=$B bash scripts/device_run.sh notests suite
