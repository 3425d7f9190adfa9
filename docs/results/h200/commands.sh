#!/usr/bin/env bash
# One H200 (session 32): A f0f5687 (the reconstruction a row ahead, 16-byte stores; 60 registers) against
# B fa609e3 (the same with __launch_bounds__(256, 5): 48 registers): ncu kernel times of the
# reconstruction at 4096^3 and 8192^3, ncu sections at 4096^3; the library ÷ cuBLAS FP32 in two rounds.
for x in A B; do mkdir -p build/x$x && tar xJf build/$x.tar.xz -C build/x$x && mv build/x$x/build/ci-device build/$x 2>/dev/null || mv build/x$x/ci-device build/$x; done
R=$OUT/results; mkdir -p $R
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
  echo "== $(date -u +%FT%TZ) commit $(cat build/A/COMMIT) (A) and $(cat build/B/COMMIT) (B), parts: ncu reconstruction times 4096^3, 8192^3; ncu sections 4096^3; bench library 4096, 8192 two rounds"
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  for x in A B; do
    G=build/$x/gpulab; export LD_LIBRARY_PATH=$PWD/build/$x/devlibs
    for s in 4096 8192; do
      echo "-- $x ncu $s^3"
      timeout 100 ncu --clock-control none --launch-skip 0 --launch-count 14 --metrics gpu__time_duration.sum $G run sgemm -s $s --variant ozaki2_guarded --reps 1 2>&1 | grep -E "^  [a-zA-Z_:<>0-9 ,]+\(|gpu__time_duration" | sed -E 's/\((sgemm_device|gpulab|const|float|GemmArgs|__grid|Resid|Split|unnamed).*//' | cut -c1-100 | paste - - | awk '{print $NF, $(NF-1), $1, $2}' | grep -E "reconstruct|int8_products<7>"
    done
    echo "-- $x ncu sections 4096^3 reconstruct"
    timeout 60 ncu --clock-control none --kernel-name regex:"reconstruct" --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats $G run sgemm -s 4096 --variant ozaki2_guarded --reps 1 > $R/ncu_$x.txt 2>&1
    grep -E "Duration|DRAM Through|Memory Throughput|Achieved Occupancy|Registers Per|Issued Warp|Warp Cycles Per Issued" $R/ncu_$x.txt | cut -c1-100
  done
  for round in 1 2; do for x in A B; do
    G=build/$x/gpulab; export LD_LIBRARY_PATH=$PWD/build/$x/devlibs
    echo "-- $x round $round"
    timeout 100 $G bench sgemm -s 4096,8192 --variants library_fp32_tensor,cublasSgemm --reps 5 --no-cpu --no-ceilings --json $R/library_${x}_$round.json > $R/library_${x}_$round.txt 2>&1; echo "exit code: $?"
    summ $R/library_${x}_$round.json; grep -E "check|fail|FAIL" $R/library_${x}_$round.txt | head -3
  done; done
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
