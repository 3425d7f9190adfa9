# The call of this record, on the GPU machine with the build of af1c0a8 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_h9_h200.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/h" /tmp/hot
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_h9.sh (the sample by distinct bins, on the H200)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='Histogram*:*HistogramLadder*gpulab__histogram*:*HistogramLadder*range_*' --gtest_brief=1 --gtest_output=json:$OUT/h/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='HistogramLibrary.*' --gtest_brief=1 2>&1 | tail -2; echo "memcheck exit ${PIPESTATUS[0]}"
python3 - <<'PY'
import numpy as np
for logn in (24, 26):
    for k in (1, 64, 256, 512, 1024, 4096, 65536):
        rng = np.random.default_rng(1000 * logn + k)
        values = rng.integers(-2**31, 2**31, size=k, dtype=np.int64).astype('<i4')
        values[rng.integers(0, k, size=1 << logn)].tofile(f'/tmp/hot/n{logn}_k{k}.bin')
print('inputs written')
PY
for f in /tmp/hot/*.bin; do
  b=$(basename $f .bin)
  timeout 60 $B/gpulab bench histogram --input $f -m 2^17,2^20 --variants hot_cached_global,range_ranked,library --no-cpu --no-ceilings --reps 10 --json $OUT/h/$b.json > /dev/null 2>&1; echo "$b exit $?"
done
timeout 120 $B/gpulab bench histogram -n 2^22,2^24,2^26,2^28 -m 2^17,2^20,2^21,2^24 -d uniform,narrow,degenerate --variants hot_cached_global,range_partitioned,range_ranked,library --no-cpu --reps 10 --json $OUT/h/hist_ranked.json --md $OUT/h/hist_ranked.md > /dev/null; echo "grid exit $?"
tar czf $OUT/h.tgz -C $OUT h && rm -rf $OUT/h; echo "== done $(date -u +%FT%TZ)"
