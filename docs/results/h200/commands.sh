# Two calls on one H200 with the build of e8d7950 (scripts/pack_device.sh ci): the histogram GPU tests and the weighted ladder, then
# the benches and Nsight Compute of the kernels issue 67 names, at its sizes (ncu at its base clock).
export GPULAB_BIN=build/ci-device; GPU_TESTS="HistogramWeighted.*:HistogramFloat.*" bash scripts/device_run.sh tests weighted_histogram
B=build/ci-device/gpulab; export LD_LIBRARY_PATH=$PWD/build/ci-device/devlibs
for p in "atax -s 8960x17920" "scan -n 2^28 -t int32" "conv -s 7680x4320" "histogram -n 2^26 -m 256"; do set -- $p; $B bench $p --json $OUT/extra/$1.json > $OUT/extra/$1.txt; done
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats"
Q="--reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings"
ncu --kernel-name regex:fused_cooperative --launch-count 1 $S $B bench atax -s 8960x17920 --variants library $Q > ncu_atax.txt
ncu --kernel-name regex:"scan_kernel|scan_staged_kernel" --launch-count 1 $S $B bench scan -n 2^28 -t int32 --variants library $Q > ncu_scan.txt
ncu --kernel-name regex:"lanes|sliding_window|shared_tile" --launch-count 1 $S $B bench conv -s 7680x4320 --variants library $Q > ncu_conv.txt
ncu --kernel-name regex:"superacc|exact" ... (caught no kernel: ncu_super.txt)
