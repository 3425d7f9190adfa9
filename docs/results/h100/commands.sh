# The call of this record, on the GPU machine with the build of 87532e4 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h5.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h"
[ -x $B/gpulab ] || tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h5.sh (ncu stall reasons of range_ranked's kernels)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for k in partition_kernel count_kernel; do
timeout 120 /usr/local/cuda/bin/ncu --clock-control none -k regex:$k --launch-count 1 --metrics smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum $B/gpulab bench histogram -n 2^26 -m 2^20 -d uniform --variants range_ranked --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_stalls_$k.txt 2>&1; echo "ncu $k exit $?"
grep -E "stalled|inst_executed|bank|wavefronts" $OUT/h/ncu_stalls_$k.txt | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//' -e 's/  */ /g'
done
echo "== done $(date -u +%FT%TZ)"
