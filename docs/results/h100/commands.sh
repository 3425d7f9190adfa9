# The call of this record, on the GPU machine with the build of 697f46a carried (build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh tests
