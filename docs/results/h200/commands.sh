# The call of this record, on the GPU machine with the build of 9f615cc carried (build/device.tar.xz)
# and this script, run as: bash build/call_r1.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_r1.sh (scan rung 8, the ring of two groups: tests, then rungs 7, 8, library, CUB by type and size, twice)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='*ScanLadder*ring*:ScanLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -6
echo "tests exit ${PIPESTATUS[0]}"
for r in 1 2; do
timeout 120 $B/gpulab bench scan -n 2^20,2^24,2^28 -t int32,float32,float64,int8,int16 --variants evict_first_stores,ring,library,vendor --no-cpu --no-ceilings --json $OUT/w/scan_ring$r.json --md $OUT/w/scan_ring$r.md > /dev/null; echo "bench $r exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
