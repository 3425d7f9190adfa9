# The calls of this record, each on the GPU machine with the build of 1ac6835 carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
bash build/extras.sh > $OUT/extras_log.txt 2>&1  # the same call, after device_run.sh: build/extras.sh below
# extras.sh: set -u
# extras.sh: B=build/device
# extras.sh: mkdir -p "$OUT/extras" build/b875
# extras.sh: [ -x build/b875/device/gpulab ] || tar xJf build/device_875.tar.xz -C build/b875
# extras.sh: echo "== $(date -u +%T) extras: tests and sanitize of histogram and transpose; histogram grid beside $(cat build/b875/device/COMMIT)"
# extras.sh: timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*:*MatrixLadder*transpose*:MatrixLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/extras/gpu_tests.json 2>&1 | tail -3
# extras.sh: echo "tests exit ${PIPESTATUS[0]}"
# extras.sh: timeout 100 $B/gpulab sanitize histogram transpose --md $OUT/extras/sanitize.md > /dev/null 2>&1; echo "sanitize exit $?"
# extras.sh: H="histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10"
# extras.sh: timeout 120 $B/gpulab bench $H --json $OUT/extras/hist_ranked.json --md $OUT/extras/hist_ranked.md > /dev/null; echo "histogram exit $?"
# extras.sh: timeout 120 build/b875/device/gpulab bench $H --json $OUT/extras/hist_875.json --md $OUT/extras/hist_875.md > /dev/null; echo "histogram 875 exit $?"
# extras.sh: timeout 60 $B/gpulab bench histogram -n 2^24,2^26 -m 256,2^20 -d uniform --variants range_partitioned,range_ranked,library,vendor --no-cpu --reps 20 --json $OUT/extras/hist_vendor.json --md $OUT/extras/hist_vendor.md > /dev/null; echo "vendor exit $?"
# extras.sh: timeout 60 $B/gpulab bench transpose -s 16383x16385,16385x16383,8191x8193,4095x4097 --layout packed --variants 6,7,library,vendor --no-cpu --json $OUT/extras/transpose_odd.json --md $OUT/extras/transpose_odd.md > /dev/null; echo "transpose exit $?"
# extras.sh: tar czf $OUT/extras.tgz -C $OUT extras && rm -rf $OUT/extras; echo "== extras done $(date -u +%FT%TZ)"
GPULAB_BIN=build/device bash scripts/device_run.sh tests
