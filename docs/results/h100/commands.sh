# The call of this record, on the GPU machine with the build of fd34b62 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s17.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s17.sh (the kernels of the Ozaki rungs at 64x64x5000, 8 and 7 moduli, named by ncu: which cuBLAS kernel writes the products initcheck calls uninitialized)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in ozaki2_int8 ozaki2_int8_7; do
  timeout 120 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size $B/gpulab check sgemm --variants $v -s 64x64x5000,129x65x257 > $OUT/w/kernels_$v.txt 2>&1; echo "$v exit $?"
  grep -E "^  [a-zA-Z_].*\(" $OUT/w/kernels_$v.txt | cut -c1-160
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
