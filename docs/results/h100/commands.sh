# The calls of this record, on one GPU machine with the build of 0ef1646 carried (scripts/pack_device.sh ci's build/ci-device.tar.xz)
export GPULAB_BIN=build/ci-device
# 1. 02:14
GPU_TESTS='HistogramWeighted.*' bash scripts/device_run.sh tests
build/ci-device/gpulab bench weighted_histogram --variants 2,3,4 --no-cpu --json $OUT/extra/weighted.json > $OUT/extra/weighted.txt
# 2. 02:15: Nsight Compute of the exact rung's add kernel (ncu_exact.txt; its clocks at ncu's base, 1.59 GHz)
ncu --kernel-name regex:'exact_add' --launch-count 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
  --section InstructionStats --section SchedulerStats build/ci-device/gpulab bench weighted_histogram -n 2^26 -m 256 -t float32 \
  -d uniform --variants 3 --reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings > $OUT/extra/ncu_exact.txt
