# The call of this record, on the GPU machine with the build of 3ca2be8 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s17.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/g" build/b79
tar xJf build/device.tar.xz -C build
tar xJf build/device_79de50c.tar.xz -C build/b79
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s17.sh (the few-rows cluster kernel with 16 warps a block, beside $(cat build/b79/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/g/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
S="sgemm --shapes 1x4096x4096,2x4096x4096,4x4096x4096,8x4096x4096,1x16384x16384,1x1024x1024,3x4097x4097,4096x1x4096 --variants library,vendor --no-cpu"
for round in 1 2; do
  for build in b79/device device; do
    tag=$(cut -c1-7 build/$build/COMMIT)_$round
    timeout 90 build/$build/gpulab bench $S --json $OUT/g/gemv_$tag.json --md $OUT/g/gemv_$tag.md > /dev/null; echo "gemv $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/g/log.txt
cp $OUT/g/log.txt $OUT/log.txt
tar czf $OUT/g.tgz -C $OUT g && rm -rf $OUT/g
