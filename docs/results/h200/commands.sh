# The call of this record, on the GPU machine with the build of 8062460 carried (build/device.tar.xz)
# and this script, run as: bash build/call_r5.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) parts: build/call_r5.sh (scan rung 7's per-tile timeline: int32 2^24 and 2^28, float64 and int8 2^28)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf build/tl && mkdir -p build/tl && tar xJf build/device_timeline.tar.xz -C build/tl; echo "commit $(cat build/tl/device/COMMIT)"
for c in "int32 2^28" "int32 2^24" "float64 2^28" "int8 2^28" "float32 2^28"; do set -- $c
GPULAB_SCAN_TIMELINE=$OUT/w/timeline_$1_$2.bin timeout 60 build/tl/device/gpulab bench scan -n $2 -t $1 --variants evict_first_stores --no-cpu --no-ceilings --reps 5 --warmup 1 --md $OUT/w/bench_$1_$2.md > /dev/null; echo "timeline $1 $2 exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
