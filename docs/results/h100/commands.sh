# The call of this record, on the GPU machine with the build of b3ddbce carried (scripts/pack_device.sh ci's build/ci-device.tar.xz)
export GPULAB_BIN=build/ci-device
GPU_TESTS='HistogramFloat.*:HistogramWeighted.*' bash scripts/device_run.sh tests float_histogram
ncu --kernel-name regex:'replicated_resident' --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
  --section WarpStateStats --section InstructionStats build/ci-device/gpulab bench float_histogram -n 2^26 -m 256 -t float32 \
  --form range --variants library --reps 1 --warmup 0 --e2e-reps 1 --no-cpu --no-ceilings > $OUT/extra/ncu_f32_256.txt
