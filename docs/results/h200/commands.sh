# The calls of this record, each on the GPU machine with the build of 3f92ac1 carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
