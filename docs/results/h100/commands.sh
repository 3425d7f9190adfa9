# The call of this record, on the GPU machine with the build of 544ce15 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w9.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w9.sh (few-rows split-K forced at m = 5, 8; scan int8 library)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  timeout 200 $B/gpulab bench sgemm -s 8x2048x8192,8x4096x4096,8x8192x8192,8x16384x4096,8x4096x16384,5x4096x4096,5x8192x8192,6x16384x4096,3x4096x4096,8x1024x1024 --variants library,gemv_split32,gemv_split64,gemv_split128,vendor --no-cpu --reps 20 --json $OUT/w/split_$i.json --md $OUT/w/split_$i.md > /dev/null 2>&1; echo "split $i exit $?"
done
timeout 150 $B/gpulab bench scan -t int8 -n 2^24,2^26,2^27,2^28 --variants staged,evict_first_stores,library,vendor --no-cpu --reps 20 --json $OUT/w/scan_int8.json --md $OUT/w/scan_int8.md > /dev/null 2>&1; echo "scan int8 exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
