# The call of this record, on the GPU machine with the build of 565a1b4 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w14.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_b67059d.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w14.sh (the shallow path beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.ShallowPath*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 150 $G/gpulab bench sgemm -s 3000x5000x7,3000x5000x16,3000x5000x1,4096x4096x8,1024x1024x7,16384x16384x4,2048x2048x16,5000x3000x17,3000x5000x700 --variants library,vendor --no-cpu --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
