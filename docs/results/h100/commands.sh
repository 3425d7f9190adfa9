# The call of this record, on the GPU machine with the build of fd34b62 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s15.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s15.sh (initcheck of gpulab check sgemm, the Ozaki rungs at 300x520x203: which launch reads what)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in ozaki2_int8 ozaki2_int8_7; do for p in 0 1 3; do
  timeout 90 compute-sanitizer --tool initcheck --print-limit 3 $B/gpulab check sgemm --variants $v -s 300x520x203 --pad $p > $OUT/w/init_${v}_$p.txt 2>&1
  echo "$v pad $p exit $? $(grep -m1 'ERROR SUMMARY' $OUT/w/init_${v}_$p.txt)"
done; done
timeout 90 compute-sanitizer --tool initcheck --print-limit 3 $B/gpulab check sgemm --variants ozaki2_int8 -s 300x520x203,129x65x257 --pad 0,1,3 > $OUT/w/init_both.txt 2>&1; echo "both exit $? $(grep -m1 'ERROR SUMMARY' $OUT/w/init_both.txt)"
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
