# The call of this record, on the GPU machine with the build of 2e33526 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w3.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w3.sh"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for M in base cs ld csld base cs; do
  unset GPULAB_SCAN_CS GPULAB_SCAN_LDCS
  case $M in cs) export GPULAB_SCAN_CS=1;; ld) export GPULAB_SCAN_LDCS=1;; csld) export GPULAB_SCAN_CS=1 GPULAB_SCAN_LDCS=1;; esac
  timeout 120 $B/gpulab bench scan -n 2^24,2^28 -t int32,float32,float64 --variants decoupled_lookback,vendor --no-cpu --reps 20 --json $OUT/w/scan_${M}_$SECONDS.json > /dev/null 2>&1; echo "scan $M exit $?"
done
unset GPULAB_SCAN_CS GPULAB_SCAN_LDCS
for M in base cs base cs; do
  unset GPULAB_TRANSPOSE_CS; [ $M = cs ] && export GPULAB_TRANSPOSE_CS=1
  timeout 120 $B/gpulab bench transpose -s 16383x16385,8191x8193 --layout packed --variants tile_realigned,library,vendor --no-cpu --reps 20 --json $OUT/w/tr_${M}_$SECONDS.json > /dev/null 2>&1; echo "transpose $M exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
