# The call of this record, on the GPU machine with the build of 63d33df carried (build/device.tar.xz)
# and this script, run as: bash build/call_x12.sh
set -u
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat build/device/COMMIT), parts: build/call_x12.sh (split count forced)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1024,1000,2048x1024x1024,768,1536,512x512x4096,2048x2048x512,1024x2048x2048,200x300x3000,512x256x2048
for sp in 1 2 3 4 6 8; do
  GPULAB_X_SPLITS=$sp timeout 100 build/device/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/splits_$sp.json > /dev/null 2>&1; echo "splits $sp exit $?"
done
timeout 100 build/device/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/splits_rule.json > /dev/null 2>&1; echo "rule exit $?"
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
