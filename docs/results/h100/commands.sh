# The call of this record, on the GPU machine with the build of 8075026 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o10.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
S=8192x8193x8192,8193,4097,2049x2047x1025,1025x4096x1025,5000x3000x700,4096x4097x4096,2049
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o10.sh (sgemm: every fringe of 1-8 rows or columns taken out of the tiles, beside the rule's)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GPULAB_EXP_FRINGE_ALL=1 timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
for r in 1 2; do
  $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/rule_$r.json > /dev/null; echo "rule $r exit $?"
  GPULAB_EXP_FRINGE_ALL=1 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/all_$r.json > /dev/null; echo "all $r exit $?"
done
for s in 8192x8193x8192 4097; do GPULAB_EXP_FRINGE_ALL=1 $B/gpulab run sgemm --variant library -s $s --reps 3 2>&1 | grep "^\* [a-z_]*[0-9<]\|Kernel" | head -8; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
