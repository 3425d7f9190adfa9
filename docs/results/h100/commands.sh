# The call of this record, on the GPU machine with the build of b23f88f carried (build/device.tar.xz)
# and this script, run as: bash build/call_s23.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
B=build/device
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s23.sh (initcheck of a 64x64x5008 INT8 product by PyTorch's torch._int_mm, then a kernel that reads it: does initcheck see cuBLAS's stores; build/int8_initcheck.py)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 build/int8_initcheck.py; echo "plain exit $?"
timeout 200 compute-sanitizer --tool initcheck --print-limit 3 python3 build/int8_initcheck.py > $OUT/w/initcheck_int_mm.txt 2>&1; echo "initcheck exit $?"; grep -E "ERROR SUMMARY|int_mm right" $OUT/w/initcheck_int_mm.txt
timeout 120 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum python3 build/int8_initcheck.py 2>&1 | grep -E "^  [a-zA-Z_].*\(" | cut -c1-150 > $OUT/w/kernels_int_mm.txt; cat $OUT/w/kernels_int_mm.txt
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
