# The call of this record, on the GPU machine with the build of 5c7a30b carried (build/device.tar.xz)
# and this script, run as: timeout 590 bash call2.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/c2"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call2.sh (the changed paths: tests, sanitizers, benches)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:MatrixLibrary.*:MatrixLadder.*add*:SgemmLibrary.*:SgemmLadder.*fragments*:SgemmLadder.*library*' --gtest_brief=1 --gtest_output=json:$OUT/c2/gpu_tests.json 2>&1 | tail -15
echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*' --gtest_brief=1 2>&1 | tail -4
  echo "$tool exit ${PIPESTATUS[0]}"
done
echo "== benches"
$B/gpulab bench add -s 100000x7,4096x4096 --layout pitched,packed --variants library,vendor --no-cpu --json $OUT/c2/add_narrow.json --md $OUT/c2/add_narrow.md > /dev/null; echo "add exit $?"
grep -A5 "100000x7" $OUT/c2/add_narrow.md | grep -E "library|geam"
$B/gpulab bench sgemm -s 4096,8192,4097,5000x3000x700,1x4096x4096,4096x1x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7 --variants library,vendor --no-cpu --reps 10 --json $OUT/c2/sgemm_library.json --md $OUT/c2/sgemm_library.md > /dev/null; echo "sgemm exit $?"
$B/gpulab bench histogram -n 2^20,2^22,2^24,2^26,2^28 -m 2^17,2^20,2^22,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,library --no-cpu --reps 10 --json $OUT/c2/hist_sampled.json --md $OUT/c2/hist_sampled.md > /dev/null; echo "histogram exit $?"
