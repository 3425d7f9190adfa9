# The call of this record, on the GPU machine with the build of 88758de carried (build/device.tar.xz)
# and this script, run as: bash build/call_r10.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(tar xJf build/device_hz2.tar.xz -O device/COMMIT), parts: build/call_r10.sh (histogram: replicated_shared after a zeroing kernel as a dependent, beside 2b85e63's build: GPU tests, memcheck, m = 8, 256, 4096 at n = 2^20 to 2^26 with a same-size copy, twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in 2b85 hz2; do rm -rf build/$t && mkdir -p build/$t && tar xJf build/device_$t.tar.xz -C build/$t; echo "$t: commit $(cat build/$t/device/COMMIT)"; done
timeout 200 build/hz2/device/tests/gpulab_gpu_tests --gtest_filter='*Histogram*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 build/hz2/device/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.TheFewBin*:*HistogramLadder*packed_registers*:*HistogramLadder*replicated_shared*' --gtest_brief=1 > $OUT/w/memcheck_histogram.txt 2>&1; echo "memcheck exit $?"; tail -2 $OUT/w/memcheck_histogram.txt
for r in 1 2; do for t in 2b85 hz2; do
timeout 150 build/$t/device/gpulab bench histogram -n 2^20,2^22,2^24,2^26 -m 8,256,4096 -d uniform --variants packed_registers,replicated_resident,library,vendor --no-cpu --json $OUT/w/hist_${t}_$r.json --md $OUT/w/hist_${t}_$r.md > /dev/null; echo "bench $t $r exit $?"
done; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
