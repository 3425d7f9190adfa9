# The call of this record, on the GPU machine with the build of 0477fb7 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w2.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w2.sh"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for PC in 0:- 0:cs 12:- 25:- 12:cs 25:cs 50:cs 0:- 25:cs; do
  P=${PC%%:*}; C=${PC##*:}
  if [ "$C" = cs ]; then export GPULAB_SCAN_CS=1; else unset GPULAB_SCAN_CS; fi
  GPULAB_SCAN_PREFETCH=$P timeout 120 $B/gpulab bench scan -n 2^24,2^28 -t int32,float64 --variants decoupled_lookback,vendor --no-cpu --reps 20 --json $OUT/w/scan_p${P}_${C}_$SECONDS.json > /dev/null 2>&1; echo "scan P=$P $C exit $?"
done
export GPULAB_SCAN_CS=1
for P in 12 25; do
GPULAB_SCAN_PREFETCH=$P timeout 150 $B/gpulab profile scan -n 2^28 -t int32 --variants decoupled_lookback --no-cpu --md $OUT/w/scan_ncu_p${P}_cs.md > /dev/null 2>&1; echo "profile scan p$P cs exit $?"
done
unset GPULAB_SCAN_CS
GPULAB_SCAN_PREFETCH=25 timeout 150 $B/gpulab profile scan -n 2^28 -t int32 --variants decoupled_lookback --no-cpu --md $OUT/w/scan_ncu_p25.md > /dev/null 2>&1; echo "profile scan p25 exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
