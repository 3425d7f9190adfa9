# One call on one H200 (build/callAW.sh, not kept; its text):
#!/usr/bin/env bash
# One H200 (2026-11-28, session 27): issue 67's scan guesses (branch wip/scan-guess) and the
# sgemm helpers' refactor (wip/sgemm-copies-helpers), both in exp 7a40a7e, against main b2ee523's CLI.
set -u
for p in exp-cli main-cli; do tar xJf build/$p.tar.xz -C build; done
E=build/exp-device; M=build/ci-device
export LD_LIBRARY_PATH=$PWD/$E/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
{
  echo "== $(date -u +%FT%TZ) commit $(cat $E/COMMIT) (exp) beside $(cat $M/COMMIT) (main), parts: scan guesses, ncu, sgemm helpers A/B"
  for t in int32 float32 float64; do
    echo "-- scan $t 2^28"; $E/gpulab bench scan -n 2^28 -t $t --variants evict_first_stores,prefetch_guess,count_misses,vendor --reps 30 --no-cpu --json $R/scan_$t.json > $R/scan_$t.txt 2>&1; grep -vE "^  [0-9v][a-z0-9]* [a-zA-Z_:]+$" $R/scan_$t.txt | tail -8
  done
  for v in evict_first_stores prefetch_guess count_misses; do
    echo "-- ncu $v"
    timeout 90 ncu --metrics gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      --launch-count 1 $E/gpulab run scan -n 2^28 -t int32 --variant $v --reps 1 2>&1 | grep -E "duration|atom|global_ld|op_ld|op_read|bytes_read|throughput" | tee $R/ncu_$v.txt
  done
  for round in 1 2; do
    for b in main exp; do
      X=$M; [ $b = exp ] && X=$E
      echo "-- sgemm $b round $round"
      $X/gpulab bench sgemm -s 4096,1024,4097,5000x3000x700,1x4096x4096,8x4096x4096,64x64x2^20 --variants warp_tiles,fragments,library,vendor --reps 20 --no-cpu --no-ceilings --json $R/sgemm_${b}_$round.json > $R/sgemm_${b}_$round.txt 2>&1; grep -vE "^  [0-9v][a-z0-9]* [a-zA-Z_:]+$" $R/sgemm_${b}_$round.txt | head -70
    done
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
