#!/usr/bin/env bash
# One H200, two builds (branch exp/residues): B d1c4a9b (column residues 4 consecutive tiles a block)
# and C 1a1f73d (8 a block; the gated split 16 blocks an SM): ncu kernel times at 8192^3 (both) and
# 4096^3 (C), guard_test's scheduler and warp-state sections (C), bench NN 4096/8192 and TN 8192.
R=$OUT/results; mkdir -p $R
for v in B C; do tar xJf build/$v.tar.xz -C build && mv build/ci-device build/$v; done
export LD_LIBRARY_PATH=$PWD/build/B/devlibs:${LD_LIBRARY_PATH:-}
summ() {
python3 - $1 <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('cublasSgemm')
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, {k:round(r/x,3) for k,x in t.items() if r})
PY
}
times() {
  timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $1 run sgemm -s $2 --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
}
{
  echo "== $(date -u +%FT%TZ) commit B $(cat build/B/COMMIT) C $(cat build/C/COMMIT), parts: ncu times 8192^3 (B, C) and 4096^3 (C), guard_test sections (C), bench NN 4096/8192, TN 8192, two rounds"
  for v in B C; do echo "-- $v 8192^3"; times build/$v/gpulab 8192; done
  echo "-- C 4096^3"; times build/C/gpulab 4096
  echo "-- C guard_test sections"
  timeout 100 ncu --clock-control none -k regex:guard_test --launch-count 1 --section SchedulerStats --section WarpStateStats --section Occupancy --section SpeedOfLight build/C/gpulab run sgemm -s 8192 --variant ozaki2_guarded --reps 1 2>&1 | grep -vE "^==PROF==|^\s*$|----" | tail -60 | cut -c1-110
  for round in 1 2; do for v in B C; do
    G=build/$v/gpulab
    echo "-- $v round $round"
    timeout 100 $G bench sgemm -s 4096,8192 --variants ozaki2_wgmma,ozaki2_guarded,library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/nn_${v}_$round.json > /dev/null 2>&1; echo "exit code: $?"
    summ $R/nn_${v}_$round.json
    timeout 100 $G bench sgemm -s 8192 --forms TN --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/tn_${v}_$round.json > /dev/null 2>&1; echo "exit code: $?"
    summ $R/tn_${v}_$round.json
  done; done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
