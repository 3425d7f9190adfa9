# The call of this record, on the GPU machine with the build of 015f253 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o11.sh
set -u
mkdir -p "$OUT/w" build/new build/before
tar xJf build/device_new2.tar.xz -C build/new; tar xJf build/device_new1.tar.xz -C build/before
N=build/new/device; O=build/before/device
L=$OUT/w/log.txt
S=4096,8192,4097,5000x3000x700,1x4096x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7,4096x1x4096,8193,8192x8193x8192,2047x2049x2051,2049x2047x1025
{
echo "== $(date -u +%FT%TZ) commit $(cat $N/COMMIT), parts: build/call_o11.sh (sgemm: every fringe taken from 2^34 multiply-adds; the issue's shapes and odd ones beside 07e67b1's build $(cat $O/COMMIT), twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $N/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $N/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.Fringe*:SgemmLibrary.Odd*' --gtest_brief=1 2>&1 | tail -2; echo "memcheck exit ${PIPESTATUS[0]}"
for r in 1 2; do
  $N/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/new_$r.json --md $OUT/w/new_$r.md > /dev/null; echo "new $r exit $?"
  $O/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/before_$r.json > /dev/null; echo "before $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
