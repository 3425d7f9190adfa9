# The call of this record, on the GPU machine with the build of a16a748 carried (build/device.tar.xz)
# and this script, run as: bash build/call_x10.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_0807959.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x10.sh (few rows, split-K beside $(cat build/old/device/COMMIT); sgemm tests, memcheck, synccheck)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1x4096x4096,4x4096x4096,8x4096x4096,1x1024x1024,2x1024x1024,8x1024x1024,1x2048x8192,1x1024x65536,1x16384x16384,5x8192x8192,6x16384x4096,8x2048x8192,1x512x8192,3x700x3000,64x64x2^20,64x64x5000,128x128x8192,256x256x4096,100x100x10000,512x256x2048,200x300x3000,8x1024x8192,6x1024x4096,8x1024x16384,8x3072x4096,5x512x65536,1024,4097,5000x3000x700,2^16x64x64
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 150 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
G=build/device
timeout 240 $G/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $G/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.FewRows*:SgemmLibrary.TunedRule*:SgemmLibrary.EveryTile*' --gtest_brief=1 2>&1 | tail -2; echo "$tool exit ${PIPESTATUS[0]}"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
