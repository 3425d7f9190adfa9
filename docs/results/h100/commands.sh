# The call of this record, on the GPU machine with the build of 5dcc9f0 carried (build/device.tar.xz)
# and this script, run as: bash build/call_r7.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) parts: build/call_r7.sh (scan: the ticket drawn without a fence, beside 2b85e63 (H100); rungs 5, 6, 7, library, CUB, five types at 2^20, 2^24, 2^28; twice; scan GPU tests)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in 2b85 draw; do rm -rf build/$t && mkdir -p build/$t && tar xJf build/device_$t.tar.xz -C build/$t; echo "$t: commit $(cat build/$t/device/COMMIT)"; done
timeout 200 build/draw/device/tests/gpulab_gpu_tests --gtest_filter='*ScanLadder*decoupled*:*ScanLadder*staged*:*ScanLadder*evict*:*ScanLadder*library*:ScanLibrary.*:ScanLadderHuge.*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 build/draw/device/tests/gpulab_gpu_tests --gtest_filter='ScanLibrary.*' --gtest_brief=1 > $OUT/w/memcheck_scan.txt 2>&1; echo "memcheck exit $?"; tail -3 $OUT/w/memcheck_scan.txt
for r in 1 2; do for t in 2b85 draw; do
timeout 120 build/$t/device/gpulab bench scan -n 2^20,2^24,2^28 -t all --variants decoupled_lookback,staged,evict_first_stores,library,vendor --no-cpu --no-ceilings --json $OUT/w/scan_${t}_$r.json --md $OUT/w/scan_${t}_$r.md > /dev/null; echo "bench $t $r exit $?"
done; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
