# The call of this record, on the GPU machine with the build of 3b3e6dd carried (build/device.tar.xz)
# and this script, run as: bash build/call_x16.sh
set -u
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x16.sh (ncu of medium products)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in 1000 768 5000x3000x700; do
  timeout 150 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --metrics smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
    build/device/gpulab bench sgemm -s $s --variants library,vendor --no-cpu --no-ceilings --reps 1 --warmup 1 > $OUT/w/ncu_$s.txt 2>&1; echo "ncu $s exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
