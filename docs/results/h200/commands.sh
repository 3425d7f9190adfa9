# The call of this record, on the GPU machine with the build of 8744e43 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h2.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h2.sh (histogram range_ranked; transpose rung 7's forms)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*range_ranked*:*HistogramLadder*range_partitioned*:*HistogramLadder*gpulab__histogram*:*MatrixLadder*transpose*tile_realigned*:MatrixLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -6
echo "tests exit ${PIPESTATUS[0]}"
echo "== sanitize"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md 2>&1 | tail -2; echo "sanitize exit ${PIPESTATUS[0]}"
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*small_*tile_realigned*' --gtest_brief=1 2>&1 | tail -2; echo "$tool exit ${PIPESTATUS[0]}"
done
echo "== benches"
timeout 170 $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10 --json $OUT/h/hist_ranked.json --md $OUT/h/hist_ranked.md > /dev/null; echo "histogram exit $?"
timeout 60 $B/gpulab bench histogram -n 2^24,2^26 -m 2^20 -d uniform --variants range_partitioned,range_ranked,library,vendor --no-cpu --reps 20 --json $OUT/h/hist_vendor.json --md $OUT/h/hist_vendor.md > /dev/null; echo "vendor exit $?"
for r in 1 2; do
timeout 60 $B/gpulab bench transpose -s 16383x16385,16385x16383,8191x8193,4095x4097 --layout packed --variants 6,tile_realigned,tile_realigned_min4,tile_realigned_512,library,vendor --no-cpu --json $OUT/h/transpose_forms$r.json --md $OUT/h/transpose_forms$r.md > /dev/null; echo "transpose exit $?"
done
echo "== ncu"
M=gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_barrier
for v in tile_realigned tile_realigned_min4 tile_realigned_512; do
timeout 60 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 2 $B/gpulab bench transpose -s 16383x16385 --layout packed --variants $v --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_transpose_$v.txt 2>&1; echo "ncu $v exit $?"
done
timeout 90 $B/gpulab profile histogram -n 2^26 -m 2^20 -d uniform --variants range_partitioned,range_ranked --md $OUT/h/profile.md > $OUT/h/profile.txt 2>&1; echo "profile exit $?"
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
