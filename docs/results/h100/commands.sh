# The call of this record, on the GPU machine with the build of f0f8eca carried (build/device.tar.xz)
# and this script, run as: timeout 590 bash call3.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/c3"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call3.sh (the changed paths: tests, sanitizers, benches)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 300 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*gpulab__histogram*:*HistogramLadder*range_partitioned*:*HistogramLadder*hot_cached*:Conv*:*ConvLadder*library*:*SgemmLadder*fragments*:*SgemmLadder*library*:Sgemm*:Matrix*' --gtest_brief=1 --gtest_output=json:$OUT/c3/gpu_tests.json 2>&1 | tail -15
echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*:ConvLibrary.LargeUnaligned*' --gtest_brief=1 2>&1 | tail -4
  echo "$tool exit ${PIPESTATUS[0]}"
done
echo "== benches"
$B/gpulab bench conv -s 12345x6789,3841x2161,1921x1081,1025x1025,7680x4320 --layout packed,aligned --variants shared_tile,lanes,library,vendor --no-cpu --json $OUT/c3/conv_staged.json --md $OUT/c3/conv_staged.md > /dev/null; echo "conv exit $?"
$B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,library --no-cpu --reps 10 --json $OUT/c3/hist_sampled.json --md $OUT/c3/hist_sampled.md > /dev/null; echo "histogram exit $?"
