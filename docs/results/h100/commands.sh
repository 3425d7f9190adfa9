# The call of this record, on the GPU machine with the build of 9583a11 carried (build/device.tar.xz)
# and this script, run as: bash build/call_x8.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_0807959.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x8.sh (few rows, split-K beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1x4096x4096,4x4096x4096,8x4096x4096,1x1024x1024,2x1024x1024,8x1024x1024,1x2048x8192,1x1024x65536,1x16384x16384,5x8192x8192,6x16384x4096,8x2048x8192,1x512x8192,3x700x3000,64x64x2^20,64x64x5000,128x128x8192,256x256x4096,100x100x10000,512x256x2048,200x300x3000,8x1024x8192,6x1024x4096
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
G=build/device
for f in split:0 cluster:16; do
  c=${f#*:}; [ "$c" = 0 ] && unset GPULAB_X_COUNT || export GPULAB_X_COUNT=$c
  GPULAB_X_FORM=${f%:*} timeout 100 $G/gpulab bench sgemm -s 8x1024x8192,8x1024x16384,8x1024x32768,6x1024x16384,5x1024x32768 --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/forced_${f/:/_}.json > /dev/null 2>&1; echo "forced $f exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
