# One call on an H100 with the build of c4ea8a6 (scripts/pack_device.sh ci): the weighted GPU tests, the weighted ladder and its peers, Nsight Compute of rung 5
export GPULAB_BIN=build/ci-device; GPU_TESTS="HistogramWeighted.*" bash scripts/device_run.sh tests weighted_histogram
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats --section InstructionStats"
ncu --kernel-name regex:digits_add --launch-count 1 $S build/ci-device/gpulab bench weighted_histogram -n 2^26 -m 256 -d uniform -t float32 --variants 5 --reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings > ncu_digits.txt
