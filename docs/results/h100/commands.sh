# The call of this record, on the GPU machine with the build of 3ba02f4 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h14.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" /tmp/hot
[ -x $B/gpulab ] || tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h14.sh (rungs 12 and 14, inputs drawn from k values)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 - <<'PY'
import numpy as np
for logn in (24, 26):
    for k in (512, 1024, 2048, 4096, 8192, 16384):
        rng = np.random.default_rng(1000 * logn + k)
        v = rng.integers(-2**31, 2**31, size=k, dtype=np.int64).astype('<i4')
        v[rng.integers(0, k, size=1 << logn)].tofile(f'/tmp/hot/n{logn}_k{k}.bin')
print('inputs written')
PY
for f in /tmp/hot/n*_k*.bin; do
  b=$(basename $f .bin)
  timeout 60 $B/gpulab bench histogram --input $f -m 2^17,2^20 --variants hot_cached_global,range_ranked,library --no-cpu --no-ceilings --reps 10 --json $OUT/h/$b.json > /dev/null 2>&1; echo "$b exit $?"
done
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
