# The call of this record, on the GPU machine with the build of d551f65 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w16.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/lb5
tar xJf build/device.tar.xz -C build
tar xJf build/device_lb5.tar.xz -C build/lb5
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w16.sh (transpose rung 7 at 5 blocks an SM, $(cat build/lb5/device/COMMIT), beside 4)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  for G in build/device build/lb5/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench transpose -s 16383x16385,8191x8193,4095x4097 --layout packed --variants tile_realigned,library,vendor --no-cpu --reps 20 --json $OUT/w/tr_$tag.json > /dev/null 2>&1; echo "transpose $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
