# The call of this record, on the GPU machine with the build of c932a8c carried (build/device.tar.xz)
# and this script, run as: timeout 560 bash call_b.sh 2>&1 | tee $OUT/log.txt
set -u
B=build/device
mkdir -p "$OUT/b"
tar xJf build/device.tar.xz -C build
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_b.sh (sgemm FMA order on this device; ncu of the packed odd transpose)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== tests"
timeout 120 $B/tests/gpulab_gpu_tests --gtest_filter='*SgemmLadder.MatchesReference/*fragments_*:*SgemmLadder.MatchesReference/*library_*:SgemmLibrary.*' --gtest_brief=1 --gtest_output=json:$OUT/b/gpu_tests.json 2>&1 | tail -4
echo "tests exit ${PIPESTATUS[0]}"
echo "== sgemm"
$B/gpulab bench sgemm -s 4096,8192,4097,5000x3000x700,1x4096x4096,4096x1x4096,64x64x2^20,2^16x64x64,1000,3000x5000x7 --variants fragments,library,vendor --no-cpu --reps 10 --json $OUT/b/sgemm_library.json --md $OUT/b/sgemm_library.md > /dev/null; echo "sgemm exit $?"
echo "== transpose bench"
$B/gpulab bench transpose -s 16383x16385,16384x16384 --layout packed --variants 6,7,library,vendor --no-cpu --json $OUT/b/transpose_odd.json --md $OUT/b/transpose_odd.md > /dev/null; echo "transpose exit $?"
echo "== ncu"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,lts__d_sectors_fill_sysmem.sum,lts__t_sectors_op_read_lookup_miss.sum
for s in 16383x16385 16384x16384; do
  timeout 150 /usr/local/cuda/bin/ncu --clock-control none --metrics $M --launch-count 12 $B/gpulab bench transpose -s $s --layout packed --variants 6,7,vendor --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/b/ncu_transpose_$s.txt 2>&1; echo "ncu $s exit $?"
done
tar czf $OUT/b.tgz -C $OUT b && rm -rf $OUT/b; echo "== done $(date -u +%FT%TZ)"
