# The call of this record, on the GPU machine with the build of 33a4cd4 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o13.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
S=4097,2047x2049x2051,2049x2047x1025,8193,8192x8193x8192,3001x3001x3001,1025x4096x1025
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o13.sh (sgemm odd rows: copied by copy_rows or cudaMemcpy2DAsync, or not copied)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GPULAB_EXP_REALIGN=force timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
GPULAB_EXP_REALIGN=force timeout 150 compute-sanitizer --tool initcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.Odd*' --gtest_brief=1 2>&1 | tail -2; echo "initcheck exit ${PIPESTATUS[0]}"
for r in 1 2; do
  GPULAB_EXP_REALIGN=force $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/rows_$r.json > /dev/null; echo "rows $r exit $?"
  GPULAB_EXP_REALIGN=force GPULAB_EXP_MEMCPY2D=1 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/m2d_$r.json > /dev/null; echo "m2d $r exit $?"
  GPULAB_EXP_REALIGN=never $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/never_$r.json > /dev/null; echo "never $r exit $?"
done
for e in "" "GPULAB_EXP_MEMCPY2D=1"; do env GPULAB_EXP_REALIGN=force $e $B/gpulab run sgemm --variant library -s 4097 --reps 3 2>&1 | grep "^\* [a-z_]*[0-9<]\|Kernel" | head -8; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
