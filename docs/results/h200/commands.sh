#!/usr/bin/env bash
# One H200 (session 32): the Ozaki CRT in 64-bit integers (cf4444e): Ozaki/forms/tensor GPU tests,
# memcheck on the guard tests; ncu kernel times at 4096^3 and 8192^3; ncu sections of guard_test and
# reconstruct at 4096^3; the library's rows against cuBLAS FP32 (reps 5).
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
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: Ozaki, forms and tensor GPU tests; memcheck on the guard tests; ncu kernel times 4096^3 and 8192^3; ncu sections of guard_test and reconstruct 4096^3; bench library 4096, 4097, 8192, 16384"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  timeout 150 $T --gtest_filter='SgemmOzaki*:SgemmForms*:SgemmLibrary.TensorCore*' --gtest_brief=1 --gtest_output=json:$R/tests.json 2>&1 | tail -3; echo "tests exit code: ${PIPESTATUS[0]}"
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='SgemmOzaki.Guard*' --gtest_brief=1 > $R/san_memcheck.txt 2>&1; echo "memcheck exit code: $?"; tail -1 $R/san_memcheck.txt
  for s in 4096 8192; do
    echo "-- ncu $s^3"
    timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $G run sgemm -s $s --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}'
  done
  echo "-- ncu sections 4096^3: guard_test, reconstruct"
  timeout 100 ncu --clock-control none --kernel-name regex:"guard_test|reconstruct" --launch-count 2 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats $G run sgemm -s 4096 --variant ozaki2_guarded --reps 1 > $R/ncu_sections.txt 2>&1; echo "ncu exit code: $?"
  grep -E "guard_test|reconstruct|Duration|Memory Throughput|DRAM Through|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issued Warp|No Eligible|Stall|Warp Cycles Per Issued|Block Limit" $R/ncu_sections.txt | cut -c1-120
  timeout 150 $G bench sgemm -s 4096,4097,8192,16384 --variants ozaki2_guarded,library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --md $R/library.md --json $R/library.json > $R/library.txt 2>&1; echo "exit code: $?"
  summ $R/library.json
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
