# The call of this record, on the GPU machine with the build of fedf375 carried (build/device.tar.xz)
# and this script, run as: bash build/call_r12.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_r12.sh (gpulab sanitize scan histogram: every rung of both at the small edge sizes under memcheck, racecheck, synccheck, initcheck)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 230 $B/gpulab sanitize scan histogram --md $OUT/w/sanitize.md --json $OUT/w/sanitize.json > $OUT/w/sanitize.txt 2>&1; echo "sanitize exit $?"; tail -5 $OUT/w/sanitize.txt
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
