#!/usr/bin/env bash
# One H200 (session 30): kernel times of the unguarded and the guarded Ozaki rungs at 8192^3.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu kernel times, ozaki2_wgmma and ozaki2_guarded at 8192^3"
  for v in ozaki2_wgmma ozaki2_guarded; do
    echo "-- $v"
    timeout 200 ncu --clock-control none --kernel-name regex:"norms|facts_of|residues|int8_products|reconstruct|fix_up" --launch-count 9 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second $G run sgemm -s 8192 --variant $v --reps 1 2>&1 | grep -E "^  [a-z_:<>A-Za-z0-9 ]+\(|gpu__time_duration|per_second" | sed -E 's/\(GemmArgs.*|\(const .*|\(float.*|\(__grid.*|\(Resid.*|\(gpulab.*//' | cut -c1-120
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
