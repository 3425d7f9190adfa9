# The call of this record, on the GPU machine with the build of a82d3ad carried (build/device.tar.xz)
# and this script, run as: bash build/call_x5.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_0807959.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x5.sh (ncu of few_rows and add_slices beside $(cat build/old/device/COMMIT); depth forced)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for G in build/old/device build/device; do
  tag=$(cut -c1-7 $G/COMMIT)
  timeout 150 ncu --kernel-name regex:'few_rows|add_slices' --launch-count 4 --section SpeedOfLight --section LaunchStats --section Occupancy --metrics smsp__cycles_active.avg,gpu__time_duration.sum,lts__t_bytes.sum,dram__bytes_read.sum $G/gpulab bench sgemm -s 8x4096x4096,5x8192x8192 --variants library --no-cpu --no-ceilings --reps 1 --warmup 0 > $OUT/w/ncu_$tag.txt 2>&1; echo "ncu $tag exit $?"
done
for dep in 1 2 4 8; do
  GPULAB_X_DEPTH=$dep timeout 100 build/device/gpulab bench sgemm -s 8x4096x4096,5x8192x8192,6x16384x4096,64x64x2^20 --variants library --no-cpu --no-ceilings --reps 20 --json $OUT/w/depth_$dep.json > /dev/null 2>&1; echo "depth $dep exit $?"
done
timeout 100 build/old/device/gpulab bench sgemm -s 8x4096x4096,5x8192x8192,6x16384x4096,64x64x2^20 --variants library --no-cpu --no-ceilings --reps 20 --json $OUT/w/depth_old.json > /dev/null 2>&1; echo "old exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
