# The call of this record, on the GPU machine with the build of b23f88f carried (build/device.tar.xz)
# and this script, run as: bash build/call_s22.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
mkdir -p build/i32 build/i24 && tar xJf build/device_i32.tar.xz -C build/i32 && tar xJf build/device_i24.tar.xz -C build/i24
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s22.sh (scan tiles of 48, 32 and 24 items a thread for 4-byte values, the builds of b23f88f, 67d4330 and d95fc1b: library and CUB from 2^20 to 2^28, with a same-size copy, twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
  for v in device:i48 i32/device:i32 i24/device:i24; do
    d=${v%%:*}; t=${v#*:}; bin=build/$d/gpulab; [ "$d" = device ] && bin=$B/gpulab
    $bin bench scan -n 2^20,2^22,2^24,2^26,2^28 -t int32,float32 --variants library,vendor --no-cpu --reps 20 --json $OUT/w/${t}_$r.json --md $OUT/w/${t}_$r.md > /dev/null 2>&1; echo "$t $r exit $?"
  done
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
