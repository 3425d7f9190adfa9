# The call of this record, on the GPU machine with the build of 0c097fa carried (build/device.tar.xz)
# and this script, run as: timeout 590 bash call7.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/c7"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call7.sh (copy_rows: tests, memcheck, conv bench)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 $B/tests/gpulab_gpu_tests --gtest_filter='CopyRows.*:ConvLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/c7/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 50 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='CopyRows.Many*:CopyRows.Nothing*:ConvLibrary.LargeUnaligned*' --gtest_brief=1 2>&1 | tail -2
echo "memcheck exit ${PIPESTATUS[0]}"
timeout 40 $B/gpulab bench conv -s 12345x6789,4097x4097,3841x2161,1921x1081 --layout packed --variants shared_tile,library,vendor --no-cpu --json $OUT/c7/conv_staged.json --md $OUT/c7/conv_staged.md > /dev/null; echo "conv exit $?"
echo "== done $(date -u +%FT%TZ)"
