# The call of this record, on the GPU machine with the build of 9db095f carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s13.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/s"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s13.sh (scan rungs 5 and 6, the library and CUB, float32 and float64)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  timeout 120 $B/gpulab bench scan -t float32,float64 -n 2^24,2^28 --variants 5,6,library,vendor --no-cpu --json $OUT/s/scan_$round.json --md $OUT/s/scan_$round.md > /dev/null; echo "scan $round exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/s/log.txt
cp $OUT/s/log.txt $OUT/log.txt
tar czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
