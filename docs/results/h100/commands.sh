# The call of this record, on the GPU machine with the build of 24cb302 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w4.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w4.sh"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Scan*:*ScanLadder*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 150 $B/gpulab sanitize scan --md $OUT/w/sanitize.md > /dev/null 2>&1; echo "sanitize exit $?"
grep -E "evict_first|library" $OUT/w/sanitize.md | head -5
for i in 1 2; do
  timeout 150 $B/gpulab bench scan -n 2^20,2^24,2^28 -t all --variants decoupled_lookback,evict_first_stores,library,vendor --no-cpu --reps 20 --json $OUT/w/scan_$i.json --md $OUT/w/scan_$i.md > /dev/null 2>&1; echo "scan $i exit $?"
done
for M in base cs base cs; do
  unset GPULAB_HIST_CS; [ $M = cs ] && export GPULAB_HIST_CS=1
  timeout 120 $B/gpulab bench histogram -n 2^24,2^26,2^28 -m 2^17,2^20 -d uniform --variants range_ranked,library --no-cpu --reps 10 --json $OUT/w/hist_${M}_$SECONDS.json > /dev/null 2>&1; echo "hist $M exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
