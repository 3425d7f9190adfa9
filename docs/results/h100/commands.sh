# The call of this record, on the GPU machine with the build of 249b6b2 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s3.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s3.sh (sgemm staged big tiles, whole tiles copied without tests: tests, memcheck, forced configurations; ncu stalls at 1000^3 and 4096^3)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*:*SgemmLadder*a128x*:*SgemmLadder*a64x*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.EveryTileConfiguration*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
$B/gpulab bench sgemm -s 1000,768,1536,4096,8192,4097,5000x3000x700,2048x2048x512 --variants f128x256,a128x256,f128x128,a128x128,f64x128,a64x128,library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/forced.json --md $OUT/w/forced.md > /dev/null; echo "bench exit $?"
S=smsp__average_warps_issue_stalled
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,${S}_barrier_per_issue_active.ratio,${S}_long_scoreboard_per_issue_active.ratio,${S}_short_scoreboard_per_issue_active.ratio,${S}_mio_throttle_per_issue_active.ratio,${S}_lg_throttle_per_issue_active.ratio,${S}_math_pipe_throttle_per_issue_active.ratio,${S}_wait_per_issue_active.ratio,${S}_not_selected_per_issue_active.ratio,${S}_dispatch_stall_per_issue_active.ratio,${S}_no_instruction_per_issue_active.ratio,${S}_branch_resolving_per_issue_active.ratio,${S}_misc_per_issue_active.ratio,${S}_drain_per_issue_active.ratio,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum
for sv in 1000:a64x128 4096:a128x256; do
  s=${sv%%:*}; v=${sv#*:}
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 3 $B/gpulab bench sgemm -s $s --variants $v --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_${s}_$v.txt 2>&1; echo "ncu $s $v exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
