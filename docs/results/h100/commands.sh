# The call of this record, on the GPU machine with the build of 9bbb289 carried (build/device.tar.xz)
# and this script, run as: bash build/call_r11.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(tar xJf build/device_hw.tar.xz -O device/COMMIT), parts: build/call_r11.sh (histogram: halfword_shared after the zeroing kernel as a dependent, beside 88758de's build: GPU tests, m = 16384 and 65536 at n = 2^20 to 2^26, uniform and degenerate, with a same-size copy, twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in hz2 hw; do rm -rf build/$t && mkdir -p build/$t && tar xJf build/device_$t.tar.xz -C build/$t; echo "$t: commit $(cat build/$t/device/COMMIT)"; done
timeout 200 build/hw/device/tests/gpulab_gpu_tests --gtest_filter='*Histogram*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
for r in 1 2; do for t in hz2 hw; do
timeout 150 build/$t/device/gpulab bench histogram -n 2^20,2^22,2^24,2^26 -m 16384,65536 -d uniform,degenerate --variants halfword_shared,library --no-cpu --json $OUT/w/hist_${t}_$r.json --md $OUT/w/hist_${t}_$r.md > /dev/null; echo "bench $t $r exit $?"
done; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
