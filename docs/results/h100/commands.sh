# The call of this record, on the GPU machine with the build of 0807959 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w21.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w21.sh (scan GPU tests after the review)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='Scan*:*ScanLadder*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 100 $B/gpulab bench scan -n 2^24 -t int32,int8 --variants 5,6,7,library,vendor --no-cpu --reps 10 --md $OUT/w/scan.md > /dev/null 2>&1; echo "bench exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
