# The call of this record, on the GPU machine with the build of af1c0a8 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h11.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" /tmp/hot
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h11.sh (ncu source view of rung 12: narrow against 256 random bins)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "
import numpy as np
rng = np.random.default_rng(26256)
v = rng.integers(-2**31, 2**31, size=256, dtype=np.int64).astype('<i4')
v[rng.integers(0, 256, size=1 << 26)].tofile('/tmp/hot/k256.bin')"
for f in narrow k256; do
  if [ $f = narrow ]; then IN="-n 2^26 -d narrow"; else IN="--input /tmp/hot/k256.bin"; fi
  timeout 90 /usr/local/cuda/bin/ncu --clock-control none -k regex:hot_cached --launch-count 1 --section WarpStateStats --section SourceCounters --print-details all $B/gpulab bench histogram $IN -m 2^20 --variants hot_cached_global --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_source_$f.txt 2>&1; echo "ncu $f exit $?"
  timeout 90 /usr/local/cuda/bin/ncu --clock-control none -k regex:hot_cached --launch-count 1 --section SourceCounters --page source --csv --print-source sass $B/gpulab bench histogram $IN -m 2^20 --variants hot_cached_global --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/h/ncu_sass_$f.csv 2>&1; echo "ncu sass $f exit $?"
done
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
