# The call of this record, on the GPU machine with the build of 817a674 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w17.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/it16
tar xJf build/device.tar.xz -C build
tar xJf build/device_it16.tar.xz -C build/it16
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w17.sh (scan tiles of 16 doubles, $(cat build/it16/device/COMMIT), beside 32)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for G in build/device build/it16/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench scan -n 2^20,2^24,2^28 -t float64 --variants decoupled_lookback,library,vendor --no-cpu --reps 20 --json $OUT/w/scan_$tag.json > /dev/null 2>&1; echo "scan $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
