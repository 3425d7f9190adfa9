# The call of this record, on the GPU machine with the build of ea11aee carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_g.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/g"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_g.sh (transpose rungs 6 and 7 on packed odd widths, small to large, twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
$B/gpulab bench transpose -s 257x255,513x515,1000x999,1025x1023,2047x2049,3001x2999,4095x4097,8191x8193,16383x16385,16384x16385 --layout packed --variants 6,7,library,vendor --no-cpu --json $OUT/g/transpose_sweep$r.json --md $OUT/g/transpose_sweep$r.md > /dev/null; echo "transpose $r exit $?"
done
tar czf $OUT/g.tgz -C $OUT g && rm -rf $OUT/g; echo "== done $(date -u +%FT%TZ)"
