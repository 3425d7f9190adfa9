# The call of this record, on the GPU machine with the build of 076219a carried (build/device.tar.xz)
# and this script, run as: bash build/call_x9.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_0807959.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x9.sh (add_slices forms beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=8x4096x4096,8x2048x8192,5x8192x8192,6x16384x4096,4x4096x4096
for i in 1 2 3; do
  timeout 100 build/old/device/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 30 --json $OUT/w/old_$i.json > /dev/null 2>&1; echo "old $i exit $?"
  timeout 100 build/device/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 30 --json $OUT/w/new_$i.json > /dev/null 2>&1; echo "new $i exit $?"
  GPULAB_X_OLD=1 timeout 100 build/device/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 30 --json $OUT/w/newold_$i.json > /dev/null 2>&1; echo "newold $i exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
