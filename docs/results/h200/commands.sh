# The call of this record, on the GPU machine with the build of 3aa6775 carried (build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
