# The call of this record, on the GPU machine with the build of cf1ce37 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s18.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/v"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s18.sh (the review's refactors: sgemm and histogram-library tests, a reduce bench)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*:HistogramLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/v/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 60 $B/gpulab bench reduce -n 2^20,2^24 -t int32 --variants library,vendor --no-cpu --json $OUT/v/reduce.json --md $OUT/v/reduce.md > /dev/null; echo "reduce exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/v/log.txt
cp $OUT/v/log.txt $OUT/log.txt
tar czf $OUT/v.tgz -C $OUT v && rm -rf $OUT/v
