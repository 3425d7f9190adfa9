# The call of this record, on the GPU machine with the build of 3308124 carried (scripts/pack_device.sh ci's build/ci-device.tar.xz)
export GPULAB_BIN=build/ci-device
GPU_TESTS='HistogramWeighted.*' bash scripts/device_run.sh tests
build/ci-device/gpulab bench weighted_histogram --variants 2,3,4 --no-cpu --json $OUT/extra/weighted.json > $OUT/extra/weighted.txt
