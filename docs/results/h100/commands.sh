# The call of this record, on the GPU machine with the build of ef0316c carried (build/device.tar.xz)
# and this script, run as: bash build/call_t4.sh
set -u
mkdir -p "$OUT/w" build/n build/o
tar xJf build/device.tar.xz -C build/n; tar xJf build/device_87de.tar.xz -C build/o
{
echo "== $(date -u +%FT%TZ) commit $(cat build/n/device/COMMIT), parts: build/call_t4.sh (transpose rung 8, strip by strip, the library's path), beside the build of $(cat build/o/device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for b in o n; do
    B=build/$b/device; c=$(cut -c1-7 $B/COMMIT)
    V=tile_realigned,library,vendor
    [ $b = n ] && V=tile_realigned,tile_realigned_strips,library,vendor
    timeout 150 $B/gpulab bench transpose -s 16383x16385,8191x8193,4095x4097,3001x2999,2047x2049,5x4194305 --layout packed --variants $V --no-cpu --reps 20 --json $OUT/w/tr_${c}_$i.json > /dev/null 2>&1; echo "$c packed $i exit $?"
  done
done
timeout 300 build/n/device/tests/gpulab_gpu_tests --gtest_filter='*Matrix*' --gtest_brief=1 2>&1 | tail -3
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck build/n/device/tests/gpulab_gpu_tests --gtest_filter='*small_transpose_tile_realigned*:MatrixLibrary.LargeOdd*' --gtest_brief=1 2>&1 | tail -3
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
