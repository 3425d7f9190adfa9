#!/usr/bin/env bash
# One H200 (session 30): why the guard's plane costs more than a modulus's: the INT8 products kernel with and without it, 8192^3.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu of int8_products, ozaki2_wgmma and ozaki2_guarded at 8192^3"
  for v in ozaki2_wgmma ozaki2_guarded; do
    echo "-- $v"
    timeout 200 ncu --clock-control none --kernel-name regex:"int8_products" --launch-count 1 --section SpeedOfLight --section WarpStateStats \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.sum \
      $G run sgemm -s 8192 --variant $v --reps 1 2>&1 | grep -E "Duration|DRAM Throughput|Compute \(SM\)|Memory Throughput|gpu__time|per_second|dram__bytes|hit_rate|inst_executed|gmma|Stall|stall|Warp Cycles" | cut -c1-130
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
