# The calls of this record, each on the GPU machine with the build of e1a4cb7 carried (scripts/test.sh's build/device.tar.xz)
bash build/call_w7.sh  # one call: the lines below, then the device_run.sh line that ends it
# call_w7.sh: set -u
# call_w7.sh: B=build/device
# call_w7.sh: mkdir -p "$OUT/x"
# call_w7.sh: tar xJf build/device.tar.xz -C build
# call_w7.sh: {
# call_w7.sh: echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w7.sh (scan GPU tests, ncu of scan rungs 5, 7 and CUB at 2^28), then device_run.sh notests suite"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# call_w7.sh: timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Scan*:*ScanLadder*' --gtest_brief=1 --gtest_output=json:$OUT/x/scan_gpu_tests.json 2>&1 | tail -3
# call_w7.sh: echo "scan tests exit ${PIPESTATUS[0]}"
# call_w7.sh: timeout 150 $B/gpulab profile scan -n 2^28 -t int32,float64 --variants decoupled_lookback,evict_first_stores,vendor --no-cpu --md $OUT/x/scan_ncu.md --json $OUT/x/scan_ncu.json > /dev/null 2>&1; echo "profile scan exit $?"
# call_w7.sh: grep -E "^\| (5|7|vendor) " $OUT/x/scan_ncu.md | cut -c1-150
# call_w7.sh: echo "== $(date -u +%FT%TZ) extras done"
# call_w7.sh: } 2>&1 | tee $OUT/x/log.txt
# call_w7.sh: tar czf $OUT/x.tgz -C $OUT x && rm -rf $OUT/x
# call_w7.sh: GPULAB_BIN=$B bash scripts/device_run.sh notests suite
