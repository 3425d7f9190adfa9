#!/usr/bin/env bash
# One H200, build D eb2370e (branch exp/residues: column norms 32 row lanes with four loads in flight,
# residue steps of 4): ncu kernel times at 4096^3 and 8192^3; the Ozaki rule's edge swept (rung 17
# against 3xTF32 and the library, k >= 4096, 2^36 multiply-adds and near), two rounds.
R=$OUT/results; mkdir -p $R
tar xJf build/D.tar.xz -C build && mv build/ci-device build/D
export LD_LIBRARY_PATH=$PWD/build/D/devlibs:${LD_LIBRARY_PATH:-}
G=build/D/gpulab
summ() {
python3 - $1 <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('cublasSgemm')
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, {k:round(r/x,3) for k,x in t.items() if r}, 'ozaki/3xtf32', round(t['wgmma_3xtf32']/t['ozaki2_guarded'],3))
PY
}
times() {
  timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $G run sgemm -s $1 --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
}
{
  echo "== $(date -u +%FT%TZ) commit D $(cat build/D/COMMIT), parts: ncu times 4096^3 and 8192^3, the rule's edge swept (two rounds)"
  for s in 4096 8192; do echo "-- $s^3"; times $s; done
  S=4096,2048x8192x4096,8192x2048x4096,4096x2048x8192,2048x2048x16384,3072x3072x4096,3072x3072x8192,8192
  for round in 1 2; do
    echo "-- round $round"
    timeout 200 $G bench sgemm -s $S --variants ozaki2_guarded,wgmma_3xtf32,library_fp32_tensor,cublasSgemm --reps 10 --no-cpu --no-ceilings --json $R/sweep_$round.json > /dev/null 2>&1; echo "exit code: $?"
    summ $R/sweep_$round.json
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
