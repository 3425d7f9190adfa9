# The call of this record, on the GPU machine with the build of 2b85e63 carried (build/device.tar.xz)
# and this script, run as: bash build/call_x17.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_3b3e.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x17.sh (64x128 tiles beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1000,1024,768,896x896x2048,512x512x4096,1536,640,2048x1024x1024,2048x2048x512,1024x2048x2048,300x260x700,200x300x3000,4096,5000x3000x700,4097,3000x5000x7
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 200 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
timeout 200 build/device/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
