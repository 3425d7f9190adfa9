# The call of this record, on the GPU machine with the build of d5e8cd6 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_a.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/a"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_a.sh (sgemm FMA orders: tests, bench; conv band sweep)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='*SgemmLadder.rows_*:*SgemmLadder.small_rows_*:*SgemmLadder.blocks_*:*SgemmLadder.small_blocks_*:*SgemmLadder.fragments_*' --gtest_brief=1 --gtest_output=json:$OUT/a/gpu_tests.json 2>&1 | tail -5
echo "tests exit ${PIPESTATUS[0]}"
echo "== sgemm orders"
$B/gpulab bench sgemm -s 4096,8192,4097,1000,5000x3000x700 --variants fragments,rows,blocks,library,vendor --no-cpu --reps 10 --json $OUT/a/sgemm_orders.json --md $OUT/a/sgemm_orders.md > /dev/null; echo "sgemm exit $?"
echo "== conv band sweep"
for b in default 2 3 4 5 6 7 8 10 12; do
  if [ $b = default ]; then unset GPULAB_LANE_BAND_ROWS; else export GPULAB_LANE_BAND_ROWS=$b; fi
  $B/gpulab bench conv -s 1920x1080,3840x2160,7680x4320 --variants lanes,vendor --no-cpu --no-ceilings --reps 30 --json $OUT/a/conv_band_$b.json > /dev/null; echo "band $b exit $?"
done
unset GPULAB_LANE_BAND_ROWS
tar czf $OUT/a.tgz -C $OUT a && rm -rf $OUT/a; echo "== done $(date -u +%FT%TZ)"
