# The call of this record, on the GPU machine with the build of 3a5465d carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_s1.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/f"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s1.sh (L2 flush by writing or reading; the sampled histogram's kernels)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for mode in write read write2 read2; do
  export GPULAB_FLUSH=${mode%2}
  timeout 60 $B/gpulab bench reduce -n 2^20,2^22,2^24 -t int32,float64 --variants library,vendor --no-cpu --json $OUT/f/reduce_$mode.json > /dev/null; echo "reduce $mode exit $?"
  timeout 60 $B/gpulab bench scan -n 2^20,2^22,2^24 -t int32 --variants library,vendor --no-cpu --json $OUT/f/scan_$mode.json > /dev/null; echo "scan $mode exit $?"
  timeout 60 $B/gpulab bench histogram -n 2^22,2^24 -m 256,2^20 -d uniform,degenerate --variants hot_cached_global,range_ranked,library,vendor --no-cpu --json $OUT/f/hist_$mode.json > /dev/null; echo "hist $mode exit $?"
  timeout 60 $B/gpulab bench sgemm --shapes 1x4096x4096,4096x1x4096,1000x1000x1000 --variants library,vendor --no-cpu --json $OUT/f/sgemm_$mode.json > /dev/null; echo "sgemm $mode exit $?"
done
unset GPULAB_FLUSH
which nsys && timeout 90 nsys profile -o /tmp/hs --force-overwrite true $B/gpulab bench histogram -n 2^24 -m 2^20 -d degenerate,uniform --variants library --no-cpu --no-ceilings --reps 10 > /dev/null 2>&1 && nsys stats --report cuda_gpu_trace --format csv -o $OUT/f/nsys /tmp/hs.nsys-rep > /dev/null 2>&1; echo "nsys exit $?"
timeout 120 ncu --metrics gpu__time_duration.sum --csv -k regex:'sample|hot_cached|partition|Scan|count' $B/gpulab bench histogram -n 2^24 -m 2^20 -d degenerate,uniform --variants library --no-cpu --no-ceilings --reps 3 > $OUT/f/ncu_hist.csv 2>/dev/null; echo "ncu exit $?"
tar czf $OUT/f.tgz -C $OUT f && rm -rf $OUT/f; echo "== done $(date -u +%FT%TZ)"
