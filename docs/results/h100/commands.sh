# The call of this record, on the GPU machine with the build of de5e6c9 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o1.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
S=4097,2049x2047x1025,2047x2049x2051,2051x2053x301,8193
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o1.sh (sgemm odd rows: staged 4-byte copies without the realigned copies)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.EveryTileConfiguration*:SgemmLibrary.Odd*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
for r in 1 2; do
 for mode in both none b; do
  GPULAB_EXP_REALIGN=$mode $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/${mode}_tuner_$r.json > /dev/null; echo "$mode tuner $r exit $?"
 done
 for mode in both none; do for c in 6 9; do
  GPULAB_EXP_CONFIG=$c GPULAB_EXP_REALIGN=$mode $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/${mode}_c${c}_$r.json > /dev/null; echo "$mode c$c $r exit $?"
 done; done
done
GPULAB_EXP_REALIGN=none $B/gpulab run sgemm --variant library -s 4097 --reps 3 2>&1 | tail -15
GPULAB_EXP_REALIGN=both $B/gpulab run sgemm --variant library -s 4097 --reps 3 2>&1 | tail -15
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
