# The call of this record, on the GPU machine with the build of 105b227 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w18.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_817a674.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w18.sh (add_slices as a dependent launch beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.FewRows*:SgemmLibrary.TunedRule*' --gtest_brief=1 2>&1 | tail -2; echo "$tool exit ${PIPESTATUS[0]}"
done
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench sgemm -s 8x4096x4096,8x1024x1024,2x1024x1024,8x2048x8192,1x2048x8192,1x1024x65536,64x64x2^20,5x8192x8192,1x4096x4096 --variants library,vendor --no-cpu --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
