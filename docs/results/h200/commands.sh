# The call of this record, on the GPU machine with the build of 4e99018 carried (build/device.tar.xz)
# and this script, run as: bash build/call_c8.sh
set -u
mkdir -p "$OUT/w" build/f build/i
tar xJf build/device_f.tar.xz -C build/f; tar xJf build/device_j.tar.xz -C build/i
{
echo "== $(date -u +%FT%TZ) commit $(cat build/i/device/COMMIT), parts: build/call_c8.sh (conv lanes in one-warp blocks beyond one wave), beside the build of $(cat build/f/device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P=12345x6789,4097x4097,3841x2161,1921x1081,1001x333
A=3840x2160,7680x4320,15360x8640,12345x6789,4097x4097,1920x1080,2560x1440
for i in 1 2; do
  for b in f i; do
    B=build/$b/device; n=$(cut -c1-7 $B/COMMIT)
    timeout 100 $B/gpulab bench conv -s $P --variants realigned_lanes,library,vendor --no-cpu --json $OUT/w/unaligned_${n}_$i.json > /dev/null 2>&1; echo "$n unaligned $i exit $?"
    timeout 100 $B/gpulab bench conv -s $A --layout aligned --variants lanes,realigned_lanes,library,vendor --no-cpu --json $OUT/w/aligned_${n}_$i.json > /dev/null 2>&1; echo "$n aligned $i exit $?"
  done
done
timeout 100 build/i/device/gpulab bench conv -s 3840x2160,7680x4320 --kernel gaussian --layout aligned --variants library,vendor --no-cpu --json $OUT/w/gaussian.json > /dev/null 2>&1; echo "gaussian exit $?"
timeout 240 build/i/device/tests/gpulab_gpu_tests --gtest_filter='*Conv*' --gtest_brief=1 2>&1 | tail -3
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck build/i/device/tests/gpulab_gpu_tests --gtest_filter='ConvLibrary.LargeAligned*' --gtest_brief=1 2>&1 | tail -3
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
