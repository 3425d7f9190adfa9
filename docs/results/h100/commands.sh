# The call of this record, on the GPU machine with the build of 82d2e25 carried (build/device.tar.xz)
# and this script, run as: bash build/call_c1.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device_82d2.tar.xz -C build
tar xJf build/device_553f.tar.xz -C build/old
G=build/device; O=build/old/device
export LD_LIBRARY_PATH=$PWD/$G/devlibs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT) (before: $(cat $O/COMMIT)), parts: build/call_c1.sh (conv realigned lanes)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 $G/tests/gpulab_gpu_tests --gtest_filter='Conv*' --gtest_brief=1 2>&1 | tail -15
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 $G/tests/gpulab_gpu_tests --gtest_filter='ConvLibrary.RowsAtAnyOffset*:All/ConvLadder.*small_realigned*' --gtest_brief=1 2>&1 | tail -6
P=12345x6789,4097x4097,3841x2161,1921x1081,1001x333,256x256
for i in 1 2; do
  timeout 100 $G/gpulab bench conv -s $P --variants shared_tile,realigned_lanes,library,vendor --no-cpu --json $OUT/w/packed_new_$i.json > $OUT/w/packed_new_$i.txt 2>&1; echo "new packed $i exit $?"
  timeout 100 $O/gpulab bench conv -s $P --variants library --no-cpu --json $OUT/w/packed_old_$i.json > $OUT/w/packed_old_$i.txt 2>&1; echo "old packed $i exit $?"
  timeout 100 $G/gpulab bench conv -s 12345x6789,7680x4320,3840x2160 --layout aligned --variants lanes,realigned_lanes,library,vendor --no-cpu --json $OUT/w/aligned_$i.json > $OUT/w/aligned_$i.txt 2>&1; echo "aligned $i exit $?"
done
timeout 200 $G/gpulab sanitize conv --md $OUT/w/sanitize_conv.md --json $OUT/w/sanitize_conv.json > $OUT/w/sanitize_conv.txt 2>&1; echo "sanitize conv exit $?"; tail -5 $OUT/w/sanitize_conv.txt
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
