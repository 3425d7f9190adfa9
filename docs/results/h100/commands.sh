# The call of this record, on the GPU machine with the build of bb0a70e carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s10.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/t"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s10.sh (the histogram library's tests, plain and under memcheck)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram.*:HistogramLibrary.*:HistogramHuge.*' --gtest_brief=1 --gtest_output=json:$OUT/t/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 5 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck library tests exit ${PIPESTATUS[0]}"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/t/log.txt
cp $OUT/t/log.txt $OUT/log.txt
tar czf $OUT/t.tgz -C $OUT t && rm -rf $OUT/t
