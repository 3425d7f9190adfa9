# The call of this record, on the GPU machine with the build of b69e007 carried (build/device.tar.xz)
# and this script, run as: bash build/call_x1.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_0807959.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x1.sh (split-K for every m beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench sgemm -s 1x4096x4096,2x4096x4096,3x4096x4096,4x4096x4096,1x8192x8192,1x16384x16384,1x4096x16384,2x1024x1024 --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
G=build/device
timeout 120 ncu --kernel-name regex:'few_rows|add_slices|gemv|Kernel' --launch-skip 0 --launch-count 6 --section SpeedOfLight $G/gpulab bench sgemm -s 1x4096x4096 --variants library,vendor --no-cpu --no-ceilings --reps 1 --warmup 0 > $OUT/w/ncu_split_m1.txt 2>&1; echo "ncu exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
