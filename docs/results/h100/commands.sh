# The call of this record, on the GPU machine with the build of 9503294 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o19.sh
set -u
mkdir -p "$OUT/w" build/base
tar xJf build/device.tar.xz -C build; tar xJf build/device_553f.tar.xz -C build/base
B=build/device; O=build/base/device
L=$OUT/w/log.txt
S=4097,2047x2049x2051,2049x2047x1025,1025x4097x1025,1537x1539x1541,3001,8193,8192x8193x8192,8192x8192x8193,4096,5000x3000x700
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o19.sh (sgemm odd rows: B alone copied from m >= 1024 or never, the staged kernels on 16-byte copies of B whatever A's rows; beside 553f63f's build $(cat $O/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
GPULAB_EXP_REUSE=1024 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.Odd*:SgemmLibrary.EveryTile*:SgemmLibrary.Fringe*' --gtest_brief=1 2>&1 | tail -2; echo "memcheck exit ${PIPESTATUS[0]}"
for r in 1 2; do
  GPULAB_EXP_REUSE=1024 $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/b1024_$r.json > /dev/null; echo "b1024 $r exit $?"
  GPULAB_EXP_REUSE=999999 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/never_$r.json > /dev/null; echo "never $r exit $?"
  $O/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/base_$r.json > /dev/null; echo "base $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
