#!/usr/bin/env bash
# One H200 (session 33): why N,T's staged kernel (12 four-byte cp.async a thread a slice) is slower
# than N,N's (6): Nsight Compute's warp-state, scheduler and memory-workload sections of one launch
# each at 4096³ (staged N,N, staged N,T, fragments N,T), at d00a313.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu WarpStateStats, SchedulerStats, MemoryWorkloadAnalysis of staged NN, staged NT, fragments NT at 4096^3"
  for v in "staged NN" "staged NT" "fragments NT"; do
    set -- $v
    timeout 150 ncu --clock-control none --kernel-name regex:big_tiles --launch-skip 1 --launch-count 1 --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section InstructionStats --print-details all \
      $G run sgemm -s 4096 --forms $2 --variant $1 --reps 2 > $R/ncu_$1_$2.txt 2>&1; echo "$1 $2 ncu exit code: $?"
    grep -E "Stall|stall|Issue Slots|Issued Warp|No Eligible|Eligible Warps|Active Warps|Wavefronts|Bank|Throughput|Duration" $R/ncu_$1_$2.txt | head -60
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
