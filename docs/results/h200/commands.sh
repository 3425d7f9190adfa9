# The call of this record, on the GPU machine with the build of b913406 carried (build/device.tar.xz)
# and this script, run as: bash build/call_s10.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
mkdir -p build/base && tar xJf build/device_hz2.tar.xz -C build/base
L=$OUT/w/log.txt
S=4096,8192,4097,5000x3000x700,1x4096x4096,4096x1x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7,2048x2048x512,1536,2048,6144x6144x2048
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_s10.sh (sgemm rung 11 staged (SASS of 1d215e1 for the staged kernels, of 88758de for the others): GPU tests, memcheck, the library beside 88758de's build twice, ncu of the staged rung and cuBLAS at 4096^3)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 $B/tests/gpulab_gpu_tests --gtest_filter='*Sgemm*' --gtest_brief=1 --gtest_output=json:$OUT/w/gpu_tests.json 2>&1 | tail -4; echo "tests exit ${PIPESTATUS[0]}"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='SgemmLibrary.EveryTileConfiguration*:*SgemmLadder*small*staged*' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
for r in 1 2; do
  $B/gpulab bench sgemm -s $S --variants fragments,staged,library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/new_$r.json --md $OUT/w/new_$r.md > /dev/null; echo "new $r exit $?"
  build/base/device/gpulab bench sgemm -s $S --variants fragments,library,vendor --no-cpu --no-ceilings --reps 10 --json $OUT/w/base_$r.json --md $OUT/w/base_$r.md > /dev/null; echo "base $r exit $?"
done
F=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
for v in staged vendor; do
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none --metrics $F -k regex:'big_tiles|xmma|gemm' -c 1 $B/gpulab bench sgemm -s 4096 --variants $v --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_4096_$v.txt 2>&1; echo "ncu $v exit $?"
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
