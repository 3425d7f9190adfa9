# The call of this record, on the GPU machine with the build of d7a1774 carried (build/device.tar.xz)
# and this script, run as: bash build/call_r8.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_r8.sh (scan with the ticket drawn without a fence: rungs 5, 7, library, CUB, five types at 2^20, 2^24, 2^28, with the ceilings and a copy of the same size)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 $B/gpulab bench scan -n 2^20,2^24,2^28 -t all --variants decoupled_lookback,evict_first_stores,library,vendor --no-cpu --json $OUT/w/scan_library.json --md $OUT/w/scan_library.md > /dev/null; echo "bench exit $?"
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
