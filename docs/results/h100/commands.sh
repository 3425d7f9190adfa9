# The call of this record, on the GPU machine with the build of fd34b62 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s16.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s16.sh (initcheck of gpulab check sgemm as gpulab sanitize runs it: the sizes and paddings of sanitize, the Ozaki rung alone and after the tensor-core rungs)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1,17x33x65,129x65x257,64x64x5000,300x520x203
timeout 200 compute-sanitizer --tool initcheck --print-limit 4 $B/gpulab check sgemm -s $S --pad 0,1,3 --markers --variants ozaki2_int8 > $OUT/w/init_alone.txt 2>&1; echo "alone exit $? $(grep -m1 'ERROR SUMMARY' $OUT/w/init_alone.txt)"
timeout 300 compute-sanitizer --tool initcheck --print-limit 4 $B/gpulab check sgemm -s $S --pad 0,1,3 --markers --variants 12,13,14,15,16 > $OUT/w/init_after.txt 2>&1; echo "after exit $? $(grep -m1 'ERROR SUMMARY' $OUT/w/init_after.txt)"
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
