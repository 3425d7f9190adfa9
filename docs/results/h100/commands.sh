# The call of this record, on the GPU machine with the build of 8e78a69 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w1.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w1.sh"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for P in 0 100 50 200 0 100; do
  GPULAB_SCAN_PREFETCH=$P timeout 120 $B/gpulab bench scan -n 2^24,2^28 -t int32,float32,float64 --variants decoupled_lookback,vendor --no-cpu --reps 20 --json $OUT/w/scan_p${P}_$SECONDS.json > /dev/null 2>&1; echo "scan P=$P exit $?"
done
for i in 1 2; do
  timeout 120 $B/gpulab bench sgemm -s 1x4096x4096,1x16384x16384,4x4096x4096,1x1024x1024,8x4096x4096 --variants library,gemv_split32,gemv_split64,gemv_split128,vendor --no-cpu --reps 20 --json $OUT/w/gemv_$i.json --md $OUT/w/gemv_$i.md > /dev/null 2>&1; echo "gemv $i exit $?"
done
timeout 150 $B/gpulab profile sgemm -s 1x4096x4096 --variants library,gemv_split32,gemv_split64,vendor --no-cpu --md $OUT/w/gemv_ncu.md --json $OUT/w/gemv_ncu.json > $OUT/w/gemv_ncu.txt 2>&1; echo "profile exit $?"
GPULAB_SCAN_PREFETCH=100 timeout 150 $B/gpulab profile scan -n 2^28 -t int32 --variants decoupled_lookback,vendor --no-cpu --md $OUT/w/scan_ncu_p100.md > /dev/null 2>&1; echo "profile scan p100 exit $?"
timeout 150 $B/gpulab profile scan -n 2^28 -t int32 --variants decoupled_lookback,vendor --no-cpu --md $OUT/w/scan_ncu_p0.md > /dev/null 2>&1; echo "profile scan p0 exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
