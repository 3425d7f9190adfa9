# The call of this record, on the GPU machine with the build of 0f0d6d6 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s6.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s6.sh (sgemm staged big tiles barrier after the first fragment loads; the issue shapes: tests, memcheck, forced configurations; ncu per-instruction stall samples at 1000^3)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.*:*SgemmLadder*a128x*:*SgemmLadder*a64x*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.EveryTileConfiguration*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
$B/gpulab bench sgemm -s 1000,768,1536,4096,8192,4097,5000x3000x700,2048x2048x512 --variants f128x256,a128x256,f128x128,a128x128,f64x128,a64x128,library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/forced.json --md $OUT/w/forced.md > /dev/null; echo "bench exit $?"
$B/gpulab bench sgemm -s 4096,8192,4097,5000x3000x700,1x4096x4096,4096x1x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7 --variants library,vendor --no-cpu --reps 10 --json $OUT/w/sgemm_library.json --md $OUT/w/sgemm_library.md > /dev/null; echo "library exit $?"
for v in a64x128; do
  timeout 150 /usr/local/cuda/bin/ncu --section WarpStateStats --section SourceCounters --section LaunchStats -k regex:'big_tiles|xmma' -c 1 -o $OUT/w/src_$v $B/gpulab bench sgemm -s 1000 --variants $v --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_src_$v.txt 2>&1; echo "ncu $v exit $?"
  timeout 100 /usr/local/cuda/bin/ncu -i $OUT/w/src_$v.ncu-rep --page source --csv --print-source sass > $OUT/w/sass_$v.csv 2>&1; echo "page $v exit $?"
  timeout 100 /usr/local/cuda/bin/ncu -i $OUT/w/src_$v.ncu-rep --page details > $OUT/w/details_$v.txt 2>&1
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
