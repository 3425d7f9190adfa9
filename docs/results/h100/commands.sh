# The call of this record, on the GPU machine with the build of d1b31f1 carried (build/device.tar.xz)
# and this script, run as: bash build/call_w10.sh
set -u
B=build/device
mkdir -p "$OUT/w" build/old
tar xJf build/device.tar.xz -C build
tar xJf build/device_e1a4cb7.tar.xz -C build/old
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_w10.sh (sgemm and scan tests, memcheck of sgemm, few-rows shapes and int8 scans beside $(cat build/old/device/COMMIT))"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*:Scan*:*ScanLadder*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -3
echo "tests exit ${PIPESTATUS[0]}"
timeout 120 $B/gpulab sanitize sgemm --tools memcheck --md $OUT/w/sanitize_sgemm.md > /dev/null 2>&1; echo "memcheck sgemm exit $?"
for i in 1 2; do
  for G in build/old/device build/device; do
    tag=$(cut -c1-7 $G/COMMIT)_$i
    timeout 100 $G/gpulab bench sgemm -s 1x4096x4096,4x4096x4096,8x4096x4096,5x8192x8192,6x16384x4096,8x16384x4096,8x2048x8192,1x2048x8192,1x1024x65536,8x1024x1024,8x4096x16384 --variants library,vendor --no-cpu --reps 20 --json $OUT/w/sgemm_$tag.json > /dev/null 2>&1; echo "sgemm $tag exit $?"
    timeout 100 $G/gpulab bench scan -t int8 -n 2^20,2^24,2^28 --variants library,vendor --no-cpu --reps 20 --json $OUT/w/scan_$tag.json > /dev/null 2>&1; echo "scan $tag exit $?"
  done
done
echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/w/log.txt
cp $OUT/w/log.txt $OUT/log.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
