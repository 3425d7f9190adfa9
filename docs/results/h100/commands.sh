# The call of this record, on the GPU machine with the build of fd34b62 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s18.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s18.sh (ncu per-instruction stall samples of the library's kernel at 1000^3, warp_tiles 64x128x3)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 /usr/local/cuda/bin/ncu --section WarpStateStats --section SourceCounters --section LaunchStats --section SpeedOfLight --kernel-name-base demangled -k regex:'warp_tiles<.int.2, .int.2, .int.2, .int.2, .int.3' -c 1 -o $OUT/w/src_wt $B/gpulab bench sgemm -s 1000 --variants library --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_src_wt.txt 2>&1; echo "ncu exit $?"
timeout 100 /usr/local/cuda/bin/ncu -i $OUT/w/src_wt.ncu-rep --page source --csv --print-source sass > $OUT/w/sass_wt.csv 2>&1; echo "page exit $?"
timeout 100 /usr/local/cuda/bin/ncu -i $OUT/w/src_wt.ncu-rep --page details > $OUT/w/details_wt.txt 2>&1
rm -f $OUT/w/src_wt.ncu-rep
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
