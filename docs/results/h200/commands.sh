# The call of this record, on the GPU machine with the build of 40c34dd carried (build/device.tar.xz)
# and this script, run as: bash build/call_v7.sh
set -u
mkdir -p "$OUT/w"
rm -rf build/o && mkdir -p build/o && tar xJf build/device_40c3.tar.xz -C build/o
A=build/o/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $A/COMMIT), parts: build/call_v7.sh (ncu cache control and the lanes' no-instruction stalls)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
M=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in 3840x2160 7680x4320; do
  for cc in all none; do
    timeout 120 /usr/local/cuda/bin/ncu --clock-control none --cache-control $cc --metrics $M --kernel-name regex:lanes --launch-skip 2 --launch-count 3 $A/gpulab bench conv -s $s --variants lanes --no-cpu --no-ceilings --reps 3 --warmup 2 --e2e-reps 1 > $OUT/w/ncu_lanes_${s}_$cc.txt 2>&1; echo "ncu $s $cc exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
