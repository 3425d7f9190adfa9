# The call of this record, on the GPU machine with the build of 8361b5f carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_c.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/c"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_c.sh (transpose rung 7 with 16-byte stores: tests, memcheck, bench, ncu)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 150 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*transpose*:MatrixLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/c/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B/tests/gpulab_gpu_tests --gtest_filter='*MatrixLadder*small_*tile_realigned*:MatrixLibrary.LargeOddWidthsTakeTheRealignedPath' --gtest_brief=1 2>&1 | tail -3; echo "memcheck exit ${PIPESTATUS[0]}"
echo "== transpose bench"
$B/gpulab bench transpose -s 16383x16385,16384x16385,16385x16383,8191x8193,4095x4097,3001x2999,16384x16384 --layout packed --variants 6,7,library,vendor --no-cpu --json $OUT/c/transpose_odd.json --md $OUT/c/transpose_odd.md > /dev/null; echo "transpose exit $?"
echo "== ncu"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
timeout 100 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 6 $B/gpulab bench transpose -s 16383x16385 --layout packed --variants 7,vendor --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/c/ncu_transpose_odd.txt 2>&1; echo "ncu exit $?"
tar czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c; echo "== done $(date -u +%FT%TZ)"
