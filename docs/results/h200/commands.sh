#!/usr/bin/env bash
# One H200 (session 32): the Ozaki rule's edge again at 8b014a9 (the reconstruction and the guard's
# test faster since eb2370e): rung 17 (ozaki2_guarded) ÷ rung 13 (wgmma_3xtf32), two rounds, shapes
# below the rule (k < 4096 or m·n·k < 2^36).
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
summ() {
python3 - $1 <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('wgmma_3xtf32'); o=t.get('ozaki2_guarded'); v=t.get('cublasSgemm')
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, 'rung17/rung13 speed', round(r/o,3), 'rung17 x cuBLAS', round(v/o,3))
PY
}
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: bench rung 17 against rung 13 below the Ozaki rule, two rounds"
  for round in 1 2; do
    timeout 250 $G bench sgemm -s 3072x3072x4096,4096x4096x3072,2048x4096x4096,4096x4096x2048,8192x8192x2048,6144x6144x2048,2048x2048x8192,3072x3072x3072 --variants wgmma_3xtf32,ozaki2_guarded,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/edge$round.json > $R/edge$round.txt 2>&1; echo "exit code: $?"
    summ $R/edge$round.json
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
