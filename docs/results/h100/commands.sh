# The call of this record, on the GPU machine with the build of af1c0a8 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h10.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" /tmp/hot
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h10.sh (ncu of rung 12: narrow against 256 random bins)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "
import numpy as np
rng = np.random.default_rng(26256)
v = rng.integers(-2**31, 2**31, size=256, dtype=np.int64).astype('<i4')
v[rng.integers(0, 256, size=1 << 26)].tofile('/tmp/hot/k256.bin')"
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_global_red.sum,lts__t_requests_srcunit_l1_op_red.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
timeout 60 /usr/local/cuda/bin/ncu --clock-control none -k regex:hot_cached --launch-count 1 --metrics $M $B/gpulab bench histogram -n 2^26 -m 2^20 -d narrow --variants hot_cached_global --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_narrow.txt 2>&1; echo "ncu narrow exit $?"
timeout 60 /usr/local/cuda/bin/ncu --clock-control none -k regex:hot_cached --launch-count 1 --metrics $M $B/gpulab bench histogram --input /tmp/hot/k256.bin -m 2^20 --variants hot_cached_global --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_k256.txt 2>&1; echo "ncu k256 exit $?"
for f in narrow k256; do echo "-- $f"; grep -E "^\s+(gpu__|smsp__|l1tex__|lts__|dram__)" $OUT/h/ncu_$f.txt | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//' -e 's/  */ /g'; done
echo "== done $(date -u +%FT%TZ)"
