# The call of this record, on the GPU machine with the build of 800057c carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h6.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" build/s4
tar xJf build/device.tar.xz -C build
tar xJf build/device_s4.tar.xz -C build/s4
[ -d build/s4/device/devlibs ] && cp -r build/s4/device/devlibs build/s4/ 2>/dev/null
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h6.sh (count_kernel: 2 segments a warp; $(cat build/s4/device/COMMIT) beside it)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*:*MatrixLadder*transpose*tile_realigned*:MatrixLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
echo "== sanitize"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md 2>&1 | tail -2; echo "sanitize exit ${PIPESTATUS[0]}"
echo "== benches"
H="histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10"
timeout 120 $B/gpulab bench $H --json $OUT/h/hist_s2.json --md $OUT/h/hist_s2.md > /dev/null; echo "histogram s2 exit $?"
timeout 120 build/s4/device/gpulab bench $H --json $OUT/h/hist_s4.json --md $OUT/h/hist_s4.md > /dev/null; echo "histogram s4 exit $?"
timeout 60 $B/gpulab bench histogram -n 2^24,2^26 -m 256,2^20 -d uniform --variants range_partitioned,range_ranked,library,vendor --no-cpu --reps 20 --json $OUT/h/hist_vendor.json --md $OUT/h/hist_vendor.md > /dev/null; echo "vendor exit $?"
echo "== profile"
timeout 90 $B/gpulab profile histogram -n 2^26 -m 2^20 -d uniform --variants range_partitioned,range_ranked --md $OUT/h/profile.md > $OUT/h/profile.txt 2>&1; echo "profile exit $?"
grep -E "partition_kernel|count_kernel" $OUT/h/profile.md | cut -c1-60
timeout 60 /usr/local/cuda/bin/ncu --clock-control none -k regex:count_kernel --launch-count 1 --metrics gpu__time_duration.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed build/s4/device/gpulab bench histogram -n 2^26 -m 2^20 -d uniform --variants range_ranked --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_count_s4.txt 2>&1; echo "ncu s4 exit $?"
grep -E "duration|long_score|dram__" $OUT/h/ncu_count_s4.txt
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
