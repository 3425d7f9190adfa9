# The call of this record, on the GPU machine with the build of 07e67b1 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o5.sh
set -u
mkdir -p "$OUT/w" build/new
tar xJf build/device_new1.tar.xz -C build/new
N=build/new/device
L=$OUT/w/log.txt
S=5000x3000x700,4224x3000x700,776x3000x700,6144x6144x2048,5632x6144x2048,512x6144x2048,5000x3000x1400,4224x3000x1400,776x3000x1400
{
echo "== $(date -u +%FT%TZ) commit $(cat $N/COMMIT), parts: build/call_o5.sh (sgemm: a product's whole waves of 128x256 tiles and the rows left, timed as separate products)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  $N/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/parts_$r.json --md $OUT/w/parts_$r.md > /dev/null; echo "parts $r exit $?"
done
for s in 5000x3000x700 4224x3000x700 776x3000x700 512x6144x2048; do $N/gpulab run sgemm --variant library -s $s --reps 3 2>&1 | grep -v "^\* variant\|Check" | tail -4; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
