#!/usr/bin/env bash
# One H200 (session 33): deep slices' copies 4 a step over 6 steps (A, f73c24a's code at ba23f99)
# against 2 a step over 12 (B, d584a9f): staged N,T and the library against cuBLAS at 4096³ and
# 8192³, A B A B.
for v in A B; do mkdir -p build/$v && tar xJf build/$v.tar.xz -C build/$v; done
R=$OUT/results; mkdir -p $R
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
  echo "== $(date -u +%FT%TZ) commit $(cat build/A/ci-device/COMMIT) (A) and $(cat build/B/ci-device/COMMIT) (B), parts: bench staged NT, library NT against cuBLAS at 4096^3 and 8192^3, A B A B"
  for round in 1 2; do
    for v in A B; do
      export LD_LIBRARY_PATH=$PWD/build/$v/ci-device/devlibs
      timeout 120 build/$v/ci-device/gpulab bench sgemm -s 4096,8192 --forms NT --variants staged,library,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/nt_$v$round.json > $R/nt_$v$round.txt 2>&1; echo "$v round $round exit code: $?"
      summ $R/nt_$v$round.json
    done
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
