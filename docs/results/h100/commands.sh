# The call of this record, on the GPU machine with the build of 4b75d82 carried (build/device.tar.xz)
# and this script, run as: bash build/call_x20.sh
set -u
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
G=build/device
{
echo "== $(date -u +%FT%TZ) commit $(cat $G/COMMIT), parts: build/call_x20.sh (1 KB runs in the cluster kernel)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=1x4096x4096,2x4096x4096,4x4096x4096,1x8192x8192,1x16384x16384,1x2048x8192,1x1024x65536
for i in 1 2; do
  timeout 60 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/rule_$i.json > /dev/null 2>&1; echo "rule $i exit $?"
  for f in 2:16 2:8 1:16; do
    GPULAB_X_SPAN=${f%:*} GPULAB_X_RANKS=${f#*:} timeout 60 $G/gpulab bench sgemm -s $S --variants library,vendor --no-cpu --no-ceilings --reps 20 --json $OUT/w/span${f%:*}_ranks${f#*:}_$i.json > /dev/null 2>&1; echo "span $f $i exit $?"
  done
done
GPULAB_X_SPAN=2 timeout 100 $G/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.FewRowsCluster*' --gtest_brief=1 2>&1 | tail -2
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
