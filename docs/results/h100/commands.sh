# The call of this record, on the GPU machine with the build of 27bef50 carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_d.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/d"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_d.sh (transpose rungs 7-8: tests, memcheck, bench, ncu; sgemm library and FFMA share)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*transpose*:MatrixLibrary.*:*SgemmLadder*fragments_*:*SgemmLadder*library_*:SgemmLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/d/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
for tool in memcheck racecheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*small_*tile_realigned*:MatrixLibrary.LargeOddWidthsTakeTheRealignedPath' --gtest_brief=1 2>&1 | tail -3; echo "$tool exit ${PIPESTATUS[0]}"
done
echo "== transpose bench"
$B/gpulab bench transpose -s 16383x16385,16385x16383,8191x8193,4095x4097,3001x2999,16384x16384 --layout packed --variants 6,7,8,library,vendor --no-cpu --json $OUT/d/transpose_odd.json --md $OUT/d/transpose_odd.md > /dev/null; echo "transpose exit $?"
echo "== sgemm"
$B/gpulab bench sgemm -s 4096,8192,4097,5000x3000x700,1x4096x4096,4096x1x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7 --variants library,vendor --no-cpu --reps 10 --json $OUT/d/sgemm_library.json --md $OUT/d/sgemm_library.md > /dev/null; echo "sgemm exit $?"
echo "== ncu"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 100 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 4 $B/gpulab bench transpose -s 16383x16385 --layout packed --variants 7,8 --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/d/ncu_transpose_odd.txt 2>&1; echo "ncu transpose exit $?"
F=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
for v in fragments vendor; do
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none --metrics $F --launch-count 2 $B/gpulab bench sgemm -s 4096 --variants $v --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/d/ncu_sgemm_$v.txt 2>&1; echo "ncu sgemm $v exit $?"
done
tar czf $OUT/d.tgz -C $OUT d && rm -rf $OUT/d; echo "== done $(date -u +%FT%TZ)"
