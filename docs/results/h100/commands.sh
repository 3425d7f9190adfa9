# The call of this record, on the GPU machine with the build of e0414cc carried (build/device.tar.xz)
# and this script, run as: bash build/call_g1.sh
set -u
mkdir -p "$OUT/w"
rm -rf build/n && mkdir -p build/n && tar xJf build/device.tar.xz -C build/n
G=build/n/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT), parts: build/call_g1.sh (sgemm whole-row GEMV experiment)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  timeout 100 $G/gpulab bench sgemm -s 1x4096x4096 --variants library,vendor --no-cpu --json $OUT/w/base_$i.json > /dev/null 2>&1; echo "base $i exit $?"
  for v in 128:16 256:16 128:8 256:8 512:16 264:8; do
    b=${v%:*}; r=${v#*:}
    GPULAB_X_GEMV=$b GPULAB_X_RANKS=$r timeout 100 $G/gpulab bench sgemm -s 1x4096x4096 --variants library,vendor --no-cpu --no-ceilings --json $OUT/w/g${b}_${r}_$i.json > /dev/null 2>&1; echo "gemv $b $r $i exit $?"
  done
done
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
GPULAB_X_GEMV=256 GPULAB_X_RANKS=16 timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --kernel-name regex:"gemv|add_slices" --launch-count 2 $G/gpulab bench sgemm -s 1x4096x4096 --variants library --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_gemv.txt 2>&1; echo "ncu exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
