# The call of this record, on the GPU machine with the build of c80ed92 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_f.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/e"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_f.sh (transpose rung 8 pipelined: tests, sanitizers, bench, ncu)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*transpose*:MatrixLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/e/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*small_*tile_realigned*' --gtest_brief=1 2>&1 | tail -2; echo "$tool exit ${PIPESTATUS[0]}"
done
echo "== transpose bench"
$B/gpulab bench transpose -s 16383x16385,16385x16383,8191x8193,4095x4097,3001x2999,16384x16384 --layout packed --variants 6,7,8,library,vendor --no-cpu --json $OUT/e/transpose_odd.json --md $OUT/e/transpose_odd.md > /dev/null; echo "transpose exit $?"
$B/gpulab bench transpose -s 16383x16385,16385x16383,8191x8193,4095x4097,3001x2999,16384x16384 --layout packed --variants 6,7,8,library,vendor --no-cpu --json $OUT/e/transpose_odd2.json --md $OUT/e/transpose_odd2.md > /dev/null; echo "transpose exit $?"
echo "== ncu"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
for v in 7 8; do
timeout 100 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 2 $B/gpulab bench transpose -s 16383x16385 --layout packed --variants $v --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/e/ncu_transpose_odd_$v.txt 2>&1; echo "ncu $v exit $?"
done
tar czf $OUT/e.tgz -C $OUT e && rm -rf $OUT/e; echo "== done $(date -u +%FT%TZ)"
