# The call of this record, on the GPU machine with the build of b913406 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s11.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s11.sh (sgemm: which tile configuration the library's tuner picks, shape by shape, each launch printed)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in 4096 8192 2048 1536 1024 1000 768 6144x6144x2048 5000x3000x700 4097 2048x2048x512 3000x3000x3000 2000x3000x1000 8192x1024x4096 640 512x512x4096; do
  timeout 60 $B/gpulab run sgemm --variant library -s $s --reps 3 2>&1 | grep -E "^sgemm|^\* (big|warp|add|few|Time)" ; echo "run $s exit ${PIPESTATUS[0]}"
done > $OUT/w/tuner_picks.txt 2>&1
grep -c "exit 0" $OUT/w/tuner_picks.txt
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
