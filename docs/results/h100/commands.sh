# The calls of this record, each on the GPU machine with the build of 3f92ac1 carried (scripts/test.sh's build/device.tar.xz)
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite
GPULAB_BIN=build/device bash scripts/device_run.sh tests
GPULAB_BIN=build/device bash scripts/device_run.sh notests suite   # again: suite_second_call_compare.md (build/release/gpulab compare suite.json SECOND/suite.json --md …)
GPULAB_BIN=build/device timeout 225 bash scripts/device_run.sh notests sanitize-tests   # device_run.sh of c71d9d1: sanitizer_second_call.txt
