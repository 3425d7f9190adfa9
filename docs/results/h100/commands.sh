# The call of this record, on the GPU machine with the build of bcf93bc carried (build/device.tar.xz)
# and this script, run as: bash build/call_x19.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_2b85.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x19.sh (tuner rounds beside $(cat build/old/device/COMMIT), three processes each)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=64x64x5000,300x260x700,768,200x300x3000,512x512x4096,1000,128x128x8192,100x100x10000,896x896x2048,640
for i in 1 2 3; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
timeout 100 build/device/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*' --gtest_brief=1 2>&1 | tail -3
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
