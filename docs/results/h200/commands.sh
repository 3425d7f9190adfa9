# The call of this record, on the GPU machine with the build of ea108cb carried (build/device.tar.xz)
# and this script, run as: bash build/call_r3.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) parts: build/call_r3.sh (scan look-back: windows loaded 1 or 4 at a time, beside 9f615cc's build; rungs 5, 7, 8, library, CUB; int32, float32, float64 at 2^24 and 2^28; twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in 9f615cc w1 w4; do rm -rf build/$t && mkdir -p build/$t && tar xJf build/device_$t.tar.xz -C build/$t; echo "$t: commit $(cat build/$t/device/COMMIT)"; done
for r in 1 2; do for t in 9f615cc w1 w4; do
timeout 100 build/$t/device/gpulab bench scan -n 2^24,2^28 -t int32,float32,float64 --variants decoupled_lookback,evict_first_stores,ring,library,vendor --no-cpu --no-ceilings --json $OUT/w/scan_${t}_$r.json --md $OUT/w/scan_${t}_$r.md > /dev/null; echo "bench $t $r exit $?"
done; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
