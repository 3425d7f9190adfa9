# The call of this record, on the GPU machine with the build of 1b3e963 carried (build/device.tar.xz)
# and this script, run as: bash build/call_r2.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
NCU=/usr/local/cuda/bin/ncu
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_r2.sh (ncu of scan rung 8, the ring, int32 2^28: full set, source-level stall samples)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $NCU --kernel-name regex:scan_ring --launch-count 1 --set full --import-source no -o $OUT/w/ring_int32 $B/gpulab bench scan -n 2^28 -t int32 --variants ring --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_run.txt 2>&1; echo "ncu exit $?"
$NCU -i $OUT/w/ring_int32.ncu-rep --page details > $OUT/w/ring_details.txt 2>&1; echo "details exit $?"
$NCU -i $OUT/w/ring_int32.ncu-rep --page source --print-source sass --csv > $OUT/w/ring_source.csv 2>&1; echo "source exit $?"
ls -la $OUT/w
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
