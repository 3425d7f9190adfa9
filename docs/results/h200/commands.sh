# The call of this record, on the GPU machine with the build of 4b39ef9 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s1.sh
set -u
mkdir -p "$OUT/w"
rm -rf build/n && mkdir -p build/n && tar xJf build/device.tar.xz -C build/n
G=build/n/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT), parts: build/call_s1.sh (scan look-back polls paused)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $G/gpulab bench scan -n 2^24,2^28 -t int32,float64,int8 --variants library,vendor --no-cpu --json $OUT/w/base_0.json > /dev/null 2>&1; echo "base exit $?"
for i in 1 2; do
  for ns in 0 32 100 200 400; do
    if [ $ns = 0 ]; then E=""; else E="GPULAB_X_SLEEP=$ns"; fi
    env $E timeout 200 $G/gpulab bench scan -n 2^24,2^28 -t int32,float64,int8 --variants library --no-cpu --no-ceilings --json $OUT/w/sleep${ns}_$i.json > /dev/null 2>&1; echo "sleep $ns $i exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
