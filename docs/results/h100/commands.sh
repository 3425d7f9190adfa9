# The call of this record, on the GPU machine with the build of 2eff0be carried (build/device.tar.xz)
# and this script, run as: bash build/call_o8.sh
set -u
B=build/device
mkdir -p "$OUT/w"
tar xJf build/device.tar.xz -C build
L=$OUT/w/log.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,smsp__inst_executed_op_global_st.sum,lts__t_sectors_srcunit_tex_op_read.sum
{
echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: build/call_o8.sh (sgemm: the fragments tiles' stores to C with rows 16-byte aligned or not, ncu)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in 8192 8192x8193x8192; do
  timeout 200 /usr/local/cuda/bin/ncu --metrics $M --kernel-name-base demangled -k regex:'big_tiles<.int.4, .bool.1, .int.128, .int.0>' -c 1 --csv $B/gpulab bench sgemm -s $s --variants library --no-cpu --no-ceilings --reps 1 --warmup 0 --e2e-reps 1 > $OUT/w/ncu_$s.csv 2>&1; echo "ncu $s exit $?"
  grep -v "^==PROF==\|CPU ref\|^  11" $OUT/w/ncu_$s.csv | tail -8
done
} > $L 2>&1
tar czf $OUT/w.tgz -C $OUT w && rm -rf $OUT/w
