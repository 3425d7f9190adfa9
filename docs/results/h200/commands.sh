# One call on an H200 with the build of 699010d: the weighted GPU tests, the weighted ladder at m = 256, its peers, Nsight Compute of rung 5
export GPULAB_BIN=build/ci-device; GPU_TESTS="HistogramWeighted.*" bash scripts/device_run.sh tests
B=build/ci-device/gpulab; $B bench weighted_histogram -m 256 --json weighted.json > weighted.txt; python3 src/histogram/peers_weighted.py --n 2^26 > peers.txt
ncu --kernel-name regex:digits_add --launch-count 1 (SpeedOfLight Occupancy WarpStateStats SchedulerStats InstructionStats) $B bench weighted_histogram -n 2^26 -m 256 -d uniform -t float32 --variants 5 > ncu_digits.txt
