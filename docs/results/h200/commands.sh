#!/usr/bin/env bash
# H200: Nsight Compute's counters of the fragments and staged rungs, NN against NT, 4096³.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: profile sgemm -s 4096 --forms NN,NT --variants fragments,staged"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  timeout 200 $G profile sgemm -s 4096 --forms NN,NT --variants fragments,staged --no-cpu --reps 3 --md $R/profile_sgemm_forms.md > $R/profile_sgemm_forms.txt 2>&1; echo "profile exit code: $?"
  grep -vE "^ +[0-9]+ +(fragments|staged)$" $R/profile_sgemm_forms.txt | tail -40 | cut -c1-220
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
