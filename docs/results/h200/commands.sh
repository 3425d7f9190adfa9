# The call of this record, on the GPU machine with the build of b67059d carried (build/device.tar.xz)
# and this script, run as: bash build/call_w13.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/b384
tar xJf build/device.tar.xz -C build
tar xJf build/device_b384.tar.xz -C build/b384
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w13.sh (scan tiles of 384 threads, $(cat build/b384/device/COMMIT), beside 256)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for G in build/device build/b384/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench scan -n 2^24,2^28 -t int32,float32,float64 --variants decoupled_lookback,evict_first_stores,library,vendor --no-cpu --reps 20 --json $OUT/w/scan_$tag.json > /dev/null 2>&1; echo "scan $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
