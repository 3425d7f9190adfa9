# The call of this record, on the GPU machine with the build of 71cbe1c carried (build/device.tar.xz)
# and this script, run as: bash build/call_o20.sh
set -u
mkdir -p "$OUT/w" build/base
tar xJf build/device.tar.xz -C build; tar xJf build/device_553f.tar.xz -C build/base
B=build/device; O=build/base/device
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o20.sh (scan float64: the look-back kernel at 3 blocks an SM with spills, beside 553f63f's build $(cat $O/COMMIT), twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Scan*:*ScanLadder*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
for r in 1 2; do
  $B/gpulab bench scan -t float64 --variants decoupled_lookback,evict_first_stores,library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/new_$r.json > /dev/null; echo "new $r exit $?"
  $O/gpulab bench scan -t float64 --variants decoupled_lookback,evict_first_stores,library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/base_$r.json > /dev/null; echo "base $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
