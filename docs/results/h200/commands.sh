#!/usr/bin/env bash
# One H200 (session 28): what limits the Ozaki reconstruction (7 moduli, 8192^3): Nsight Compute's
# speed-of-light, memory, compute and warp-state sections on its one launch.
set -u
tar xJf build/ci-device.tar.xz -C build
B=build/ci-device; export LD_LIBRARY_PATH=$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
R=$OUT/results; mkdir -p $R
G=$B/gpulab
{
  echo "== $(date -u +%FT%TZ) commit $(cat $B/COMMIT), parts: ncu of sgemm_ozaki_reconstruct at 8192^3, 7 moduli"
  timeout 200 ncu --kernel-name regex:reconstruct --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section InstructionStats $G run sgemm -s 8192 --variant ozaki2_int8_7 --reps 1 > $R/ncu.txt 2>&1; echo "ncu exit code: $?"
  grep -E "Duration|Throughput|Pipe|Issue|Executed Ipc|Stall|Occupancy|Registers|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Executed Instructions|Warp Cycles|Eligible|One or More|No Eligible|Inst Executed|Branch" $R/ncu.txt | head -60
  echo "== done $(date -u +%FT%TZ)"
} 2>&1 | tee $OUT/log.txt
tar czf $OUT/results.tgz -C $OUT results && rm -rf $OUT/results
