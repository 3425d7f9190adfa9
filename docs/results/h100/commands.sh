# The call of this record, on the GPU machine with the build of 42d3c6c carried (build/device.tar.xz)
# and this script, run as: bash build/call_s26.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
mkdir -p build/base && tar xJf build/device_hz2.tar.xz -C build/base
L=$OUT/w/log.txt
S=512x512x4096,896x896x2048,768,1024,640,200x300x3000,128x128x8192,3000,2000x3000x1000,1536,8192x1024x4096,300x260x700
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s26.sh (sgemm medium products: the library beside 88758de's build, twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/new_$r.json --md $OUT/w/new_$r.md > /dev/null; echo "new $r exit $?"
  build/base/device/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/base_$r.json --md $OUT/w/base_$r.md > /dev/null; echo "base $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
