# The call of this record, on the GPU machine with the build of 84cf6bb carried (build/device.tar.xz)
# and this script, run as: bash build/call_v3.sh
set -u
mkdir -p "$OUT/w"
rm -rf build/n && mkdir -p build/n && tar xJf build/device.tar.xz -C build/n
G=build/n/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT), parts: build/call_v3.sh (conv lanes_band experiment)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=3840x2160,7680x4320,1920x1080,2560x1440,15360x8640
for i in 1 2; do
  timeout 100 $G/gpulab bench conv -s $S --variants lanes,library,vendor --no-cpu --json $OUT/w/base_$i.json > /dev/null 2>&1; echo "base $i exit $?"
  for v in 2:32 2:128 13:32 14:32 16:32 13:128; do
    b=${v%:*}; blk=${v#*:}
    GPULAB_X_BAND=$b GPULAB_X_BLOCK=$blk timeout 100 $G/gpulab bench conv -s $S --variants library --no-cpu --no-ceilings --json $OUT/w/band${b}_${blk}_$i.json > /dev/null 2>&1; echo "band $b block $blk $i exit $?"
  done
done
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,launch__registers_per_thread,launch__grid_size,launch__block_size
for b in 2 13; do
  for s in 3840x2160 7680x4320; do
    GPULAB_X_BAND=$b GPULAB_X_BLOCK=32 timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --kernel-name regex:lanes --launch-count 1 $G/gpulab bench conv -s $s --variants library --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_band${b}_$s.txt 2>&1; echo "ncu band $b $s exit $?"
  done
done
timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --kernel-name regex:lanes --launch-count 1 $G/gpulab bench conv -s 7680x4320 --variants library --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_band0_7680x4320.txt 2>&1; echo "ncu base 8k exit $?"
for b in 2 13 14; do
  GPULAB_X_BAND=$b timeout 200 $G/tests/gpulab_gpu_tests --gtest_filter='ConvLibrary*:ConvLadder*' --gtest_brief=1 2>&1 | tail -2; echo "tests band $b"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
