# The call of this record, on the GPU machine with the build of 3aa6775 carried (build/device.tar.xz)
# and this script, run as: bash build/call_t6.sh
set -u
mkdir -p "$OUT/w" build/n
tar xJf build/device.tar.xz -C build/n
B=build/n/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_t6.sh (gpulab sanitize transpose, every rung)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PATH=/usr/local/cuda/bin:$PATH
timeout 400 $B/gpulab sanitize transpose --json $OUT/w/sanitize_transpose.json --md $OUT/w/sanitize_transpose.md > $OUT/w/sanitize_transpose.txt 2>&1; echo "sanitize transpose exit $?"
tail -25 $OUT/w/sanitize_transpose.txt
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
