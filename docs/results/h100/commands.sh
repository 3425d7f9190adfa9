# The call of this record, on the GPU machine with the build of 8a87b2c carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s15.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/r" build/b9d
tar xJf build/device.tar.xz -C build
tar xJf build/device_9db095f.tar.xz -C build/b9d
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s15.sh (rung 12 with and without the sample's one-lane dedup, beside $(cat build/b9d/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
H="histogram -n 2^26 -m 8,256,4096,2^20 -d uniform,narrow,degenerate --variants hot_cached_global --no-cpu --reps 20"
for round in 1 2; do
  for build in b9d/device device; do
    tag=$(cut -c1-7 build/$build/COMMIT)_$round
    timeout 90 build/$build/gpulab bench $H --json $OUT/r/rung12_$tag.json > /dev/null; echo "rung12 $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/r/log.txt
cp $OUT/r/log.txt $OUT/log.txt
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
