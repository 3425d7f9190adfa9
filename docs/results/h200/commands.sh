# Two calls on an H200 with the build of ffbd562 carried (build/ci-device.tar.xz); the call scripts were kept beside the build, not in the tree:
# 1: the weighted histograms' GPU tests, then ncu (SpeedOfLight, Occupancy, WarpStateStats, MemoryWorkloadAnalysis, SchedulerStats, LaunchStats; --clock-control none):
build/ci-device/tests/gpulab_gpu_tests --gtest_filter='HistogramWeighted.*'
ncu $SECTIONS -k regex:read_stream --launch-count 1 gpulab ceilings > ncu_read.txt
ncu $SECTIONS --nvtx --nvtx-include 'regex:gpulab@case [0-9]+ rung [0-9]+/' gpulab profile atax -s 8960x17920 --variants 4,5,vendor --ncu-target > ncu_atax.txt
ncu $SECTIONS (same filter) gpulab profile scan -n 2^28 -t int32 --variants 5,library,vendor --ncu-target > ncu_scan.txt
ncu $SECTIONS (same filter) gpulab profile conv -s 7680x4320 --variants library,vendor --ncu-target > ncu_conv.txt
# 2: benches
gpulab bench weighted_histogram -n 2^26 -m 256,656 -t float32,float64 --json wh_small.json --md wh_small.md
gpulab bench weighted_histogram -n 2^24 -m 2^20,2^24 -t float32,float64 -d uniform,degenerate --variants 5,6,library --no-cpu --json wh_large.json --md wh_large.md
gpulab bench atax -s 8959x17920,8960x17920 --variants 4,5,vendor --no-cpu --json atax_ablation.json --md atax_ablation.md
