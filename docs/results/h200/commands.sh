#!/usr/bin/env bash
# One H200 (session 32): ncu of the Ozaki INT8 products (int8_products<7>, the second int8_products
# launch) at 4096^3 and 8192^3 (4c858e7): L2 throughput, tensor pipe, stalls; max active clusters.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu sections of int8_products<7> at 4096^3 and 8192^3"
  for s in 4096 8192; do
  timeout 150 ncu --clock-control none --kernel-name int8_products --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --metrics lts__t_sectors_op_read.sum,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_imma.sum,l1tex__m_xbar2l1tex_read_bytes.sum.per_second,smsp__average_warp_latency_issue_stalled_barrier,sm__cycles_active.avg $G run sgemm -s $s --variant ozaki2_guarded --reps 1 > $R/ncu_products_$s.txt 2>&1
  echo "-- $s^3"; grep -E "^  [a-z].*int8|Duration|Throughput|L2 Hit|lts__|sm__|l1tex__m|Busy|Bandwidth|Cluster|Stall|Active" $R/ncu_products_$s.txt | cut -c1-120
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
