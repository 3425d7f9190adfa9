# The call of this record, on the GPU machine with the build of 110c891 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s1.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s1.sh (sgemm big tiles fed by cp.async into stages: tests, memcheck, forced configurations beside the register-staged ones)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*:*SgemmLadder*a128x*:*SgemmLadder*a64x*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.EveryTileConfiguration*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
for r in 1 2; do
$B/gpulab bench sgemm -s 1000,768,1536,512x512x4096,4096,8192,4097,5000x3000x700 --variants f128x256,a128x256,f128x128,a128x128,f64x128,a64x128,library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/forced_$r.json --md $OUT/w/forced_$r.md > /dev/null; echo "bench $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
