#!/usr/bin/env bash
# One H200, two builds in one call (branch exp/residues): A a63481f (the guard's test kernel leaving
# verdicts; column residues a 32-deep tile a block) and B d1c4a9b (column residues 4 consecutive tiles
# a block, the next loaded while one is made): ncu kernel times at 8192^3, bench NN 4096/8192 and TN 8192.
R=$OUT/results; mkdir -p $R
for v in A B; do tar xJf build/$v.tar.xz -C build && mv build/ci-device build/$v; done
export LD_LIBRARY_PATH=$PWD/build/A/devlibs:${LD_LIBRARY_PATH:-}
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
{
  echo "== $(date -u +%FT%TZ) commit A $(cat build/A/COMMIT) B $(cat build/B/COMMIT), parts: ncu 8192^3 ozaki2_guarded, bench NN 4096/8192, TN 8192, each build"
  for round in 1 2; do for v in A B; do
    G=build/$v/gpulab
    echo "-- $v round $round"
    [ $round = 1 ] && timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 13 --metrics gpu__time_duration.sum $G run sgemm -s 8192 --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
    timeout 100 $G bench sgemm -s 4096,8192 --variants ozaki2_guarded,library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/nn_${v}_$round.json > /dev/null 2>&1; echo "exit code: $?"
    summ $R/nn_${v}_$round.json
    timeout 100 $G bench sgemm -s 8192 --forms TN --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/tn_${v}_$round.json > /dev/null 2>&1; echo "exit code: $?"
    summ $R/tn_${v}_$round.json
  done; done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
