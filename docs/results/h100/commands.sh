# The call of this record, on the GPU machine with the build of 2eff0be carried (build/device.tar.xz)
# and this script, run as: bash build/call_o7.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o7.sh (sgemm: the staged and fragments rungs at 8192³ and 4096³ with rows padded by 0, 4, 8, 32 floats)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  $B/gpulab bench sgemm -s 8192 --pad 0,4,8,32 --variants fragments,staged,vendor --no-cpu --no-ceilings --reps 5 --json $OUT/w/pad8k_$r.json > /dev/null; echo "8k $r exit $?"
  $B/gpulab bench sgemm -s 4096 --pad 0,4,8,32 --variants fragments,staged,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/pad4k_$r.json > /dev/null; echo "4k $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
