# The calls of this record, each on the GPU machine with the build of e222c3b carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
timeout 180 bash build/extras.sh 2>&1 | tee $OUT/extras_log.txt   # the same call, after device_run.sh: extras_log.txt, extras_gpu_tests_summary.txt; its benches were cut by the 180 s
# then, on the same warm machine (a second call, the build still unpacked):
build/device/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,library --no-cpu --reps 10 --json $OUT/extras/hist_sampled.json --md $OUT/extras/hist_sampled.md
build/device/gpulab bench conv -s 12345x6789,7680x4320,4097x4097,3841x2161 --layout packed --variants shared_tile,library,vendor --no-cpu --json $OUT/extras/conv_staged.json --md $OUT/extras/conv_staged.md
# build/extras.sh, as it ran:
#   # After device_run.sh in the same call: the new library paths' tests, sanitizers and benches.
#   set -u
#   B=build/device
#   mkdir -p "$OUT/extras"
#   echo "== $(date -u +%T) extras: tests, memcheck and initcheck of the new library paths; histogram and conv benches"
#   timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*gpulab__histogram*:*HistogramLadder*range_partitioned*:ConvLibrary.*:*ConvLadder*library*' --gtest_brief=1 --gtest_output=json:$OUT/extras/gpu_tests.json 2>&1 | tail -4
#   echo "tests exit ${PIPESTATUS[0]}"
#   for tool in memcheck initcheck; do
#     compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*:ConvLibrary.LargeUnaligned*' --gtest_brief=1 2>&1 | tail -2
#     echo "$tool exit ${PIPESTATUS[0]}"
#   done
#   $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,library --no-cpu --reps 10 --json $OUT/extras/hist_sampled.json --md $OUT/extras/hist_sampled.md > /dev/null; echo "histogram exit $?"
#   $B/gpulab bench conv -s 12345x6789,7680x4320,4097x4097,3841x2161 --layout packed --variants shared_tile,library,vendor --no-cpu --json $OUT/extras/conv_staged.json --md $OUT/extras/conv_staged.md > /dev/null; echo "conv exit $?"
#   echo "== done $(date -u +%FT%TZ)"
