# The call of this record, on the GPU machine with the build of 42d3c6c carried (build/device.tar.xz)
# and this script, run as: bash build/call_s25.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s25.sh (gpulab sanitize sgemm: every rung, the staged one among them, at the small sizes and 300x520x203 under memcheck, racecheck, synccheck, initcheck)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 $B/gpulab sanitize sgemm --md $OUT/w/sanitize.md --json $OUT/w/sanitize.json > $OUT/w/sanitize.txt 2>&1; echo "sanitize exit $?"; tail -5 $OUT/w/sanitize.txt
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
