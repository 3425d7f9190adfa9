# The calls of this record, each on the GPU machine with the build of 3aa6775 carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
GPULAB_BIN=build/device bash scripts/device_run.sh tests
