#!/usr/bin/env bash
# One H200 (session 32): the reconstruction a row ahead with 16-byte stores, the guard test without a
# branch an element (4c858e7): Ozaki/forms/tensor GPU tests, memcheck and racecheck on the guard tests;
# ncu kernel times at 4096^3 and 8192^3; ncu sections of guard_test and of the INT8 products (L2,
# tensor pipe) at 4096^3; the library ÷ cuBLAS FP32 (two rounds), exponent spreads 20 and 60.
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab; T=$B/tests/gpulab_gpu_tests
summ() {
python3 - $1 <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cases']:
    t={v['name']:v['kernel']['median_ms'] for v in c['variants'] if v.get('kernel')}
    r=t.get('cublasSgemm')
    print(c.get('params'), {k:round(x,4) for k,x in t.items()}, {k:round(r/x,3) for k,x in t.items() if r})
PY
}
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Ozaki, forms and tensor GPU tests; memcheck and racecheck on the guard tests; ncu kernel times 4096^3, 8192^3; ncu sections of guard_test and int8_products<7> 4096^3; bench library two rounds; exponents 20 and 60"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 150 $T --gtest_filter='SgemmOzaki*:SgemmForms*:SgemmLibrary.TensorCore*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  for tool in memcheck racecheck; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*' --gtest_brief=1 > $R/san_$tool.txt 2>&1; echo "$tool exit code: $?"; tail -1 $R/san_$tool.txt
  done
  for s in 4096 8192; do
    echo "-- ncu $s^3"
    timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $G run sgemm -s $s --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
  done
  echo "-- ncu sections 4096^3: guard_test"
  timeout 60 ncu --clock-control none --kernel-name regex:"guard_test" --launch-count 1 --section SpeedOfLight --section Occupancy --section SchedulerStats $G run sgemm -s 4096 --variant ozaki2_guarded --reps 1 > $R/ncu_guard_test.txt 2>&1
  grep -E "Duration|DRAM Through|Achieved Occupancy|Registers Per|Issued Warp" $R/ncu_guard_test.txt | cut -c1-100
  echo "-- ncu sections 4096^3 and 8192^3: int8_products<7>"
  for s in 4096 8192; do
  timeout 120 ncu --clock-control none --kernel-name regex:"int8_products<7>" --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --metrics lts__t_sectors_op_read.sum,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_imma.sum,l1tex__m_xbar2l1tex_read_bytes.sum.per_second $G run sgemm -s $s --variant ozaki2_guarded --reps 1 > $R/ncu_products_$s.txt 2>&1
  grep -E "Duration|Throughput|L2 Hit|lts__|sm__pipe|sm__inst|l1tex__m|Busy|Bandwidth" $R/ncu_products_$s.txt | cut -c1-110
  done
  for round in 1 2; do
    timeout 150 $G bench sgemm -s 4096,4097,8192,16384 --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/library$round.md --json $R/library$round.json > $R/library$round.txt 2>&1; echo "exit code: $?"
    summ $R/library$round.json
  done
  for e in 20 60; do
    timeout 100 $G bench sgemm --shapes 8192 --exponents $e --variants ozaki2_guarded,library_fp32_tensor,vendor --no-cpu --no-ceilings --reps 5 --json $R/exponents$e.json 2>&1 | grep -E "^ +(1[0-9]|vendor|library) |^sgemm"
  done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
