# The call of this record, on the GPU machine with the build of af1c0a8 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h12.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" /tmp/hot
[ -x $B/gpulab ] || tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h12.sh (rung 12 on 256 bins laid out four ways)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(2026)
pick = rng.integers(0, 256, size=1 << 26)
for name, base, step in (("signed", -128, 1), ("low", 0, 1), ("high", 100000, 1), ("spaced", 0, 4096)):
    (base + step * pick).astype('<i4').tofile(f'/tmp/hot/{name}.bin')
print('inputs written')
PY
for f in signed low high spaced; do
  timeout 60 $B/gpulab bench histogram --input /tmp/hot/$f.bin -m 2^20 --variants hot_cached_global,range_ranked,library --no-cpu --no-ceilings --reps 10 --json $OUT/h/$f.json > /dev/null 2>&1; echo "$f exit $?"
done
timeout 60 $B/gpulab bench histogram -n 2^26 -m 2^20 -d narrow --variants hot_cached_global,range_ranked,library --no-cpu --no-ceilings --reps 10 --json $OUT/h/narrow.json > /dev/null 2>&1; echo "narrow exit $?"
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
