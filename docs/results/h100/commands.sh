# The call of this record, on the GPU machine with the build of fd34b62 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s14.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s14.sh (initcheck of the Ozaki rung, 8 and 7 moduli, at 300x520x203 and the sanitize sizes, each padding: which launch reads what)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in ozaki2_int8 ozaki2_int8_7; do for s in 300x520x203 129x65x257 64x64x5000 17x33x65; do for p in 0 1 3; do
  timeout 60 compute-sanitizer --tool initcheck --print-limit 2 $B/gpulab run sgemm --variant $v -s $s --pad $p --reps 1 > $OUT/w/init_${v}_${s}_$p.txt 2>&1
  echo "$v $s pad $p exit $? errors: $(grep -m1 'ERROR SUMMARY' $OUT/w/init_${v}_${s}_$p.txt)"
done; done; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
