#!/usr/bin/env bash
# One H200 (session 33): which tile configuration the library's tuner picks for the batch of 64 ×
# 1000×1000×64, N,N and N,T (d2b3d01), and its launches' times, twice.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: run sgemm --batch 64 -s 1000x1000x64 NN, NT (the tuner's pick), twice"
  for round in 1 2; do
    for f in NN NT; do
      timeout 60 $G run sgemm -s 1000x1000x64 --batch 64 --forms $f --variant library --reps 20 > $R/run_$f$round.txt 2>&1; echo "$f round $round exit code: $?"
      grep -iE "big_tiles|warp_tiles|ms|check" $R/run_$f$round.txt | head -8
    done
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
