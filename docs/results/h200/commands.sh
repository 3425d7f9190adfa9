# The call of this record, on the GPU machine with the build of ef0316c carried (build/device.tar.xz)
# and this script, run as: bash build/call_t5.sh
set -u
mkdir -p "$OUT/w" build/n
tar xJf build/device.tar.xz -C build/n
{
echo "== $(date -u +%FT%TZ) commit $(cat build/n/device/COMMIT), parts: build/call_t5.sh (transpose rungs 6-8 on packed odd widths, 257x255 to 3001x2999)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=build/n/device; c=$(cut -c1-7 $B/COMMIT)
for i in 1 2; do
  timeout 150 $B/gpulab bench transpose -s 257x255,513x511,1000x999,1025x1023,1500x1501,2047x2049,2500x2501,3001x2999 --layout packed --variants tile_vector_4x4,tile_realigned,tile_realigned_strips,library,vendor --no-cpu --reps 30 --json $OUT/w/tr_${c}_$i.json > /dev/null 2>&1; echo "$c packed $i exit $?"
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
