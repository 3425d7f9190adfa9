# The call of this record, on the GPU machine with the build of 9db095f carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s16.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/n"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s16.sh (ncu of the GEMV kernels at 1x4096x4096)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 ncu --clock-control none -k regex:'few_rows|gemv|gemm|Gemv|Gemm' -c 6 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
  $B/gpulab bench sgemm --shapes 1x4096x4096 --variants library,vendor --no-cpu --no-ceilings --reps 2 --warmup 1 --e2e-reps 1 > $OUT/n/ncu_gemv.txt 2>&1; echo "ncu exit $?"
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Waves Per SM|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|L2 Hit Rate" $OUT/n/ncu_gemv.txt | head -80
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/n/log.txt
cp $OUT/n/log.txt $OUT/log.txt
tar czf $OUT/n.tgz -C $OUT n && rm -rf $OUT/n
