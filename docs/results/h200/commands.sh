# The call of this record, on the GPU machine with the build of 07e67b1 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o3.sh
set -u
mkdir -p "$OUT/w" build/new build/oldmap
tar xJf build/device_new1.tar.xz -C build/new; tar xJf build/device_oldmap.tar.xz -C build/oldmap
N=build/new/device; O=build/oldmap/device
L=$OUT/w/log.txt
S=4097,2049x2047x1025,2047x2049x2051,2051x2053x301,8193,8192x8193x8192,8192x8192x8193,4096,5000x3000x700
{
echo "== $(date -u +%FT%TZ) commit $(cat $N/COMMIT), parts: build/call_o3.sh (sgemm odd rows: the copies' new rule; B's 4-byte staged copies remapped, beside the build with 063cf71's mapping $(cat $O/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $N/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck initcheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $N/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.Odd*:SgemmLibrary.EveryTile*' --gtest_brief=1 2>&1 | tail -2; echo "$tool exit ${PIPESTATUS[0]}"; done
for r in 1 2; do
  $N/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/new_$r.json --md $OUT/w/new_$r.md > /dev/null; echo "new $r exit $?"
  $O/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/oldmap_$r.json > /dev/null; echo "oldmap $r exit $?"
done
for s in 4097 2049x2047x1025 8193 2051x2053x301; do $N/gpulab run sgemm --variant library -s $s --reps 3 2>&1 | grep -v "^\* variant\|Check" | tail -6; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
