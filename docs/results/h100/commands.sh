# The call of this record, on the GPU machine with the build of 9361131 carried (build/device.tar.xz)
# and this script, run as: bash build/call_c6.sh
set -u
mkdir -p "$OUT/w" build/f build/g build/h
tar xJf build/device_f.tar.xz -C build/f; tar xJf build/device_g.tar.xz -C build/g; tar xJf build/device_h.tar.xz -C build/h
{
echo "== $(date -u +%FT%TZ) commit $(cat build/h/device/COMMIT), parts: build/call_c6.sh (conv lanes in one-warp blocks), beside the builds of $(cat build/g/device/COMMIT) and $(cat build/f/device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P=12345x6789,4097x4097,3841x2161,1921x1081,1001x333
A=3840x2160,7680x4320,15360x8640,12345x6789,4097x4097,1920x1080
for i in 1 2; do
  for b in f g h; do
    B=build/$b/device; n=$(cut -c1-7 $B/COMMIT)
    timeout 100 $B/gpulab bench conv -s $P --variants realigned_lanes,library,vendor --no-cpu --json $OUT/w/unaligned_${n}_$i.json > /dev/null 2>&1; echo "$n unaligned $i exit $?"
    timeout 100 $B/gpulab bench conv -s $A --layout aligned --variants lanes,realigned_lanes,vendor --no-cpu --json $OUT/w/aligned_${n}_$i.json > /dev/null 2>&1; echo "$n aligned $i exit $?"
  done
done
timeout 200 build/h/device/tests/gpulab_gpu_tests --gtest_filter='*realigned*:*library*:*_lanes_*:ConvLibrary*' --gtest_brief=1 2>&1 | tail -3
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
