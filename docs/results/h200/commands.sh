# One call on an H200 with the build of b639c98 (scripts/pack_device.sh ci): the atax GPU tests, its ladder at the default shapes, Nsight Compute of rung 6 at 8960×17920 (ncu at its base clock)
export GPULAB_BIN=build/ci-device; GPU_TESTS="Atax.StagedRows*" bash scripts/device_run.sh tests
B=build/ci-device/gpulab; $B bench atax --json atax.json > atax.txt
ncu --kernel-name regex:fused_staged --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats $B bench atax -s 8960x17920 --variants library --reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings > ncu_atax_staged.txt
