# The call of this record, on the GPU machine with the build of 030dc43 carried (build/device.tar.xz)
# and this script, run as: bash build/call_o9.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
S=1000,1024,768,1536,896x896x2048,3000,2000x3000x1000
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o9.sh (sgemm: 64x128 big tiles compiled for one block an SM, forced beside the other 64x128 configurations)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.EveryTile*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
for r in 1 2; do
  $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/tuner_$r.json > /dev/null; echo "tuner $r exit $?"
  for c in 2 8 10 11 12 13; do
    GPULAB_EXP_CONFIG=$c $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 10 --json $OUT/w/c${c}_$r.json > /dev/null; echo "c$c $r exit $?"
  done
done
for s in 1000 1024 1536; do $B/gpulab run sgemm --variant library -s $s --reps 3 2>&1 | grep "^\* [a-z_]*[0-9]" | head -3; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
