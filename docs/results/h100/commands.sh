# The call of this record, on the GPU machine with the build of c5c6581 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o2.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
S=4097,2049x2047x1025,2047x2049x2051,8193,8192x8193x8192,8192x8192x8193
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o2.sh (sgemm odd rows: A alone copied to 32-byte rows, k windows on sectors; the staged kernel at 4096³ with rows padded by 0, 4, 8)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GPULAB_EXP_REALIGN=a8 timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "tests a8 exit ${PIPESTATUS[0]}"
for tool in memcheck initcheck; do GPULAB_EXP_REALIGN=a8 timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.Odd*' --gtest_brief=1 2>&1 | tail -2; echo "$tool exit ${PIPESTATUS[0]}"; done
for r in 1 2; do
 for mode in both none a8; do
  GPULAB_EXP_REALIGN=$mode $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/${mode}_tuner_$r.json > /dev/null; echo "$mode tuner $r exit $?"
 done
 for c in 6 9; do
  GPULAB_EXP_CONFIG=$c $B/gpulab bench sgemm -s 4096 --pad 0,4,8 --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/pad_c${c}_$r.json > /dev/null; echo "pad c$c $r exit $?"
 done
done
for mode in a8 none; do GPULAB_EXP_REALIGN=$mode $B/gpulab run sgemm --variant library -s 4097 --reps 3 2>&1 | tail -8; done
GPULAB_EXP_REALIGN=a8 $B/gpulab run sgemm --variant library -s 8193 --reps 3 2>&1 | tail -8
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
