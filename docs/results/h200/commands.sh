# The call of this record, on the GPU machine with the build of 7c9e2fa carried (build/device.tar.xz)
# and this script, run as: bash build/call_v6.sh
set -u
mkdir -p "$OUT/w"
rm -rf build/n build/o && mkdir -p build/n build/o && tar xJf build/device.tar.xz -C build/n && tar xJf build/device_40c3.tar.xz -C build/o
G=build/n/device; A=build/o/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT) beside the build of $(cat $A/COMMIT), parts: build/call_v6.sh (conv rung 10 paired_rows)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1920x1080,2560x1440,3840x2160,7680x4320,15360x8640
T=4097x4097,3841x2161,1001x333,256x256
for i in 1 2; do
  timeout 120 $G/gpulab bench conv -s $S --variants lanes,paired_rows,library,vendor --no-cpu --json $OUT/w/new_$i.json > /dev/null 2>&1; echo "new $i exit $?"
  timeout 120 $A/gpulab bench conv -s $S --variants library --no-cpu --no-ceilings --json $OUT/w/old_$i.json > /dev/null 2>&1; echo "old $i exit $?"
  timeout 120 $G/gpulab bench conv -s $T --layout aligned --variants lanes,paired_rows,library,vendor --no-cpu --no-ceilings --json $OUT/w/odd_new_$i.json > /dev/null 2>&1; echo "odd new $i exit $?"
  timeout 120 $A/gpulab bench conv -s $T --layout aligned --variants library --no-cpu --no-ceilings --json $OUT/w/odd_old_$i.json > /dev/null 2>&1; echo "odd old $i exit $?"
  timeout 120 $G/gpulab bench conv -s 3840x2160,7680x4320 --border replicate,zero,mirror --kernel gaussian --variants lanes,paired_rows --no-cpu --no-ceilings --json $OUT/w/borders_$i.json > /dev/null 2>&1; echo "borders $i exit $?"
  timeout 120 $G/gpulab bench conv -s 4097x4097,12345x6789,1921x1081 --variants realigned_lanes,sliding_window --no-cpu --no-ceilings --json $OUT/w/packed_new_$i.json > /dev/null 2>&1; echo "packed new $i exit $?"
  timeout 120 $A/gpulab bench conv -s 4097x4097,12345x6789,1921x1081 --variants realigned_lanes,sliding_window --no-cpu --no-ceilings --json $OUT/w/packed_old_$i.json > /dev/null 2>&1; echo "packed old $i exit $?"
done
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,launch__registers_per_thread,launch__grid_size,launch__block_size
for s in 3840x2160 7680x4320; do
  timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --kernel-name regex:lanes --launch-count 1 $G/gpulab bench conv -s $s --variants lanes --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_lanes_$s.txt 2>&1; echo "ncu lanes $s exit $?"
  timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --kernel-name regex:paired --launch-count 1 $G/gpulab bench conv -s $s --variants paired_rows --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_paired_$s.txt 2>&1; echo "ncu paired $s exit $?"
done
timeout 400 $G/tests/gpulab_gpu_tests --gtest_filter='*Conv*' --gtest_brief=1 > $OUT/w/tests.txt 2>&1; echo "conv tests exit $?"; tail -3 $OUT/w/tests.txt
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
