# The call of this record, on the GPU machine with the build of b23f88f carried (build/device.tar.xz)
# and this script, run as: bash build/call_s24.sh
set -u
mkdir -p "$OUT/w"
L=$OUT/w/log.txt
B=build/device
tar xJf build/device.tar.xz -C build
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s24.sh (initcheck of cuBLAS's strided-batched INT8 GEMM, 8 x 64x64x5008 as the Ozaki rung calls it, through CuPy; build/int8_initcheck2.py)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 build/int8_initcheck2.py; echo "plain exit $?"
timeout 200 compute-sanitizer --tool initcheck --print-limit 3 python3 build/int8_initcheck2.py > $OUT/w/initcheck_cublas.txt 2>&1; echo "initcheck exit $?"; grep -E "ERROR SUMMARY|products right|Uninitialized|at .*\+0x" $OUT/w/initcheck_cublas.txt | head -8
timeout 120 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum python3 build/int8_initcheck2.py 2>&1 | grep -E "^  [a-zA-Z_].*\(" | cut -c1-150 > $OUT/w/kernels_cublas.txt; cat $OUT/w/kernels_cublas.txt
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
