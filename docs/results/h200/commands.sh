# The call of this record, on the GPU machine with the build of f2576d0 carried (build/device.tar.xz)
# and this script, run as: bash build/call_c5.sh
set -u
mkdir -p "$OUT/w" build/old
tar xJf build/device_f.tar.xz -C build
tar xJf build/device_553f.tar.xz -C build/old
G=build/device; O=build/old/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT) (before: $(cat $O/COMMIT)), parts: build/call_c5.sh (conv realigned lanes as kept)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 $G/tests/gpulab_gpu_tests --gtest_filter='*Conv*' --gtest_brief=1 2>&1 | tail -4
for t in memcheck initcheck; do
  timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool $t --error-exitcode 9 $G/tests/gpulab_gpu_tests --gtest_filter='ConvLibrary.RowsAtAnyOffset*' --gtest_brief=1 2>&1 | tail -3; echo "$t exit $?"
done
P=12345x6789,4097x4097,3841x2161,1921x1081,1001x333
for i in 1 2; do
  timeout 100 $G/gpulab bench conv -s $P --variants shared_tile,realigned_lanes,library,vendor --no-cpu --json $OUT/w/unaligned_$i.json --md $OUT/w/unaligned_$i.md > /dev/null 2>&1; echo "new unaligned $i exit $?"
  timeout 100 $O/gpulab bench conv -s $P --variants library --no-cpu --json $OUT/w/unaligned_553f63f_$i.json > /dev/null 2>&1; echo "old unaligned $i exit $?"
  timeout 100 $G/gpulab bench conv -s 3840x2160,7680x4320,15360x8640 --layout aligned --variants lanes,realigned_lanes,library,vendor --no-cpu --json $OUT/w/aligned_$i.json --md $OUT/w/aligned_$i.md > /dev/null 2>&1; echo "aligned $i exit $?"
done
timeout 200 $G/gpulab sanitize conv --md $OUT/w/sanitize_conv.md --json $OUT/w/sanitize_conv.json > $OUT/w/sanitize_conv.txt 2>&1; echo "sanitize conv exit $?"; grep -E "realigned|library" $OUT/w/sanitize_conv.txt
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
