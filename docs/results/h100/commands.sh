# The call of this record, on the GPU machine with the build of 9e49826 carried (build/device.tar.xz)
# and this script, run as: bash build/call_c4.sh
set -u
mkdir -p "$OUT/w" build/a
tar xJf build/device_e.tar.xz -C build
tar xJf build/device_c.tar.xz -C build/a
G=build/device; A=build/a/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT) (beside: $(cat $A/COMMIT)), parts: build/call_c4.sh (conv realigned lanes, word offset by selects)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P=12345x6789,4097x4097,3841x2161,1921x1081,1001x333
for i in 1 2; do
  for B in $G $A; do
    n=$(cat $B/COMMIT)
    timeout 100 $B/gpulab bench conv -s $P --variants realigned_lanes,library,vendor --no-cpu --json $OUT/w/packed_${n}_$i.json > /dev/null 2>&1; echo "$n packed $i exit $?"
    timeout 100 $B/gpulab bench conv -s 7680x4320,3840x2160 --layout aligned --variants lanes,realigned_lanes,vendor --no-cpu --json $OUT/w/aligned_${n}_$i.json > /dev/null 2>&1; echo "$n aligned $i exit $?"
  done
done
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_pred_on.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 4 $G/gpulab bench conv -s 7680x4320 --layout aligned --variants realigned_lanes --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_8k.txt 2>&1; echo "ncu 8k exit $?"
timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 2 $G/gpulab bench conv -s 12345x6789 --variants realigned_lanes --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_packed.txt 2>&1; echo "ncu packed exit $?"
timeout 300 $G/tests/gpulab_gpu_tests --gtest_filter='*realigned*:*library*:ConvLibrary*' --gtest_brief=1 2>&1 | tail -8
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
