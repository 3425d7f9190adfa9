#!/usr/bin/env bash
# One H200 (session 33): N,T's staged kernel on slices 16 deep (af39732) under Nsight Compute at
# 4096³: its copies' wavefronts (halved, predicted) and its stalls, against d00a313-ncu's 8 deep.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu WarpStateStats, SchedulerStats, MemoryWorkloadAnalysis of staged NT (slices 16 deep) at 4096^3"
  for v in "staged NT"; do
    set -- $v
    timeout 150 ncu --clock-control none --kernel-name regex:big_tiles --launch-skip 1 --launch-count 1 --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats --print-details all \
      $G run sgemm -s 4096 --forms $2 --variant $1 --reps 2 > $R/ncu_$1_$2.txt 2>&1; echo "$1 $2 ncu exit code: $?"
    grep -E "Stall (Not|Short|Long|Dispatch|Barrier|Wait|MIO)|Issue Slots|No Eligible|Throughput|highest-utilized|bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum |wavefronts_mem_shared_op_ldgsts.sum |op_ldgsts.sum |Registers Per|Executed Instructions  " $R/ncu_$1_$2.txt | cut -c1-120 | head -40
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
