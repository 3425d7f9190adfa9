# The call of this record, on the GPU machine with the build of 66e23a5 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h15.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" /tmp/hot
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h13.sh (the sample bound at 1024 distinct bins, with rung 12 claiming free slots)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 100 $B/gpulab sanitize histogram --md $OUT/h/sanitize.md > /dev/null 2>&1; echo "sanitize exit $?"
grep -E "hot_cached|gpulab::histogram" $OUT/h/sanitize.md
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(2026)
pick = rng.integers(0, 256, size=1 << 26)
for name, base, step in (("signed", -128, 1), ("low", 0, 1), ("high", 100000, 1), ("spaced", 0, 4096)):
    (base + step * pick).astype('<i4').tofile(f'/tmp/hot/{name}.bin')
for k in (256, 1024, 2048, 4096):
    rng = np.random.default_rng(26000 + k)
    v = rng.integers(-2**31, 2**31, size=k, dtype=np.int64).astype('<i4')
    v[rng.integers(0, k, size=1 << 26)].tofile(f'/tmp/hot/n26_k{k}.bin')
print('inputs written')
PY
for f in low spaced n26_k256 n26_k1024 n26_k2048 n26_k4096; do
  timeout 60 $B/gpulab bench histogram --input /tmp/hot/$f.bin -m 2^17,2^20 --variants hot_cached_global,range_ranked,library --no-cpu --no-ceilings --reps 10 --json $OUT/h/$f.json > /dev/null 2>&1; echo "$f exit $?"
done
timeout 150 $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10 --json $OUT/h/hist_ranked.json --md $OUT/h/hist_ranked.md > /dev/null; echo "grid exit $?"
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
