# The call of this record, on the GPU machine with the build of 2eff0be carried (build/device.tar.xz)
# and this script, run as: bash build/call_o6.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
S=1x4096x4096,2x4096x4096,4x4096x4096,1x2048x8192,1x8192x8192,1x16384x16384,1x4096x16384
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o6.sh (sgemm few rows on clusters: blocks of 128, 256 or 512 columns)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*ew*ows*:SgemmLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "tests exit ${PIPESTATUS[0]}"
for sp in 2 4; do GPULAB_EXP_SPREAD=$sp timeout 120 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*ew*ows*:SgemmLibrary.*' --gtest_brief=1 2>&1 | tail -3; echo "tests spread $sp exit ${PIPESTATUS[0]}"; done
for r in 1 2; do
  $B/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/s1_$r.json > /dev/null; echo "s1 $r exit $?"
  GPULAB_EXP_SPREAD=2 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 20 --json $OUT/w/s2_$r.json > /dev/null; echo "s2 $r exit $?"
  GPULAB_EXP_SPREAD=2 GPULAB_EXP_RANKS=16 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 20 --json $OUT/w/s2r16_$r.json > /dev/null; echo "s2r16 $r exit $?"
  GPULAB_EXP_SPREAD=4 GPULAB_EXP_RANKS=16 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 20 --json $OUT/w/s4r16_$r.json > /dev/null; echo "s4r16 $r exit $?"
  GPULAB_EXP_SPREAD=4 $B/gpulab bench sgemm -s $S --variants library --no-cpu --no-ceilings --reps 20 --json $OUT/w/s4_$r.json > /dev/null; echo "s4 $r exit $?"
done
for sp in 1 4; do GPULAB_EXP_SPREAD=$sp GPULAB_EXP_RANKS=16 $B/gpulab run sgemm --variant library -s 1x4096x4096 --reps 3 2>&1 | grep -v "^\* variant\|Check" | tail -3; done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
