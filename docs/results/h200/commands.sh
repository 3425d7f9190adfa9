# The call of this record, on the GPU machine with the build of 3b3e6dd carried (build/device.tar.xz)
# and this script, run as: bash build/call_x14.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_a16.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x14.sh (split count beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1024,1000,2048x1024x1024,768,1536,512x512x4096,2048x2048x512,1024x2048x2048,200x300x3000,512x256x2048,256x256x4096,200x200x4097,300x260x700,640x640x640,896x896x2048,64x64x5000,128x128x8192,64x64x2^20,4097,5000x3000x700
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 150 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
timeout 200 build/device/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 build/device/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.FewRows*:SgemmLibrary.TunedRule*:SgemmLibrary.EveryTile*' --gtest_brief=1 2>&1 | tail -2; echo "memcheck exit ${PIPESTATUS[0]}"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
