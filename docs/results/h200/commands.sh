# One call on one H200, build of 1127edc carried (scripts/pack_device.sh ci cli); build/callBA.sh, not kept; its text:
#!/usr/bin/env bash
# One H200 (session 27): counters of the library's kernels (issue 67's four cases) beside the read ceiling's:
# bytes through DRAM and the L2 against what the case must move, loads issued, stalls (1127edc).
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size,launch__block_size
prof() { name=$1; shift; echo "-- ncu $name"; timeout 120 ncu --metrics $M "$@" > $R/ncu_$name.txt 2>&1; grep -E "^  [a-zA-Z_].*\(|^    [a-z]" $R/ncu_$name.txt | grep -vE "^==" | sed -E 's/ {2,}/  /g'; }
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu of the library kernels of atax, scan, conv, histogram and of the read and copy ceilings"
  prof read --kernel-name regex:read_stream --launch-count 1 $G ceilings
  prof atax --launch-count 4 $G run atax -s 8960x17920 --variant library --reps 1
  prof scan --launch-count 1 $G run scan -n 2^28 -t int32 --variant library --reps 1
  prof conv --launch-count 2 $G run conv -s 7680x4320 --variant library --reps 1
  prof histogram --launch-count 3 $G run histogram -n 2^26 -m 256 --variant library --reps 1
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
