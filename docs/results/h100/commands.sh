# The call of this record, on the GPU machine with the build of 40c34dd carried (build/device.tar.xz)
# and this script, run as: bash build/call_r1.sh
set -u
mkdir -p "$OUT/w" build/n
tar xJf build/device.tar.xz -C build/n
B=build/n/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_r1.sh (the GPU tests the review touched)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 $B/tests/gpulab_gpu_tests --gtest_filter='MatrixLibrary.*:ConvLibrary.*:ScanLibrary.*:*MatrixLadder*realigned*' --gtest_brief=1 2>&1 | tail -4
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
