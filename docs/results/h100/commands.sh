# The calls of this record, each on the GPU machine with the build of 553f63f carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
GPULAB_BIN=build/device bash scripts/device_run.sh tests
bash build/call_o18.sh  # one call: the lines below
# call_o18.sh: set -u
# call_o18.sh: B=build/device
# call_o18.sh: mkdir -p "$OUT/w"
# call_o18.sh: tar xJf build/device.tar.xz -C build
# call_o18.sh: L=$OUT/w/log.txt
# call_o18.sh: {
# call_o18.sh: echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o18.sh (gpulab sanitize sgemm: every rung at the small sizes and 300x520x203 under memcheck, racecheck, synccheck, initcheck, with the remapped 4-byte staged copies)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# call_o18.sh: timeout 560 $B/gpulab sanitize sgemm --md $OUT/w/sanitize.md --json $OUT/w/sanitize.json > $OUT/w/sanitize.txt 2>&1; echo "sanitize exit $?"; tail -5 $OUT/w/sanitize.txt
# call_o18.sh: } > $L 2>&1
# call_o18.sh: tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
