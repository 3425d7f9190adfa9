#!/usr/bin/env bash
# One H200: which of wgmma_tf32_wide's changes (128x256 tiles; clusters of two sharing B) costs it 25%
# against wgmma_tf32: the two alone as experiment rungs, timed at 4096^3 and 8192^3 with cuBLAS TF32;
# ncu's SpeedOfLight, WarpStateStats and MemoryWorkloadAnalysis of each kernel at 4096^3; the SASS.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: bench tf32 forms 4096/8192, ncu sections a kernel, SASS"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 150 $G bench sgemm -s 4096,8192 --variants wgmma_tf32,wgmma_tf32_wide,x_tf32_256,x_tf32_c2,cublas_tf32 --reps 20 --no-cpu --no-ceilings --md $R/bench.md --json $R/bench.json > $R/bench.txt 2>&1; echo "exit code: $?"
  grep -E "^\| *[0-9]+ \|" $R/bench.md | cut -c1-120
  for v in wgmma_tf32 wgmma_tf32_wide x_tf32_256 x_tf32_c2 cublas_tf32; do
    k='regex:wgmma_product'; [ $v = cublas_tf32 ] && k='regex:gemm|xmma|cutlass'
    timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --metrics lts__t_sectors_op_read.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_tensor_op_gmma.sum -k "$k" --launch-count 1 $G bench sgemm -s 4096 --variants $v --reps 1 --warmup 0 --no-cpu --no-ceilings > $R/ncu_$v.txt 2>&1; echo "$v ncu exit code: $?"
    grep -E "^  [a-z_].*\(|Duration|Throughput|hmma|gmma|lts__t_sectors_op|Stall|Warp Cycles|Cluster|Registers|Achieved Occ|Waves" $R/ncu_$v.txt | cut -c1-150 | head -40
  done
  cuobjdump -sass $B/gpulab 2>/dev/null | awk '/Function : .*wgmma_product/{p=1} p{print} /Function : /&&!/wgmma_product/{p=0}' > $R/wgmma.sass; wc -l $R/wgmma.sass
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
