# The call of this record, on the GPU machine with the build of 9438155 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s21.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s21.sh (the sgemm GPU tests at the stop's last code; the tuner's picks on this GPU)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
for s in 4096 8192 2048 1536 1000 6144x6144x2048 5000x3000x700 4097 3000x3000x3000; do
  timeout 60 $B/gpulab run sgemm --variant library -s $s --reps 3 2>&1 | grep -E "^sgemm|^\* (big|warp|add|few|Time)" ; echo "run $s exit ${PIPESTATUS[0]}"
done > $OUT/w/tuner_picks.txt 2>&1
grep -c "exit 0" $OUT/w/tuner_picks.txt
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
